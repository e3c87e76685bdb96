"""Provider event streams as events, the event-stream format's ways of framing them, and the ways of cutting a
stream into reads.

The providers' streams are server-sent events (HTML Living Standard, "Server-sent events", §9.2.6 "Interpreting an
event stream"): lines ended by CRLF, a lone LF or a lone CR; a field is ``name: value``, where one space after the
colon is dropped and the space is optional; a line starting with ``:`` is a comment; ``data`` lines of one event are
joined with LF; ``id`` and ``retry`` are fields a reader handles and the advisor ignores; an unknown field is
ignored; a blank line dispatches the event; one byte-order mark may open the stream and is dropped; the stream is
UTF-8 whatever a ``charset`` parameter says. The standard reads the stream as a sequence of bytes decoded as one
text: where the network cuts it into reads (inside a character of several bytes, between the CR and the LF of one
line end, inside a field name) changes nothing.

An event here is ``(name, data)``: the event name (None: no ``event:`` line) and the data's text (None: no ``data:``
line). :func:`frame` writes events as a stream under one :class:`Framing`; every framing gives a reader of the
standard the same events. :func:`parse` reads a stream's text back to its events, so :func:`reframe` writes any
stream the suite serves in another framing; :func:`cuts` gives the places a :data:`DELIVERIES` mode cuts its bytes
into reads. :data:`FORMS` pairs each framing with a way of cutting, and :func:`form_for` picks one for a test by its
ID, so that every test that serves a stream serves it in one of them (the loopback provider's ``deliver`` hook).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Event = tuple["str | None", "str | None"]


def _named(name: str, data: dict[str, Any]) -> Event:
    return name, json.dumps({"type": name, **data}, ensure_ascii=False)


def anthropic_events(pieces: Sequence[str], stop_reason: str = "end_turn") -> list[Event]:
    """A Messages stream of one text block of ``pieces`` (text deltas)."""
    out = [
        _named(
            "message_start",
            {
                "message": {
                    "id": "msg_01",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude-sonnet-4-5",
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 12, "output_tokens": 1},
                }
            },
        ),
        _named("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        _named("ping", {}),
    ]
    out += [
        _named("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}}) for piece in pieces
    ]
    out += [
        _named("content_block_stop", {"index": 0}),
        _named(
            "message_delta",
            {"delta": {"stop_reason": stop_reason, "stop_sequence": None}, "usage": {"output_tokens": 7}},
        ),
        _named("message_stop", {}),
    ]
    return out


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> Event:
    return None, json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1764400000,
            "model": "gpt-5",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        },
        ensure_ascii=False,
    )


def chat_events(pieces: Sequence[str], finish_reason: str = "stop") -> list[Event]:
    """An OpenAI chat stream: a role chunk, a chunk per piece, the finish chunk and ``[DONE]``."""
    return [
        _chunk({"role": "assistant", "content": ""}),
        *(_chunk({"content": piece}) for piece in pieces),
        _chunk({}, finish_reason),
        (None, "[DONE]"),
    ]


def responses_events(pieces: Sequence[str]) -> list[Event]:
    """A Responses stream of one message whose one output_text part is ``pieces`` (deltas)."""
    text = "".join(pieces)
    item = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return [
        _named("response.created", {"response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        _named(
            "response.output_item.added", {"output_index": 0, "item": {**item, "status": "in_progress", "content": []}}
        ),
        *(
            _named(
                "response.output_text.delta",
                {"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": piece},
            )
            for piece in pieces
        ),
        _named("response.output_text.done", {"item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text}),
        _named(
            "response.completed",
            {
                "response": {
                    "id": "resp_1",
                    "object": "response",
                    "status": "completed",
                    "model": "gpt-5-codex",
                    "output": [item],
                    "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
                }
            },
        ),
    ]


EVENTS = {"anthropic": anthropic_events, "openai": chat_events, "codex": responses_events}
#: The rule of reading each provider's stream (the Responses stream is read under the chat rule, as elsewhere).
STREAM_RULE = {
    "anthropic": "streaming.anthropic-events",
    "openai": "streaming.openai-chunks",
    "codex": "streaming.openai-chunks",
}


@dataclass(frozen=True)
class Framing:
    """How a stream writes its events; the defaults are what the providers send."""

    line_end: str = "\n"  # "\r\n" or "\r" are the standard's other line ends
    space: bool = True  # "data: x"; without it "data:x", the same field value
    bom: bool = False  # a byte-order mark opens the stream
    comments: bool = False  # a comment line before each event (keep-alives)
    keepalives: bool = False  # a comment in a block of its own (a comment line, a blank line) before each event
    ids: bool = False  # id: and retry: fields in each event, and a field the reader does not know
    split_data: bool = False  # each JSON data written over several data: lines (joined with LF by a reader)
    names: bool = True  # event: lines where the provider writes them


PROVIDER_FRAMING = Framing()  # what the providers send


def _field(name: str, value: str, framing: Framing) -> str:
    # A value that opens with a space keeps the separating space whatever the framing: a reader drops one.
    colon = ": " if framing.space or value.startswith(" ") else ":"
    return f"{name}{colon}{value}{framing.line_end}"


def _json_lines(data: str) -> list[str]:
    """``data`` (JSON text) with a line break after every comma outside its strings: the same JSON value once a
    reader joins the lines with LF, whatever the value (white space around it, a text after it, a cut) is."""
    lines, start, in_string, escaped = [], 0, False, False
    for at, char in enumerate(data):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            lines.append(data[start : at + 1])
            start = at + 1
    return [*lines, data[start:]]


def _data_lines(data: str, framing: Framing) -> list[str]:
    if framing.split_data and data.lstrip(" \t\n").startswith(("{", "[")):
        return [line for part in data.split("\n") for line in _json_lines(part)]
    return data.split("\n")  # data that holds LF is one data line a line (a reader joins them with LF)


def frame(events: Sequence[Event], framing: Framing = PROVIDER_FRAMING) -> str:
    """The stream's text: each event as its fields and a blank line, under ``framing``."""
    end = framing.line_end
    out = ["\ufeff"] if framing.bom else []
    for number, (name, data) in enumerate(events):
        if framing.keepalives:
            out.append(f": PROCESSING {number}{end}{end}")
        if framing.comments:
            out.append(f": keep-alive {number} \u2713{end}")
        if framing.ids:
            out.append(_field("id", str(number), framing) + _field("retry", "3000", framing))
            out.append(_field("x-trace", f"t{number}-\u00e9", framing))
        if name is not None and framing.names:
            out.append(_field("event", name, framing))
        if data is not None:
            out.extend(_field("data", line, framing) for line in _data_lines(data, framing))
        out.append(end)
    return "".join(out)


