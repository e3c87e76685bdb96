"""Broken implementations that read event streams with a hand-written reader, each wrong in one way the format's
parsing algorithm (HTML, "Interpreting an event stream") rules out: lines split on LF only, a field that needs the
space after its colon, only the last of several data lines kept, a field it does not know taken as an error, the
bytes decoded by the declared charset; and three that go wrong where the network cuts the stream into reads: each
read decoded alone (a character cut in two becomes U+FFFD), the end of each read taken as the end of a line (a field
name cut in two is two lines), a CR ending a read taken as a line end of its own (the LF opening the next read is
then a blank line, which ends the event early). They are variants of the streaming rules.

Each replaces the reference's reader in ``HttpProvider.complete_stream`` with :func:`read_reads` (the reads as
they came) and one mistake.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import re
import time

from advisor_reference import ProviderError
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import WIRES, HttpProvider, StreamState

from . import breaks
from .wire import wire_variant

#: The module of the stream-format tests, which these variants run against (their rules' other tests run against
#: the rules' first broken implementations).
FORMAT = ("test_stream_format.py",)
#: The module of the streams cut into reads (and opened by a byte-order mark).
READS = ("test_stream_reads.py",)
#: The module of the streams as providers send them.
CONTENTS = ("test_stream_contents.py",)


def read_events(text, mistake=None):
    """``(event, data)`` pairs of an event stream's text, as the standard reads them but for ``mistake``."""
    if mistake == "lf-only":
        lines = [line.removesuffix("\r") for line in text.split("\n")]
    else:
        lines = re.split(r"\r\n|\r|\n", text if mistake == "bom-kept" else text.removeprefix("\ufeff"))
    yield from _events_of_lines(lines, mistake)


def _lines_of_reads(reads, mistake):
    """The lines of a stream that came in ``reads`` (bytes), carried from read to read as the standard does but for
    ``mistake``: ``lines-per-read`` (a read's end ends its last line), ``cr-at-read-end`` (a CR ending a read ends a
    line, so an LF opening the next ends another)."""
    decoder, head, first = codecs.getincrementaldecoder("utf-8")("replace"), "", True
    for chunk in reads:
        text = decoder.decode(chunk)
        if first and text:
            text, first = text.removeprefix("\ufeff"), False
        pieces = re.split(r"\r\n|\r|\n", head + text)
        head = "" if mistake == "lines-per-read" else pieces.pop()
        yield from pieces
    if head:
        yield head


def read_reads(reads, mistake=None, charset=None):
    """``(event, data)`` pairs of a stream that came in ``reads`` (bytes), as the standard reads them but for
    ``mistake``."""
    if mistake in ("lines-per-read", "cr-at-read-end"):
        yield from _events_of_lines(_lines_of_reads(reads, mistake), None)
    elif mistake == "per-read-decoding":
        yield from read_events("".join(chunk.decode("utf-8", "replace") for chunk in reads))
    else:
        yield from read_events(b"".join(reads).decode(charset or "utf-8", "replace"), mistake)


def _events_of_lines(lines, mistake):
    name, data = "", []
    for line in lines:
        if not line:
            if data:
                yield name or "message", "\n".join(data)
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if mistake == "space-required":
            if not value.startswith(" "):
                continue
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data = [value] if mistake == "last-data-line" else [*data, value]
        elif field in ("id", "retry"):
            continue
        elif mistake == "strict-fields":
            raise ProviderError(f"unexpected line in the event stream: {line[:80]!r}")


def _reader(mistake, kinds=("anthropic", "openai", "codex")):
    class Provider(HttpProvider):
        def complete_stream(self, request, deadline=None):
            if self.wire.kind not in kinds:
                return super().complete_stream(request, deadline)
            deadline = time.monotonic() + self.timeout if deadline is None else deadline
            encoded = self.wire.encode(request, True)
            state = StreamState()

            def call():
                with self.open_response(encoded, deadline) as response:
                    if response.status_code >= 400:
                        self.raise_for_status(
                            response.status_code, self.read_error_body(response, deadline), stream=True
                        )
                    reads = list(response.iter_bytes())  # one a read, as the HTTP client handed them on
                    charset = response.charset_encoding if mistake == "declared-charset" else None
                    for event, data in read_reads(reads, mistake, charset):
                        self.wire.stream_event(state, event, data)
                        if state.done:
                            break
                return state.answer(self.wire.kind)

            return self.send(call, deadline)

    return Provider


