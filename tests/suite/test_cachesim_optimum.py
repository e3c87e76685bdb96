"""The cache simulator's optimum (against exhaustive search), the spec's own settings as its yardstick, the shipped
sessions and their replay through an implementation."""

from __future__ import annotations

import hashlib
import itertools
import subprocess
import sys

import pytest

from advisor_conformance._cachesim.anthropic import AnthropicCache, AnthropicPrompt
from advisor_conformance._cachesim.facts import AnthropicRules
from advisor_conformance._cachesim.optimum import TimedPrompt, anthropic_optimum
from advisor_conformance._cachesim.replay import encode_all, measure, replay, unstable_prefixes
from advisor_conformance._cachesim.sessions import find_session, load_session, sessions_dir, text
from advisor_conformance._implementation import load_target

from ..support.anthropic_bodies import blocks, body


# -- the optimum -------------------------------------------------------------------------------------------------


def _brute_force(requests: list[TimedPrompt], rules: AnthropicRules) -> float:
    """The least total cost over every placement of at most 4 one-hour breakpoints per request (exhaustive)."""
    best = float("inf")

    def walk(index: int, cache: AnthropicCache, spent: float) -> None:
        nonlocal best
        if spent >= best:
            return
        if index == len(requests):
            best = spent
            return
        prompt = requests[index].prompt
        positions = [p for p in range(len(prompt)) if prompt.markable[p]]
        for count in range(0, min(4, len(positions)) + 1):
            for chosen in itertools.combinations(positions, count):
                trial = cache.clone()
                usage = trial.request(prompt, requests[index].at, [(p, "1h") for p in chosen])
                walk(index + 1, trial, spent + usage.cost)

    walk(0, AnthropicCache(rules), 0.0)
    return best


def _growing(sizes: list[int], counts: list[int], times: list[float], chain: str = "c", tag: str = "b"):
    """Requests of one conversation that grows by appending: request k = the first counts[k] blocks + a final one."""
    base = blocks(*sizes, tag=tag)
    out = []
    for k, (count, at) in enumerate(zip(counts, times, strict=True)):
        texts = [*base[:count], f"final {tag}{k} " + "q" * 40]
        out.append(TimedPrompt(AnthropicPrompt.from_body(body(texts)), at, chain))
    return out


@pytest.mark.parametrize("times", [[0, 60, 120], [0, 60, 4000], [0, 5000, 5100], [0, 10, 20]],
                         ids=["close", "last-late", "first-late", "dense"])
def test_optimum_equals_exhaustive_search_on_a_growing_conversation(times):
    """On one growing conversation the optimum is exact and equals the exhaustive search over all placements."""
    rules = AnthropicRules(min_tokens=30)
    requests = _growing([20, 15, 25, 10, 30, 5], [2, 4, 6], times)
    optimum = anthropic_optimum(requests, rules)
    assert optimum.exact
    assert optimum.cost == pytest.approx(_brute_force(requests, rules))


def test_optimum_is_a_bound_between_exhaustive_search_and_its_placement_across_conversations():
    """With two conversations sharing a system prefix, the reported optimum never exceeds the exhaustive least cost,
    and the placement built for it never costs less."""
    rules = AnthropicRules(min_tokens=30)
    shared = blocks(40, tag="sys")
    requests = []
    for k, (chain, at, count) in enumerate([("a", 0, 2), ("b", 100, 2), ("a", 200, 3)]):
        texts = [*shared, *blocks(10, 12, 14, tag=chain)[:count], f"final {k}"]
        requests.append(TimedPrompt(AnthropicPrompt.from_body(body(texts)), at, chain))
    optimum = anthropic_optimum(requests, rules)
    best = _brute_force(requests, rules)
    assert optimum.cost <= best + 1e-9 <= optimum.feasible_cost + 2e-9


def _random_instances(seed: int, count: int):
    """Seeded random small sessions: one or two conversations over a shared system block, gaps across the TTL."""
    import random

    rng = random.Random(seed)
    for _ in range(count):
        shared = blocks(rng.randint(10, 50), tag="sys")
        chains = {c: blocks(*[rng.randint(3, 25) for _ in range(4)], tag=c) for c in "ab"}
        grown, requests, at = {"a": 0, "b": 0}, [], 0.0
        n = rng.randint(2, 3)
        for k in range(n):
            chain = rng.choice("ab") if seed % 2 else "a"
            grown[chain] = min(4, grown[chain] + rng.randint(1, 2))
            texts = [*shared, *chains[chain][: grown[chain]], f"final {k}"]
            requests.append(TimedPrompt(AnthropicPrompt.from_body(body(texts)), at, chain))
            at += rng.choice([10, 100, 2000, 3600, 3601])
        yield requests, AnthropicRules(min_tokens=rng.choice([1, 20, 40]))


