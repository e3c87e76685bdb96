"""Broken implementations of the shaping rules: transcript, request, flatten and elision (files and question:
:mod:`.final`; dedupe and in-flight: :mod:`.context`). Each is the reference with one RequestBuilder step (or one
adapter step) done wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from advisor_reference import (
    MAX_FILE_BYTES,
    RenderedMessage,
    RequestBuilder,
    elide_text,
    elision_marker,
    trim_space,
)
from advisor_reference.adapter import ReferenceAdapter

from . import breaks


@breaks("elision.marker-format")
class MarkerOffByOne(RequestBuilder):
    """the marker's N counts one byte too many (the length plus a terminator)"""

    def elide_argument_string(self, text):
        out = super().elide_argument_string(text)
        if out == text:
            return out
        size = int(re.search(r"(\d+) bytes total\]$", out)[1])  # the reference's marker, N the true size
        wrong = elision_marker(size + 1)
        if hasattr(out, "dangling"):  # a cut through a character: keep how the reference writes its bytes
            return type(out).of(out.head, out.dangling, wrong)
        return out.removesuffix(elision_marker(size)) + wrong


@breaks("elision.threshold")
class ThresholdInclusive(RequestBuilder):
    """strings of exactly 1000 bytes are elided too (>= instead of >)"""

    def elide_argument_string(self, text):
        if len(text.encode("utf-8", "surrogatepass")) == 1000 and text.encode("utf-8", "ignore") == text.encode(
            "utf-8", "surrogatepass"
        ):  # exactly 1000 bytes of valid UTF-8
            return text + elision_marker(1000)
        return super().elide_argument_string(text)


@breaks("elision.threshold", variant="characters")
class ThresholdInCharacters(RequestBuilder):
    """the threshold counts characters, not bytes: a string of more than 1000 bytes but at most 1000 characters is
    left whole (longer ones are cut by bytes, as they should be)"""

    def elide_argument_string(self, text):
        return text if len(text) <= 1000 else super().elide_argument_string(text)


@breaks("elision.byte-cut")
class CutByCharacters(RequestBuilder):
    """the cut keeps 1000 characters instead of 1000 bytes"""

    def elide_argument_string(self, text):
        size = len(text.encode("utf-8"))
        if size <= 1000:
            return text
        return text[:1000] + f"\u2026[elided, {size} bytes total]"


@breaks("inflight.assistant-removed")
class InFlightLeftInTranscript(RequestBuilder):
    """the in-flight message is labelled in the final message but also left in the transcript"""

    def split_in_flight(self, snapshot):
        _, text = super().split_in_flight(snapshot)
        return snapshot, text


@breaks("flatten.advisor-note")
class AdvisorNoteAsToolResult(RequestBuilder):
    """advisor results are rendered like any other tool result"""

    def flatten_message(self, message):
        if message.role == "tool":
            return RenderedMessage("user", f"[tool_result: {message.name}]\n{message.content or '(empty)'}")
        return super().flatten_message(message)


def _carried_over(role, field, write):
    """A builder that carries what the reference clears, ``field`` of each ``role`` message that has one, into the
    message's text: ``write(value, text)``."""

    class Builder(RequestBuilder):
        def flatten_message(self, message):
            rendered = super().flatten_message(message)
            value = getattr(message, field)
            if message.role == role and value:
                return RenderedMessage(rendered.role, write(value, rendered.content))
            return rendered

    return Builder


@breaks("flatten.reasoning-cleared")
class ReasoningLeaked(_carried_over("assistant", "reasoning_content", lambda reasoning, text: f"{reasoning}\n{text}")):
    """reasoning content is kept, prepended to the assistant's text"""


@breaks("question.trim")
class QuestionNotTrimmed(RequestBuilder):
    """the question is capped and sent as given, surrounding white space included"""

    def render_question(self, question):
        if not trim_space(question):  # blank by Go's set, as the spec says: only the trimming itself is missing
            return ""
        return elide_text(question, 4000) + "\n\n"


