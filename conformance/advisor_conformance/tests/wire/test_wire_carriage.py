"""Caller text carried byte for byte through ``encode`` (clarifications §9 ORIGIN): a system message's text becomes an
Anthropic system block and the Codex instructions, and every other message's text a text block or an input item,
as it was: no byte-order mark removed, no Unicode normalisation, no line end changed, no control or invisible
character dropped (``advisor_conformance.carriage`` names the library defaults that do).
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS, where_changed
from advisor_conformance.checks import check, violation
from advisor_conformance.wire import encode, neutral_request

from ..common.providers import speaks

CLASSES = list(TEXTS)


def _messages(text):
    return [{"role": "system", "content": text}, {"role": "user", "content": text},
            {"role": "assistant", "content": text}, {"role": "user", "content": "advise me"}]


def _same(got, expected, rule, what, request):
    __tracebackhide__ = True
    if got != expected:
        raise violation(rule, f"{what}: {where_changed(expected, str(got))}", input=request, expected=expected,
                        actual=got)


@pytest.mark.rule(id="wire.anthropic-system-blocks")
@pytest.mark.parametrize("name", CLASSES)
@speaks("anthropic")
def test_anthropic_system_block_carries_the_text_byte_for_byte(impl, name):
    """A system message's text is its Anthropic system block's text exactly."""
    request = neutral_request(_messages(TEXTS[name]))
    body = encode(impl, "anthropic", request, "wire.anthropic-system-blocks")["body"]
    system = body.get("system")
    check(isinstance(system, list) and len(system) == 1 and isinstance(system[0], dict),
          "wire.anthropic-system-blocks", "the system message is not one text block", input=request, actual=system)
    _same(system[0].get("text"), TEXTS[name], "wire.anthropic-system-blocks",
          "the system block does not carry the text byte for byte", request)


@pytest.mark.rule(id="wire.anthropic-messages")
@pytest.mark.parametrize("name", CLASSES)
@speaks("anthropic")
def test_anthropic_text_blocks_carry_the_text_byte_for_byte(impl, name):
    """A user and an assistant message's text are their text blocks' text exactly."""
    request = neutral_request(_messages(TEXTS[name]))
    body = encode(impl, "anthropic", request, "wire.anthropic-messages")["body"]
    texts = [block.get("text") for message in body.get("messages", [])[:2] for block in message.get("content", [])]
    check(len(texts) == 2, "wire.anthropic-messages", "the first two messages are not one text block each",
          input=request, actual=body.get("messages"))
    for role, text in zip(["user", "assistant"], texts, strict=True):
        _same(text, TEXTS[name], "wire.anthropic-messages",
              f"the {role} message's text block does not carry the text byte for byte", request)


@pytest.mark.rule(id="wire.codex-instructions")
@pytest.mark.parametrize("name", CLASSES)
@speaks("codex")
def test_codex_instructions_and_items_carry_the_text_byte_for_byte(impl, name):
    """A system message's text is the Codex instructions exactly (nothing to trim), and a user and an assistant
    message's text their input items' text exactly."""
    request = neutral_request(_messages(TEXTS[name]))
    body = encode(impl, "codex", request, "wire.codex-instructions")["body"]
    _same(body.get("instructions"), TEXTS[name], "wire.codex-instructions",
          "the instructions do not carry the system text byte for byte", request)
    items = []
    for item in body.get("input", [])[:2]:
        content = item.get("content")
        items.append(content if isinstance(content, str) else
                     "".join(part.get("text", "") for part in content or [] if isinstance(part, dict)))
    check(len(items) == 2, "wire.codex-instructions", "the user and assistant messages are not two input items",
          input=request, actual=body.get("input"))
    for role, text in zip(["user", "assistant"], items, strict=True):
        _same(text, TEXTS[name], "wire.codex-instructions",
              f"the {role} message's input item does not carry the text byte for byte", request)
