"""advisor_reference._scenario, part two: what a scenario answers: its calls in order, the recorded requests, and
the outcome of scripted replies; params are in test_scenario_params.py, handlers in test_scenario_handlers.py."""

from __future__ import annotations

import dataclasses
import time

import pytest

from advisor_reference import AdvisorRuntime, ProviderError, RequestBuilder, parse_transcript
from advisor_reference._scenario import run_scenario
from advisor_reference._strings import REFERENCE_STRINGS

from ._helpers import HEX32, SNAPSHOT, answer, call, scenario, spent_note

# --- the answer -----------------------------------------------------------------------------------------------------


def test_empty_scenario_answers_empty_lists():
    """A scenario without steps answers no calls, no tool lists and no requests."""
    assert answer({"steps": []}) == {"calls": [], "tools": [], "provider_requests": []}
    assert answer({"steps": [], "runtime": None}) == {"calls": [], "tools": [], "provider_requests": []}


def test_request_carries_every_field_of_the_runtime():
    """The recorded request carries the call index and the runtime's model, tokens, reasoning and sessions."""
    runtime = {
        "model": "big-model",
        "max_tokens": 123,
        "reasoning": "high",
        "session_id": "s1",
        "cache_key_store": {"advisor": "k" * 8},
    }
    out = answer(scenario([{"call": call(input={"question": "why?"})}], runtime))
    (request,) = out["provider_requests"]
    messages = request.pop("messages")
    assert request == {
        "call": 0,
        "model": "big-model",
        "tools": [],
        "max_tokens": 123,
        "reasoning": "high",
        "stream": True,
        "prompt_cache_key": "k" * 8,
        "transport_session": "s1-advisor",
        "parent_session": "s1",
        "advisor_cache_profile": True,
    }
    assert messages == [
        m.to_json() for m in RequestBuilder(REFERENCE_STRINGS).build(parse_transcript(SNAPSHOT), "why?", [])
    ]
    assert out["calls"] == [{"result": "ok"}]


def test_request_defaults():
    """Without runtime settings the request uses the default model and tokens, no reasoning and no sessions."""
    (request,) = answer(scenario([{"call": call()}]))["provider_requests"]
    assert (request["model"], request["max_tokens"], request["reasoning"], request["stream"]) == (
        "advisor-model",
        4096,
        None,
        False,
    )
    assert (request["transport_session"], request["parent_session"]) == (None, None)
    assert HEX32.fullmatch(request["prompt_cache_key"])


def test_explicit_null_reasoning_and_session_are_the_defaults():
    """``reasoning`` and ``session_id`` given as null behave as when they are left out."""
    runtime = {"reasoning": None, "session_id": None}
    (request,) = answer(scenario([{"call": call()}], runtime))["provider_requests"]
    assert (request["reasoning"], request["stream"], request["transport_session"]) == (None, False, None)


def test_child_call_uses_the_sub_agent_session():
    """A call with an agent id uses the shared sub-agent transport session under the parent session."""
    out = answer(scenario([{"call": call(agent="child-1")}], {"session_id": "run"}))
    (request,) = out["provider_requests"]
    assert (request["transport_session"], request["parent_session"]) == ("run-subagent-advisor", "run")


def test_calls_answer_in_script_order_with_their_indices():
    """Results come in script order and each request names the index of the call that made it."""
    steps = [
        {"call": call(provider=[{"answer": "zero"}])},
        {"tools": {}},
        {
            "concurrent": [
                call(turn=2, provider=[{"answer": "one", "delay_ms": 60}]),
                call(turn=3, provider=[{"answer": "two"}]),
            ]
        },
        {"call": call(turn=4, input={"question": 5}, provider=[])},
        {"call": call(turn=5, provider=[{"answer": "four"}])},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 10}))
    assert out["calls"][:3] == [{"result": "zero"}, {"result": "one"}, {"result": "two"}]
    assert out["calls"][3]["error"]["at"] == "input.question"
    assert out["calls"][4] == {"result": "four"}
    assert sorted(request["call"] for request in out["provider_requests"]) == [0, 1, 2, 4]
    assert out["provider_requests"][0]["call"] == 0 and out["provider_requests"][-1]["call"] == 4
    assert out["tools"] == [["advisor"]]


def test_tools_steps_list_the_advisor_whatever_the_budget():
    """Each tools step answers the tool names offered then; the advisor stays listed after the budget is spent."""
    steps = [
        {"tools": {}},
        {"call": call()},
        {"call": call(turn=2)},
        {"tools": {"agent": None}},
        {"tools": {"agent": "child"}},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 1}))
    assert out["tools"] == [["advisor"], ["advisor"], ["advisor"]]
    assert out["calls"][1] == {"result": spent_note(1, 1)}


