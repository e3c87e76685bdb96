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


#: Calls as (agent, conversation, turn): the main agent (None) and children, in several handlers.
SESSION_CASES = {
    "main-one-call": [(None, 1, 1)],
    "main-several-handlers": [(None, 1, 1), (None, 1, 1), (None, 1, 2), (None, 2, 1)],
    "one-child": [("explorer", 1, 1)],
    "several-children": [("explorer", 1, 1), ("tester", 1, 1), ("explorer", 1, 2), ("tester", 2, 1)],
    "child-then-main": [("explorer", 1, 1), (None, 1, 1), ("explorer", 1, 2), (None, 1, 2)],
    "main-then-children": [(None, 1, 1), ("a", 1, 1), ("b", 2, 1), (None, 2, 1)],
}
#: Session ids: plain, with upper case and punctuation, already ending in -advisor.
SESSION_IDS = {"plain": "sess-42", "punctuated": "Sess.42_ABC:x", "ends-in-advisor": "s-7-advisor"}


def _expected_sessions(agent, session):
    if agent is None:
        return "transport.main-session", (f"{session}-advisor", session)
    return "transport.subagent-session", (f"{session}-subagent-advisor", session)


@pytest.mark.rule(id="transport.main-session")
@pytest.mark.rule(id="transport.subagent-session")
@pytest.mark.parametrize("session", list(SESSION_IDS.values()), ids=list(SESSION_IDS))
@pytest.mark.parametrize("calls", list(SESSION_CASES.values()), ids=list(SESSION_CASES))
def test_each_call_uses_its_agents_session(impl, calls, session):
    """A main-agent call uses `<session>-advisor` and a sub-agent's `<session>-subagent-advisor`, both with parent
    `<session>` taken as given, in every handler, whatever the order of the agents' calls."""
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    rules = sorted({_expected_sessions(agent, session)[0] for agent, _, _ in calls})
    requests, params = _requests(impl, steps, {"session_id": session, "max_uses_per_run": 8, "child_max_uses": 8},
                                 rules)
    for index, ((agent, _, _), request) in enumerate(zip(calls, requests, strict=True)):
        rule, expected = _expected_sessions(agent, session)
        check_equal((request["transport_session"], request["parent_session"]), expected, rule,
                    f"call {index} ({'the main agent' if agent is None else 'sub-agent ' + agent}) has the wrong "
                    "(transport, parent) sessions", input=params)


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


@pytest.mark.rule(id="transport.no-session")
@pytest.mark.parametrize("session", [None, ""], ids=["null", "empty"])
def test_null_or_empty_session_id_sets_no_session(impl, session):
    """A session id that is null or empty sets no transport session and no parent session, for the main agent and
    sub-agents, in every handler."""
    calls = [(None, 1, 1), ("a", 1, 1), (None, 1, 2), ("b", 2, 1)]
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    requests, params = _requests(impl, steps, {"session_id": session, "max_uses_per_run": 8, "child_max_uses": 8},
                                 "transport.no-session")
    check_equal([(r["transport_session"], r["parent_session"]) for r in requests], [(None, None)] * len(calls),
                "transport.no-session", "a transport session was set without a session id", input=params)


@pytest.mark.rule(id="transport.cache-key-store")
def test_store_key_is_used_everywhere(impl):
    """The store's key for the slot `advisor` is the cache key of every handler, turn and conversation."""
    steps = [{"call": call(conversation=c, turn=t)} for c, t in [(1, 1), (1, 2), (2, 1)]]
    runtime = {"cache_key_store": {"advisor": "store-key-7", "main": "other-slot-key"}, "max_uses_per_run": 5}
    requests, params = _requests(impl, steps, runtime, "transport.cache-key-store")
    check_equal([r["prompt_cache_key"] for r in requests], ["store-key-7"] * 3, "transport.cache-key-store",
                "the store's advisor key was not used by every handler", input=params)


#: Store keys of the slot `advisor`, used as they are: not hex, in upper case, long.
STORE_KEYS = {"word": "store-key-7", "upper-case-and-punctuation": "Key_UPPER.7:x", "long": "k" * 120}


@pytest.mark.rule(id="transport.cache-key-store")
@pytest.mark.parametrize("session", ["s", None], ids=["session", "no-session"])
@pytest.mark.parametrize("key", list(STORE_KEYS.values()), ids=list(STORE_KEYS))
def test_store_key_is_every_agents_key_as_given(impl, key, session):
    """The store's `advisor` key, as given, is the cache key of the main agent's and every sub-agent's handlers, in
    every turn and conversation, with or without a session id and other slots beside it."""
    calls = [(None, 1, 1), ("a", 1, 1), ("b", 1, 2), (None, 2, 1), ("a", 2, 1)]
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    runtime = {"cache_key_store": {"main": "other-slot-key", "advisor": key, "subagent": "sub-slot-key"},
               "session_id": session, "max_uses_per_run": 8, "child_max_uses": 8}
    requests, params = _requests(impl, steps, runtime, "transport.cache-key-store")
    check_equal([r["prompt_cache_key"] for r in requests], [key] * len(calls), "transport.cache-key-store",
                "the store's advisor key was not every handler's cache key", input=params)


def _handlers_keys(impl, store):
    """The keys of two calls of one handler, then of a handler of another turn and of another conversation, with the
    store ``store``; a key of another slot than `advisor` fails transport.cache-key-store."""
    steps = [{"call": call()}, {"call": call()}, {"call": call(turn=2)}, {"call": call(conversation=2)}]
    requests, params = _requests(impl, steps, {"cache_key_store": store, "max_uses_per_run": 5},
                                 ["transport.fresh-key", "transport.cache-key-store"])
    keys = [r["prompt_cache_key"] for r in requests]
    check("other-slot-key" not in keys, "transport.cache-key-store", "another slot's key was used",
          input=params, actual=keys)
    return keys, params