@breaks("request.final-message-order")
class QuestionBeforeFiles(RequestBuilder):
    """the question comes before the files in the final message"""

    def final_message(self, in_flight_block, file_blocks, question_block):
        return in_flight_block + question_block + "".join(file_blocks) + self.strings.guidance_request


@breaks("files.aggregate-cap")
class NoAggregateCap(RequestBuilder):
    """only the per-file cap is applied; the 96 KiB aggregate is forgotten"""

    def cap_files(self, files, deduped):
        return [None if flag else self.cap_file(f) for f, flag in zip(files, deduped, strict=False)]


@breaks("dedupe.full-read-definition")
class DedupeOnPartialRead(RequestBuilder):
    """any read of the path with a matching hash dedupes, partial reads included"""

    def full_read(self, message):
        if message.role == "tool" and message.name == "read":
            try:
                result = json.loads(message.content)
                return result["path"], result["file_hash"]
            except (ValueError, KeyError, TypeError):
                return None
        return None


@breaks("files.max-count")
class NineFilesAllowed(RequestBuilder):
    """the file count check is off by one: nine files pass"""

    def check_file_count(self, count, at="files"):
        if count > 9:
            super().check_file_count(count, at)


@breaks("files.invalid-utf8")
class PythonReplaceDecoding(RequestBuilder):
    """invalid UTF-8 is decoded with Python's errors='replace' (one U+FFFD per bad sequence)"""

    def decode_content(self, data):
        return data.decode("utf-8", "replace")


# -- helpers of the broken implementations below ------------------------------------------------------


class _DeclaresOneRendersAnother(ReferenceAdapter):
    """Declares the reference's strings but builds requests with some of them changed (a CHOICE bug)."""

    rendered: Mapping[str, Callable[[str], str]] = {}

    def __init__(self) -> None:
        changed = {name: change(getattr(self.strings, name)) for name, change in self.rendered.items()}
        super().__init__(self.builder_class(replace(self.strings, **changed)))

    def describe(self, params=None):
        return {**super().describe(params), "strings": self.strings.to_json()}


# -- transcript ------------------------------------------------------------------------------------------


@breaks("transcript.roles")
class NullContentRejected(ReferenceAdapter):
    """an OpenAI-style null content (an assistant message with only tool calls) is rejected as a wrong type instead of
    read as empty text"""

    def shape(self, params):
        transcript = params.get("transcript") if isinstance(params, Mapping) else None
        for index, message in enumerate(transcript if isinstance(transcript, list) else []):
            if isinstance(message, Mapping) and "content" in message and message["content"] is None:
                return {
                    "error": {
                        "code": "invalid_input",
                        "message": "must be a string, got null",
                        "at": f"transcript[{index}].content",
                    }
                }
        return super().shape(params)


@breaks("transcript.malformed-rejected")
class UnknownRolesSkipped(ReferenceAdapter):
    """messages with an unknown role are skipped silently instead of rejected"""

    def shape(self, params):
        if isinstance(params, Mapping) and isinstance(params.get("transcript"), list):
            kept = [
                message
                for message in params["transcript"]
                if not (
                    isinstance(message, Mapping)
                    and isinstance(message.get("role"), str)
                    and message["role"] not in ("system", "user", "assistant", "tool")
                )
            ]
            params = {**params, "transcript": kept}
        return super().shape(params)


# -- request ---------------------------------------------------------------------------------------------


@breaks("request.message-sequence")
class SnapshotSystemMessagesHoisted(RequestBuilder):
    """the snapshot's system messages are moved up to follow the advisor system prompt (as some providers want all
    system text first), reordering the snapshot"""

    def build(self, snapshot, question="", files=()):
        messages = super().build(snapshot, question, files)
        body = messages[1:-1]
        return [
            messages[0],
            *(m for m in body if m.role == "system"),
            *(m for m in body if m.role != "system"),
            messages[-1],
        ]


@breaks("request.system-prompt")
class SystemPromptTrailingNewline(_DeclaresOneRendersAnother):
    """the system prompt is rendered with a trailing newline (read from a template file) that the declared string lacks"""

    rendered = {"system_prompt": lambda text: text + "\n"}


