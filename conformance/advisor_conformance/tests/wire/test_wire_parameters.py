"""The providers' documented request parameters as data (clarifications §7-§9 WIRE; wire-facts §2.1, §3.1, §3.2):
every documented value and edge of each parameter a rule touches, each sent as the documents allow.

* OpenAI chat `reasoning_effort` and Responses `reasoning.effort`: the SDK's literal `none | minimal | low | medium |
  high | xhigh | max`; each effort set is sent as it is (not mapped to a neighbour the client happens to know).
* Anthropic `thinking.budget_tokens`: "Must be ≥1024 and less than `max_tokens`" (the SDK's
  ThinkingConfigEnabledParam): the minimum 1,024 itself is allowed, so a max_tokens of 1,025 leaves room for exactly
  that budget, and a max_tokens of 1,024 for none. Which budget an effort maps to is the implementation's choice.
"""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.wire import encode, neutral_request

from ..common.providers import speaks

MESSAGES = [{"role": "system", "content": "You advise."}, {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "on it"}, {"role": "user", "content": "advise me"}]
#: The reasoning efforts of the OpenAI SDK's ReasoningEffort literal (openai-python 3.57.0), in its order.
EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"]
MINIMUM_BUDGET = 1024


def _effort(body, provider):
    return body.get("reasoning_effort") if provider == "openai" else (body.get("reasoning") or {}).get("effort")


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("provider", ["openai", "codex"])
def test_every_documented_effort_is_sent_as_set(impl, provider, effort):
    """Each documented reasoning effort reaches OpenAI chat as reasoning_effort and Responses as reasoning.effort,
    exactly as set."""
    request = neutral_request(MESSAGES, reasoning=effort, stream=True)
    body = encode(impl, provider, request, "wire.reasoning")["body"]
    field = "reasoning_effort" if provider == "openai" else "reasoning.effort"
    check_equal(_effort(body, provider), effort, "wire.reasoning", f"the effort {effort!r} is not the {field} sent",
                input=request, actual=body)


def _thinking(impl, effort, max_tokens):
    request = neutral_request(MESSAGES, reasoning=effort, stream=True, max_tokens=max_tokens)
    body = encode(impl, "anthropic", request, "wire.reasoning")["body"]
    return body.get("thinking"), body, request


def _in_bounds(thinking, max_tokens):
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
    return (isinstance(thinking, dict) and thinking.get("type") == "enabled" and type(budget) is int
            and MINIMUM_BUDGET <= budget < max_tokens)


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("effort", EFFORTS)
@speaks("anthropic")
def test_every_documented_effort_gives_a_thinking_budget_in_bounds(impl, effort):
    """Each reasoning effort reaches Anthropic as an enabled thinking budget of at least 1,024 tokens below max_tokens
    (the effort `none` may send no thinking instead)."""
    thinking, body, request = _thinking(impl, effort, 4096)
    ok = _in_bounds(thinking, 4096) or (effort == "none" and thinking is None)
    check(ok, "wire.reasoning", f"the effort {effort!r} did not give an enabled thinking budget from 1024 to below "
          "max_tokens 4096", input=request, actual=body)


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("effort", ["minimal", "high"])
@pytest.mark.parametrize("max_tokens", [1025, 1026])
@speaks("anthropic")
def test_thinking_budget_at_the_documented_minimum(impl, effort, max_tokens):
    """With max_tokens of 1,025 (or 1,026) a budget of 1,024, the documented minimum, fits below it: thinking is
    enabled with a budget from 1,024 to below max_tokens, whatever the effort."""
    thinking, body, request = _thinking(impl, effort, max_tokens)
    check(_in_bounds(thinking, max_tokens), "wire.reasoning", f"max_tokens {max_tokens} leaves room for the minimum "
          f"budget of {MINIMUM_BUDGET}, but no such thinking was sent", input=request, actual=body)
