"""Child agents' budgets: a counter per agent id from the store, the child cap and its default (spec: Budget;
clarifications §6)."""

from __future__ import annotations

import pytest

from advisor_conformance.scenarios import budget_note, call, run, scenario

from .calls import ANSWER, _expect, _results, _served

SPENT = object()
"""In an expected list: the budget note of the child's own cap, used = max."""

#: Calls as (agent, conversation, turn), with the main cap and the child cap at 1, and what each call gets.
CHILD_CASES = {
    "same-id-same-turn": ([("a", 1, 1), ("a", 1, 1)], [ANSWER, SPENT]),
    "same-id-later-conversation": ([("a", 1, 1), ("a", 2, 1)], [ANSWER, SPENT]),
    "ids-differ-in-case": ([("Reviewer", 1, 1), ("reviewer", 1, 1), ("REVIEWER", 1, 2)], [ANSWER] * 3),
    "ids-share-a-prefix": ([("review", 1, 1), ("reviewer", 1, 1), ("reviewer-2", 1, 1)], [ANSWER] * 3),
    "many-children": ([(f"worker-{i}", 1, 1) for i in range(6)], [ANSWER] * 6),
    "children-then-main": ([("a", 1, 1), ("b", 1, 2), (None, 1, 2), (None, 2, 1)],
                           [ANSWER, ANSWER, ANSWER, SPENT]),
    "child-named-main": ([(None, 1, 1), ("main", 1, 1), ("parent", 1, 1)], [ANSWER] * 3),
}


@pytest.mark.rule(id="budget.child-store")
@pytest.mark.parametrize("calls, expected", list(CHILD_CASES.values()), ids=list(CHILD_CASES))
def test_each_agent_id_has_its_own_counter(impl, strings, calls, expected):
    """With every cap at 1, an agent id's second call is past its cap (1/1) wherever it comes, while any other id
    (differing only in case, or sharing a prefix, or named like the main agent) and the main agent keep their use."""
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    params = scenario(steps, runtime={"max_uses_per_run": 1, "child_max_uses": 1})
    answer = run(impl, params, "budget.child-store")
    spent = budget_note(strings, 1, 1, "budget.child-store")
    _expect(impl, _results(impl, strings, answer, params, "budget.child-store"),
            [spent if item is SPENT else item for item in expected], "budget.child-store",
            "the calls' counters are not one per agent id, apart from the main agent's", params)


#: Runtime settings and the cap a child agent then has.
CHILD_CAPS = {
    "main-cap-given": ({"max_uses_per_run": 5}, 1),
    "main-cap-zero": ({"max_uses_per_run": 0}, 1),
    "main-cap-one": ({"max_uses_per_run": 1}, 1),
    "child-cap-given": ({"child_max_uses": 2}, 2),
    "child-cap-above-main": ({"max_uses_per_run": 1, "child_max_uses": 3}, 3),
}


@pytest.mark.rule(id="budget.child-default-cap")
@pytest.mark.parametrize("runtime, cap", list(CHILD_CAPS.values()), ids=list(CHILD_CAPS))
def test_child_cap_is_its_own_setting(impl, strings, runtime, cap):
    """A child's cap is child_max_uses when given and 1 when not, whatever the main agent's cap: its call cap+1 is
    past it (cap/cap)."""
    params = scenario([{"call": call(agent="c", turn=turn)} for turn in range(1, cap + 2)], runtime=runtime)
    answer = run(impl, params, "budget.child-default-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.child-default-cap"),
            [ANSWER] * cap + [budget_note(strings, cap, cap, "budget.child-default-cap")], "budget.child-default-cap",
            f"the child's cap is not {cap}", params, children=True)


@pytest.mark.rule(id="budget.exhausted-result")
def test_child_past_its_cap_gets_its_own_count(impl, strings):
    """A child past its own cap of 2 gets the budget note with its own used and max (2/2), not the main agent's."""
    steps = [{"call": call()}, *({"call": call(agent="c", turn=turn)} for turn in (1, 2, 3))]
    params = scenario(steps, runtime={"max_uses_per_run": 4, "child_max_uses": 2})
    answer = run(impl, params, "budget.exhausted-result")
    _expect(impl, _results(impl, strings, answer, params, "budget.exhausted-result")[3],
            budget_note(strings, 2, 2, "budget.exhausted-result"), "budget.exhausted-result",
            "the child's note does not show its own count", params, strings, children=True)


@pytest.mark.rule(id="budget.no-provider-call")
def test_no_provider_call_past_a_childs_cap(impl):
    """Calls of a child past its own cap reach no provider, in later turns and conversations alike."""
    steps = [{"call": call(agent="c")}, {"call": call(agent="c", turn=2)}, {"call": call(agent="c", conversation=2)},
             {"call": call(conversation=2)}]
    params = scenario(steps, runtime={"max_uses_per_run": 3, "child_max_uses": 1})
    answer = run(impl, params, "budget.no-provider-call")
    _expect(impl, _served(answer), [0, 3], "budget.no-provider-call",
            "a child's call past its cap reached the provider", params, children=True)


@pytest.mark.rule(id="budget.zero-cap")
def test_zero_child_cap_spends_every_child_call(impl, strings):
    """With child_max_uses 0 every child's call reports the budget spent (0/0) without a provider call, while the
    main agent keeps its own cap."""
    steps = [{"call": call(agent="a")}, {"call": call(agent="b")}, {"call": call(agent="a", turn=2)},
             {"call": call()}]
    params = scenario(steps, runtime={"max_uses_per_run": 1, "child_max_uses": 0})
    answer = run(impl, params, "budget.zero-cap")
    spent = budget_note(strings, 0, 0, "budget.zero-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.zero-cap"), [spent] * 3 + [ANSWER],
            "budget.zero-cap", "a child cap of 0 did not spend every child call", params, children=True)
    _expect(impl, _served(answer), [3], "budget.zero-cap", "a child's call reached the provider", params,
            children=True)
