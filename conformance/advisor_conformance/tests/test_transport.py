"""Transport sessions and prompt-cache keys of advisor requests (spec: Transport and cache; clarifications §7)."""

from __future__ import annotations

import re

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import call, requests_of, run, scenario

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _requests(impl, steps, runtime, rule):
    params = scenario(steps, runtime=runtime)
    answer = run(impl, params, rule)
    requests = [requests_of(answer, i) for i in range(len(answer["calls"]))]
    check(all(len(r) == 1 for r in requests), rule, "a call did not make exactly one provider request", input=params,
          actual=answer)
    return [r[0] for r in requests], params


@pytest.mark.rule(id="transport.main-session")
def test_main_agent_uses_session_advisor(impl):
    """A main-agent advisor call uses `<session>-advisor`, with parent `<session>`."""
    (request,), params = _requests(impl, [{"call": call()}], {"session_id": "sess-42"}, "transport.main-session")
    check_equal((request["transport_session"], request["parent_session"]), ("sess-42-advisor", "sess-42"),
                "transport.main-session", "the main agent's sessions are wrong", input=params)


@pytest.mark.rule(id="transport.subagent-session")
def test_sub_agents_share_session_subagent_advisor(impl):
    """Every sub-agent's advisor call uses the shared `<session>-subagent-advisor`, with parent `<session>`."""
    steps = [{"call": call(agent="explorer")}, {"call": call(agent="tester")}, {"call": call(agent="explorer",
                                                                                             turn=2)}]
    requests, params = _requests(impl, steps, {"session_id": "sess-42", "child_max_uses": 2},
                                 "transport.subagent-session")
    sessions = [(r["transport_session"], r["parent_session"]) for r in requests]
    check_equal(sessions, [("sess-42-subagent-advisor", "sess-42")] * 3, "transport.subagent-session",
                "sub-agents do not share <session>-subagent-advisor under <session>", input=params)


@pytest.mark.rule(id="transport.no-session")
@pytest.mark.parametrize("agent", [None, "child"], ids=["main", "child"])
def test_no_session_id_no_transport_session(impl, agent):
    """Without a session id no transport session and no parent session are set."""
    (request,), params = _requests(impl, [{"call": call(agent=agent)}], {}, "transport.no-session")
    check_equal((request["transport_session"], request["parent_session"]), (None, None), "transport.no-session",
                "a transport session was set without a session id", input=params)


@pytest.mark.rule(id="transport.cache-key-store")
def test_store_key_is_used_everywhere(impl):
    """The store's key for the slot `advisor` is the cache key of every handler, turn and conversation."""
    steps = [{"call": call(conversation=c, turn=t)} for c, t in [(1, 1), (1, 2), (2, 1)]]
    runtime = {"cache_key_store": {"advisor": "store-key-7", "main": "other-slot-key"}, "max_uses_per_run": 5}
    requests, params = _requests(impl, steps, runtime, "transport.cache-key-store")
    check_equal([r["prompt_cache_key"] for r in requests], ["store-key-7"] * 3, "transport.cache-key-store",
                "the store's advisor key was not used by every handler", input=params)


@pytest.mark.rule(id="transport.fresh-key")
@pytest.mark.parametrize("store", [None, {}, {"advisor": ""}], ids=["no-store", "no-key", "empty-key"])
def test_handlers_mint_their_own_keys(impl, store):
    """With no key from a store, each handler mints a fresh 32-hex-digit key used by all of its calls."""
    steps = [{"call": call()}, {"call": call()}, {"call": call(turn=2)}, {"call": call(conversation=2)}]
    requests, params = _requests(impl, steps, {"cache_key_store": store, "max_uses_per_run": 5},
                                 "transport.fresh-key")
    keys = [r["prompt_cache_key"] for r in requests]
    check(all(HEX32.match(key) for key in keys), "transport.fresh-key", "a key is not 32 lower-case hex digits",
          input=params, actual=keys)
    check(keys[0] == keys[1], "transport.fresh-key", "two calls of one handler used different keys", input=params,
          actual=keys)
    check(len({keys[0], keys[2], keys[3]}) == 3, "transport.fresh-key",
          "handlers of different turns or conversations share a key", input=params, actual=keys)


@pytest.mark.rule(id="transport.fresh-key")
def test_fresh_keys_differ_between_runtimes(impl):
    """Two runtimes without a store do not mint the same key."""
    first, _ = _requests(impl, [{"call": call()}], {}, "transport.fresh-key")
    second, params = _requests(impl, [{"call": call()}], {}, "transport.fresh-key")
    check(first[0]["prompt_cache_key"] != second[0]["prompt_cache_key"], "transport.fresh-key",
          "two runtimes minted the same key", input=params)


@pytest.mark.rule(id="transport.advisor-profile")
@pytest.mark.parametrize("agent", [None, "child"], ids=["main", "child"])
def test_requests_set_the_advisor_profile(impl, agent):
    """Every advisor request sets the advisor cache profile."""
    (request,), params = _requests(impl, [{"call": call(agent=agent)}], {"session_id": "s"},
                                   "transport.advisor-profile")
    check(request["advisor_cache_profile"] is True, "transport.advisor-profile",
          "the request does not set the advisor cache profile", input=params, actual=request)
