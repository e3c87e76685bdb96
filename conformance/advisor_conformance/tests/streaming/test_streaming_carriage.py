"""Caller text carried byte for byte from a provider's stream over HTTP: a stream whose text arrives one character
per delta becomes the note exactly, deltas joined and nothing normalised (``advisor_conformance.carriage`` names the
library defaults that do).
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS
from advisor_conformance.event_streams import EVENTS, STREAM_RULE, frame
from advisor_conformance.scenarios import Reply, result_of

from ..common.carriage import CLASSES, PROVIDERS, _carried, _http_call


@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("provider", [
    pytest.param(provider, marks=pytest.mark.rule(id=STREAM_RULE[provider]), id=provider) for provider in PROVIDERS])
def test_streamed_text_is_carried_byte_for_byte(impl, lb, provider, name):
    """A stream whose text arrives one character per delta (a CR and its LF, a letter and its combining mark, the
    parts of a joined emoji in separate deltas) becomes the note exactly, deltas joined and nothing normalised."""
    text = TEXTS[name]
    answered = Reply.events(frame(EVENTS[provider](list(text))))
    answer, shown = _http_call(impl, lb, provider, answered, STREAM_RULE[provider], reasoning="high")
    note = result_of(answer, 0, STREAM_RULE[provider], shown)
    _carried(note, text, STREAM_RULE[provider], f"the {provider} stream's text was not carried byte for byte", shown)
