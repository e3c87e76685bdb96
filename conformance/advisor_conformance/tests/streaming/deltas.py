"""Text-delta streams and the insertion of an event into one, shared by the streaming tests."""

from __future__ import annotations

from advisor_conformance.scenarios import Reply

from .answers import anthropic_stream, chat_stream, responses_stream


def _stream(provider, pieces):
    if provider == "anthropic":
        return anthropic_stream([("text", pieces)])
    if provider == "openai":
        return chat_stream(pieces)
    return responses_stream([pieces])


def _with_event(answered, event, at=2):
    """``answered`` (an event stream) with ``event`` (SSE text, blank line included) inserted before its event
    ``at``."""
    events = answered.body.split("\n\n")
    return Reply.events("\n\n".join(events[:at]) + "\n\n" + event + "\n\n".join(events[at:]))


TEXT = ["Check the float64 (\u03b5)", " rounding in refill() \u2014 \U0001f642."]


#: Where the extra event goes: after the first text delta of each helper stream.
AFTER_FIRST_DELTA = {"anthropic": 4, "openai": 2, "codex": 3}
