"""advisor_reference._sessions: transport session names and the prompt cache keys of handlers."""

from __future__ import annotations

import pytest

from advisor_reference import CacheKeyStore, new_cache_key, transport_sessions
from advisor_reference._sessions import CACHE_KEY_SLOT, cache_key_for_handler

from ._helpers import HEX32


def test_session_names():
    """Main and sub-agent advisors get their transport sessions under the parent session."""
    assert transport_sessions("s", sub_agent=False) == ("s-advisor", "s")
    assert transport_sessions("s", sub_agent=True) == ("s-subagent-advisor", "s")
    assert transport_sessions("", sub_agent=True) == (None, None)


def test_session_names_with_none():
    """No session id means no transport session for main or sub-agent advisors."""
    assert transport_sessions(None, sub_agent=False) == (None, None)
    assert transport_sessions("", sub_agent=False) == (None, None)


def test_new_cache_keys_are_32_lower_case_hex_and_fresh():
    """A minted key is 32 lower-case hex digits, and no two are alike."""
    keys = {new_cache_key() for _ in range(50)}
    assert len(keys) == 50 and all(HEX32.fullmatch(key) for key in keys)


@pytest.mark.parametrize(
    "keys, expected",
    [
        ({"advisor": "abc"}, "abc"),
        ({"advisor": "abc", "main": "zzz"}, "abc"),
        ({"main": "zzz"}, None),
        ({"advisor": ""}, None),
        ({}, None),
        (None, None),
    ],
    ids=["advisor", "among-others", "other-slot", "empty-key", "empty-store", "no-keys"],
)
def test_cache_key_from_the_store_or_minted(keys, expected):
    """The handler's key is the store's advisor key; with none (or an empty one) it mints a fresh one."""
    store = CacheKeyStore(keys)
    assert store.key(CACHE_KEY_SLOT) == (expected or "")
    key = cache_key_for_handler(store)
    if expected is None:
        assert HEX32.fullmatch(key) and key != cache_key_for_handler(store)
    else:
        assert key == expected == cache_key_for_handler(store)


def test_no_store_mints_a_key():
    """Without a store each handler key is fresh."""
    first, second = cache_key_for_handler(None), cache_key_for_handler(None)
    assert HEX32.fullmatch(first) and first != second


def test_cache_key_store_copies_its_keys():
    """Changing the dict a store was made from does not change the store."""
    keys = {"advisor": "k"}
    store = CacheKeyStore(keys)
    keys["advisor"] = "changed"
    assert store.key("advisor") == "k"
    assert CacheKeyStore().key("advisor") == ""
