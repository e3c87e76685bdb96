"""The request builder: system prompt, flattened snapshot, one trailing user message.

Every step is a method so a variant can replace exactly one rule (the
conformance suite's broken implementations do this); each method is a pure
function of its arguments and the declared strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._dedupe import dedupe_flags, full_read, latest_full_read_hashes, may_dedupe
from ._elision import MAX_TOOL_ARG_STRING_BYTES, cap_arguments, elide_text
from ._files import (
    CappedContent,
    LoadedFile,
    cap_file,
    cap_file_contents,
    check_file_count,
    deduped_block_parts,
    file_block_parts,
    file_hash,
)
from ._flatten import render_assistant, render_tool_result
from ._gojson import go_json
from ._strings import REFERENCE_STRINGS, DeclaredStrings
from ._text import decode_utf8, to_valid_unicode, trim_space
from ._transcript import Message, RenderedMessage, ToolCall

MAX_QUESTION_BYTES = 4000


class RequestBuilder:
    """Builds the provider-neutral messages of one advisor request."""

    def __init__(self, strings: DeclaredStrings = REFERENCE_STRINGS) -> None:
        self.strings = strings

    # -- the whole request -------------------------------------------------

    def build(
        self, snapshot: Sequence[Message], question: str = "", files: Sequence[LoadedFile] = ()
    ) -> list[RenderedMessage]:
        """The advisor request for a snapshot, the caller's question and the loaded files."""
        self.check_file_count(len(files))
        transcript, in_flight = self.split_in_flight(snapshot)
        # System prompt, flattened snapshot, one trailing user message (rule: request.message-sequence).
        messages = [RenderedMessage("system", self.strings.system_prompt)]  # rule: request.system-prompt
        # Each message is rendered on its own, so appending never changes an earlier one
        # (rule: request.prefix-stable-on-append).
        messages.extend(self.flatten_message(message) for message in transcript)
        # Files and question go only into the final message (rule: request.prefix-stable-across-calls).
        final = self.final_message(
            self.render_in_flight(in_flight),
            self.render_files(files, snapshot),
            self.render_question(question),
        )
        messages.append(RenderedMessage("user", final))
        return messages

    def final_message(self, in_flight_block: str, file_blocks: Sequence[str], question_block: str) -> str:
        """The trailing user message: in-flight block, files, question, request for guidance, joined once.

        rules: request.final-message-order, request.guidance-request, inflight.label-at-head
        """
        return "".join([in_flight_block, *file_blocks, question_block, self.strings.guidance_request])

    # -- in-flight message -------------------------------------------------

    def split_in_flight(self, snapshot: Sequence[Message]) -> tuple[Sequence[Message], str | None]:
        """Take a trailing assistant message out of the transcript; return its text if not blank.

        Only the last message is looked at. A trailing assistant message is the
        one that issued this advisor call; it is removed so the cached prefix
        ends on a message whose rendering never changes. A last message of any
        other role stays. rule: request.prefix-stable-on-append
        """
        # rules: inflight.last-message-only, inflight.other-role-stays
        if not snapshot or snapshot[-1].role != "assistant":
            return snapshot, None
        text = trim_space(snapshot[-1].content)  # its content, not its tool calls (rule: inflight.empty-dropped)
        return snapshot[:-1], (text or None)  # rules: inflight.assistant-removed, inflight.empty-dropped

    def render_in_flight(self, text: str | None) -> str:
        """The in-flight block: the label, a newline, the trimmed text, a blank line; nothing when absent."""
        if text is None:  # rule: inflight.empty-dropped
            return ""
        return f"{self.strings.inflight_label}\n{text}\n\n"  # rules: inflight.block-layout, inflight.label-at-head

    # -- flattening ----------------------------------------------------------

    def flatten_message(self, message: Message) -> RenderedMessage:
        """One message as text; reasoning content and metadata are not carried over.

        rules: flatten.reasoning-cleared, flatten.metadata-cleared
        """
        if message.role == "tool":  # rule: flatten.tool-result
            return RenderedMessage("user", self.render_tool_result(message))
        if message.role == "assistant" and message.tool_calls:  # rule: flatten.assistant-with-calls
            return RenderedMessage("assistant", render_assistant(message, self.render_tool_call))
        return RenderedMessage(message.role, message.content)  # rule: flatten.plain-messages-kept

    def render_tool_result(self, message: Message) -> str:
        """``[tool_result: <name>]`` (or the advisor-note prefix), a newline, the content or ``(empty)``."""
        return render_tool_result(message, self.strings.advisor_note_prefix)

    def render_tool_call(self, call: ToolCall) -> str:
        """``[tool_call: <name> <args-json>]``, without the call id.

        rules: flatten.tool-call-line, flatten.call-ids-hidden
        """
        return f"[tool_call: {call.name} {self.encode_arguments(self.cap_arguments(call.arguments))}]"

    def cap_arguments(self, arguments: Any) -> Any:
        """The arguments with every long string value elided, at any depth."""
        return cap_arguments(arguments, self.elide_argument_string)

    def elide_argument_string(self, text: str) -> str:
        """One argument string, elided when over 1000 bytes (rule: elision.threshold)."""
        return elide_text(to_valid_unicode(text), MAX_TOOL_ARG_STRING_BYTES)

    def encode_arguments(self, arguments: Any) -> str:
        """The arguments as JSON text, encoded as the origin encodes them (rule: flatten.args-json)."""
        return go_json(arguments)

    # -- files and question --------------------------------------------------

    def check_file_count(self, count: int, at: str = "files") -> None:
        """More than 8 files is an error (duplicates count)."""
        check_file_count(count, at)

    def render_files(self, files: Sequence[LoadedFile], snapshot: Sequence[Message]) -> list[str]:
        """The pieces of all file blocks, in order, after dedupe and the caps."""
        if not files:
            return []
        deduped = self.dedupe(files, snapshot)
        contents = self.cap_files(files, deduped)
        parts: list[str] = []
        for file, content in zip(files, contents, strict=True):  # every file, in order (rule: files.render-format)
            parts.extend(self.deduped_block(file.path) if content is None else self.file_block(file.path, content))
        return parts

    def file_block(self, path: str, content: CappedContent) -> tuple[str, ...]:
        """The pieces of one file block: ``File: <path>``, the fenced content, a blank line."""
        return file_block_parts(path, content, self.decode_content)

    def deduped_block(self, path: str) -> tuple[str, ...]:
        """The pieces of a deduped file's block: ``File: <path>``, the declared notice, a blank line.

        rule: dedupe.notice
        """
        return deduped_block_parts(path, self.strings.deduped_file_notice, self.strings.deduped_file_block)

    def decode_content(self, data: bytes) -> str:
        """A file's kept bytes as text: one U+FFFD per byte that is not part of valid UTF-8.

        rule: files.invalid-utf8
        """
        return decode_utf8(data)

    # -- dedupe ----------------------------------------------------------------

    def dedupe(self, files: Sequence[LoadedFile], snapshot: Sequence[Message]) -> list[bool]:
        """Which files are sent without content because the snapshot holds a matching full read."""
        if not files:
            return []
        return dedupe_flags(files, self.full_read_hashes(snapshot), self.may_dedupe, self.hash_file)

    def full_read_hashes(self, snapshot: Sequence[Message]) -> dict[str, str]:
        """Each display path's ``file_hash`` from its most recent full read in the snapshot."""
        return latest_full_read_hashes(snapshot, read_of=self.full_read)

    def full_read(self, message: Message) -> tuple[str, str] | None:
        """``(path, file_hash)`` when a message is a full read of a file, else None."""
        return full_read(message, self.strings.line_truncation_marker)  # rule: dedupe.full-read-definition

    def may_dedupe(self, file: LoadedFile) -> bool:
        """Whether a file can be deduped at all (not over the per-file cap, read whole)."""
        return may_dedupe(file)

    def hash_file(self, data: bytes) -> str:
        """The read tool's ``file_hash`` of a file's bytes."""
        return file_hash(data)

    # -- caps -------------------------------------------------------------------

    def cap_files(self, files: Sequence[LoadedFile], deduped: Sequence[bool]) -> list[CappedContent | None]:
        """The per-file and aggregate caps; ``None`` for deduped files."""
        return cap_file_contents(files, deduped, self.cap_file)

    def cap_file(self, file: LoadedFile) -> CappedContent:
        """The per-file cap: over 32768 bytes (by true size), the prefix and a marker with the true size."""
        return cap_file(file)

    def render_question(self, question: str) -> str:
        """The question trimmed and capped at 4000 bytes, then a blank line; nothing when blank."""
        text = trim_space(question)  # rule: question.trim
        if not text:  # rule: question.omitted-when-empty
            return ""
        return elide_text(text, MAX_QUESTION_BYTES) + "\n\n"  # rules: question.cap, question.blank-line
