"""Broken implementations of the shaping rules: transcript, request, flatten, elision, files, question,
dedupe and in-flight. Each is the reference with one RequestBuilder step (or one adapter step) done wrong."""

from __future__ import annotations

import json

from reference import RequestBuilder, decode_utf8, elide_text, file_hash
from reference._files import MAX_FILE_BYTES, cap_file
from reference._transcript import RenderedMessage
from reference.adapter import ReferenceAdapter

from . import breaks


@breaks("elision.marker-format", "the marker's N counts one byte too many (the length plus a terminator)")
class MarkerOffByOne(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def elide_argument_string(self, text):
            data = text.encode("utf-8")
            if len(data) <= 1000:
                return text
            return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data) + 1} bytes total]"


@breaks("elision.threshold", "strings of exactly 1000 bytes are elided too (>= instead of >)")
class ThresholdInclusive(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def elide_argument_string(self, text):
            data = text.encode("utf-8")
            if len(data) < 1000:
                return text
            return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data)} bytes total]"


@breaks("elision.byte-cut", "the cut keeps 1000 characters instead of 1000 bytes")
class CutByCharacters(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def elide_argument_string(self, text):
            size = len(text.encode("utf-8"))
            if size <= 1000:
                return text
            return text[:1000] + f"\u2026[elided, {size} bytes total]"


@breaks("inflight.assistant-removed", "the in-flight message is labelled in the final message but also left in the transcript")
class InFlightLeftInTranscript(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def split_in_flight(self, snapshot):
            _, text = super().split_in_flight(snapshot)
            return snapshot, text


@breaks("flatten.advisor-note", "advisor results are rendered like any other tool result")
class AdvisorNoteAsToolResult(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            if message.role == "tool":
                return RenderedMessage("user", f"[tool_result: {message.name}]\n{message.content or '(empty)'}")
            return super().flatten_message(message)


@breaks("flatten.reasoning-cleared", "reasoning content is kept, prepended to the assistant's text")
class ReasoningLeaked(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            rendered = super().flatten_message(message)
            if message.role == "assistant" and message.reasoning_content:
                return RenderedMessage("assistant", f"{message.reasoning_content}\n{rendered.content}")
            return rendered


@breaks("question.trim", "the question is capped and sent as given, surrounding white space included")
class QuestionNotTrimmed(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_question(self, question):
            if not question.strip():
                return ""
            return elide_text(question, 4000) + "\n\n"


@breaks("request.final-message-order", "the question comes before the files in the final message")
class QuestionBeforeFiles(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def final_message(self, in_flight_block, file_blocks, question_block):
            return in_flight_block + question_block + "".join(file_blocks) + self.strings.guidance_request


@breaks("files.aggregate-cap", "only the per-file cap is applied; the 96 KiB aggregate is forgotten")
class NoAggregateCap(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def cap_files(self, files, deduped):
            return [None if flag else cap_file(f) for f, flag in zip(files, deduped)]


@breaks("dedupe.full-read-definition", "any read of the path with a matching hash dedupes, partial reads included")
class DedupeOnPartialRead(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def dedupe(self, files, snapshot):
            hashes = {}
            for message in snapshot:
                if message.role == "tool" and message.name == "read":
                    try:
                        result = json.loads(message.content)
                        hashes[result["path"]] = result["file_hash"]
                    except (ValueError, KeyError, TypeError):
                        continue
            return [f.size <= MAX_FILE_BYTES and hashes.get(f.path) == file_hash(f.data) for f in files]


@breaks("files.max-count", "the file count check is off by one: nine files pass")
class NineFilesAllowed(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def check_file_count(self, count, at="files"):
            if count > 9:
                super().check_file_count(count, at)


@breaks("files.invalid-utf8", "invalid UTF-8 is decoded with Python's errors='replace' (one U+FFFD per bad sequence)")
class PythonReplaceDecoding(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_files(self, files, snapshot):
            contents = self.cap_files(files, self.dedupe(files, snapshot))
            return [
                f"File: {f.path}\n{self.strings.deduped_file_notice}\n\n" if content is None
                else f"File: {f.path}\n```\n{content.kept.decode('utf-8', 'replace')}{content.marker}\n```\n\n"
                for f, content in zip(files, contents)
            ]