@dataclass(frozen=True)
class _WithToolCalls(RenderedMessage):
    tool_calls: tuple = ()

    def to_json(self):
        return {"role": self.role, "content": self.content, "tool_calls": list(self.tool_calls)}


@breaks("request.no-tools")
class ToolCallsKeptBesideText(RequestBuilder):
    """a flattened assistant message keeps its tool_calls array beside the text"""

    def flatten_message(self, message):
        rendered = super().flatten_message(message)
        if message.role != "assistant" or not message.tool_calls:
            return rendered
        calls = tuple(
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        )
        return _WithToolCalls(rendered.role, rendered.content, calls)


@breaks("request.guidance-request")
class GuidanceTrailingNewline(_DeclaresOneRendersAnother):
    """the request for guidance is rendered with a trailing newline that the declared string lacks"""

    rendered = {"guidance_request": lambda text: text + "\n"}


@breaks("request.prefix-stable-across-calls", also=("request.system-prompt",))
class SystemPromptNamesFiles(RequestBuilder):
    """the system prompt names the attached files, so a call with other files changes the first message (which is then
    not the declared prompt)"""

    def build(self, snapshot, question="", files=()):
        messages = super().build(snapshot, question, files)
        if files:
            note = f"\n\nThe agent attached {len(files)} file(s): {', '.join(f.path for f in files)}."
            messages[0] = RenderedMessage("system", messages[0].content + note)
        return messages


@breaks("request.prefix-stable-on-append")
class OldToolResultsCleared(RequestBuilder):
    """only the three latest tool results keep their content; older ones are cleared, so a result's rendering changes as
    the conversation grows"""

    def build(self, snapshot, question="", files=()):
        self.check_file_count(len(files))
        transcript, in_flight = self.split_in_flight(snapshot)
        tools = [index for index, message in enumerate(transcript) if message.role == "tool"]
        old = set(tools[: max(0, len(tools) - 3)])
        messages = [RenderedMessage("system", self.strings.system_prompt)]
        messages.extend(
            self.flatten_message(replace(m, content="(older result cleared)") if i in old else m)
            for i, m in enumerate(transcript)
        )
        final = self.final_message(
            self.render_in_flight(in_flight), self.render_files(files, snapshot), self.render_question(question)
        )
        return [*messages, RenderedMessage("user", final)]


# -- flatten ---------------------------------------------------------------------------------------------


@breaks("flatten.tool-call-line")
class ToolCallBracketAfterName(RequestBuilder):
    """the tool-call line mirrors the tool-result prefix: `[tool_call: <name>] <args-json>`"""

    def render_tool_call(self, call):
        return f"[tool_call: {call.name}] {self.encode_arguments(self.cap_arguments(call.arguments))}"


@breaks("flatten.assistant-with-calls")
class BlankLineBeforeCalls(RequestBuilder):
    """a blank line, not a single newline, separates the content from the call lines"""

    def flatten_message(self, message):
        if message.role == "assistant" and message.tool_calls and message.content:
            lines = "\n".join(self.render_tool_call(call) for call in message.tool_calls)
            return RenderedMessage("assistant", f"{message.content}\n\n{lines}")
        return super().flatten_message(message)


@breaks("flatten.call-ids-hidden")
class ParallelCallIdsShown(RequestBuilder):
    """when a message makes several calls, each line carries its call id (so parallel results can be told apart)"""

    def flatten_message(self, message):
        rendered = super().flatten_message(message)
        if message.role == "assistant" and len(message.tool_calls) > 1:
            lines = rendered.content.split("\n")
            calls = lines[len(lines) - len(message.tool_calls) :]
            tagged = [f"{line[:-1]} id={call.id}]" for line, call in zip(calls, message.tool_calls, strict=False)]
            return RenderedMessage("assistant", "\n".join([*lines[: len(lines) - len(calls)], *tagged]))
        return rendered


_JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_RAW_CONTROL = {"b": "\b", "f": "\f", "r": "\r", "t": "\t"}


def _control_characters_raw(match):
    escape = match[1]
    if escape in _RAW_CONTROL:
        return _RAW_CONTROL[escape]
    if escape.startswith("u") and int(escape[1:], 16) < 0x20 and escape[1:] != "000a":
        return chr(int(escape[1:], 16))
    return match[0]


