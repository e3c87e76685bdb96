"""advisor_reference._scenario, the threads of a concurrent step: a capped number of calls, and a deadline on every
wait (threads that cannot start, threads that do not meet, a call that does not finish), so a step never hangs."""

from __future__ import annotations

import threading
import time

import pytest

from advisor_reference import _scenario
from advisor_reference._scenario import MAX_CONCURRENT_CALLS

from ._helpers import answer, call, error_of, scenario

#: How long a test waits for a scenario that should end at once: far more than it needs, far less than a hang.
PATIENCE_S = 30.0


def _concurrent(n: int, **runtime) -> dict:
    return scenario([{"call": call()}, {"concurrent": [call(turn=2)] * n}], {"max_uses_per_run": 100, **runtime})


def _answer_within(params, patience: float = PATIENCE_S) -> dict:
    """The scenario's answer, run on a thread started before any patch, so that a hang fails the test instead of
    hanging it."""
    outcome: dict = {}
    go = threading.Event()

    def run():
        go.wait(patience)
        try:
            outcome["answer"] = answer(params)
        except BaseException as exc:  # noqa: BLE001 - shown by the assertion below
            outcome["raised"] = exc

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    return {"runner": runner, "go": go, "outcome": outcome, "patience": patience}


def _finish(pending) -> dict:
    pending["go"].set()
    pending["runner"].join(pending["patience"])
    assert not pending["runner"].is_alive(), f"the scenario still runs after {pending['patience']} s"
    assert "raised" not in pending["outcome"], pending["outcome"]
    return pending["outcome"]["answer"]


def test_a_step_of_the_most_calls_runs_them_all():
    """A concurrent step of MAX_CONCURRENT_CALLS calls answers every one."""
    out = answer(_concurrent(MAX_CONCURRENT_CALLS))
    assert [("result" in outcome) for outcome in out["calls"]] == [True] * (MAX_CONCURRENT_CALLS + 1)


@pytest.mark.parametrize("n", [MAX_CONCURRENT_CALLS + 1, 100_000])
def test_a_step_of_more_calls_is_invalid_input_naming_it(n):
    """A concurrent step of more than MAX_CONCURRENT_CALLS calls is invalid_input at that step, before any call."""
    error = error_of(_concurrent(n))
    assert (error["code"], error["at"]) == ("invalid_input", "steps[1].concurrent")


@pytest.mark.parametrize("starts", [0, 1, 5])
def test_threads_that_cannot_start_make_no_call_and_never_hang(monkeypatch, starts):
    """When only some of a step's threads can start, the step makes no call and answers invalid_input at once."""
    pending = _answer_within(_concurrent(8))
    real_start = threading.Thread.start
    count = {"n": 0}

    def failing_start(self):
        if count["n"] >= starts:
            raise RuntimeError("can't start new thread")
        count["n"] += 1
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", failing_start)
    out = _finish(pending)
    assert (out["error"]["code"], out["error"]["at"]) == ("invalid_input", "steps[1].concurrent")


def test_threads_that_do_not_meet_in_time_make_no_call(monkeypatch):
    """When a step's threads do not all start within the start deadline, no call is made and the step is
    invalid_input; the late thread makes no call either."""
    monkeypatch.setattr(_scenario, "START_TIMEOUT_S", 0.2)
    made = []
    monkeypatch.setattr(_scenario._Run, "perform", lambda self, one: made.append(one) or {"result": "x"})
    pending = _answer_within(scenario([{"concurrent": [call() for _ in range(4)]}]))
    real_start = threading.Thread.start

    def late_start(self):
        if self.name.endswith("-2"):  # the third call's thread reaches the barrier a second late
            target = self._target

            def late(*args, **kwargs):
                time.sleep(1.0)
                target(*args, **kwargs)

            self._target = late
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", late_start)
    out = _finish(pending)
    time.sleep(1.2)  # the late thread has arrived, and found the barrier broken
    assert (out["error"]["code"], out["error"]["at"]) == ("invalid_input", "steps[0].concurrent")
    assert made == []


def test_a_call_past_its_deadline_is_a_provider_error(monkeypatch):
    """A concurrent call still running at its deadline (its scripted delays and the margin) is a provider_error;
    the others answer."""
    monkeypatch.setattr(_scenario, "FINISH_MARGIN_S", 0.3)
    perform = _scenario._Run.perform

    def stuck_second(self, one):
        if one.index == 1:
            time.sleep(2.0)  # no scripted delay says it may take this long
        return perform(self, one)

    monkeypatch.setattr(_scenario._Run, "perform", stuck_second)
    out = answer(scenario([{"concurrent": [call(), call()]}], {"max_uses_per_run": 5}))
    assert "result" in out["calls"][0]
    assert out["calls"][1]["error"]["code"] == "provider_error"


def test_the_bound_of_a_call_is_its_scripted_delays(monkeypatch):
    """A concurrent call whose scripted delays outlast the margin alone still answers: its bound counts them."""
    monkeypatch.setattr(_scenario, "FINISH_MARGIN_S", 0.3)
    slow = call(provider=[{"answer": "slow", "delay_ms": 600}])
    out = answer(scenario([{"concurrent": [call(), slow]}], {"max_uses_per_run": 5}))
    assert all("result" in outcome for outcome in out["calls"]), out


def test_an_exception_in_a_concurrent_call_is_raised_as_in_a_plain_call(monkeypatch):
    """An unexpected exception in a concurrent call reaches the caller, as it would from a call of its own step."""

    def broken(self, one):
        raise LookupError("a bug")

    monkeypatch.setattr(_scenario._Run, "perform", broken)
    with pytest.raises(LookupError):
        answer(scenario([{"concurrent": [call(), call()]}]))
