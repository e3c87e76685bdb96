"""One broken adapter per entry: a RequestBuilder variant that gets one rule wrong."""

from __future__ import annotations

import json

from reference import REFERENCE_STRINGS, RequestBuilder, decode_utf8, elide_bytes, elide_text, file_hash
from reference._files import MAX_FILE_BYTES, render_deduped_file
from reference._transcript import RenderedMessage
from reference.adapter import ReferenceAdapter


class MarkerOffByOne(RequestBuilder):
    """The elision marker counts one byte too many (the length plus a terminator)."""

    def elide_argument_string(self, text):
        data = text.encode("utf-8")
        if len(data) <= 1000:
            return text
        return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data) + 1} bytes total]"


class ThresholdInclusive(RequestBuilder):
    """Strings of exactly 1000 bytes are elided too (>= instead of >)."""

    def elide_argument_string(self, text):
        data = text.encode("utf-8")
        if len(data) < 1000:
            return text
        return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data)} bytes total]"


class CutByCharacters(RequestBuilder):
    """Elision cuts 1000 characters instead of 1000 bytes."""

    def elide_argument_string(self, text):
        size = len(text.encode("utf-8"))
        if size <= 1000:
            return text
        return text[:1000] + f"\u2026[elided, {size} bytes total]"


class InFlightLeftInTranscript(RequestBuilder):
    """The in-flight assistant message is labelled in the final message but also left in the transcript."""

    def split_in_flight(self, snapshot):
        _, text = super().split_in_flight(snapshot)
        return snapshot, text


class AdvisorNoteAsToolResult(RequestBuilder):
    """Advisor results are rendered like any other tool result."""

    def flatten_message(self, message):
        if message.role == "tool":
            return RenderedMessage("user", f"[tool_result: {message.name}]\n{message.content or '(empty)'}")
        return super().flatten_message(message)


class ReasoningLeaked(RequestBuilder):
    """Reasoning content is kept, prepended to the assistant's text."""

    def flatten_message(self, message):
        rendered = super().flatten_message(message)
        if message.role == "assistant" and message.reasoning_content:
            return RenderedMessage("assistant", f"{message.reasoning_content}\n{rendered.content}")
        return rendered


class QuestionNotTrimmed(RequestBuilder):
    """The question is capped and sent as given, surrounding white space included."""

    def render_question(self, question):
        if not question.strip():
            return ""
        return elide_text(question, 4000) + "\n\n"


class QuestionBeforeFiles(RequestBuilder):
    """The question comes before the files in the final message."""

    def final_message(self, in_flight_block, files_block, question_block):
        return in_flight_block + question_block + files_block + self.strings.guidance_request


class NoAggregateCap(RequestBuilder):
    """Only the per-file cap is applied; the 96 KiB aggregate is forgotten."""

    def cap_files(self, files, deduped):
        return [None if flag else elide_bytes(f.data, MAX_FILE_BYTES, f.size) for f, flag in zip(files, deduped)]


class DedupeOnPartialRead(RequestBuilder):
    """Any read of the path with a matching hash dedupes, partial reads included."""

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


class NineFilesAllowed(RequestBuilder):
    """The file count check is off by one: nine files pass."""

    def check_file_count(self, count):
        if count > 9:
            super().check_file_count(count)


class PythonReplaceDecoding(RequestBuilder):
    """Invalid UTF-8 in files is decoded with Python's errors='replace' (one U+FFFD per bad sequence)."""

    def render_files(self, files, snapshot):
        contents = self.cap_files(files, self.dedupe(files, snapshot))
        return "".join(
            render_deduped_file(f.path, self.strings.deduped_file_notice) if content is None
            else f"File: {f.path}\n```\n{content.decode('utf-8', 'replace')}\n```\n\n"
            for f, content in zip(files, contents)
        )


def _adapter(builder_class):
    class Broken(ReferenceAdapter):
        name = f"broken-{builder_class.__name__}"

        def __init__(self):
            super().__init__(builder_class(REFERENCE_STRINGS))

    Broken.__name__ = builder_class.__name__ + "Adapter"
    Broken.__doc__ = builder_class.__doc__
    return Broken


marker_off_by_one = _adapter(MarkerOffByOne)
threshold_inclusive = _adapter(ThresholdInclusive)
cut_by_characters = _adapter(CutByCharacters)
in_flight_left_in_transcript = _adapter(InFlightLeftInTranscript)
advisor_note_as_tool_result = _adapter(AdvisorNoteAsToolResult)
reasoning_leaked = _adapter(ReasoningLeaked)
question_not_trimmed = _adapter(QuestionNotTrimmed)
question_before_files = _adapter(QuestionBeforeFiles)
no_aggregate_cap = _adapter(NoAggregateCap)
dedupe_on_partial_read = _adapter(DedupeOnPartialRead)
nine_files_allowed = _adapter(NineFilesAllowed)
python_replace_decoding = _adapter(PythonReplaceDecoding)