@pytest.mark.parametrize("seed", [2, 3], ids=["one-conversation", "two-conversations"])
def test_optimum_against_exhaustive_search_on_random_sessions(seed):
    """On seeded random small sessions the optimum bounds the exhaustive least cost from below, its placement from
    above, and equals it whenever it says it is exact (always, with one conversation)."""
    for requests, rules in _random_instances(seed, 8):
        optimum = anthropic_optimum(requests, rules)
        best = _brute_force(requests, rules)
        assert optimum.cost <= best + 1e-6 <= optimum.feasible_cost + 2e-6
        assert not optimum.exact or optimum.cost == pytest.approx(best)
        assert optimum.exact or len({r.chain for r in requests}) > 1


def test_optimum_does_not_write_for_a_single_read():
    """A one-hour write read by one later request costs more than no cache, so the optimum does not write it."""
    # 2 (write) + 0.1 (one read) > 1 + 1: Anthropic's prices make a one-hour write pay from its second read.
    requests = _growing([1500, 10], [1, 2], [0, 60])
    optimum = anthropic_optimum(requests, AnthropicRules())
    assert optimum.exact and optimum.cost == sum(r.prompt.total for r in requests)


# -- the spec's settings and prefix stability (the yardstick of breakpoints.cache-efficiency) ----------------------


@pytest.mark.parametrize("count, positions", [(80, [79, 64, 49]), (31, [30, 15, 0]), (10, [9]), (0, [])])
def test_spec_marks_follow_the_worked_examples(count, positions):
    """The spec's placement marks the system block and the clarifications' worked examples (N = 80: 79, 64, 49)."""
    # clarifications §9: "N = 80 marks 79, 64, 49; N = 31 marks 30, 15, 0; N = 10 marks 9; N = 0 marks only the
    # system block."
    prompt = AnthropicPrompt.from_body(body([*blocks(*[3] * count), "final"], system=["advisor"]))
    assert prompt.spec_marks() == [(0, "1h")] + [(1 + p, "1h") for p in sorted(positions)]


def test_a_prefix_the_next_call_changes_is_unstable():
    """A request whose last prefix block differs in the next call of its conversation is reported unstable."""
    base = blocks(*[300] * 6)
    stable = [TimedPrompt(AnthropicPrompt.from_body(body([*base[:n], f"final {n}"])), float(n), "c", n)
              for n in (3, 5)]
    assert unstable_prefixes(stable, "anthropic") == []
    moved = [TimedPrompt(AnthropicPrompt.from_body(body([*base[:3], "in flight", "final"])), 0.0, "c", 0),
             TimedPrompt(AnthropicPrompt.from_body(body([*base[:3], "in flight [tool_call]", "x", "final"])), 1.0,
                         "c", 1)]
    assert unstable_prefixes(moved, "anthropic") == [{"call": 0, "next_call": 1, "kept": 3, "prefix": 4}]


# -- sessions and replay -----------------------------------------------------------------------------------------


def test_text_generator_is_pinned():
    """The $text generator gives exactly the asked bytes, and its output is pinned for other languages."""
    sample = text(7, 3000, "code")
    assert len(sample.encode()) == 3000 and sample.startswith("# code 7\n")
    assert hashlib.sha256((text(1, 1000, "code") + text(2, 1000, "log") + text(3, 1000, "prose")).encode()
                          ).hexdigest()[:16] == PINNED


PINNED = "a9f11749b89cae05"


def test_shipped_sessions_are_what_the_generator_writes():
    """`fixtures/sessions/generate.py --check` finds every shipped session file as the generator writes it."""
    run = subprocess.run([sys.executable, str(sessions_dir() / "generate.py"), "--check"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_snapshot_ends_on_the_in_flight_message_without_its_tool_calls():
    """A call's snapshot is its conversation so far; the in-flight assistant message has no tool calls yet."""
    session = load_session(find_session("bugfix-small"))
    call = session.calls[0]
    snapshot = session.snapshot(call)
    assert len(snapshot) == call.messages and snapshot[-1]["role"] == "assistant"
    assert "tool_calls" not in snapshot[-1]
    assert session.conversations[call.conversation].messages[call.messages]["name"] == "advisor"
    assert session.answer(call) == session.conversations[call.conversation].messages[call.messages]["content"]


def test_replay_makes_one_request_per_call_and_measures_it():
    """Replaying a session through the reference gives one request per call, timed and measured per provider."""
    impl = load_target("reference")
    session = load_session(find_session("bugfix-small"))
    replayed = replay(impl, session)
    assert [index for index, _ in replayed.requests] == list(range(len(session.calls)))
    assert all(r["prompt_cache_key"] == replayed.requests[0][1]["prompt_cache_key"] for _, r in replayed.requests)
    m = measure(session, encode_all(impl, replayed, "anthropic"), "anthropic")
    assert m.requests == 4 and m.rejected == 0 and m.read_tokens > 0 and m.optimum.exact
    assert m.optimum.cost <= m.cost <= m.input_tokens * 2
