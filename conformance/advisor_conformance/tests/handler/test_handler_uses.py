"""What consumes a use: validation failures consume none, a provider or stream failure keeps the use it counted."""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import (
    Reply,
    budget_note,
    call,
    check_cap_holds,
    check_use_kept,
    error_of,
    failure,
    refused_url,
    result_of,
    run,
    scenario,
)
from advisor_conformance.workspace import workspace

from ..common.providers import by_provider
from .calls import RUNTIME, SPEC, VALIDATION_FAILURES, validation_cases

ANSWER = "Looks fine; run the tests next."


@pytest.mark.rule(id="handler.validation-no-use")
@pytest.mark.parametrize("bad, code, erring", validation_cases())
def test_validation_failures_consume_no_use(impl, bad, code, erring):
    """A call that fails validation returns its error and leaves the whole budget to the next call."""
    with workspace(SPEC) as work:
        params = scenario([{"call": bad}, {"call": call(turn=2)}], runtime=RUNTIME, work_dir=str(work))
        answer = run(impl, params, "handler.validation-no-use")
        error = error_of(answer, 0, erring, params)
        check_equal(error["code"], code, erring, "the wrong error code", input=params, actual=error)
        check_equal(result_of(answer, 1, "handler.validation-no-use", params), ANSWER,
                    "handler.validation-no-use", "the failed call consumed the only use", input=params)


@pytest.mark.rule(id="handler.validation-no-use")
@pytest.mark.needs(areas=["files", "tool", "workspace"])  # every kind of validation failure
def test_repeated_validation_failures_consume_no_use(impl):
    """Every kind of validation failure, one after another in one turn, leaves the only use to the next call."""
    with workspace(SPEC) as work:
        steps = [{"call": bad} for bad, _, _ in VALIDATION_FAILURES] + [{"call": call()}]
        params = scenario(steps, runtime=RUNTIME, work_dir=str(work))
        answer = run(impl, params, "handler.validation-no-use")
        for index, (_, code, erring) in enumerate(VALIDATION_FAILURES):
            error = error_of(answer, index, erring, params)
            check_equal(error["code"], code, erring, f"call {index}: the wrong error code", input=params, actual=error)
        check_equal(result_of(answer, len(VALIDATION_FAILURES), "handler.validation-no-use", params), ANSWER,
                    "handler.validation-no-use", "the failed calls consumed the only use", input=params)


@pytest.mark.rule(id="handler.validation-no-use")
@pytest.mark.parametrize("index", validation_cases([0, 4, 6, 8], whole=False))
def test_child_validation_failure_consumes_no_use(impl, index):
    """A child agent's call that fails validation leaves the child's only use to its next call."""
    bad, code, erring = VALIDATION_FAILURES[index]
    with workspace(SPEC) as work:
        params = scenario([{"call": {**bad, "agent": "worker-a"}}, {"call": call(agent="worker-a", turn=2)}],
                          runtime={**RUNTIME, "child_max_uses": 1}, work_dir=str(work))
        answer = run(impl, params, "handler.validation-no-use")
        error = error_of(answer, 0, erring, params)
        check_equal(error["code"], code, erring, "the wrong error code", input=params, actual=error)
        check_equal(result_of(answer, 1, "handler.validation-no-use", params), ANSWER, "handler.validation-no-use",
                    "the child's failed call consumed its only use", input=params)


@pytest.mark.rule(id="handler.failure-consumes-use")
@pytest.mark.parametrize("reply", [failure(status=500), failure(status=429), failure(status=400),
                                   failure(status=503), {"error": "connection reset by peer"}],
                         ids=["500", "429", "400", "503", "no-status"])