_LINE_END = re.compile(r"\r\n|\r|\n")


def parse(text: str) -> tuple[list[Event], str]:
    """The events of a stream's text as a reader of the standard takes them (name and data; comments, ``id``,
    ``retry`` and unknown fields left out), and the rest: the text after the last blank line, an event the stream
    did not finish (kept as it is, so a cut stream stays cut)."""
    start = 1 if text.startswith("\ufeff") else 0
    events: list[Event] = []
    name: str | None = None
    data: list[str] | None = None
    block, at = start, start
    for match in _LINE_END.finditer(text, start):
        line, at = text[at : match.start()], match.end()
        if not line:
            if name is not None or data is not None:
                events.append((name, None if data is None else "\n".join(data)))
            name, data, block = None, None, at
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data = [*(data or []), value]
    return events, text[block:]


def reframe(text: str, framing: Framing) -> str:
    """``text`` (a stream) written under ``framing``: the same events for a reader of the standard, the unfinished
    rest as it was."""
    events, rest = parse(text)
    return frame(events, framing) + rest


FRAMINGS: dict[str, Framing] = {
    "crlf-line-ends": Framing(line_end="\r\n"),
    "cr-line-ends": Framing(line_end="\r"),
    "no-space-after-colon": Framing(space=False),
    "leading-byte-order-mark": Framing(bom=True),
    "comment-lines": Framing(comments=True),
    # OpenRouter's keep-alives (`: OPENROUTER PROCESSING` and a blank line): a blank line that ends no event.
    "keep-alive-events": Framing(keepalives=True),
    "id-retry-and-unknown-fields": Framing(ids=True),
    "data-over-several-lines": Framing(split_data=True),
    # Every field at once, under each of the other line ends: a reader that takes CR and LF each as a line end sees
    # a blank line, so the end of an event, inside every CRLF-ended event; a keep-alive's blank line after an id,
    # which ends no event either (the standard dispatches only an event with data).
    "crlf-line-ends-every-field": Framing(line_end="\r\n", comments=True, ids=True, split_data=True, keepalives=True),
    "cr-line-ends-every-field": Framing(line_end="\r", comments=True, ids=True, split_data=True, keepalives=True),
}

# -- cutting a stream into reads ---------------------------------------------------------------------------------------

