"""Properties of the cache simulator's optimum over generated small sessions: it is at most the cost of every
placement the simulator can evaluate (the spec's, the what-if ones, random ones, refused ones), and at most the
cost of the placement built to reach it."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt
from advisor_conformance._tools.cachesim.facts import BreakpointRules, profile
from advisor_conformance._tools.cachesim.optimum import TimedPrompt, breakpoint_optimum
from advisor_conformance._tools.cachesim.placements import PLACEMENTS
from advisor_conformance._tools.cachesim.replay import placed

from ..support.anthropic_bodies import blocks, body

RULES = {
    "anthropic": BreakpointRules(),
    "anthropic-prefix": BreakpointRules(refresh="prefix"),
    "gpt-5-6": profile("openai-gpt-5-6", "openai").rules(),
}
GAPS = (5.0, 120.0, 299.0, 301.0, 900.0, 1799.0, 1801.0, 3599.0, 3601.0, 20000.0, 43201.0)


@st.composite
def sessions(draw):
    """One or two conversations (over a shared system prompt or not) growing by one to three blocks a request,
    two to five requests apart by gaps across every TTL."""
    chains = draw(st.integers(1, 2))
    system = [blocks(draw(st.integers(5, 80)), tag="sys")[0]] if draw(st.booleans()) else None
    convo = {c: blocks(*draw(st.lists(st.integers(1, 60), min_size=2, max_size=6)), tag=f"c{c}") for c in range(chains)}
    grown = dict.fromkeys(convo, 0)
    requests, at = [], 0.0
    for k in range(draw(st.integers(2, 5))):
        chain = draw(st.integers(0, chains - 1))
        grown[chain] = min(len(convo[chain]), grown[chain] + draw(st.integers(1, 3)))
        texts = [*convo[chain][: grown[chain]], f"final {k}"]
        requests.append(TimedPrompt(AnthropicPrompt.from_body(body(texts, system=system)), at, chain))
        at += draw(st.sampled_from(GAPS))
    return requests


def cost_of(requests, rules, marks_per_request) -> float:
    cache = AnthropicCache(rules)
    return sum(cache.request(r.prompt, r.at, marks).cost for r, marks in zip(requests, marks_per_request, strict=True))


@st.composite
def cases(draw):
    name = draw(st.sampled_from(sorted(RULES)))
    rules = RULES[name]
    rules = BreakpointRules(**{**vars(rules), "min_tokens": draw(st.sampled_from([1, 30, 100]))})
    requests = draw(sessions())
    random_marks = [
        draw(
            st.lists(
                st.tuples(
                    st.sampled_from([p for p in range(len(r.prompt)) if r.prompt.markable[p]]),
                    st.sampled_from(rules.ttls),
                ),
                max_size=5,
                unique_by=lambda m: m[0],
            )
        )
        for r in requests
    ]
    return name, rules, requests, random_marks


@given(cases())
@example(
    (
        "anthropic",
        RULES["anthropic"],
        [
            TimedPrompt(AnthropicPrompt.from_body(body([*blocks(*[40] * n), "final"])), at, "c")
            for n, at in ((5, 0.0), (30, 60.0), (60, 3000.0))
        ],
        [[], [], []],
    )
).via("long growth: the lookback misses")
def test_the_optimum_is_at_most_every_placement(case):
    """The optimum costs no more than the spec's placement, each what-if placement, the requests' own markers, a
    random placement (refused ones included), or the placement built to reach it."""
    name, rules, requests, random_marks = case
    optimum = breakpoint_optimum(requests, rules)
    evaluated = {"random": random_marks, "own": [None] * len(requests)}
    if name.startswith("anthropic"):
        evaluated.update({p: placed(requests, p) for p in PLACEMENTS if PLACEMENTS[p].place is not None})
    for placement, marks in evaluated.items():
        assert optimum.cost <= cost_of(requests, rules, marks) + 1e-6, placement
    assert optimum.cost <= optimum.feasible_cost + 1e-6
    assert not optimum.exact or abs(optimum.cost - optimum.feasible_cost) <= 1e-6