#: (class name, rule, variant, mistake, providers, how): one broken implementation each.
READERS = [
    (
        "ChatLinesSplitOnLf",
        "streaming.openai-chunks",
        "lf-only-lines",
        "lf-only",
        ("openai", "codex"),
        "a hand-written reader splits lines on LF only (a lone CR ends no line)",
    ),
    (
        "AnthropicSpaceRequired",
        "streaming.anthropic-events",
        "space-required",
        "space-required",
        ("anthropic",),
        "a hand-written reader takes `data: ` and `event: ` with their space only, so `data:{...}` is skipped",
    ),
    (
        "ChatLastDataLine",
        "streaming.openai-chunks",
        "last-data-line",
        "last-data-line",
        ("openai", "codex"),
        "a hand-written reader keeps only the last data line of an event instead of joining them with LF",
    ),
    (
        "AnthropicStrictFields",
        "streaming.anthropic-events",
        "strict-fields",
        "strict-fields",
        ("anthropic",),
        "a hand-written reader fails on a field it does not know (only event, data, id and retry are expected)",
    ),
    (
        "ChatReadsDecodedAlone",
        "streaming.openai-chunks",
        "per-read-decoding",
        "per-read-decoding",
        ("openai", "codex"),
        "each read of the stream is decoded from UTF-8 on its own, so a character cut between two reads becomes U+FFFD",
    ),
    (
        "AnthropicReadsDecodedAlone",
        "streaming.anthropic-events",
        "per-read-decoding",
        "per-read-decoding",
        ("anthropic",),
        "each read of the stream is decoded from UTF-8 on its own, so a character cut between two reads becomes U+FFFD",
    ),
    (
        "ChatLinePerRead",
        "streaming.openai-chunks",
        "lines-per-read",
        "lines-per-read",
        ("openai", "codex"),
        "each read is split into lines on its own, its last piece taken as a whole line, so a field name cut between "
        "two reads (`da` | `ta: {...}`) is two lines the reader does not know",
    ),
    (
        "AnthropicCrEndsTheRead",
        "streaming.anthropic-events",
        "cr-at-read-end",
        "cr-at-read-end",
        ("anthropic",),
        "a CR at the end of a read is taken as a line end of its own, so the LF of the same CRLF opening the next read "
        "is a blank line that ends the event early",
    ),
    (
        "ChatByteOrderMarkKept",
        "streaming.openai-chunks",
        "byte-order-mark-kept",
        "bom-kept",
        ("openai", "codex"),
        "a byte-order mark opening the stream is kept, read into the first field's name (`\\ufeffdata`), so a first "
        "chunk that carries text is lost",
    ),
    (
        "AnthropicDeclaredCharset",
        "streaming.anthropic-events",
        "declared-charset",
        "declared-charset",
        ("anthropic",),
        "the stream's bytes are decoded by the charset the Content-Type declares (an event stream is always UTF-8)",
    ),
]

for _name, _rule, _variant, _mistake, _kinds, _how in READERS:
    _modules = READS if _mistake in ("per-read-decoding", "lines-per-read", "cr-at-read-end", "bom-kept") else FORMAT
    globals()[_name] = breaks(_rule, _how, variant=_variant, modules=_modules)(
        type(
            _name,
            (ReferenceAdapter,),
            {"http_provider_class": _reader(_mistake, _kinds), "__module__": __name__, "__qualname__": _name},
        )
    )


# -- readers of the providers' events: the format read right, the events wrong -------------------------------------


def _done_on_marker_anywhere(state, event, data):
    if "[DONE]" in data:  # the end marker looked for anywhere in the data, not as the whole of it
        state.done = True
        return
    WIRES["openai"].stream_event(state, event, data)


@breaks("streaming.openai-chunks", variant="end-marker-substring", modules=CONTENTS)
class ChatEndMarkerAsSubstring(
    wire_variant(dataclasses.replace(WIRES["openai"], stream_event=_done_on_marker_anywhere))
):
    """the chat stream ends at the first data that contains `[DONE]`, so an answer whose text mentions it is cut
    short"""


def _finish_reason_of_every_chunk(state, event, data):
    before = state.finish_reason
    WIRES["openai"].stream_event(state, event, data)
    payload = json.loads(data) if data.strip() != "[DONE]" else None
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if choices and isinstance(choices[0], dict) and "finish_reason" in choices[0]:
        state.finish_reason = choices[0]["finish_reason"] or ""  # a later null erases an earlier reason
    elif state.finish_reason != before:
        state.finish_reason = before


@breaks("streaming.openai-chunks", variant="finish-reason-overwritten", modules=CONTENTS)
class ChatFinishReasonOverwritten(
    wire_variant(dataclasses.replace(WIRES["openai"], stream_event=_finish_reason_of_every_chunk))
):
    """the chat stream's finish reason is taken from every chunk, so a chunk after the finish chunk whose
    finish_reason is null erases the earlier `length` and the token-limit note is lost"""


def _responses_by_event_name(state, event, data):
    payload = json.loads(data) if data.strip() else {}
    if isinstance(payload, dict):
        payload = {**payload, "type": event if event != "message" else ""}  # the name alone says what it is
    WIRES["codex"].stream_event(state, event, json.dumps(payload))


@breaks("streaming.openai-chunks", variant="responses-event-name-only", modules=CONTENTS)
class ResponsesReadByEventName(
    wire_variant(dataclasses.replace(WIRES["codex"], stream_event=_responses_by_event_name))
):
    """Responses events are told apart by their event name alone, never the data's `type`, so a stream whose events
    come without their names reads as one without its text and its final event"""
