"""Scripted calls and their expected notes, shared by the budget tests."""

from __future__ import annotations

from advisor_conformance.checks import check_equal
from advisor_conformance.scenarios import call, check_cap_holds, check_use_kept, error_of, result_of, run, scenario

ANSWER = "Looks fine; run the tests next."


def _served(answer):
    """The indexes of the calls that reached the provider."""
    return sorted({request["call"] for request in answer["provider_requests"]})


def _child_control(impl):
    """Control (budget.child-store): with explicit caps of 1, a child's follow-up turn reaches no provider while the
    main agent and another child still have their use; counted by the provider requests, whatever the notes say."""
    steps = [{"call": call(agent="ctl-a")}, {"call": call(agent="ctl-a", turn=2)}, {"call": call()},
             {"call": call(agent="ctl-b")}]
    params = scenario(steps, runtime={"max_uses_per_run": 1, "child_max_uses": 1})
    check_equal(_served(run(impl, params, "budget.child-store")), [0, 2, 3], "budget.child-store",
                "child counters are not kept per agent id, apart from the main agent's", input=params)


def _failure_control(impl, strings, failing):
    """Control (handler.failure-consumes-use): with the cap at 1, the call after one that failed this way, in the
    same turn, gets the budget note 1/1."""
    params = scenario([{"call": call(provider=[failing])}, {"call": call()}], runtime={"max_uses_per_run": 1})
    check_use_kept(impl, run(impl, params, "handler.failure-consumes-use"), params, strings,
                   "handler.failure-consumes-use")


def _validation_control(impl, bad, code, erring):
    """Control: the bad call fails with ``code`` (blamed on ``erring``, the rule that makes it an error) and leaves
    the only use to the next call (handler.validation-no-use)."""
    params = scenario([{"call": bad}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "handler.validation-no-use")
    error = error_of(answer, 0, erring, params)
    check_equal(error["code"], code, erring, "the bad call did not fail with its error code", input=params,
                actual=error)
    check_equal(result_of(answer, 1, "handler.validation-no-use", params), ANSWER, "handler.validation-no-use",
                "the failed call consumed the only use", input=params)


def _controls(impl, strings=None, *, rule, children=False, failing=None, bad=None):
    """The controls a budget test runs before it blames ``rule``: a cap that holds at all (budget.no-provider-call),
    with ``strings`` the note past it (budget.exhausted-result), a counter shared between turns
    (budget.shared-counter), with ``children`` child counters of their own (budget.child-store), with ``failing`` a
    provider failure that keeps its use, with ``bad`` (call, code, erring rule) a validation failure that keeps none."""
    check_cap_holds(impl, strings=strings if rule != "budget.exhausted-result" else None)
    if rule != "budget.shared-counter":
        check_cap_holds(impl, shared=True)
    if children and rule != "budget.child-store":
        _child_control(impl)
    if failing is not None:
        _failure_control(impl, strings, failing)
    if bad is not None:
        _validation_control(impl, *bad)


def _results(impl, strings, answer, params, rules):
    """Every call's note; when a call failed instead, the controls run first (a call past the cap that answers an
    error breaks budget.exhausted-result, not the rule of this test)."""
    if any("result" not in outcome for outcome in answer["calls"]):
        check_cap_holds(impl, strings=strings)
    return [result_of(answer, i, rules, params) for i in range(len(answer["calls"]))]


def _expect(impl, got, expected, rule, what, params, strings=None, **controls):
    """``got == expected`` for ``rule``; when not, the controls (:func:`_controls`) run first, so a cap that does not
    hold at all, a counter not shared between turns, or a call past the cap that does not answer the note is blamed
    on its own rule and not on the one this test is about."""
    if got != expected:
        _controls(impl, strings, rule=rule, **controls)
    check_equal(got, expected, rule, what, input=params)


def _zero_control(impl):
    """Control (budget.zero-cap): with a cap of 0, two calls of one turn reach no provider."""
    params = scenario([{"call": call()}, {"call": call()}], runtime={"max_uses_per_run": 0})
    check_equal(_served(run(impl, params, "budget.zero-cap")), [], "budget.zero-cap",
                "with a cap of 0 a call reached the provider", input=params)
