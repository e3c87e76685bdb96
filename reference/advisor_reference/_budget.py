"""The use budget: one counter per runtime, and a store of counters for child agents."""

from __future__ import annotations

import threading
from dataclasses import dataclass

#: ORIGIN defaults: three uses per run for the main agent, one per child agent.
DEFAULT_MAX_USES = 3  # rule: budget.default-cap
DEFAULT_CHILD_MAX_USES = 1  # rule: budget.child-default-cap


@dataclass(frozen=True, slots=True)
class UseGrant:
    """The outcome of asking for a use: granted, and the count after the request (``used``/``limit``)."""

    granted: bool
    used: int
    limit: int


class UseCounter:
    """A cap on advisor uses, shared by every handler built for the same agent; atomic under threads.

    Its state is public for a variant's :meth:`take`: ``used`` (the uses counted) changes only while ``lock``
    is held.
    """

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError("the use cap cannot be negative")
        self.limit = limit
        self.used = 0
        self.lock = threading.Lock()

    def take(self) -> UseGrant:
        """Count one use if the cap allows it; past the cap nothing changes."""
        with self.lock:  # check and count under one lock (rule: budget.atomic)
            if self.used >= self.limit:  # a cap of 0 grants nothing: 0/0 (rule: budget.zero-cap)
                return UseGrant(False, self.used, self.limit)
            self.used += 1
            return UseGrant(True, self.used, self.limit)


class BudgetStore:
    """Counters for child agents, keyed by agent id: the same id gets the same counter (rule: budget.child-store)."""

    def __init__(self, limit: int = DEFAULT_CHILD_MAX_USES) -> None:
        self.limit = limit
        self._counters: dict[str, UseCounter] = {}
        self._lock = threading.Lock()

    def counter(self, agent_id: str) -> UseCounter:
        with self._lock:
            counter = self._counters.get(agent_id)
            if counter is None:
                counter = self._counters[agent_id] = self.new_counter()
            return counter

    def new_counter(self) -> UseCounter:
        """The counter of an agent id seen for the first time (a variant's counter type goes here)."""
        return UseCounter(self.limit)