#: A stream of at most this many bytes is delivered one byte a read by the ``byte-at-a-time`` mode (a longer one is
#: cut at every adversarial place instead): every place at once, at the cost of a read a byte.
BYTEWISE_LIMIT = 2048
#: At most this many cuts are made in one stream (spread over it): a long stream still arrives in bounded time.
MAX_CUTS = 2000
_FIELD_NAMES = re.compile(rb"(?m)(?<![^\r\n])(?:data|event|id|retry):")


def _character_cuts(data: bytes) -> list[int]:
    """After the first byte of every character of several bytes (a UTF-8 lead byte is 0b11xxxxxx)."""
    return [at + 1 for at, byte in enumerate(data) if byte >= 0xC0]


def _line_end_cuts(data: bytes) -> list[int]:
    """Before every line end, and between the CR and the LF of every CRLF."""
    out = []
    for match in re.finditer(rb"\r\n|\r|\n", data):
        out.append(match.start())
        if match.end() - match.start() == 2:
            out.append(match.start() + 1)
    return out


def _field_name_cuts(data: bytes) -> list[int]:
    """Inside every field name (after its first two bytes, ``da|ta:``) and after its colon (before the space)."""
    return [cut for match in _FIELD_NAMES.finditer(data) for cut in (match.start() + 2, match.end())]


_VALUES = re.compile(rb"\[DONE\]|(?<=event:)[ ]?[^\r\n]{2,}")


def _value_cuts(data: bytes) -> list[int]:
    """In the middle of every event name and of every end marker (``[DO|NE]``)."""
    return [(match.start() + match.end()) // 2 for match in _VALUES.finditer(data)]


def _adversarial_cuts(data: bytes) -> list[int]:
    """Every place of the kinds above."""
    return sorted({*_character_cuts(data), *_line_end_cuts(data), *_field_name_cuts(data), *_value_cuts(data)})


def _byte_cuts(data: bytes) -> list[int]:
    """After every byte of a short stream; a longer one at every adversarial place."""
    return list(range(1, len(data))) if len(data) <= BYTEWISE_LIMIT else _adversarial_cuts(data)


#: The ways of cutting a stream into reads: name -> the places (byte offsets) of the cuts.
DELIVERIES = {
    "inside-characters": _character_cuts,
    "inside-line-ends": _line_end_cuts,
    "inside-field-names": _field_name_cuts,
    "inside-values": _value_cuts,
    "adversarial": _adversarial_cuts,
    "byte-at-a-time": _byte_cuts,
}


def cuts(data: bytes, delivery: str) -> list[int]:
    """Where ``delivery`` cuts ``data`` (sorted offsets strictly inside it), at most MAX_CUTS of them."""
    places = sorted({at for at in DELIVERIES[delivery](data) if 0 < at < len(data)})
    if len(places) > MAX_CUTS:
        step = len(places) / MAX_CUTS
        places = [places[int(index * step)] for index in range(MAX_CUTS)]
    return places


def reads(data: bytes, delivery: str) -> list[bytes]:
    """``data`` cut into reads as ``delivery`` says."""
    places = [0, *cuts(data, delivery), len(data)]
    return [data[begin:end] for begin, end in zip(places, places[1:], strict=False)]


@dataclass(frozen=True)
class StreamForm:
    """One way a test's streams are served: a framing and a way of cutting into reads."""

    framing: str  # "provider" or a key of FRAMINGS
    delivery: str  # a key of DELIVERIES

    @property
    def name(self) -> str:
        return f"{self.framing}/{self.delivery}"

    def serve(self, body: str | bytes, *, reframed: bool = True) -> list[bytes]:
        """The reads of a stream served in this form (``reframed`` off: its own framing kept, only cut)."""
        if isinstance(body, str):
            framing = FRAMINGS.get(self.framing, PROVIDER_FRAMING)
            body = (reframe(body, framing) if reframed else body).encode("utf-8")
        return reads(body, self.delivery)


#: Every framing, the providers' own included, cut at every adversarial place; and two of them one byte a read
#: (a read a byte costs the most, so only two forms of the rotation do it).
FORMS = [StreamForm(framing, "adversarial") for framing in ("provider", *FRAMINGS)] + [
    StreamForm(framing, "byte-at-a-time") for framing in ("provider", "crlf-line-ends-every-field")
]


def form_for(test_id: str) -> StreamForm:
    """The form of a test's streams, by its ID (``area/test_module.py::test_name[params]``): fixed for the test,
    spread over the forms across the suite's tests."""
    return FORMS[zlib.crc32(test_id.encode("utf-8")) % len(FORMS)]
