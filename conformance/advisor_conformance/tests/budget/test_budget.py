"""The use budget: one counter per runtime, child counters by agent id, atomic counting (spec: Budget)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.scenarios import budget_note, call, failure, reply, run, scenario

from .calls import ANSWER, _controls, _expect, _results, _served, _zero_control


@pytest.mark.rule(id="budget.shared-counter")
def test_one_counter_across_turns_and_conversations(impl, strings):
    """Handlers of different turns and conversations share one cap for the whole runtime."""
    steps = [{"call": call(conversation=c, turn=t)} for c, t in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]]
    params = scenario(steps, runtime={"max_uses_per_run": 3})
    answer = run(impl, params, "budget.shared-counter")
    spent = budget_note(strings, 3, 3, "budget.shared-counter")
    _expect(impl, _results(impl, strings, answer, params, "budget.shared-counter"), [ANSWER] * 3 + [spent] * 2,
            "budget.shared-counter", "the cap was not shared across turns and conversations", params, strings)


@pytest.mark.rule(id="budget.shared-counter")
def test_calls_of_one_turn_share_the_counter(impl, strings):
    """Several calls in one turn count against the same cap as later turns."""
    params = scenario([{"call": call()}, {"call": call()}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.shared-counter")
    spent = budget_note(strings, 2, 2, "budget.shared-counter")
    _expect(impl, _results(impl, strings, answer, params, "budget.shared-counter")[2], spent, "budget.shared-counter",
            "the third call was not past the cap", params, strings)


#: (conversation, turn) of three calls, each in a handler of its own.
HANDLERS = {
    "turns-of-one-conversation": [(1, 1), (1, 2), (1, 3)],
    "first-turns-of-conversations": [(1, 1), (2, 1), (3, 1)],
    "back-to-an-earlier-conversation": [(1, 1), (2, 1), (1, 2)],
}


@pytest.mark.rule(id="budget.shared-counter")
@pytest.mark.parametrize("handlers", list(HANDLERS.values()), ids=list(HANDLERS))
def test_third_handler_finds_the_cap_of_two_spent(impl, strings, handlers):
    """With a cap of 2, the call of a third handler is past the cap (2/2), whichever turns and conversations the
    handlers belong to."""
    params = scenario([{"call": call(conversation=c, turn=t)} for c, t in handlers], runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.shared-counter")
    _expect(impl, _results(impl, strings, answer, params, "budget.shared-counter"),
            [ANSWER, ANSWER, budget_note(strings, 2, 2, "budget.shared-counter")], "budget.shared-counter",
            "the counter did not outlive its handler", params, strings)


@pytest.mark.rule(id="budget.default-cap")
def test_default_cap_is_three(impl, strings):
    """Without max_uses_per_run, the fourth call of a run is past the cap (3/3)."""
    params = scenario([{"call": call(turn=t)} for t in range(1, 5)])
    answer = run(impl, params, "budget.default-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.default-cap"),
            [ANSWER] * 3 + [budget_note(strings, 3, 3, "budget.default-cap")], "budget.default-cap",
            "the default cap is not 3", params)


@pytest.mark.rule(id="budget.default-cap")
@pytest.mark.parametrize("runtime, cap", [({"child_max_uses": 2}, 3), ({"max_uses_per_run": 1}, 1),
                                          ({"max_uses_per_run": 5}, 5)],
                         ids=["absent-with-child-cap-set", "given-below-default", "given-above-default"])
def test_cap_is_max_uses_per_run(impl, strings, runtime, cap):
    """The cap is max_uses_per_run when it is given and 3 when it is not (whatever the child cap): call cap+1 of one
    turn is past it (cap/cap)."""
    params = scenario([{"call": call()} for _ in range(cap + 1)], runtime=runtime)
    answer = run(impl, params, "budget.default-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.default-cap"),
            [ANSWER] * cap + [budget_note(strings, cap, cap, "budget.default-cap")], "budget.default-cap",
            f"the cap is not {cap}", params)


@pytest.mark.rule(id="budget.exhausted-result")
def test_past_the_cap_is_a_normal_result_with_used_and_max(impl, strings):
    """Past the cap the call returns a normal result, the declared note showing used/max."""
    params = scenario([{"call": call()}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "budget.exhausted-result")
    outcome = answer["calls"][1]
    check("result" in outcome, "budget.exhausted-result", "past the cap the call failed instead of returning a note",
          input=params, actual=outcome)
    _expect(impl, outcome["result"], budget_note(strings, 1, 1, "budget.exhausted-result"), "budget.exhausted-result",
            "the note is not the declared budget note", params)


@pytest.mark.rule(id="budget.exhausted-result")
def test_every_call_past_the_cap_shows_the_same_count(impl, strings):
    """Each of several calls past a cap of 2, in this handler and later ones, gets the note 2/2: a call past the cap
    counts nothing."""
    steps = [{"call": call()}, {"call": call()}, {"call": call()}, {"call": call(turn=2)},
             {"call": call(conversation=2)}]
    params = scenario(steps, runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.exhausted-result")
    outcomes = answer["calls"][2:]
    check(all("result" in outcome for outcome in outcomes), "budget.exhausted-result",
          "past the cap a call failed instead of returning a note", input=params, actual=outcomes)
    _expect(impl, [outcome["result"] for outcome in outcomes], [budget_note(strings, 2, 2, "budget.exhausted-result")] * 3,
            "budget.exhausted-result", "the calls past the cap do not all show 2/2", params)


@pytest.mark.rule(id="budget.no-provider-call")
def test_no_provider_call_past_the_cap(impl):
    """Calls past the cap reach no provider."""
    params = scenario([{"call": call(turn=t)} for t in range(1, 6)], runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "budget.no-provider-call")
    _expect(impl, _served(answer), [0, 1], "budget.no-provider-call", "a call past the cap reached the provider",
            params)


@pytest.mark.rule(id="budget.no-provider-call")
def test_no_provider_call_past_the_cap_in_one_turn(impl):
    """Calls of one handler past a cap of 1 reach no provider, though each has a reply scripted."""
    params = scenario([{"call": call()} for _ in range(4)], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "budget.no-provider-call")
    check_equal(_served(answer), [0], "budget.no-provider-call", "a call past the cap reached the provider",
                input=params, actual=answer["provider_requests"])


@pytest.mark.rule(id="budget.tool-stays-registered")
def test_tool_stays_registered_when_spent(impl):
    """After the budget is spent, the advisor tool is still in the agent's tool list."""
    params = scenario([{"tools": {}}, {"call": call()}, {"call": call(turn=2)}, {"tools": {}},
                       {"tools": {"agent": "child-1"}}], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "budget.tool-stays-registered")
    for index, tools in enumerate(answer["tools"]):
        check("advisor" in tools, "budget.tool-stays-registered", f"tools step {index} lacks the advisor tool",
              input=params, actual=answer["tools"])


