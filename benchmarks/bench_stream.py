"""Benchmark: parsing a 1 MB streamed answer through the reference client vs iterating it with httpx-sse alone.

Goals (issue 26): for an answer of 1 MB of text (its event stream is larger,
with the JSON of every event), the reference client (a plain parser: every
line of the stream read as the event-stream format says, every event's JSON
decoded whole) costs at most 2x the bare iteration of the same bytes with
httpx-sse, measured in the same run; and its cost is linear in the stream's
size: from a 1 MB answer to a 2 MB one it grows at most 1.2x as much as
httpx-sse's bare iteration of the same streams (the machine's own cost of
fresh memory, which both pay, grows too). Both read the same
in-memory event stream through httpx (a MockTransport, so no socket and no
network noise); the baseline only iterates the server-sent events, the
reference also decodes every event's JSON and assembles the answer. Each
figure is the CPU time of the best of interleaved rounds, so other work on a
shared machine slows neither side.

    python benchmarks/bench_stream.py      # prints the figures, exits 1 if a goal is missed
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import httpx
from _common import Goals, timed
from httpx_sse import EventSource

from advisor_reference._http import HttpProvider
from tests.support.provider_requests import provider_request  # the repository's root is on the path: see _common

BASE = "https://provider.test"
TARGET_BYTES = 1_000_000  # of answer text
RATIO_GOAL = 2.0
LINEAR_GOAL = 1.2  # the client's growth from the 1 MB answer to the 2 MB one, against httpx-sse's
REPEATS = 7


# Real streams send a few tokens per event; these deltas cycle through pieces of 3 to 24 characters.
PIECES = [
    "The",
    " refill",
    " loop",
    " compares",
    " floats exactly;",
    " keep",
    " integer nanoseconds",
    " instead of",
    " float64 tokens,",
    ' and "assert" the',
    " remainder\n",
]


def deltas(target: int = TARGET_BYTES) -> list[str]:
    out, size = [], 0
    while size < target:
        piece = PIECES[len(out) % len(PIECES)]
        out.append(piece)
        size += len(piece)
    return out


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def anthropic_stream(target: int = TARGET_BYTES) -> bytes:
    lines = ['event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10}}}\n']
    for text in deltas(target):
        data = compact({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})
        lines.append(f"event: content_block_delta\ndata: {data}\n")
    lines.append(
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
        '"usage":{"output_tokens":9000}}\n'
    )
    lines.append('event: message_stop\ndata: {"type":"message_stop"}\n')
    return "\n".join(lines).encode() + b"\n"


def openai_stream(target: int = TARGET_BYTES) -> bytes:
    lines = []
    for text in deltas(target):
        data = compact(
            {
                "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
                "object": "chat.completion.chunk",
                "created": 1764400000,
                "model": "gpt-5-2025-08-07",
                "system_fingerprint": None,
                "choices": [{"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": None}],
                "usage": None,
            }
        )
        lines.append(f"data: {data}\n")
    lines.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n')
    lines.append("data: [DONE]\n")
    return "\n".join(lines).encode() + b"\n"


def client_for(body: bytes) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return httpx.Client(transport=httpx.MockTransport(answer))


def measure(kind: str, make: Callable[[int], bytes], repeats: int) -> dict[str, float]:
    """The best CPU times of httpx-sse alone on the 1 MB answer's stream, and of the reference client on it and on
    the 2 MB answer's, in interleaved rounds (a busy moment slows one round of each, not one side)."""
    request = provider_request(max_tokens=16000, reasoning="high", stream=True)
    clients = {"once": client_for(make(TARGET_BYTES)), "twice": client_for(make(2 * TARGET_BYTES))}

    def bare(client: httpx.Client) -> int:
        count = 0
        with client.stream("POST", BASE + "/stream") as response:
            for _ in EventSource(response).iter_sse():
                count += 1
        return count

    providers = {size: HttpProvider(kind, BASE, client=client) for size, client in clients.items()}
    for size, target in (("once", TARGET_BYTES), ("twice", 2 * TARGET_BYTES)):
        answer = providers[size].complete(request)
        assert len(answer.text) >= target, len(answer.text)
    best = dict.fromkeys(("bare once", "once", "bare twice", "twice"), float("inf"))
    for _ in range(repeats):
        for size in ("once", "twice"):
            best[f"bare {size}"] = min(best[f"bare {size}"], timed(lambda size=size: bare(clients[size])))
            best[size] = min(best[size], timed(lambda size=size: providers[size].complete(request)))
    return best


def main() -> int:
    goals = Goals()
    for kind, make in (("anthropic", anthropic_stream), ("openai", openai_stream)):
        best = measure(kind, make, REPEATS)
        ratio = best["once"] / best["bare once"]
        growth, bare_growth = best["twice"] / best["once"], best["bare twice"] / best["bare once"]
        goals.check(
            ratio <= RATIO_GOAL,
            f"{kind}: 1 MB answer in a {len(make()) / 1e6:.2f} MB stream: httpx-sse alone "
            f"{best['bare once'] * 1000:.1f} ms, reference client {best['once'] * 1000:.1f} ms, ratio {ratio:.2f}x "
            f"(goal: at most {RATIO_GOAL:g}x)",
        )
        goals.check(
            growth / bare_growth <= LINEAR_GOAL,
            f"{kind}: a 2 MB answer costs the client {growth:.2f}x the 1 MB one, httpx-sse alone {bare_growth:.2f}x: "
            f"{growth / bare_growth:.2f}x its growth (linear: at most {LINEAR_GOAL:g}x)",
        )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
