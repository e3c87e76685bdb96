"""Caller text carried byte for byte in the JSON body of a call over HTTP: the snapshot's text reaches the provider
as UTF-8, nothing normalised, no byte-order mark or line end changed (``advisor_conformance.carriage`` names the
library defaults that do).

What the body carries is compared with what ``shape`` renders for the same input, so a shaping mistake is the
shaping rules' (flatten/test_flatten_carriage.py pins those) and only what the call path adds is blamed here.
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS, where_changed
from advisor_conformance.checks import check
from advisor_conformance.event_streams import EVENTS, frame
from advisor_conformance.scenarios import Reply
from advisor_conformance.shaping import params, shape

from ..common.carriage import CLASSES, PROVIDERS, _http_call

BODY_RULE = {"anthropic": "wire.anthropic-messages", "openai": "handler.provider-request",
             "codex": "wire.codex-instructions"}


def _texts_on_the_wire(provider, body):
    """The texts of the non-system messages of a request body as it arrived."""
    if provider == "anthropic":
        return [block.get("text") for message in body.get("messages", []) for block in message.get("content", [])
                if isinstance(block, dict)]
    if provider == "openai":
        return [message.get("content") for message in body.get("messages", []) if message.get("role") != "system"]
    out = []
    for item in body.get("input", []):
        content = item.get("content")
        out.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content or []))
    return out


@pytest.mark.needs(operations=["scenario", "shape"], capabilities=["http"])  # shape: the rendered snapshot
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("provider", [
    pytest.param(provider, marks=pytest.mark.rule(id=BODY_RULE[provider]), id=provider) for provider in PROVIDERS])
@pytest.mark.needs(areas=["flatten"])  # the text is carried in the snapshot's messages
def test_request_body_carries_the_text_byte_for_byte(impl, lb, provider, name):
    """The JSON body that reaches the provider holds the snapshot's text exactly: UTF-8 on the wire, nothing
    normalised, no byte-order mark or line end changed (a reader of the body as UTF-8 sees the very text)."""
    text = TEXTS[name]
    snapshot = [{"role": "user", "content": text}, {"role": "assistant", "content": "on it"},
                {"role": "user", "content": "go on"}]
    expected = [message["content"] for message in shape(impl, params(snapshot), BODY_RULE[provider])
                if message["role"] != "system"]
    answered = Reply.events(frame(EVENTS[provider](["ok"])))
    _, shown = _http_call(impl, lb, provider, answered, BODY_RULE[provider], snapshot=snapshot, reasoning="high")
    check(len(lb.received) >= 1, BODY_RULE[provider], "no request reached the provider", input=shown)
    body = lb.received[0].body
    check(isinstance(body, dict), BODY_RULE[provider], "the request body is not a JSON object as UTF-8",
          input=shown, actual=body)
    got = _texts_on_the_wire(provider, body)
    check(text in got, BODY_RULE[provider], f"no message of the body carries the snapshot's text as it was "
          f"({where_changed(text, (got or [''])[0])})", input=shown, expected=expected, actual=got)
