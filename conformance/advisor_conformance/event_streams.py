"""Provider event streams as events, and the event-stream format's ways of framing them.

The providers' streams are server-sent events (HTML Living Standard, "Server-sent events", §9.2.6 "Interpreting an
event stream"): lines ended by CRLF, a lone LF or a lone CR; a field is ``name: value``, where one space after the
colon is dropped and the space is optional; a line starting with ``:`` is a comment; ``data`` lines of one event are
joined with LF; ``id`` and ``retry`` are fields a reader handles and the advisor ignores; an unknown field is
ignored; a blank line dispatches the event; one byte-order mark may open the stream and is dropped; the stream is
UTF-8 whatever a ``charset`` parameter says.

An event here is ``(name, data)``: the event name (None: no ``event:`` line) and the data's text. :func:`frame`
writes events as a stream under one :class:`Framing`; every framing gives a reader of the standard the same events.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Event = tuple["str | None", str]


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
    ids: bool = False  # id: and retry: fields in each event, and a field the reader does not know
    split_data: bool = False  # each JSON data written over several data: lines (joined with LF by a reader)
    names: bool = True  # event: lines where the provider writes them


PROVIDER_FRAMING = Framing()  # what the providers send


def frame(events: Sequence[Event], framing: Framing = PROVIDER_FRAMING) -> str:
    """The stream's text: each event as its fields and a blank line, under ``framing``."""
    end, colon = framing.line_end, ": " if framing.space else ":"
    out = ["\ufeff"] if framing.bom else []
    for number, (name, data) in enumerate(events):
        if framing.comments:
            out.append(f": keep-alive {number}{end}")
        if framing.ids:
            out.append(f"id{colon}{number}{end}retry{colon}3000{end}x-trace{colon}t{number}{end}")
        if name is not None and framing.names:
            out.append(f"event{colon}{name}{end}")
        lines = [data]
        if framing.split_data and data.startswith("{"):
            lines = json.dumps(json.loads(data), indent=1, ensure_ascii=False).split("\n")
        out.extend(f"data{colon}{line}{end}" for line in lines)
        out.append(end)
    return "".join(out)


FRAMINGS: dict[str, Framing] = {
    "crlf-line-ends": Framing(line_end="\r\n"),
    "cr-line-ends": Framing(line_end="\r"),
    "no-space-after-colon": Framing(space=False),
    "leading-byte-order-mark": Framing(bom=True),
    "comment-lines": Framing(comments=True),
    "id-retry-and-unknown-fields": Framing(ids=True),
    "data-over-several-lines": Framing(split_data=True),
    # Every field at once, under each of the other line ends: a reader that takes CR and LF each as a line end sees
    # a blank line, so the end of an event, inside every CRLF-ended event.
    "crlf-line-ends-every-field": Framing(line_end="\r\n", comments=True, ids=True, split_data=True),
    "cr-line-ends-every-field": Framing(line_end="\r", comments=True, ids=True, split_data=True),
}