@pytest.mark.needs(areas=["budget"])
def test_provider_failure_consumes_the_use(impl, strings, reply):
    """A provider failure, whatever its status, is a provider_error, and the use it counted stays spent."""
    params = scenario([{"call": call(provider=[reply])}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "handler.failure-consumes-use")
    error = error_of(answer, 0, "handler.failure-consumes-use", params)
    check_equal(error["code"], "provider_error", "handler.failure-consumes-use", "the wrong error code",
                input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


HTTP_FAILURES = {
    "http-500": ("openai", None, lambda: Reply(500, '{"error":{"message":"internal"}}'), "streaming.failure-report"),
    "cut-stream": ("anthropic", "high", lambda: Reply.recorded("anthropic-stream-cut.sse"),
                   "streaming.final-event-required"),
    "error-event": ("codex", "high", lambda: Reply.recorded("codex-stream-error.sse"),
                    "streaming.openai-chunks"),
    "refused-connection": ("openai", None, None, "streaming.failure-report"),
}


@pytest.mark.rule(id="handler.failure-consumes-use")
@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("kind", by_provider(HTTP_FAILURES))
@pytest.mark.needs(areas=["budget"])
def test_failure_over_http_consumes_the_use(impl, lb, strings, kind):
    """A call that fails over HTTP (an error status, a cut stream, an error in the stream, a refused connection)
    keeps the use it counted: with the cap at 1, the next call gets the budget note."""
    provider, reasoning, answered, failing = HTTP_FAILURES[kind]
    base_url = refused_url() if answered is None else lb.base_url
    if answered is not None:
        lb.expect(answered())
    runtime = {"http_provider": {"kind": provider, "base_url": base_url, "timeout_ms": 5000}, "reasoning": reasoning,
               "max_uses_per_run": 1}
    params = scenario([{"call": call(provider=[])}, {"call": call(provider=[], turn=2)}], runtime=runtime)
    answer = run(impl, params, "handler.failure-consumes-use")
    if lb.received:  # a control: the first request streams exactly when reasoning is set
        streamed = isinstance(lb.received[0].body, dict) and bool(lb.received[0].body.get("stream"))
        rule = "streaming.reasoning-streams" if reasoning else "streaming.non-streaming-default"
        check(streamed == bool(reasoning), rule, f"a call {'with' if reasoning else 'without'} reasoning sent its "
              f"first request {'streamed' if streamed else 'unstreamed'}", input=params)
    error = error_of(answer, 0, failing, params)
    check_equal(error["code"], "provider_error", failing, f"a {kind} failure is not a provider_error", input=params,
                actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="handler.failure-consumes-use")
@pytest.mark.needs(areas=["budget"])
def test_failure_keeps_its_use_under_a_larger_cap(impl, strings):
    """With the cap at 2, a failed call and a good one spend the budget: the third call gets the budget note 2/2."""
    params = scenario([{"call": call(provider=[failure()])}, {"call": call(turn=2)}, {"call": call(turn=3)}],
                      runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "handler.failure-consumes-use")
    error_of(answer, 0, "handler.failure-consumes-use", params)
    result_of(answer, 1, "handler.failure-consumes-use", params)
    spent = budget_note(strings, 2, 2, "handler.failure-consumes-use")
    if answer["calls"][2].get("result") != spent:  # the cap, shared between turns, and its note first: the controls
        check_cap_holds(impl, cap=2, calls=3, strings=strings)
        check_cap_holds(impl, cap=2, calls=3, shared=True)
    check_equal(answer["calls"][2].get("result"), spent, "handler.failure-consumes-use",
                "with the cap at 2, a failed call and a good one left a use", input=params, actual=answer["calls"])


@pytest.mark.rule(id="handler.failure-consumes-use")
@pytest.mark.needs(areas=["budget"])
def test_child_failure_keeps_the_childs_use(impl, strings):
    """A child agent's failed call spends the child's only use: its next call gets the budget note 1/1."""
    spent = budget_note(strings, 1, 1, "handler.failure-consumes-use")
    runtime = {"child_max_uses": 1}
    params = scenario([{"call": call(agent="worker-a", provider=[failure()])}, {"call": call(agent="worker-a")}],
                      runtime=runtime)
    answer = run(impl, params, "handler.failure-consumes-use")
    error_of(answer, 0, "handler.failure-consumes-use", params)
    if answer["calls"][1].get("result") != spent:  # the controls: a cap of 1 and its note, then a child's own cap
        check_cap_holds(impl, cap=1, calls=2, strings=strings)
        good = scenario([{"call": call(agent="worker-a")}, {"call": call(agent="worker-a")}], runtime=runtime)
        second = run(impl, good, "budget.child-store")["calls"][1]
        check_equal(second.get("result"), spent, "budget.child-store", "with child_max_uses 1, a child's second good "
                    "call did not get the budget note 1/1", input=good, actual=second)
    check_equal(answer["calls"][1].get("result"), spent, "handler.failure-consumes-use",
                "with child_max_uses 1, the child's call after its failed one did not get the budget note 1/1",
                input=params, actual=answer["calls"])