# --- scripted replies -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "replies, outcome",
    [
        ([{"answer": "  first  "}, {"answer": "second"}], {"result": "first"}),
        ([{"answer": "cut", "finish_reason": "length"}], {"result": "cut\n\n" + REFERENCE_STRINGS.token_limit_note}),
        ([{"answer": "done", "finish_reason": "stop"}], {"result": "done"}),
        ([{"answer": "x", "finish_reason": "end_turn"}], {"result": "x"}),
        ([{}], {"result": REFERENCE_STRINGS.no_content_note}),
        (
            [{"finish_reason": "length"}],
            {"result": REFERENCE_STRINGS.no_content_note + "\n\n" + REFERENCE_STRINGS.token_limit_note},
        ),
        ([{"error": "upstream returned 503", "status": 503}], {"error": "upstream returned 503"}),
        ([{"error": ""}], {"error": ""}),
        ([{"error": "boom", "answer": "ignored"}], {"error": "boom"}),
        ([], {"error": ""}),
    ],
    ids=[
        "first-of-two",
        "length",
        "stop",
        "other-reason",
        "empty-reply",
        "empty-length",
        "error",
        "empty-error",
        "error-wins",
        "none-left",
    ],
)
def test_scripted_reply_outcomes(replies, outcome):
    """A call's first scripted reply decides its outcome: the note, or a provider_error showing the scripted message."""
    out = answer(scenario([{"call": call(provider=replies)}]))
    (got,) = out["calls"]
    if "error" in outcome:
        assert set(got) == {"error"} and set(got["error"]) == {"code", "message"}, got
        assert got["error"]["code"] == "provider_error" and outcome["error"] in got["error"]["message"]
    else:
        assert got == outcome
    assert len(out["provider_requests"]) == 1


def test_replies_belong_to_their_own_call():
    """Each call answers from its own replies, whatever other calls have scripted."""
    steps = [
        {"call": call(provider=[{"answer": "a1"}, {"answer": "a2"}])},
        {"call": call(provider=[{"answer": "b1"}])},
        {"call": call(provider=[])},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 3}))
    assert [c.get("result") for c in out["calls"]] == ["a1", "b1", None]
    assert out["calls"][2]["error"]["code"] == "provider_error"


def test_failed_call_keeps_the_use_and_later_calls_see_the_budget():
    """A provider failure spends its use; with a cap of 2 the third call gets the budget-spent note 2/2."""
    steps = [
        {"call": call(provider=[{"error": "down", "status": 500}])},
        {"call": call(turn=2)},
        {"call": call(turn=3)},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 2}))
    assert out["calls"][0]["error"]["code"] == "provider_error"
    assert out["calls"][1] == {"result": "ok"}
    assert out["calls"][2] == {"result": spent_note(2, 2)}
    assert [r["call"] for r in out["provider_requests"]] == [0, 1]


class _StatusRecorder:
    """Wraps the scenario's provider and records the status of every provider error it raises."""

    def __init__(self, inner, statuses):
        self.inner, self.statuses = inner, statuses

    def complete(self, request):
        try:
            return self.inner.complete(request)
        except ProviderError as exc:
            self.statuses.append(exc.status)
            raise


@pytest.mark.parametrize(
    "reply, status", [({"error": "x", "status": 429}, 429), ({"error": "x"}, None)], ids=["scripted", "absent"]
)
def test_scripted_error_carries_its_status(reply, status):
    """A scripted error reaches the provider boundary as a ProviderError with the scripted status (None if absent)."""
    statuses: list = []

    class Runtime(AdvisorRuntime):
        def __init__(self, config, provider, **kwargs):
            super().__init__(config, _StatusRecorder(provider, statuses), **kwargs)

    out = run_scenario(scenario([{"call": call(provider=[reply])}]), RequestBuilder(REFERENCE_STRINGS), Runtime)
    assert out["calls"][0]["error"]["code"] == "provider_error"
    assert statuses == [status]


@pytest.mark.parametrize(
    "reply", [{"answer": "late", "delay_ms": 150}, {"error": "late", "delay_ms": 150}], ids=["answer", "error"]
)
def test_delay_holds_the_reply_back(reply):
    """A reply with ``delay_ms`` comes back no sooner than that many milliseconds, and not much later."""
    start = time.monotonic()
    out = answer(scenario([{"call": call(provider=[reply])}]))
    elapsed = time.monotonic() - start
    assert 0.15 <= elapsed < 5
    assert "late" in str(out["calls"][0])


def test_reply_without_delay_is_immediate():
    """A reply with ``delay_ms`` 0 does not wait."""
    start = time.monotonic()
    answer(scenario([{"call": call(provider=[{"answer": "now", "delay_ms": 0}])}]))
    assert time.monotonic() - start < 2


def test_requests_and_notes_use_the_given_builder():
    """The runtime builds requests and notes with the builder the scenario is given, not a default one."""
    strings = dataclasses.replace(
        REFERENCE_STRINGS, system_prompt="Custom system prompt.", budget_spent="Custom spent {used}/{max}."
    )
    out = run_scenario(
        scenario([{"call": call()}, {"call": call(turn=2)}], {"max_uses_per_run": 1}), RequestBuilder(strings)
    )
    (request,) = out["provider_requests"]
    assert request["messages"][0] == {"role": "system", "content": "Custom system prompt."}
    assert out["calls"] == [{"result": "ok"}, {"result": "Custom spent 1/1."}]