def _check_own_keys(keys, params):
    """Each handler minted a fresh 32-hex-digit key of its own, used by all of its calls."""
    check(all(HEX32.match(key) for key in keys), "transport.fresh-key", "a key is not 32 lower-case hex digits",
          input=params, actual=keys)
    check(keys[0] == keys[1], "transport.fresh-key", "two calls of one handler used different keys", input=params,
          actual=keys)
    check(len({keys[0], keys[2], keys[3]}) == 3, "transport.fresh-key",
          "handlers of different turns or conversations share a key", input=params, actual=keys)


@pytest.mark.rule(id="transport.fresh-key")
@pytest.mark.rule(id="transport.cache-key-store")
@pytest.mark.parametrize("store", [None, {"advisor": ""}, {"main": "other-slot-key", "advisor": ""}],
                         ids=["no-store", "empty-key", "empty-key-beside-others"])
def test_handlers_mint_their_own_keys(impl, store):
    """With no store, or an empty key from it, each handler mints a fresh 32-hex-digit key used by all of its calls,
    never the key of a slot other than `advisor`."""
    _check_own_keys(*_handlers_keys(impl, store))


@pytest.mark.rule(id="transport.fresh-key")
@pytest.mark.rule(id="transport.cache-key-store")
@pytest.mark.parametrize("store", [{}, {"main": "other-slot-key"}], ids=["no-key", "other-slots-only"])
def test_store_without_an_advisor_key_gives_none_or_mints_one(impl, store):
    """A store that holds no key for the slot `advisor` either gives none (each handler mints its own fresh key) or,
    as a store may, mints one on first use and gives that one key to every handler; never another slot's key."""
    keys, params = _handlers_keys(impl, store)
    if len(set(keys)) == 1 and keys[0]:
        return  # the store minted the slot's key once: stable across handlers, turns and conversations (§7)
    _check_own_keys(keys, params)


@pytest.mark.rule(id="transport.fresh-key")
@pytest.mark.parametrize("session", [None, "s"], ids=["no-session", "session"])
def test_sub_agent_handlers_mint_their_own_keys(impl, session):
    """Without a store key, each sub-agent handler mints its own fresh key too: two calls of one share it, while the
    main agent's handler, another child's and the same child's next turn each have another."""
    calls = [(None, 1, 1), ("a", 1, 1), ("a", 1, 1), ("b", 1, 1), ("a", 1, 2)]
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    requests, params = _requests(impl, steps, {"session_id": session, "max_uses_per_run": 8, "child_max_uses": 8},
                                 "transport.fresh-key")
    keys = [r["prompt_cache_key"] for r in requests]
    check(all(HEX32.match(key) for key in keys), "transport.fresh-key", "a key is not 32 lower-case hex digits",
          input=params, actual=keys)
    check(keys[1] == keys[2], "transport.fresh-key", "two calls of one sub-agent handler used different keys",
          input=params, actual=keys)
    check(len({keys[0], keys[1], keys[3], keys[4]}) == 4, "transport.fresh-key",
          "handlers of the main agent, of two children and of a child's next turn share a key", input=params,
          actual=keys)


@pytest.mark.rule(id="transport.fresh-key")
def test_fresh_keys_differ_between_runtimes(impl):
    """Two runtimes without a store do not mint the same key."""
    first, _ = _requests(impl, [{"call": call()}], {}, "transport.fresh-key")
    second, params = _requests(impl, [{"call": call()}], {}, "transport.fresh-key")
    check(first[0]["prompt_cache_key"] != second[0]["prompt_cache_key"], "transport.fresh-key",
          "two runtimes minted the same key", input=params)


#: Runtime settings of an advisor request: a session or none, reasoning (a streaming request) or none.
PROFILE_RUNTIMES = {
    "session": {"session_id": "s"},
    "no-session": {},
    "reasoning": {"session_id": "s", "reasoning": "high"},
    "store-key": {"cache_key_store": {"advisor": "k-1"}},
}


@pytest.mark.rule(id="transport.advisor-profile")
@pytest.mark.parametrize("runtime", list(PROFILE_RUNTIMES.values()), ids=list(PROFILE_RUNTIMES))
@pytest.mark.parametrize("agent", [None, "child"], ids=["main", "child"])
def test_requests_set_the_advisor_profile(impl, agent, runtime):
    """Every advisor request sets the advisor cache profile, with or without a session, a store key or reasoning."""
    (request,), params = _requests(impl, [{"call": call(agent=agent)}], runtime, "transport.advisor-profile")
    check(request["advisor_cache_profile"] is True, "transport.advisor-profile",
          "the request does not set the advisor cache profile", input=params, actual=request)


@pytest.mark.rule(id="transport.advisor-profile")
def test_every_request_of_a_run_sets_the_advisor_profile(impl):
    """Each request of several handlers, turns, conversations and agents sets the advisor cache profile."""
    calls = [(None, 1, 1), (None, 1, 1), ("a", 1, 1), (None, 1, 2), ("a", 2, 1), ("b", 2, 1)]
    steps = [{"call": call(agent=a, conversation=c, turn=t)} for a, c, t in calls]
    requests, params = _requests(impl, steps, {"session_id": "s", "max_uses_per_run": 8, "child_max_uses": 8},
                                 "transport.advisor-profile")
    check_equal([r["advisor_cache_profile"] for r in requests], [True] * len(calls), "transport.advisor-profile",
                "a request does not set the advisor cache profile", input=params)
