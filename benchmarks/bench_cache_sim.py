"""Benchmark: simulating a 2,000-message session with 50 advisor calls, against JSON-encoding the same bodies.

Goal (issue 17): the cache simulation of the shipped session ``refactor-long`` (2,000 messages, 50 advisor calls
by the main agent and five sub-agents) takes under 2 s per provider: reading the 50 encoded request bodies,
simulating the provider's cache over them in time order, and the optimum (for Anthropic the lower bound, the
placement built to reach it, and its simulation). The bodies come from the reference in process (replay and
encode are not timed). The baseline, in the same run, is ``json.dumps`` of the same bodies: the least any
implementation-independent simulator has to do is read them once.

    python benchmarks/bench_cache_sim.py      # prints the figures, exits 1 if the goal is missed
"""

from __future__ import annotations

import json
import sys
import time

from _common import Goals, best_of

from advisor_conformance import load_target
from advisor_conformance._tools.cachesim.replay import encode_all, measure, replay
from advisor_conformance._tools.cachesim.sessions import find_session, load_session

GOAL_S = 2.0
SESSION = "refactor-long"


#: Wall time, the garbage collector left as it is: how the simulation and its baseline are timed.
WALL = {"clock": time.perf_counter, "collect": False}


def main() -> int:
    session = load_session(find_session(SESSION))
    impl = load_target("reference")
    replayed = replay(impl, session)
    goals = Goals()
    print(
        f"{SESSION}: {session.message_count:,} messages, {len(session.calls)} advisor calls, "
        f"{len(replayed.requests)} requests"
    )
    for provider in ("anthropic", "openai"):
        bodies = encode_all(impl, replayed, provider)
        size = sum(len(json.dumps(body)) for _, body in bodies)
        baseline, _ = best_of(3, lambda bodies=bodies: [json.dumps(body) for _, body in bodies], **WALL)
        elapsed, m = best_of(3, lambda bodies=bodies, provider=provider: measure(session, bodies, provider), **WALL)
        goals.check(
            elapsed < GOAL_S,
            f"{provider:9}  simulation and optimum: {elapsed:.3f} s (goal: under {GOAL_S:g} s); json.dumps of the "
            f"same {size / 1e6:.1f} MB of bodies: {baseline:.3f} s; ratio {elapsed / baseline:.1f}x; "
            f"{m.input_tokens:,} input tokens, {m.read_tokens:,} read, optimum {m.optimum.method}",
        )
    impl.close()
    # Without its compactions: every message of the session in one conversation (one text block each), read by 50
    # advisor requests 40 messages apart; figures only (each body is then up to 1.9 MB).
    texts = [
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m)
        for c in session.conversations.values()
        for m in c.messages
    ]
    system = [{"type": "text", "text": "advisor system prompt", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    bodies = []
    for k in range(1, 51):
        count = min(len(texts), 40 * k)
        messages = [{"role": "user", "content": [{"type": "text", "text": t or "(empty)"}]} for t in texts[:count]]
        for distance in (0, 15, 30):
            if distance < count - 1:
                messages[count - 2 - distance]["content"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
        bodies.append((k - 1, {"model": "m", "max_tokens": 1, "system": system, "messages": messages}))
    size = sum(len(json.dumps(body)) for _, body in bodies)
    baseline, _ = best_of(1, lambda: [json.dumps(body) for _, body in bodies], **WALL)
    elapsed, m = best_of(1, lambda: measure(session, bodies, "anthropic"), **WALL)
    print(
        f"uncompacted (figures only): {elapsed:.3f} s for {size / 1e6:.0f} MB of bodies; json.dumps: {baseline:.3f} s; "
        f"ratio {elapsed / baseline:.1f}x"
    )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
