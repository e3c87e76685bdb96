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
    LoadedFile,
    RenderedMessage,
    RequestBuilder,
    ToolInput,
    go_json,
)
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


# -- the places the text passes: each a part of the reference (or the adapter) with ``change`` made there ----------


def _argument_changed(part, method, change):
    """``part`` (a part of the reference) whose ``method`` is given its first argument through ``change``."""

    def changed(self, first, *rest, **options):
        return getattr(super(changing, self), method)(change(first), *rest, **options)

    changing = type(f"{part.__name__}ArgumentChanged", (part,), {method: changed})
    return changing


def _result_changed(part, method, change):
    """``part`` (a part of the reference) whose ``method`` passes what it returns through ``change``."""

    def changed(self, *args, **options):
        return change(getattr(super(changing, self), method)(*args, **options))

    changing = type(f"{part.__name__}ResultChanged", (part,), {method: changed})
    return changing


def _wire_messages(kind, change, when=lambda message: True):
    """The reference whose ``kind`` wire encodes the text of each message of which ``when`` holds through ``change``."""

    def changed(messages):
        return [
            RenderedMessage(message.role, change(message.content)) if when(message) else message for message in messages
        ]

    return wire_variant(preprocessed(WIRES[kind], changed))


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


def _stream_deltas(kinds, change):
    """The reference whose stream decoders of the ``kinds`` wires pass each text delta through ``change``."""

    class Provider(HttpProvider):
        def __init__(self, kind, base_url, **options):
            super().__init__(kind, base_url, **options)
            if kind in kinds:
                self.wire = dataclasses.replace(self.wire, stream_event=_each_delta(self.wire.stream_event, change))

    return Provider


def _carried(name, rule, variant, how, changed, *, also=(), modules=()):
    """Register the reference with ``changed`` (an adapter, or the part of the reference with a change made at one
    place: :func:`.reference_with`) as ``name``, a variant of ``rule``."""
    globals()[name] = breaks(rule, how, also, variant, modules)(
        type(name, (changed,), {"__module__": __name__, "__qualname__": name})
    )


# -- the changes ----------------------------------------------------------------------------------------------------


def _without_bom(text):
    return text.removeprefix("\ufeff")


def _content(change, when=lambda message: True):
    """A message whose content goes through ``change`` when ``when`` holds of it."""
    return lambda message: dataclasses.replace(message, content=change(message.content)) if when(message) else message


def _splitlines_joined(text):
    return None if text is None else "\n".join(text.splitlines())


def _normalised(value, normalise):
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, dict):
        return {normalise(key): _normalised(item, normalise) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalised(item, normalise) for item in value]
    return value


