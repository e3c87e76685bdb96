"""advisor_reference._budget: use counters, their grants, and the store of child agents' counters."""

from __future__ import annotations

import threading

import pytest

from advisor_reference import BudgetStore, UseCounter
from advisor_reference._budget import UseGrant

#: The longest a test waits for its threads: far more than they need, far less than a hang.
JOIN_S = 30


def test_use_counter_rejects_a_negative_cap():
    """A negative cap is a configuration error."""
    with pytest.raises(ValueError):
        UseCounter(-1)


def test_use_counter_error_names_the_problem():
    """A negative cap is refused with a message naming the cap."""
    with pytest.raises(ValueError) as info:
        UseCounter(-1)
    assert "cap" in str(info.value)


def test_use_grants_count_up_to_the_cap():
    """Each grant reports the count after it; past the cap nothing changes and the grant is refused."""
    counter = UseCounter(2)
    assert [counter.take() for _ in range(4)] == [
        UseGrant(True, 1, 2),
        UseGrant(True, 2, 2),
        UseGrant(False, 2, 2),
        UseGrant(False, 2, 2),
    ]
    assert counter.used == 2 and counter.limit == 2


def test_zero_cap_refuses_at_once():
    """A cap of 0 refuses the first use with 0/0."""
    counter = UseCounter(0)
    assert counter.take() == UseGrant(False, 0, 0) and counter.used == 0


def test_use_counter_counts_exactly_the_cap_under_threads():
    """Many threads taking uses get exactly ``limit`` grants."""
    counter, grants = UseCounter(7), []
    threads = [threading.Thread(target=lambda: grants.append(counter.take().granted)) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_S)
    assert grants.count(True) == 7 and counter.used == 7


def test_budget_store_keys_counters_by_agent_id():
    """The same agent id gets the same counter, different ids independent ones with the store's cap (default 1)."""
    store = BudgetStore()
    assert store.limit == 1
    first = store.counter("a")
    assert store.counter("a") is first and first.limit == 1
    assert first.take().granted and not store.counter("a").take().granted
    assert store.counter("b").take() == UseGrant(True, 1, 1)
    assert BudgetStore(4).counter("x").limit == 4


def test_budget_store_makes_one_counter_per_id_under_threads():
    """Threads asking the store for one id at the same time all get the same counter."""
    store, got = BudgetStore(3), []
    start = threading.Barrier(8, timeout=JOIN_S)

    def ask():
        start.wait(JOIN_S)
        got.append(store.counter("same"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_S)
    assert len({id(counter) for counter in got}) == 1
