"""The cache simulator's optimum (against exhaustive search over every placement and TTL), the spec's own settings
as its yardstick, the shipped sessions and their replay through an implementation."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import pytest

from advisor_conformance._contract.implementation import load_target
from advisor_conformance._tools.cachesim.anthropic import AnthropicPrompt
from advisor_conformance._tools.cachesim.facts import AnthropicRules, profile
from advisor_conformance._tools.cachesim.optimum import TimedPrompt, anthropic_optimum
from advisor_conformance._tools.cachesim.replay import encode_all, measure, replay, unstable_prefixes
from advisor_conformance._tools.cachesim.sessions import find_session, load_session, sessions_dir, text

from ..support.anthropic_bodies import blocks, body
from ..support.cache_sessions import exhaustive_minimum, growing, random_session

# -- the optimum -------------------------------------------------------------------------------------------------

ANTHROPIC = {"read-entry": AnthropicRules(min_tokens=30), "prefix": AnthropicRules(min_tokens=30, refresh="prefix")}


@pytest.mark.parametrize("refresh", ["read-entry", "prefix"])
@pytest.mark.parametrize(
    "times",
    [[0, 60, 120], [0, 200, 500], [0, 60, 2000], [0, 5000, 5100]],
    ids=["within-5m", "across-5m", "within-1h", "first-late"],
)
def test_optimum_equals_exhaustive_search_on_a_growing_conversation(times, refresh):
    """On one growing conversation the optimum is exact and equals the least cost over every placement and TTL."""
    rules = ANTHROPIC[refresh]
    requests = growing([20, 15, 25, 10], [2, 3, 4], times)
    optimum = anthropic_optimum(requests, rules)
    assert optimum.exact and optimum.label == "exact"
    assert optimum.cost == pytest.approx(exhaustive_minimum(requests, rules, optimum.feasible_cost))


@pytest.mark.parametrize("refresh", ["read-entry", "prefix"])
def test_optimum_writes_one_block_short_to_leave_room_for_a_longer_ttl(refresh):
    """When later requests repeat the same prefix, the optimum may write a five-minute entry one block short of it, so
    that the next request can write the last block for an hour; it equals the exhaustive least cost."""
    rules = AnthropicRules(min_tokens=20, refresh=refresh)
    requests = growing([13, 18, 9, 33], [2, 4, 4, 4], [0, 3601, 3611, 7210])
    optimum = anthropic_optimum(requests, rules)
    assert optimum.exact
    assert optimum.cost == pytest.approx(exhaustive_minimum(requests, rules, optimum.feasible_cost))
    assert optimum.usages[1].written_by_ttl == {"5m": requests[1].prompt.cum[2]}


def test_optimum_is_a_bound_between_exhaustive_search_and_its_placement_across_conversations():
    """With two conversations sharing a system prefix, the reported optimum never exceeds the exhaustive least cost,
    the placement built for it never costs less, and it is labelled a lower bound."""
    rules = AnthropicRules(min_tokens=30)
    shared = blocks(40, tag="sys")
    requests = []
    for k, (chain, at, count) in enumerate([("a", 0, 2), ("b", 100, 2), ("a", 200, 3)]):
        texts = [*shared, *blocks(10, 12, 14, tag=chain)[:count], f"final {k}"]
        requests.append(TimedPrompt(AnthropicPrompt.from_body(body(texts)), at, chain))
    optimum = anthropic_optimum(requests, rules)
    best = exhaustive_minimum(requests, rules, optimum.feasible_cost)
    assert optimum.cost <= best + 1e-9 <= optimum.feasible_cost + 2e-9
    assert optimum.exact == (optimum.cost == pytest.approx(optimum.feasible_cost))


@pytest.mark.parametrize("refresh", ["read-entry", "prefix"])
@pytest.mark.parametrize("chains", [1, 2])
def test_optimum_against_exhaustive_search_on_random_sessions(chains, refresh):
    """On seeded random small sessions (gaps drawn across both TTLs) the optimum bounds the exhaustive least cost
    from below and its placement from above, equals it whenever it says it is exact, and is exact with one
    conversation."""
    rng = random.Random(f"{chains}-{refresh}")
    for _ in range(3):
        requests = random_session(rng, chains=chains, requests=3, blocks_per_chain=4 - chains, shared=chains > 1)
        rules = AnthropicRules(min_tokens=rng.choice([1, 20, 40]), refresh=refresh)
        optimum = anthropic_optimum(requests, rules)
        best = exhaustive_minimum(requests, rules, optimum.feasible_cost)
        assert optimum.cost <= best + 1e-6 <= optimum.feasible_cost + 2e-6
        assert not optimum.exact or optimum.cost == pytest.approx(best)
        assert optimum.exact or chains > 1


@pytest.mark.parametrize(
    "refresh, sizes, counts, times",
    [
        ("none", [20, 15, 25, 10], [2, 3, 4], [0, 1000, 2500]),
        ("read-entry", [20, 15, 25, 10], [2, 3, 4], [0, 1000, 2500]),
        ("none", [40, 8, 11], [3, 3, 3, 3], [0, 60, 43259, 45060]),
    ],
    ids=["growing-none", "growing-read-entry", "same-prefix-renewed-by-writing"],
)
def test_gpt_5_6_optimum_equals_exhaustive_search(refresh, sizes, counts, times):
    """Under the GPT-5.6 rules (no lookback limit, 30-minute and 12-hour entries at one price) the optimum equals the
    least cost over every placement of explicit breakpoints: on a growing conversation, and on requests repeating one
    prefix, where an entry that reads do not renew must be written afresh one block deeper (so the first request
    writes one block short of the shared prefix)."""
    rules = profile("openai-gpt-5-6", "openai").rules({"refresh": refresh}, min_tokens=1)
    requests = growing(sizes, counts, times)
    optimum = anthropic_optimum(requests, rules)
    assert optimum.exact
    assert optimum.cost == pytest.approx(exhaustive_minimum(requests, rules, optimum.feasible_cost))


def test_optimum_writes_five_minutes_for_a_read_within_five_minutes_and_nothing_for_one_later_read():
    """A prefix read once 60 s later is written for five minutes (1.25 + 0.1 < 1 + 1); read once 20 minutes later,
    it is not written at all (an hour's write, 2 + 0.1, costs more than sending it twice)."""
    soon = growing([1500, 10], [1, 2], [0, 60])
    optimum = anthropic_optimum(soon, AnthropicRules())
    first, second = (r.prompt.total for r in soon)
    assert optimum.exact and optimum.cost == pytest.approx(first + 0.25 * 1500 + second - 0.9 * 1500)
    assert optimum.usages[0].written_by_ttl == {"5m": 1500}
    late = growing([1500, 10], [1, 2], [0, 1200])
    optimum = anthropic_optimum(late, AnthropicRules())
    assert optimum.exact and optimum.cost == sum(r.prompt.total for r in late)


def test_optimum_renews_a_five_minute_entry_as_an_hour_for_the_price_of_the_next_block():
    """A prefix read 60 s after its five-minute write is renewed for an hour by writing the next block (10 tokens at
    twice the price) for a read 40 minutes later: cheaper than an hour's write of the whole prefix."""
    rules = AnthropicRules(min_tokens=1024)
    requests = growing([2000, 10, 500], [1, 2, 3], [0, 60, 2460])
    optimum = anthropic_optimum(requests, rules)
    first, second, third = (r.prompt.total for r in requests)
    renewed = first + 0.25 * 2000 + (second - 0.9 * 2000 + 1.0 * 10) + (third - 0.9 * 2010)
    assert optimum.exact and optimum.cost == pytest.approx(renewed)
    assert optimum.usages[1].written_by_ttl == {"1h": 10}
    hour_first = first + 1.0 * 2000 + (second - 0.9 * 2000) + (third - 0.9 * 2000)
    assert renewed < hour_first


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
    stable = [TimedPrompt(AnthropicPrompt.from_body(body([*base[:n], f"final {n}"])), float(n), "c", n) for n in (3, 5)]
    assert unstable_prefixes(stable, "anthropic") == []
    moved = [
        TimedPrompt(AnthropicPrompt.from_body(body([*base[:3], "in flight", "final"])), 0.0, "c", 0),
        TimedPrompt(AnthropicPrompt.from_body(body([*base[:3], "in flight [tool_call]", "x", "final"])), 1.0, "c", 1),
    ]
    assert unstable_prefixes(moved, "anthropic") == [{"call": 0, "next_call": 1, "kept": 3, "prefix": 4}]


# -- sessions and replay -----------------------------------------------------------------------------------------


def test_text_generator_is_pinned():
    """The $text generator gives exactly the asked bytes, and its output is pinned for other languages."""
    sample = text(7, 3000, "code")
    assert len(sample.encode()) == 3000 and sample.startswith("# code 7\n")
    assert (
        hashlib.sha256((text(1, 1000, "code") + text(2, 1000, "log") + text(3, 1000, "prose")).encode()).hexdigest()[
            :16
        ]
        == PINNED
    )


PINNED = "a9f11749b89cae05"


def test_shipped_sessions_are_what_the_generator_writes():
    """`fixtures/sessions/generate.py --check` finds every shipped session file as the generator writes it."""
    run = subprocess.run(
        [sys.executable, str(sessions_dir() / "generate.py"), "--check"], capture_output=True, text=True, timeout=120
    )
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