@breaks("flatten.args-json")
class ControlCharactersUnescaped(RequestBuilder):
    """a hand-rolled encoder escapes quotes, backslashes and newlines but writes other control characters raw, which is
    not valid JSON"""

    def encode_arguments(self, arguments):
        return _JSON_ESCAPE.sub(_control_characters_raw, super().encode_arguments(arguments))


@breaks("flatten.args-json-origin-encoding")
class PythonJsonDumps(RequestBuilder):
    """declares the origin encoding but uses Python's compact sorted json.dumps: no HTML escapes, U+2028/U+2029 and
    U+FFFD raw, Python's float forms"""

    def encode_arguments(self, arguments):
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@breaks("flatten.tool-result")
class ToolResultTrimmed(RequestBuilder):
    """tool-result content is trimmed of surrounding white space before it is rendered"""

    def render_tool_result(self, message):
        if message.name != "advisor":
            message = replace(message, content=message.content.strip())
        return super().render_tool_result(message)


@breaks("flatten.empty-tool-result")
class EmptyResultLeftBlank(RequestBuilder):
    """the (empty) placeholder is forgotten: an empty result is its prefix and a bare newline"""

    def render_tool_result(self, message):
        rendered = super().render_tool_result(message)
        return rendered.removesuffix("(empty)") if not message.content else rendered


@breaks("flatten.tool-result-uncapped")
class ToolResultsCapped(RequestBuilder):
    """tool results are capped at 32 KiB with the elision marker, like caller files"""

    def flatten_message(self, message):
        if message.role == "tool":
            message = replace(message, content=elide_text(message.content, MAX_FILE_BYTES))
        return super().flatten_message(message)


@breaks("flatten.metadata-cleared")
class ToolResultMetadataAppended(
    _carried_over("tool", "metadata", lambda metadata, text: f"{text}\n{json.dumps(metadata, sort_keys=True)}")
):
    """a tool result's metadata is appended to its text as JSON (meant for exit codes), provider metadata and all"""


@breaks("flatten.plain-messages-kept")
class AssistantTextRightStripped(RequestBuilder):
    """call-free assistant messages are right-stripped (Anthropic rejects an assistant turn ending in white space),
    changing their content"""

    def flatten_message(self, message):
        if message.role == "assistant" and not message.tool_calls:
            return RenderedMessage("assistant", message.content.rstrip())
        return super().flatten_message(message)


@breaks("flatten.deterministic")
class ArgumentsElidedInPlace(RequestBuilder):
    """long argument strings are elided in place, mutating the caller's transcript"""

    def cap_arguments(self, arguments):
        items = arguments.items() if isinstance(arguments, dict) else enumerate(arguments)
        for key, value in list(items):
            if isinstance(value, str):
                arguments[key] = self.elide_argument_string(value)
            elif isinstance(value, (dict, list)):
                self.cap_arguments(value)
        return arguments


# -- elision ---------------------------------------------------------------------------------------------


class _HandWrittenWalk(RequestBuilder):
    """Caps the arguments by a walk of its own: strings elided, objects walked with each key through :meth:`key`, and
    arrays walked when :attr:`walks_arrays`."""

    walks_arrays = True

    def key(self, key):
        return key

    def cap_arguments(self, arguments):
        if isinstance(arguments, str):
            return self.elide_argument_string(arguments)
        if isinstance(arguments, dict):
            return {self.key(key): self.cap_arguments(value) for key, value in arguments.items()}
        if self.walks_arrays and isinstance(arguments, list):
            return [self.cap_arguments(value) for value in arguments]
        return arguments


@breaks("elision.any-depth")
class ArraysNotWalked(_HandWrittenWalk):
    """the walk goes into objects but forgets arrays, so strings inside arrays are not elided"""

    walks_arrays = False


@breaks("elision.non-strings-unchanged")
class KeysElided(_HandWrittenWalk):
    """the walk elides every string it meets, object keys included"""

    def key(self, key):
        return self.elide_argument_string(key)