#: Steps that leave some budget spent, then the tool lists asked for.
TOOL_CASES = {
    "fresh-runtime": ([], {}),
    "main-spent-in-one-turn": ([{"call": call()}, {"call": call()}], {"max_uses_per_run": 1}),
    "child-spent": ([{"call": call(agent="c")}, {"call": call(agent="c", turn=2)}], {"child_max_uses": 1}),
    "zero-caps": ([{"call": call()}, {"call": call(agent="c")}], {"max_uses_per_run": 0, "child_max_uses": 0}),
    "spent-by-a-failed-call": ([{"call": call(provider=[failure()])}, {"call": call(agent="c", provider=[failure()])}],
                               {"max_uses_per_run": 1, "child_max_uses": 1}),
}


@pytest.mark.rule(id="budget.tool-stays-registered")
@pytest.mark.parametrize("steps, runtime", list(TOOL_CASES.values()), ids=list(TOOL_CASES))
def test_tool_listed_for_every_agent_whatever_the_budget(impl, steps, runtime):
    """The main agent's and a child's tool lists hold the advisor tool, whether their budgets are whole or spent
    (by answered calls, by failed calls or by a cap of 0)."""
    params = scenario([*steps, {"tools": {}}, {"tools": {"agent": "c"}}], runtime=runtime)
    answer = run(impl, params, "budget.tool-stays-registered")
    check_equal(["advisor" in tools for tools in answer["tools"]], [True, True], "budget.tool-stays-registered",
                "a tool list (the main agent's, then the child's) lacks the advisor tool", input=params,
                actual=answer["tools"])


@pytest.mark.rule(id="budget.child-store")
def test_child_counters_are_keyed_by_agent_id(impl, strings):
    """The same child id shares a counter, different ids are independent, and neither touches the parent's."""
    steps = [
        {"call": call(agent="reviewer")},
        {"call": call(agent="reviewer", turn=2)},  # same id: the second use is past its cap of 1
        {"call": call(agent="tester")},  # another id: its own counter
        {"call": call()},  # the parent's counter is untouched
        {"call": call(turn=2)},
    ]
    params = scenario(steps, runtime={"max_uses_per_run": 2, "child_max_uses": 1})
    answer = run(impl, params, "budget.child-store")
    spent = budget_note(strings, 1, 1, "budget.child-store")
    _expect(impl, _results(impl, strings, answer, params, "budget.child-store"),
            [ANSWER, spent, ANSWER, ANSWER, ANSWER],
            "budget.child-store", "child counters are not kept per agent id, apart from the parent's", params)


