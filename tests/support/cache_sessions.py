"""Small sessions of Anthropic requests and an exhaustive search over their placements, for the tests of the cache
simulator's optimum (``test_cachesim_optimum.py``, ``test_cachesim_properties.py``)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt, marker_problems
from advisor_conformance._tools.cachesim.facts import BreakpointRules
from advisor_conformance._tools.cachesim.optimum import TimedPrompt, common_prefix

from .anthropic_bodies import blocks, body


def placements(prompt: AnthropicPrompt, rules: BreakpointRules) -> list[list[tuple[int, str]]]:
    """Every placement on one request that the API accepts: each set of at most ``max_breakpoints`` blocks that can
    carry a marker, each with each TTL, in the TTL order. (The others are refused: a refused request reads and
    writes nothing and costs the base price, exactly as the empty placement does, which is in the list.)"""
    positions = [p for p in range(len(prompt)) if prompt.markable[p]]
    out = []
    for count in range(0, min(rules.max_breakpoints, len(positions)) + 1):
        for chosen in itertools.combinations(positions, count):
            for ttls in itertools.product(rules.ttls, repeat=count):
                marks = list(zip(chosen, ttls, strict=True))
                if not marker_problems(marks, rules.max_breakpoints, rules.ttl_order):
                    out.append(marks)
    return out


def exhaustive_minimum(requests: Sequence[TimedPrompt], rules: BreakpointRules, incumbent: float = math.inf) -> float:
    """The least total cost over every placement and TTL on every request (in time order), by exhaustive search
    through the simulator. Placements that leave the cache in the same state are followed once (their futures are
    the same), at the least cost that reaches it; a state is dropped when even reading, on every later request, all
    it shares with any earlier request cannot bring the total under ``incumbent`` (the cost of a known placement)."""
    ordered = sorted(requests, key=lambda r: r.at)
    floors = []  # the least any request can cost: all it shares with an earlier request read
    for k, request in enumerate(ordered):
        shared = max((common_prefix(request.prompt, earlier.prompt) for earlier in ordered[:k]), default=0)
        tokens = request.prompt.tokens_through(shared)
        floors.append(request.prompt.total - (1 - rules.read_price) * (tokens if tokens >= rules.min_tokens else 0))
    rest = [sum(floors[k:]) for k in range(len(ordered) + 1)]
    layer = {AnthropicCache(rules).state(): (0.0, AnthropicCache(rules))}
    for k, request in enumerate(ordered):
        choices = placements(request.prompt, rules)
        nxt: dict = {}
        for spent, cache in layer.values():
            for marks in choices:
                trial = cache.clone()
                cost = spent + trial.request(request.prompt, request.at, marks).cost
                if cost + rest[k + 1] > incumbent + 1e-9:
                    continue
                key = trial.state()
                if key not in nxt or cost < nxt[key][0]:
                    nxt[key] = (cost, trial)
        layer = nxt
    return min([incumbent, *(cost for cost, _ in layer.values())])


def growing(
    sizes: list[int],
    counts: list[int],
    times: list[float],
    chain: str = "c",
    tag: str = "b",
    system: list[str] | None = None,
) -> list[TimedPrompt]:
    """Requests of one conversation that grows by appending: request k = the first counts[k] blocks + a final one."""
    base = blocks(*sizes, tag=tag)
    out = []
    for k, (count, at) in enumerate(zip(counts, times, strict=True)):
        texts = [*base[:count], f"final {tag}{k} " + "q" * 40]
        out.append(TimedPrompt(AnthropicPrompt.from_body(body(texts, system=system)), at, chain))
    return out


GAPS = (10.0, 200.0, 299.0, 301.0, 1000.0, 3599.0, 3601.0, 5000.0)


def random_session(
    rng: random.Random, chains: int = 1, requests: int = 3, blocks_per_chain: int = 4, shared: bool = False
) -> list[TimedPrompt]:
    """A seeded small session: ``chains`` conversations (over a shared system block when ``shared``) growing by
    one or two blocks a request, the gaps between requests drawn across the TTLs (5 minutes, an hour)."""
    system = blocks(rng.randint(10, 60), tag="sys") if shared else []
    convo = {c: blocks(*[rng.randint(3, 40) for _ in range(blocks_per_chain)], tag=f"c{c}") for c in range(chains)}
    grown = dict.fromkeys(convo, 0)
    out, at = [], 0.0
    for k in range(requests):
        chain = rng.randrange(chains)
        grown[chain] = min(blocks_per_chain, grown[chain] + rng.randint(1, 2))
        texts = [*system, *convo[chain][: grown[chain]], f"final {k}"]
        out.append(TimedPrompt(AnthropicPrompt.from_body(body(texts)), at, chain))
        at += rng.choice(GAPS)
    return out
