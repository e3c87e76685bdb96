"""advisor_reference._scenario, part three: handlers, cache keys and budgets across calls, files and the work
directory, the HTTP provider of black-box runs, and threads; params are in test_scenario_params.py, answers in
test_scenario_calls.py."""

from __future__ import annotations

import threading
import time

import pytest

from advisor_reference import RequestBuilder
from advisor_reference._scenario import run_scenario
from advisor_reference._strings import REFERENCE_STRINGS

from ._helpers import HEX32, SNAPSHOT, FakeHttp, answer, call, scenario, spent_note

# --- handlers, cache keys and budgets -------------------------------------------------------------------------------


def _keys(steps, runtime=None):
    out = answer(scenario(steps, {"max_uses_per_run": 20, "child_max_uses": 20, **(runtime or {})}))
    assert all("result" in outcome for outcome in out["calls"]), out["calls"]
    by_call = {request["call"]: request["prompt_cache_key"] for request in out["provider_requests"]}
    return [by_call[index] for index in range(len(out["calls"]))]


def test_one_handler_per_agent_conversation_and_turn():
    """Calls of the same agent, conversation and turn share a handler's key; any other call gets a fresh one."""
    keys = _keys(
        [
            {"call": call()},
            {"call": call(conversation=1, turn=1)},
            {"call": call(turn=2)},
            {"call": call(conversation=2)},
            {"call": call(agent="c")},
            {"call": call(agent="c", turn=1, conversation=1)},
            {"call": call(agent="d")},
        ]
    )
    assert all(HEX32.fullmatch(key) for key in keys)
    assert keys[0] == keys[1] and keys[4] == keys[5]
    assert len({keys[0], keys[2], keys[3], keys[4], keys[6]}) == 5


def test_store_key_is_shared_by_every_handler():
    """With a key in the store's advisor slot, every handler of every agent sends that key."""
    keys = _keys(
        [{"call": call()}, {"call": call(turn=2)}, {"call": call(conversation=3, agent="c")}],
        {"cache_key_store": {"advisor": "shared-key"}},
    )
    assert keys == ["shared-key"] * 3


@pytest.mark.parametrize(
    "store", [{}, {"advisor": ""}, {"other": "not-this"}, None], ids=["empty", "empty-key", "other-slot", "null"]
)
def test_store_without_an_advisor_key_lets_handlers_mint_keys(store):
    """A store with no key for the advisor slot (or none at all) makes each handler mint its own key."""
    keys = _keys([{"call": call()}, {"call": call(turn=2)}], {"cache_key_store": store})
    assert all(HEX32.fullmatch(key) for key in keys) and keys[0] != keys[1]


def test_concurrent_calls_share_one_handler_and_count_exactly():
    """Concurrent calls of one turn share one handler's key, and exactly the cap's worth of them are granted."""
    calls = [call(provider=[{"answer": f"a{i}", "delay_ms": 20}]) for i in range(6)]
    out = answer(scenario([{"concurrent": calls}], {"max_uses_per_run": 4}))
    results = [outcome["result"] for outcome in out["calls"]]
    spent = spent_note(4, 4)
    assert results.count(spent) == 2
    assert sorted(r for r in results if r != spent) == sorted({f"a{i}" for i in range(6)} & set(results))
    assert len(out["provider_requests"]) == 4
    assert len({request["prompt_cache_key"] for request in out["provider_requests"]}) == 1
    for request in out["provider_requests"]:
        assert out["calls"][request["call"]]["result"] == f"a{request['call']}"


def test_concurrent_calls_run_at_the_same_time():
    """The calls of a concurrent step overlap: four 1 s replies take far less than the 4 s they take one by one."""
    calls = [call(turn=i, provider=[{"answer": f"r{i}", "delay_ms": 1000}]) for i in range(4)]
    start = time.monotonic()
    out = answer(scenario([{"concurrent": calls}], {"max_uses_per_run": 4}))
    assert 1.0 <= time.monotonic() - start < 3.0  # one at a time is at least 4 s: two seconds of slack for a busy host
    assert out["calls"] == [{"result": f"r{i}"} for i in range(4)]


def test_empty_concurrent_step_is_allowed():
    """A concurrent step with no calls adds no results and does not shift later call indices."""
    out = answer(scenario([{"concurrent": []}, {"call": call()}]))
    assert out["calls"] == [{"result": "ok"}]
    assert [r["call"] for r in out["provider_requests"]] == [0]


def test_children_have_their_own_budget():
    """Each child id has its own counter with the child cap; the main agent's cap is apart from them."""
    steps = [
        {"call": call(agent="a")},
        {"call": call(agent="a", turn=2)},
        {"call": call(agent="b")},
        {"call": call()},
        {"call": call(turn=2)},
        {"call": call(turn=3)},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 2, "child_max_uses": 1}))
    assert out["calls"] == [
        {"result": "ok"},
        {"result": spent_note(1, 1)},
        {"result": "ok"},
        {"result": "ok"},
        {"result": "ok"},
        {"result": spent_note(2, 2)},
    ]


@pytest.mark.parametrize(
    "runtime, used_max", [({}, (3, 3)), ({"max_uses_per_run": 0}, (0, 0))], ids=["default-cap", "zero-cap"]
)
def test_main_agent_cap(runtime, used_max):
    """The main agent's cap defaults to 3 uses; a cap of 0 spends the budget at once (0/0)."""
    steps = [{"call": call(turn=turn)} for turn in range(5)]
    out = answer(scenario(steps, runtime))
    used, limit = used_max
    spent = {"result": spent_note(used, limit)}
    assert out["calls"] == [{"result": "ok"}] * used + [spent] * (5 - used)