@pytest.mark.rule(id="budget.child-store")
def test_parent_exhaustion_does_not_spend_children(impl, strings):
    """A parent past its cap leaves a child's budget whole."""
    params = scenario([{"call": call()}, {"call": call(turn=2)}, {"call": call(agent="child-1")}],
                      runtime={"max_uses_per_run": 1, "child_max_uses": 1})
    answer = run(impl, params, "budget.child-store")
    _expect(impl, _results(impl, strings, answer, params, "budget.child-store")[2], ANSWER, "budget.child-store",
            "after the parent spent its budget, a child's first call did not get the provider's answer", params)


@pytest.mark.rule(id="budget.child-default-cap")
def test_child_default_cap_is_one(impl, strings):
    """Without child_max_uses, a child agent has one use."""
    params = scenario([{"call": call(agent="c")}, {"call": call(agent="c", turn=2)}])
    answer = run(impl, params, "budget.child-default-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.child-default-cap"),
            [ANSWER, budget_note(strings, 1, 1, "budget.child-default-cap")], "budget.child-default-cap",
            "the child's default cap is not 1", params, children=True)


#: Calls against a cap of 0: (agent, conversation, turn, provider reply) of each.
ZERO_CASES = {
    "turns": [(None, 1, 1, reply()), (None, 1, 2, reply())],
    "one-turn": [(None, 1, 1, reply())] * 3,
    "conversations": [(None, 1, 1, reply()), (None, 2, 1, reply()), (None, 3, 1, reply())],
    "failing-provider": [(None, 1, 1, failure()), (None, 1, 2, failure(status=429))],
}


@pytest.mark.rule(id="budget.zero-cap")
@pytest.mark.parametrize("calls", list(ZERO_CASES.values()), ids=list(ZERO_CASES))
def test_zero_cap_spends_every_call(impl, strings, calls):
    """With a cap of 0 every call reports the budget spent (0/0) and none reaches the provider, whatever the provider
    would have answered."""
    steps = [{"call": call(agent=a, conversation=c, turn=t, provider=[r])} for a, c, t, r in calls]
    params = scenario(steps, runtime={"max_uses_per_run": 0})
    answer = run(impl, params, "budget.zero-cap")
    _expect(impl, _results(impl, strings, answer, params, "budget.zero-cap"),
            [budget_note(strings, 0, 0, "budget.zero-cap")] * len(calls),
            "budget.zero-cap", "a cap of 0 did not spend every call", params)
    _expect(impl, answer["provider_requests"], [], "budget.zero-cap", "a call reached the provider", params)


#: (calls, cap, handlers): concurrent calls, spread over that many handlers (turns of one conversation).
ATOMIC_CASES = [(32, 5, 3), (16, 1, 3), (24, 0, 3), (12, 2, 1), (5, 5, 2), (3, 5, 3)]


@pytest.mark.rule(id="budget.atomic")
@pytest.mark.parametrize("calls, cap, handlers", [
    pytest.param(*case, marks=[pytest.mark.rule(id="budget.zero-cap")] if case[1] == 0 else [],
                 id=f"{case[0]}-calls-cap-{case[1]}-{case[2]}-handlers") for case in ATOMIC_CASES])
def test_concurrent_calls_make_exactly_cap_provider_calls(impl, strings, calls, cap, handlers):
    """Concurrent calls against a cap of M make exactly min(M, calls) provider calls, in one handler or several; the
    rest get the budget note."""
    slow = [reply(delay_ms=50)]
    params = scenario([{"concurrent": [call(turn=i % handlers + 1, provider=list(slow)) for i in range(calls)]}],
                      runtime={"max_uses_per_run": cap})
    answer = run(impl, params, "budget.atomic")
    results = _results(impl, strings, answer, params, "budget.atomic")
    served = min(cap, calls)
    if cap == 0 and answer["provider_requests"]:
        _controls(impl, strings, rule="budget.atomic")
        _zero_control(impl)
    _expect(impl, len(answer["provider_requests"]), served, "budget.atomic",
            f"{calls} concurrent calls with cap {cap} did not make exactly {served} provider calls", params)
    check_equal(sorted(results).count(ANSWER), served, "budget.atomic", f"the answered calls are not exactly {served}",
                input=params)
    spent = budget_note(strings, cap, cap, "budget.atomic")
    _expect(impl, results.count(spent), calls - served, "budget.atomic",
            "the calls past the cap did not all get the note", params, strings=strings)


@pytest.mark.rule(id="budget.atomic")
def test_concurrent_children_count_separately(impl, strings):
    """Concurrent calls of two children and the parent each stop at their own cap."""
    calls = [call(agent=agent, provider=[reply(delay_ms=30)]) for agent in ["a", "b", None] * 6]
    params = scenario([{"concurrent": calls}], runtime={"max_uses_per_run": 2, "child_max_uses": 1})
    answer = run(impl, params, "budget.atomic")
    served = Counter(calls[request["call"]]["agent"] for request in answer["provider_requests"])
    _expect(impl, served, Counter({"a": 1, "b": 1, None: 2}), "budget.atomic",
            "the agents' concurrent calls did not each stop at their own cap", params, children=True)


