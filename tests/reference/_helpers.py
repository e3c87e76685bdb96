"""Plain helpers shared by the reference's unit tests: snapshots, stream feeding, scenario params, a fake
HTTP provider."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from advisor_reference import REFERENCE_STRINGS, ProviderAnswer
from advisor_reference._wire import StreamState
from advisor_reference.adapter import ReferenceAdapter

#: A one-message snapshot, as the caller writes it.
SNAPSHOT = [{"role": "user", "content": "Fix the bug."}]
#: A minted cache key: 32 lower-case hex digits.
HEX32 = re.compile(r"[0-9a-f]{32}")
#: A minimal valid provider-neutral request, in its JSON form.
GOOD_REQUEST = {"model": "m", "messages": [{"role": "user", "content": "u"}], "max_tokens": 5}
#: The usage of an answer that reported no token counts.
ZERO_USAGE = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_creation_tokens": 0}


def compact(value) -> str:
    """``value`` as compact JSON, the way providers send event data."""
    return json.dumps(value, separators=(",", ":"))


def feed(stream_event: Callable[[StreamState, str, str], None], *events: tuple[str, str]) -> StreamState:
    """A fresh stream state fed with ``(event name, data)`` pairs by a wire's ``stream_event``."""
    state = StreamState()
    for event, data in events:
        stream_event(state, event, data)
    return state


# --- scenario params -------------------------------------------------------------------------------------------------


def call(**fields):
    """A valid call: a bare input on a one-message snapshot with one good reply, overridden by ``fields``."""
    return {"input": {}, "snapshot": SNAPSHOT, "provider": [{"answer": "ok"}], **fields}


def scenario(steps, runtime=None, **params):
    """Scenario params with these steps and runtime settings."""
    return {"runtime": {} if runtime is None else runtime, "steps": steps, **params}


def answer(params):
    """The reference adapter's answer to a scenario."""
    return ReferenceAdapter().scenario(params)


def error_of(params):
    """The one error a refused scenario answers."""
    out = answer(params)
    assert set(out) == {"error"}, f"the scenario was not refused: {out}"
    return out["error"]


def spent_note(used: int, limit: int) -> str:
    """The reference's budget-spent note for ``used`` of ``limit`` uses."""
    return REFERENCE_STRINGS.budget_spent.replace("{used}", str(used)).replace("{max}", str(limit))


class FakeHttp:
    """Stands in for HttpProvider: records how it was made, answers every request, and records closing."""

    made: list = []

    def __init__(self, kind, base_url, *, api_key="", timeout=60.0):
        self.kind, self.base_url, self.api_key, self.timeout = kind, base_url, api_key, timeout
        self.closed = False
        self.requests: list = []
        FakeHttp.made.append(self)

    def complete(self, request):
        self.requests.append(request)
        return ProviderAnswer(f"over {self.kind}")

    def close(self):
        self.closed = True
