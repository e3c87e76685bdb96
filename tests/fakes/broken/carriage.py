"""Broken implementations that change caller text on its way: a byte-order mark removed, Unicode normalised, line ends
changed, control or invisible characters dropped, each at one place the text passes (a file's decoding, the question,
a tool result, the wire, ...). They are variants of their rules (the first broken implementation of each rule is in
the module of its area), and each is the default of some language's library or a common hand-written shortcut:
``advisor_conformance.carriage`` names them.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata

from advisor_reference import (
    AdvisorHandler,
    AdvisorRuntime,
    LoadedFile,
    RenderedMessage,
    RequestBuilder,
    ToolInput,
    go_json,
)
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import WIRES, HttpProvider, StreamState

from . import breaks
from .wire import preprocessed, wire_variant

#: The modules of the call-path carriage tests: the variants of rules with many slow HTTP or workspace tests run
#: against it alone (their rules' other tests run against the rules' first broken implementations).
RUNTIME = (
    "test_workspace_carriage.py",
    "test_handler_carriage.py",
    "test_streaming_carriage.py",
    "test_wire_carriage_http.py",
)

nfc = functools.partial(unicodedata.normalize, "NFC")
nfd = functools.partial(unicodedata.normalize, "NFD")
nfkc = functools.partial(unicodedata.normalize, "NFKC")


def universal_newlines(text: str) -> str:
    """What Python's text mode and many readers make of line ends: CRLF and a lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def printable_only(text: str) -> str:
    """A "sanitiser" that keeps tabs and newlines but drops every other C0 control and DEL."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "", text)


def without_invisibles(text: str) -> str:
    """A sanitiser of "invisible" characters: zero-width joiners and non-joiners, variation selectors."""
    return re.sub("[\u200c\u200d\ufe00-\ufe0f]", "", text)


def js_trim(text: str) -> str:
    """JavaScript's String.prototype.trim(): white space and line terminators, U+FEFF among them."""
    return text.strip(
        " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
        "\u2028\u2029\u202f\u205f\u3000\ufeff"
    )


# -- shape --------------------------------------------------------------------------------------------------------


