"""Long answer and error bodies and their pieces, and a long answer as each provider sends it, shared by the streaming
tests."""

from __future__ import annotations

import random

import pytest

from .answers import (
    anthropic_message,
    anthropic_stream,
    chat_completion,
    chat_stream,
    responses_answer,
    responses_stream,
)

TOKEN = "quota-exceeded-for-model-x7"


#: A long answer's text, about 200 KB: it arrives in many reads whatever the network does.
LONG = "".join(f"Step {index}: check the float64 rounding in refill() \u2014 \u03b5. " for index in range(4000)).strip()


def _pieces(text, size=1000):
    return [text[start:start + size] for start in range(0, len(text), size)]


#: LONG as each provider answers it plainly, a JSON answer: (provider, answer), one parameter a provider.
LONG_ANSWERS = [
    pytest.param("anthropic", anthropic_message([("text", LONG)]), id="anthropic"),
    pytest.param("openai", chat_completion(LONG), id="openai"),
    pytest.param("codex", responses_answer([[LONG]]), id="codex"),
]

#: LONG as each provider streams it, hundreds of events: (provider, answer, the rule of reading that stream), each
#: parameter marked with its rule.
LONG_STREAMS = [
    pytest.param("anthropic", anthropic_stream([("text", _pieces(LONG))]), "streaming.anthropic-events",
                 marks=pytest.mark.rule(id="streaming.anthropic-events"), id="anthropic"),
    pytest.param("openai", chat_stream(_pieces(LONG)), "streaming.openai-chunks",
                 marks=pytest.mark.rule(id="streaming.openai-chunks"), id="openai"),
    pytest.param("codex", responses_stream([_pieces(LONG)]), "streaming.openai-chunks",
                 marks=pytest.mark.rule(id="streaming.openai-chunks"), id="responses"),
]


#: A long answer that no content coding shrinks much (about 200 KB of seeded random words): compressed, it still
#: spans many reads, so a decoder must carry its state from one read to the next.
_NOISE = random.Random(25)
NOISY = " ".join("".join(_NOISE.choices("abcdefghijklmnopqrstuvwxyz0123456789\u00e9\u03b5\u2014", k=7))
                 for _ in range(25000))

#: NOISY as each provider answers it, plainly and streamed: (provider, answer, content type, the rule of reading it).
NOISY_ANSWERS = [
    pytest.param("anthropic", anthropic_message([("text", NOISY)]), "application/json",
                 "streaming.non-streaming-default", marks=pytest.mark.rule(id="streaming.non-streaming-default"),
                 id="anthropic-plain"),
    pytest.param("openai", chat_completion(NOISY), "application/json", "streaming.non-streaming-default",
                 marks=pytest.mark.rule(id="streaming.non-streaming-default"), id="openai-plain"),
    pytest.param("anthropic", anthropic_stream([("text", _pieces(NOISY))]), "text/event-stream",
                 "streaming.anthropic-events", marks=pytest.mark.rule(id="streaming.anthropic-events"),
                 id="anthropic-stream"),
    pytest.param("codex", responses_stream([_pieces(NOISY)]), "text/event-stream", "streaming.openai-chunks",
                 marks=pytest.mark.rule(id="streaming.openai-chunks"), id="responses-stream"),
]