def test_child_cap_defaults_to_one():
    """A child agent gets one use by default."""
    out = answer(scenario([{"call": call(agent="c")}, {"call": call(agent="c", turn=2)}]))
    assert out["calls"][1] == {"result": spent_note(1, 1)}


# --- missing snapshot and files -------------------------------------------------------------------------------------


def _error_message(outcome, code, at):
    """The message of a call's error outcome, checked to have this code and ``at``, and to name that path."""
    assert set(outcome) == {"error"} and set(outcome["error"]) == {"code", "message", "at"}, outcome
    error = outcome["error"]
    assert (error["code"], error["at"]) == (code, at) and at in error["message"]
    return error["message"]


def test_null_snapshot_is_a_missing_snapshot_error():
    """A call whose snapshot is null fails with missing_snapshot and sends nothing."""
    out = answer(scenario([{"call": call(snapshot=None)}]))
    (outcome,) = out["calls"]
    _error_message(outcome, "missing_snapshot", "snapshot")
    assert out["provider_requests"] == []


def test_call_without_input_is_a_bare_call():
    """A call that leaves ``input`` out is a bare call with no question and no files."""
    raw = call()
    del raw["input"]
    assert answer(scenario([{"call": raw}]))["calls"] == [{"result": "ok"}]


def test_files_without_a_work_dir_are_refused():
    """Files named in a scenario without a work_dir are a file_error at input.files and cost no use."""
    out = answer(
        scenario([{"call": call(input={"files": ["a.txt"]})}, {"call": call(turn=2)}], {"max_uses_per_run": 1})
    )
    _error_message(out["calls"][0], "file_error", "input.files")
    assert out["calls"][1] == {"result": "ok"}


def test_work_dir_settings_reach_the_path_policy(tmp_path):
    """The scenario's work_dir, blocked paths and confinement decide which files a call may read."""
    work = tmp_path / "work"
    (work / "keys").mkdir(parents=True)
    (work / "keys" / "id").write_text("secret")
    (work / "a.txt").write_text("alpha")
    (tmp_path / "out.txt").write_text("outside")
    steps = [
        {"call": call(turn=1, input={"files": ["a.txt"]})},
        {"call": call(turn=2, input={"files": ["keys/id"]})},
        {"call": call(turn=3, input={"files": ["../out.txt"]})},
    ]
    out = answer(
        scenario(
            steps, {"blocked_paths": ["keys"], "confine_to_work_dir": True, "max_uses_per_run": 5}, work_dir=str(work)
        )
    )
    assert out["calls"][0] == {"result": "ok"}
    assert "keys/id" in _error_message(out["calls"][1], "file_error", "input.files[0]")
    assert "../out.txt" in _error_message(out["calls"][2], "file_error", "input.files[0]")
    (request,) = out["provider_requests"]
    assert "File: a.txt\n```\nalpha\n```" in request["messages"][-1]["content"]
    free = answer(scenario(steps[1:], {"max_uses_per_run": 5}, work_dir=str(work)))
    assert free["calls"] == [{"result": "ok"}, {"result": "ok"}]


# --- the HTTP provider ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "http, made",
    [
        ({"kind": "openai", "base_url": "http://127.0.0.1:1"}, ("openai", "http://127.0.0.1:1", "", 30.0)),
        (
            {"kind": "anthropic", "base_url": "http://h", "timeout_ms": 2500, "api_key": "sk"},
            ("anthropic", "http://h", "sk", 2.5),
        ),
        ({"kind": "codex", "base_url": "http://h/", "timeout_ms": 1}, ("codex", "http://h/", "", 0.001)),
    ],
    ids=["defaults", "all-fields", "shortest-timeout"],
)
def test_http_provider_is_made_from_its_settings(http, made):
    """The HTTP provider gets the kind, base URL, API key and timeout (milliseconds as seconds) of the runtime."""
    FakeHttp.made = []
    steps = [{"call": call(provider=[])}, {"concurrent": [call(turn=2, provider=[])]}, {"call": {"snapshot": SNAPSHOT}}]
    out = run_scenario(scenario(steps, {"http_provider": http}), RequestBuilder(REFERENCE_STRINGS), http_class=FakeHttp)
    (provider,) = FakeHttp.made
    assert (provider.kind, provider.base_url, provider.api_key, provider.timeout) == made
    assert out["calls"] == [{"result": f"over {made[0]}"}] * 3
    assert [r["call"] for r in out["provider_requests"]] == [0, 1, 2]
    assert len(provider.requests) == 3 and provider.closed


def test_no_http_provider_when_runtime_has_none():
    """Without http_provider (or with it null) the calls answer from their scripted replies, no HTTP is made."""
    FakeHttp.made = []
    for runtime in ({}, {"http_provider": None}):
        out = run_scenario(
            scenario([{"call": call()}], runtime), RequestBuilder(REFERENCE_STRINGS), http_class=FakeHttp
        )
        assert out["calls"] == [{"result": "ok"}]
    assert FakeHttp.made == []


def test_threads_do_not_leak_between_scenarios():
    """A scenario run in another thread answers the same as one run in this thread."""
    params = scenario([{"call": call(provider=[{"answer": "same"}])}])
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("out", answer(params)))
    thread.start()
    thread.join(10)
    assert box["out"]["calls"] == answer(params)["calls"] == [{"result": "same"}]
