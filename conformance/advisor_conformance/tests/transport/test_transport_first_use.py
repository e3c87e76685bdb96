"""Values made on first use, under concurrent first calls (clarifications §6-§7): a handler's own cache key, minted
when there is no store key, and a store's key minted for the slot on first use. The calls of a concurrent step are
released together, so every first call of a handler (or of the runtime) races the others: however an implementation
makes the value lazily, one handler's calls all carry one key, and a store that mints gives every handler the one
key it minted.

(The runtime's use counter and a child's counter, made on a child's first call, are held under concurrent first
calls by the budget tests: budget/test_budget.py, budget.atomic.)
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from advisor_conformance.checks import check
from advisor_conformance.scenarios import call, reply, run, scenario

HEX32 = re.compile(r"^[0-9a-f]{32}$")
#: Concurrent first calls: (agent, turn) of each, eight of two main-agent handlers and four of a child's.
CALLS = [(None, 1)] * 8 + [(None, 2)] * 8 + [("worker", 1)] * 4


def _keys_by_handler(impl, store, rules):
    """Run CALLS as one concurrent step (each call's reply a little late, so they are all in flight together) and
    group the cache keys of their requests by handler."""
    steps = [{"concurrent": [call(agent=agent, turn=turn, provider=[reply(delay_ms=20)]) for agent, turn in CALLS]}]
    params = scenario(steps, runtime={"cache_key_store": store, "max_uses_per_run": 16, "child_max_uses": 4})
    answer = run(impl, params, rules)
    keys = defaultdict(list)
    for request in answer["provider_requests"]:
        keys[CALLS[request["call"]]].append(request["prompt_cache_key"])
    check(sum(map(len, keys.values())) == len(CALLS), rules, f"{len(CALLS)} concurrent calls within their caps did not "
          f"make {len(CALLS)} provider requests", input=params, actual=answer["provider_requests"])
    return dict(keys), params


@pytest.mark.rule(id="transport.fresh-key")
@pytest.mark.parametrize("store", [None, {"advisor": ""}], ids=["no-store", "empty-key"])
def test_concurrent_first_calls_of_a_handler_share_the_key_it_mints(impl, store):
    """With no store key, the concurrent first calls of one handler all carry the one fresh key it mints, and the
    handlers of another turn and of a child mint keys of their own."""
    keys, params = _keys_by_handler(impl, store, "transport.fresh-key")
    shown = {str(handler): handler_keys for handler, handler_keys in keys.items()}
    check(all(HEX32.match(key or "") for handler_keys in keys.values() for key in handler_keys), "transport.fresh-key",
          "a key is not 32 lower-case hex digits", input=params, actual=shown)
    split = {str(handler): sorted(set(handler_keys)) for handler, handler_keys in keys.items() if len(set(handler_keys)) > 1}
    check(not split, "transport.fresh-key", "concurrent first calls of one handler carried different keys",
          input=params, actual=split)
    check(len({handler_keys[0] for handler_keys in keys.values()}) == len(keys), "transport.fresh-key",
          "handlers of different turns or agents share a key", input=params, actual=shown)


@pytest.mark.rule(id="transport.cache-key-store")
@pytest.mark.rule(id="transport.fresh-key")
def test_concurrent_first_calls_get_one_key_from_a_store_that_mints(impl):
    """A store holding no key for the slot `advisor` gives none (each handler mints its own, one for all of its
    calls) or mints one on first use and gives every handler that one key: concurrent first calls of several
    handlers never get two keys minted for the slot."""
    keys, params = _keys_by_handler(impl, {}, ["transport.cache-key-store", "transport.fresh-key"])
    shown = {str(handler): handler_keys for handler, handler_keys in keys.items()}
    split = {str(handler): sorted(set(handler_keys)) for handler, handler_keys in keys.items() if len(set(handler_keys)) > 1}
    # Several keys in one handler's calls: minted on first use by the handler or by the store, which one cannot tell.
    check(not split, ["transport.cache-key-store", "transport.fresh-key"], "concurrent first calls of one handler "
          "carried different keys", input=params, actual=split)
    firsts = {handler_keys[0] for handler_keys in keys.values()}
    check(len(firsts) in (1, len(keys)), "transport.cache-key-store", f"the {len(keys)} handlers carried {len(firsts)} "
          "keys: neither one key minted by the store for all nor one key of each handler's own", input=params,
          actual=shown)
