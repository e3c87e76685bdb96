"""Transport sessions and prompt-cache keys of advisor requests."""

from __future__ import annotations

import secrets
import threading

CACHE_KEY_SLOT = "advisor"


def transport_sessions(session_id: str | None, *, sub_agent: bool) -> tuple[str | None, str | None]:
    """``(transport session, parent session)`` of an advisor call.

    The main agent's advisor uses ``<session>-advisor``; every sub-agent's
    advisor shares ``<session>-subagent-advisor``, so it never shares or
    retires the parent advisor's pooled transport. Both have the parent
    ``<session>``. With no session id, no transport session is set.
    """
    if not session_id:  # rule: transport.no-session
        return None, None
    # rules: transport.main-session, transport.subagent-session
    suffix = "-subagent-advisor" if sub_agent else "-advisor"
    return session_id + suffix, session_id


def new_cache_key() -> str:
    """A fresh prompt-cache key: 32 lower-case hex digits from 16 random bytes (rule: transport.fresh-key)."""
    return secrets.token_hex(16)


class CacheKeyStore:
    """Process-lifetime cache keys, one per slot; a slot without a key answers the empty string."""

    def __init__(self, keys: dict[str, str] | None = None) -> None:
        self._keys = dict(keys or {})
        self._lock = threading.Lock()

    def key(self, slot: str) -> str:
        with self._lock:
            return self._keys.get(slot, "")

    def setdefault(self, slot: str, key: str) -> str:
        """The slot's key, storing ``key`` first when the slot has none (atomic: a store that mints on first use)."""
        with self._lock:
            return self._keys.setdefault(slot, key)


def cache_key_for_handler(store: CacheKeyStore | None) -> str:
    """The store's key for the advisor slot, or a key of the handler's own when there is none."""
    key = store.key(CACHE_KEY_SLOT) if store is not None else ""  # rule: transport.cache-key-store
    return key or new_cache_key()  # rule: transport.fresh-key
