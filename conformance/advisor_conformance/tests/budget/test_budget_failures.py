"""Failed calls crossed with the budget: provider and HTTP failures spend their use, validation failures spend none,
and past the cap no call reaches the provider, whatever its input or its provider's answer (spec: Budget;
clarifications §6)."""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check_equal
from advisor_conformance.scenarios import (
    Reply,
    budget_note,
    call,
    check_use_kept,
    failure,
    refused_url,
    result_of,
    run,
    scenario,
)
from advisor_conformance.workspace import workspace

from ..common.providers import speaks
from .calls import ANSWER, _controls, _expect, _served, _zero_control

#: Scripted provider failures, each kind: an HTTP error status, or no status at all (the connection failed).
PROVIDER_FAILURES = {
    "http-500": failure(status=500),
    "http-429": failure("rate limited", status=429),
    "http-400": failure("max_tokens is too large", status=400),
    "no-status": {"error": "connection reset by peer"},
}


@pytest.mark.rule(id="budget.no-provider-call")
@pytest.mark.rule(id="budget.exhausted-result")
@pytest.mark.rule(id="budget.shared-counter")
@pytest.mark.parametrize("failing", list(PROVIDER_FAILURES.values()), ids=list(PROVIDER_FAILURES))
@pytest.mark.needs(areas=["handler"])
def test_uses_of_failed_calls_stay_spent(impl, strings, failing):
    """With a cap of 2 spent by two failed calls, the calls of later handlers reach no provider (though scripted to
    fail or to answer) and get the note 2/2."""
    steps = [{"call": call(provider=[failing])}, {"call": call(turn=2, provider=[failing])},
             {"call": call(conversation=2, provider=[failing])}, {"call": call(conversation=2, turn=2)},
             {"call": call(conversation=3)}]
    params = scenario(steps, runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.no-provider-call")
    _expect(impl, _served(answer), [0, 1], "budget.no-provider-call",
            "a call past a cap spent by failed calls reached the provider", params, strings, failing=failing)
    spent = {"result": budget_note(strings, 2, 2, "budget.exhausted-result")}
    _expect(impl, answer["calls"][2:], [spent] * 3, "budget.exhausted-result",
            "past a cap spent by failed calls, the calls did not get the note 2/2", params, strings, failing=failing)


#: Validation failures: the bad call, its error code, and the rule that makes it an error.
VALIDATION_FAILURES = {
    "argument-type": (call(input={"question": 1}), "invalid_input", "tool.wrong-type-error"),
    "too-many-files": (call(input={"files": [f"f{i}.txt" for i in range(9)]}), "too_many_files", "files.max-count"),
    "missing-snapshot": (call(snapshot=None), "missing_snapshot", "handler.validation-no-use"),
}


@pytest.mark.rule(id="budget.no-provider-call")
@pytest.mark.rule(id="budget.exhausted-result")
@pytest.mark.parametrize("bad", list(VALIDATION_FAILURES.values()), ids=list(VALIDATION_FAILURES))
def test_validation_failures_leave_the_count_alone(impl, strings, bad):
    """With a cap of 2 and calls that fail validation before, between and past the good ones, exactly the first two
    good calls reach the provider and the third gets the note 2/2."""
    steps = [{"call": bad[0]}, {"call": call()}, {"call": {**bad[0], "turn": 2}}, {"call": call(turn=2)},
             {"call": {**bad[0], "conversation": 2}}, {"call": call(conversation=2)}]
    params = scenario(steps, runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.no-provider-call")
    _expect(impl, _served(answer), [1, 3], "budget.no-provider-call",
            "the calls that reached the provider are not the first two good ones", params, strings, bad=bad)
    notes = [answer["calls"][index] for index in (1, 3, 5)]
    expected = [{"result": ANSWER}] * 2 + [{"result": budget_note(strings, 2, 2, "budget.exhausted-result")}]
    _expect(impl, notes, expected, "budget.exhausted-result",
            "the third good call did not get the note 2/2", params, strings, bad=bad)


@pytest.mark.rule(id="budget.zero-cap")
@pytest.mark.parametrize("bad", list(VALIDATION_FAILURES.values()), ids=list(VALIDATION_FAILURES))
def test_zero_cap_around_validation_failures(impl, strings, bad):
    """With a cap of 0, good calls before and after one that fails validation each get the note 0/0, and no call
    reaches the provider."""
    params = scenario([{"call": call()}, {"call": bad[0]}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 0})
    answer = run(impl, params, "budget.zero-cap")
    spent = {"result": budget_note(strings, 0, 0, "budget.zero-cap")}
    got = ([answer["calls"][0], answer["calls"][2]], _served(answer))
    if got != ([spent] * 2, []):
        _controls(impl, strings, rule="budget.zero-cap", bad=bad)
        _zero_control(impl)
    check_equal(got, ([spent] * 2, []), "budget.zero-cap",
                "with a cap of 0 the good calls (outcomes, then the calls served) did not all get 0/0 unserved",
                input=params)


@pytest.mark.rule(id="budget.no-provider-call")
def test_call_with_files_past_the_cap_reaches_no_provider(impl):
    """Past the cap, a call whose question and files load fine reaches no provider."""
    with workspace({"src/app.py": {"text": "print('hello')\n"}}) as work:
        steps = [{"call": call()}, {"call": call(turn=2, input={"files": ["src/app.py"], "question": "ok?"})}]
        params = scenario(steps, runtime={"max_uses_per_run": 1}, work_dir=str(work))
        answer = run(impl, params, "budget.no-provider-call")
    _expect(impl, _served(answer), [0], "budget.no-provider-call",
            "a call with files past the cap reached the provider", params)


@pytest.mark.rule(id="budget.child-store")
def test_failed_child_call_spends_only_the_childs_use(impl, strings):
    """A child's failed call spends that child's use: its follow-up is past its cap (1/1), while the main agent and
    another child keep theirs."""
    steps = [{"call": call(agent="a", provider=[failure()])}, {"call": call(agent="a", turn=2)}, {"call": call()},
             {"call": call(agent="b")}]
    params = scenario(steps, runtime={"max_uses_per_run": 1, "child_max_uses": 1})
    answer = run(impl, params, "budget.child-store")
    expected = [{"result": budget_note(strings, 1, 1, "budget.child-store")}, {"result": ANSWER}, {"result": ANSWER}]
    _expect(impl, answer["calls"][1:], expected, "budget.child-store",
            "a child's failed call was not counted on that child's counter alone", params, strings, children=True,
            failing=failure())


@pytest.mark.rule(id="budget.atomic")
def test_concurrent_failing_calls_stop_at_the_cap(impl, strings):
    """Concurrent calls whose provider fails count as they start: with a cap of 3, exactly 3 of 12 reach the provider
    and the other 9 get the note 3/3."""
    slow_failure = {**failure(), "delay_ms": 30}
    calls = [call(turn=i % 2 + 1, provider=[dict(slow_failure)]) for i in range(12)]
    params = scenario([{"concurrent": calls}], runtime={"max_uses_per_run": 3})
    answer = run(impl, params, "budget.atomic")
    _expect(impl, len(answer["provider_requests"]), 3, "budget.atomic",
            "12 concurrent failing calls with cap 3 did not make exactly 3 provider calls", params, strings,
            failing=failure())
    notes = [outcome.get("result") for outcome in answer["calls"]]
    _expect(impl, notes.count(budget_note(strings, 3, 3, "budget.atomic")), 9, "budget.atomic",
            "the calls past the cap did not all get the note 3/3", params, strings, failing=failure())


def _http_runtime(lb, kind):
    """The runtime of one HTTP failure kind, with the loopback provider scripted for it."""
    http = {"kind": "openai", "base_url": lb.base_url, "timeout_ms": 5000}
    runtime = {"http_provider": http, "max_uses_per_run": 1, "session_id": "sess-budget"}
    if kind == "refused":
        http["base_url"] = refused_url()
    elif kind == "timeout":
        lb.expect(Reply(200, "{}", delay_s=1.0))
        http["timeout_ms"] = 200
    elif kind == "stream-cut":
        lb.expect(Reply.recorded("openai-stream-cut.sse"))
        runtime["reasoning"] = "low"
    else:
        lb.expect(Reply(503, '{"error":{"message":"overloaded"}}'))
    return runtime


@pytest.mark.rule(id="budget.no-provider-call")
@pytest.mark.rule(id="budget.exhausted-result")
@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("kind", ["refused", "timeout", "stream-cut", "http-503"])
@speaks("openai")
def test_use_of_a_failed_http_call_stays_spent(impl, lb, strings, kind):
    """With a cap of 1 spent by a call that failed over HTTP (a refused connection, a timeout, a stream cut before its
    end, a 503), the calls of later handlers send no request and get the note 1/1."""
    steps = [{"call": call(provider=[])}, {"call": call(turn=2, provider=[])},
             {"call": call(conversation=2, provider=[])}]
    params = scenario(steps, runtime=_http_runtime(lb, kind))
    answer = run(impl, params, "budget.no-provider-call")
    later = [index for index in _served(answer) if index]
    if later:  # the failure gave its use back (handler.failure-consumes-use), or a cap that does not hold at all
        check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")
    check_equal(later, [], "budget.no-provider-call", f"call(s) {later}, past the cap of 1, reached the provider",
                input=params, actual=answer["provider_requests"])
    spent = budget_note(strings, 1, 1, "budget.exhausted-result")
    notes = [result_of(answer, index, "budget.exhausted-result", params) for index in (1, 2)]
    if notes != [spent] * 2:
        _controls(impl, strings, rule="budget.exhausted-result")
    check_equal(notes, [spent] * 2, "budget.exhausted-result",
                "past a cap spent by a failed HTTP call, the calls did not get the note 1/1", input=params)