@breaks(
    "files.render-format",
    "a file's bytes are decoded like Python's utf-8-sig or a WHATWG TextDecoder: a leading "
    "byte-order mark is dropped (a decoding mistake, so the decoding control of the format's property blames "
    "files.invalid-utf8 too)",
    also=("files.invalid-utf8",),
    variant="byte-order-mark",
)
class FileBomDropped(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def decode_content(self, data):
            return super().decode_content(data).removeprefix("\ufeff")


@breaks("files.render-format", "a file's content is normalised to NFC after decoding", variant="nfc-content")
class FileContentNfc(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def decode_content(self, data):
            return nfc(super().decode_content(data))


@breaks("files.render-format", "the display path is normalised to NFC before it is written", variant="nfc-path")
class DisplayPathNfc(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def file_block(self, path, content):
            return super().file_block(nfc(path), content)


@breaks(
    "question.trim",
    'the question is "cleaned" with NFKC (full-width letters, ligatures and superscripts folded) before it is trimmed',
    variant="nfkc",
)
class QuestionNfkc(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_question(self, question):
            return super().render_question(nfkc(question))


@breaks(
    "flatten.tool-result",
    "tool output is read back through universal newlines: CRLF and lone CR become LF",
    variant="universal-newlines",
)
class ToolResultNewlines(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_tool_result(self, message):
            return super().render_tool_result(dataclasses.replace(message, content=universal_newlines(message.content)))


@breaks("flatten.advisor-note", "an earlier advisor note is normalised to NFC", variant="nfc")
class AdvisorNoteNfc(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_tool_result(self, message):
            if message.name == "advisor":
                message = dataclasses.replace(message, content=nfc(message.content))
            return super().render_tool_result(message)


@breaks(
    "flatten.plain-messages-kept",
    "plain messages pass a printable-only sanitiser: NUL, ESC, BEL and DEL dropped",
    variant="controls-dropped",
)
class PlainMessagesSanitised(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            rendered = super().flatten_message(message)
            if message.role in ("system", "user") or (message.role == "assistant" and not message.tool_calls):
                return RenderedMessage(rendered.role, printable_only(rendered.content))
            return rendered


@breaks(
    "flatten.assistant-with-calls",
    "an assistant's text before its calls is normalised to NFD (as a macOS file-name round trip does)",
    variant="nfd",
)
class AssistantTextNfd(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            if message.role == "assistant" and message.tool_calls:
                message = dataclasses.replace(message, content=nfd(message.content or ""))
            return super().flatten_message(message)


@breaks(
    "inflight.block-layout",
    "the in-flight text is split with splitlines() and joined with LF, which also turns "
    "CR, NEL, U+2028, U+2029, VT and FF into LF",
    variant="splitlines",
)
class InFlightSplitlines(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def render_in_flight(self, text):
            return super().render_in_flight(None if text is None else "\n".join(text.splitlines()))


def _normalised(value, normalise):
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, dict):
        return {normalise(key): _normalised(item, normalise) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalised(item, normalise) for item in value]
    return value


@breaks(
    "flatten.args-json",
    "tool-call arguments are normalised to NFC, keys and strings, before they are encoded",
    variant="nfc",
)
class ArgumentsNfc(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def cap_arguments(self, arguments):
            return super().cap_arguments(_normalised(arguments, nfc))


def _utf16_sorted(value):
    """Objects rebuilt with their keys in the order of their UTF-16 code units (JavaScript's default sort)."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return {key: _utf16_sorted(value[key]) for key in keys}
    if isinstance(value, list):
        return [_utf16_sorted(item) for item in value]
    return value


@breaks(
    "flatten.args-json-origin-encoding",
    "object keys are sorted by their UTF-16 code units (JavaScript's "
    "default sort, Java's String.compareTo), not their UTF-8 bytes",
    variant="utf16-key-order",
)
class KeysSortedByUtf16(ReferenceAdapter):
    class builder_class(RequestBuilder):
        def encode_arguments(self, arguments):
            return _encode_utf16_order(arguments)


def _encode_utf16_order(value):
    """Go's encoding of ``value`` (escapes, numbers, cut strings), with each object's keys in the order of their
    UTF-16 code units."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(go_json(key) + ":" + _encode_utf16_order(value[key]) for key in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode_utf16_order(item) for item in value) + "]"
    return go_json(value)


# -- a call -------------------------------------------------------------------------------------------------------


def _runtime_with(handler_base):
    class Runtime(AdvisorRuntime):
        handler_class = handler_base

    return Runtime


class _TextModeReads(AdvisorHandler):
    def load(self, paths):
        files = super().load(paths)
        out = []
        for file in files:
            data = universal_newlines(file.data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
            out.append(LoadedFile(file.path, data, max(file.size - (len(file.data) - len(data)), len(data))))
        return out


@breaks(
    "workspace.capped-reader",
    "files are read in text mode (Python's open() default, universal newlines): CRLF and lone CR become LF",
    variant="text-mode",
    modules=RUNTIME,
)
class FilesReadInTextMode(ReferenceAdapter):
    runtime_class = _runtime_with(_TextModeReads)


class _BomStrippingReads(AdvisorHandler):
    def load(self, paths):
        return [
            LoadedFile(
                file.path,
                file.data.removeprefix(b"\xef\xbb\xbf"),
                file.size - (3 if file.data.startswith(b"\xef\xbb\xbf") else 0),
            )
            for file in super().load(paths)
        ]


@breaks(
    "workspace.capped-reader",
    "files are opened with encoding utf-8-sig: a leading byte-order mark is dropped",
    variant="utf-8-sig",
    modules=RUNTIME,
)
class FilesReadAsUtf8Sig(ReferenceAdapter):
    runtime_class = _runtime_with(_BomStrippingReads)


class _NfcDisplayPaths(AdvisorHandler):
    def load(self, paths):
        return [LoadedFile(nfc(file.path), file.data, file.size) for file in super().load(paths)]


@breaks(
    "workspace.display-path",
    "display paths are normalised to NFC (as a macOS file system reports names)",
    variant="nfc",
    modules=RUNTIME,
)
class DisplayPathsNfc(ReferenceAdapter):
    runtime_class = _runtime_with(_NfcDisplayPaths)


class _NfkcToolInput(AdvisorHandler):
    def decode(self, raw_input):
        decoded = super().decode(raw_input)
        return ToolInput(question=nfkc(decoded.question), files=decoded.files)


@breaks(
    "handler.provider-request",
    'the tool call\'s input is "cleaned" with NFKC when it is decoded, so the question reaches the request folded',
    variant="nfkc-tool-input",
    modules=RUNTIME,
)
class ToolInputNfkc(ReferenceAdapter):
    runtime_class = _runtime_with(_NfkcToolInput)


class _InvisiblesDropped(AdvisorHandler):
    def note(self, answer):
        return without_invisibles(super().note(answer))


@breaks(
    "handler.note-trimmed",
    "the note passes a sanitiser of invisible characters: zero-width joiners and variation selectors dropped",
    variant="invisibles-dropped",
    modules=RUNTIME,
)
class NoteWithoutInvisibles(ReferenceAdapter):
    runtime_class = _runtime_with(_InvisiblesDropped)


# -- the wire -----------------------------------------------------------------------------------------------------


def _each_text(change):
    return lambda messages: [RenderedMessage(message.role, change(message.content)) for message in messages]


@breaks("wire.anthropic-messages", "message texts are normalised to NFC as the Anthropic body is built", variant="nfc")
class AnthropicMessagesNfc(wire_variant(preprocessed(WIRES["anthropic"], _each_text(nfc)))):
    pass


def _system_js_trimmed(messages):
    return [
        RenderedMessage(message.role, js_trim(message.content)) if message.role == "system" else message
        for message in messages
    ]


@breaks(
    "wire.anthropic-system-blocks",
    "system texts are trimmed with JavaScript's trim(), which removes a leading "
    "byte-order mark (and padding the origin keeps)",
    variant="js-trim",
)
class AnthropicSystemJsTrimmed(wire_variant(preprocessed(WIRES["anthropic"], _system_js_trimmed))):
    pass


@breaks(
    "wire.codex-instructions",
    "the Codex input items' texts go through universal newlines",
    variant="universal-newlines",
)
class CodexItemsNewlines(wire_variant(preprocessed(WIRES["codex"], _each_text(universal_newlines)))):
    pass


@breaks(
    "handler.provider-request",
    "the OpenAI chat body's message texts are normalised to NFC",
    variant="nfc-openai-body",
    modules=RUNTIME,
)
class OpenAIBodyNfc(wire_variant(preprocessed(WIRES["openai"], _each_text(nfc)))):
    pass


# -- streamed text ------------------------------------------------------------------------------------------------


def _each_delta(stream_event, change):
    """A stream decoder whose text deltas pass through ``change`` one by one, as they arrive."""

    def feed(state, event, data):
        scratch = StreamState()
        stream_event(scratch, event, data)
        for piece in [*scratch.joined, *scratch.text]:
            state.add_text(change(piece))
        state.finish_reason = scratch.finish_reason or state.finish_reason
        state.done = state.done or scratch.done

    return feed


def _deltas_changed(kinds, change):
    class Provider(HttpProvider):
        def __init__(self, kind, base_url, **options):
            super().__init__(kind, base_url, **options)
            if kind in kinds:
                self.wire = dataclasses.replace(self.wire, stream_event=_each_delta(self.wire.stream_event, change))

    return Provider


@breaks(
    "streaming.anthropic-events",
    "each text delta's line ends are normalised as it arrives, so a CR at the end "
    "of one delta and the LF opening the next become two newlines",
    variant="per-delta-newlines",
    modules=RUNTIME,
)
class AnthropicDeltasNewlines(ReferenceAdapter):
    http_provider_class = _deltas_changed({"anthropic"}, universal_newlines)


@breaks(
    "streaming.openai-chunks",
    "each chat and Responses text delta is normalised to NFC as it arrives",
    variant="per-delta-nfc",
    modules=RUNTIME,
)
class ChatDeltasNfc(ReferenceAdapter):
    http_provider_class = _deltas_changed({"openai", "codex"}, nfc)