def _text_mode_read(file):
    data = universal_newlines(file.data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return LoadedFile(file.path, data, max(file.size - (len(file.data) - len(data)), len(data)))


def _utf8_sig_read(file):
    bom = file.data.startswith(b"\xef\xbb\xbf")
    return LoadedFile(file.path, file.data.removeprefix(b"\xef\xbb\xbf"), file.size - (3 if bom else 0))


def _files_loaded(change):
    """The advisor handler whose loaded files each pass through ``change``."""
    return _result_changed(AdvisorHandler, "load", lambda files: [change(file) for file in files])


# -- shape ----------------------------------------------------------------------------------------------------------

_carried(
    "FileBomDropped",
    "files.render-format",
    "byte-order-mark",
    "a file's bytes are decoded like Python's utf-8-sig or a WHATWG TextDecoder: a leading "
    "byte-order mark is dropped (a decoding mistake, so the decoding control of the format's property blames "
    "files.invalid-utf8 too)",
    _result_changed(RequestBuilder, "decode_content", _without_bom),
    also=("files.invalid-utf8",),
)
_carried(
    "FileContentNfc",
    "files.render-format",
    "nfc-content",
    "a file's content is normalised to NFC after decoding",
    _result_changed(RequestBuilder, "decode_content", nfc),
)
_carried(
    "DisplayPathNfc",
    "files.render-format",
    "nfc-path",
    "the display path is normalised to NFC before it is written",
    _argument_changed(RequestBuilder, "file_block", nfc),
)
_carried(
    "QuestionNfkc",
    "question.trim",
    "nfkc",
    'the question is "cleaned" with NFKC (full-width letters, ligatures and superscripts folded) before it is trimmed',
    _argument_changed(RequestBuilder, "render_question", nfkc),
)
_carried(
    "ToolResultNewlines",
    "flatten.tool-result",
    "universal-newlines",
    "tool output is read back through universal newlines: CRLF and lone CR become LF",
    _argument_changed(RequestBuilder, "render_tool_result", _content(universal_newlines)),
)
_carried(
    "AdvisorNoteNfc",
    "flatten.advisor-note",
    "nfc",
    "an earlier advisor note is normalised to NFC",
    _argument_changed(
        RequestBuilder, "render_tool_result", _content(nfc, when=lambda message: message.name == "advisor")
    ),
)
_carried(
    "AssistantTextNfd",
    "flatten.assistant-with-calls",
    "nfd",
    "an assistant's text before its calls is normalised to NFD (as a macOS file-name round trip does)",
    _argument_changed(
        RequestBuilder,
        "flatten_message",
        _content(lambda text: nfd(text or ""), when=lambda message: message.role == "assistant" and message.tool_calls),
    ),
)
_carried(
    "InFlightSplitlines",
    "inflight.block-layout",
    "splitlines",
    "the in-flight text is split with splitlines() and joined with LF, which also turns "
    "CR, NEL, U+2028, U+2029, VT and FF into LF",
    _argument_changed(RequestBuilder, "render_in_flight", _splitlines_joined),
)
_carried(
    "ArgumentsNfc",
    "flatten.args-json",
    "nfc",
    "tool-call arguments are normalised to NFC, keys and strings, before they are encoded",
    _argument_changed(RequestBuilder, "cap_arguments", functools.partial(_normalised, normalise=nfc)),
)


@breaks("flatten.plain-messages-kept", variant="controls-dropped")
class PlainMessagesSanitised(RequestBuilder):
    """plain messages pass a printable-only sanitiser: NUL, ESC, BEL and DEL dropped"""

    def flatten_message(self, message):
        rendered = super().flatten_message(message)
        if message.role in ("system", "user") or (message.role == "assistant" and not message.tool_calls):
            return RenderedMessage(rendered.role, printable_only(rendered.content))
        return rendered


def _encode_utf16_order(value):
    """Go's encoding of ``value`` (escapes, numbers, cut strings), with each object's keys in the order of their
    UTF-16 code units."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(go_json(key) + ":" + _encode_utf16_order(value[key]) for key in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode_utf16_order(item) for item in value) + "]"
    return go_json(value)


@breaks("flatten.args-json-origin-encoding", variant="utf16-key-order")
class KeysSortedByUtf16(RequestBuilder):
    """object keys are sorted by their UTF-16 code units (JavaScript's default sort, Java's String.compareTo), not their
    UTF-8 bytes"""

    def encode_arguments(self, arguments):
        return _encode_utf16_order(arguments)


# -- a call ---------------------------------------------------------------------------------------------------------

_carried(
    "FilesReadInTextMode",
    "workspace.capped-reader",
    "text-mode",
    "files are read in text mode (Python's open() default, universal newlines): CRLF and lone CR become LF",
    _files_loaded(_text_mode_read),
    modules=RUNTIME,
)
_carried(
    "FilesReadAsUtf8Sig",
    "workspace.capped-reader",
    "utf-8-sig",
    "files are opened with encoding utf-8-sig: a leading byte-order mark is dropped",
    _files_loaded(_utf8_sig_read),
    modules=RUNTIME,
)
_carried(
    "DisplayPathsNfc",
    "workspace.display-path",
    "nfc",
    "display paths are normalised to NFC (as a macOS file system reports names)",
    _files_loaded(lambda file: LoadedFile(nfc(file.path), file.data, file.size)),
    modules=RUNTIME,
)
_carried(
    "ToolInputNfkc",
    "handler.provider-request",
    "nfkc-tool-input",
    'the tool call\'s input is "cleaned" with NFKC when it is decoded, so the question reaches the request folded',
    _result_changed(
        AdvisorHandler, "decode", lambda decoded: ToolInput(question=nfkc(decoded.question), files=decoded.files)
    ),
    modules=RUNTIME,
)
_carried(
    "NoteWithoutInvisibles",
    "handler.note-trimmed",
    "invisibles-dropped",
    "the note passes a sanitiser of invisible characters: zero-width joiners and variation selectors dropped",
    _result_changed(AdvisorHandler, "note", without_invisibles),
    modules=RUNTIME,
)

# -- the wire -------------------------------------------------------------------------------------------------------


_carried(
    "AnthropicMessagesNfc",
    "wire.anthropic-messages",
    "nfc",
    "message texts are normalised to NFC as the Anthropic body is built",
    _wire_messages("anthropic", nfc),
)
_carried(
    "AnthropicSystemJsTrimmed",
    "wire.anthropic-system-blocks",
    "js-trim",
    "system texts are trimmed with JavaScript's trim(), which removes a leading "
    "byte-order mark (and padding the origin keeps)",
    _wire_messages("anthropic", js_trim, when=lambda message: message.role == "system"),
)
_carried(
    "CodexItemsNewlines",
    "wire.codex-instructions",
    "universal-newlines",
    "the Codex input items' texts go through universal newlines",
    _wire_messages("codex", universal_newlines),
)
_carried(
    "OpenAIBodyNfc",
    "handler.provider-request",
    "nfc-openai-body",
    "the OpenAI chat body's message texts are normalised to NFC",
    _wire_messages("openai", nfc),
    modules=RUNTIME,
)

# -- streamed text --------------------------------------------------------------------------------------------------

_carried(
    "AnthropicDeltasNewlines",
    "streaming.anthropic-events",
    "per-delta-newlines",
    "each text delta's line ends are normalised as it arrives, so a CR at the end "
    "of one delta and the LF opening the next become two newlines",
    _stream_deltas({"anthropic"}, universal_newlines),
    modules=RUNTIME,
)
_carried(
    "ChatDeltasNfc",
    "streaming.openai-chunks",
    "per-delta-nfc",
    "each chat and Responses text delta is normalised to NFC as it arrives",
    _stream_deltas({"openai", "codex"}, nfc),
    modules=RUNTIME,
)