@pytest.mark.rule(id="budget.atomic")
def test_concurrent_calls_of_one_child_stop_at_its_cap(impl, strings):
    """Concurrent calls of one child id, in several turns, share that child's counter: exactly its cap of 2 reach
    the provider."""
    calls = [call(agent="worker", turn=i % 2 + 1, provider=[reply(delay_ms=30)]) for i in range(12)]
    params = scenario([{"concurrent": calls}], runtime={"max_uses_per_run": 1, "child_max_uses": 2})
    answer = run(impl, params, "budget.atomic")
    _expect(impl, len(answer["provider_requests"]), 2, "budget.atomic",
            "12 concurrent calls of one child with its cap at 2 did not make exactly 2 provider calls", params,
            children=True)


class BudgetMachine(RuleBasedStateMachine):
    """A model of the expected counts, checked against the implementation after every call.

    The steps accumulate into one scenario (one runtime); after each new call
    the whole scenario is run and every call's result and the provider calls
    are compared with what the model predicts.
    """

    impl: Any = None  # both set by the test before a run
    strings: Any = None

    def __init__(self):
        super().__init__()
        self.steps, self.expected, self.served = [], [], []
        self.turn, self.conversation = 1, 1
        self.used: dict[str | None, int] = {}

    @initialize(cap=st.integers(0, 4), child_cap=st.integers(0, 2))
    def configure(self, cap, child_cap):
        self.runtime = {"max_uses_per_run": cap, "child_max_uses": child_cap, "session_id": "s-budget"}
        self.caps = {None: cap}
        self.child_cap = child_cap

    def _cap(self, agent):
        return self.caps[None] if agent is None else self.child_cap

    def _add(self, agent, *, provider, outcome_when_served, input=None):
        index = len(self.steps)
        self.steps.append({"call": call(agent=agent, conversation=self.conversation, turn=self.turn,
                                        input=input, provider=provider)})
        used, cap = self.used.get(agent, 0), self._cap(agent)
        if used < cap:
            self.used[agent] = used + 1
            self.served.append(index)
            self.expected.append(outcome_when_served)
        else:
            self.expected.append({"result": budget_note(self.strings, used, cap, "budget.shared-counter")})

    @rule()
    def next_turn(self):
        self.turn += 1

    @rule()
    def new_conversation(self):
        self.conversation += 1
        self.turn = 1

    @rule(agent=st.sampled_from([None, None, "child-a", "child-b"]))
    def advisor_call(self, agent):
        self._add(agent, provider=[reply(ANSWER)], outcome_when_served={"result": ANSWER})

    @rule(agent=st.sampled_from([None, "child-a"]))
    def failing_provider(self, agent):
        self._add(agent, provider=[failure()], outcome_when_served={"error": "provider_error"})

    @rule(agent=st.sampled_from([None, "child-b"]))
    def invalid_input(self, agent):
        index = len(self.steps)
        self.steps.append({"call": call(agent=agent, conversation=self.conversation, turn=self.turn,
                                        input={"files": "not-a-list"})})
        self.expected.append({"error": "invalid_input"})
        assert index == len(self.expected) - 1

    @invariant()
    def implementation_agrees_with_the_model(self):
        if not self.steps:
            return
        rules = ["budget.shared-counter", "budget.child-store", "budget.no-provider-call"]
        params = scenario(self.steps, runtime=self.runtime)
        answer = run(self.impl, params, rules)
        got = [{"error": o["error"]["code"]} if "error" in o else o for o in answer["calls"]]
        if got != self.expected:
            first = next(i for i, (a, b) in enumerate(zip(got, self.expected, strict=True)) if a != b)
            raise violation(rules, f"call {first} does not match the model of the counters", input=params,
                            expected=self.expected[first], actual=got[first])
        served = sorted({request["call"] for request in answer["provider_requests"]})
        check_equal(served, self.served, rules, "the calls that reached the provider are not the model's",
                    input=params)


@pytest.mark.rule(id="budget.shared-counter")
@pytest.mark.rule(id="budget.child-store")
@pytest.mark.rule(id="budget.no-provider-call")
def test_budget_state_machine(impl, strings):
    """Any sequence of turns, conversations, main and child calls, failures and bad input matches the counter model."""
    from hypothesis import settings

    BudgetMachine.impl, BudgetMachine.strings = impl, strings
    test_case = BudgetMachine.TestCase
    test_case.settings = settings(settings(), max_examples=30, stateful_step_count=15)
    test_case("runTest").runTest()
