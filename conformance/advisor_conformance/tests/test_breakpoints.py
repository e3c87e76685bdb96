"""Anthropic cache breakpoints of advisor requests (spec: Transport and cache; clarifications §9)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.wire import (
    LOOKBACK, SPACING, anthropic_400_problems, blocks, encode, expected_advisor_positions, marks,
)
from advisor_conformance.wire import neutral_request as request_of


def _body(impl, messages, rule, **fields):
    request = request_of(messages, **fields)
    return encode(impl, "anthropic", request, rule)["body"], request


def _tail_positions(body):
    """Positions of the marked blocks among the blocks of every message but the final one."""
    final = len(body["messages"]) - 1
    return sorted({m.index for m in marks(body) if m.where == "messages" and m.message != final}, reverse=True)


@pytest.mark.rule(id="breakpoints.advisor-ttl")
@given(messages=s.rendered_messages(max_size=40))
def test_every_advisor_marker_lasts_an_hour(impl, messages):
    """Every marker of an advisor-profile request is ephemeral with a one-hour TTL."""
    body, request = _body(impl, messages, "breakpoints.advisor-ttl")
    controls = [block["cache_control"] for _, _, _, block in blocks(body) if "cache_control" in block]
    check(all(c == {"type": "ephemeral", "ttl": "1h"} for c in controls), "breakpoints.advisor-ttl",
          "an advisor marker is not {type: ephemeral, ttl: 1h}", input=request, actual=controls)


@pytest.mark.rule(id="breakpoints.system-marked")
@given(messages=s.rendered_messages(max_size=20).filter(lambda ms: any(m["role"] == "system" and m["content"].strip()
                                                                        for m in ms)))
@example(messages=[{"role": "system", "content": "first"}, {"role": "system", "content": "second"},
                   {"role": "user", "content": "advise"}])
def test_last_system_block_is_marked(impl, messages):
    """The last system block carries a marker, and no other system block does."""
    body, request = _body(impl, messages, "breakpoints.system-marked")
    marked = [("cache_control" in block) for block in body["system"]]
    check_equal(marked, [False] * (len(marked) - 1) + [True], "breakpoints.system-marked",
                "the system markers are not exactly the last system block", input=request)


@pytest.mark.rule(id="breakpoints.spacing")
@given(count=st.integers(0, 120), system=st.booleans())
def test_markers_every_15_blocks_back_from_the_tail(impl, count, system):
    """The tail is marked at distances 0, 15, 30, ... back from its last block, within the 4-marker budget."""
    messages = s.block_messages(count, system)
    body, request = _body(impl, messages, "breakpoints.spacing")
    check_equal(_tail_positions(body), expected_advisor_positions(count, 1 if system else 0), "breakpoints.spacing",
                f"with {count} tail blocks the markers are not every 15 blocks back", input={"tail_blocks": count,
                                                                                             "system": system})


@pytest.mark.rule(id="breakpoints.spacing")
@pytest.mark.parametrize("count, positions", [(80, [79, 64, 49]), (31, [30, 15, 0]), (10, [9]), (0, [])],
                         ids=["N=80", "N=31", "N=10", "N=0"])
def test_worked_examples(impl, count, positions):
    """The clarifications' worked examples: N = 80 marks 79, 64, 49; 31 marks 30, 15, 0; 10 marks 9; 0 none."""
    body, _ = _body(impl, s.block_messages(count), "breakpoints.spacing")
    check_equal(_tail_positions(body), positions, "breakpoints.spacing", f"N = {count}: wrong marked positions",
                input={"tail_blocks": count})
    check("cache_control" in body["system"][-1], "breakpoints.spacing", "the system block is not marked",
          input={"tail_blocks": count})


@pytest.mark.rule(id="breakpoints.max-four")
@given(messages=s.rendered_messages(max_size=80), advisor=st.booleans())
def test_never_more_than_four_markers(impl, messages, advisor):
    """A request never holds more than 4 markers, whichever profile."""
    body, request = _body(impl, messages, "breakpoints.max-four", advisor_cache_profile=advisor)
    check(len(marks(body)) <= 4, "breakpoints.max-four", f"{len(marks(body))} markers", input=request)


@pytest.mark.rule(id="breakpoints.max-four")
def test_four_markers_when_the_tail_is_long(impl):
    """With a system block and 46 or more tail blocks, the request holds exactly 4 markers."""
    body, _ = _body(impl, s.block_messages(46), "breakpoints.max-four")
    check_equal(len(marks(body)), 4, "breakpoints.max-four", "a long request does not use all 4 markers",
                input={"tail_blocks": 46})


@pytest.mark.rule(id="breakpoints.max-four")
def test_four_tail_markers_without_a_system_block(impl):
    """Without a system block, a tail of 46 or more blocks gets all 4 markers: none is kept back for a system block."""
    body, _ = _body(impl, s.block_messages(46, system=False), "breakpoints.max-four")
    check_equal(len(marks(body)), 4, "breakpoints.max-four", "a long request without a system block does not use "
                "all 4 markers", input={"tail_blocks": 46, "system": False}, actual=marks(body))


@pytest.mark.rule(id="breakpoints.final-unmarked")
@given(messages=s.rendered_messages(max_size=40))
def test_final_message_never_marked(impl, messages):
    """The final message carries no marker in the advisor profile."""
    body, request = _body(impl, messages, "breakpoints.final-unmarked")
    final = body["messages"][-1]
    check(all("cache_control" not in block for block in final["content"]), "breakpoints.final-unmarked",
          "the final message is marked", input=request, actual=final)


@pytest.mark.rule(id="breakpoints.default-profile")
@given(messages=s.rendered_messages(max_size=40))
def test_default_profile_has_no_one_hour_ttl(impl, messages):
    """A request without the advisor profile carries no one-hour TTL."""
    body, request = _body(impl, messages, "breakpoints.default-profile", advisor_cache_profile=False)
    check(all(mark.ttl != "1h" for mark in marks(body)), "breakpoints.default-profile",
          "a non-advisor request carries a 1h TTL", input=request, actual=marks(body))


@pytest.mark.rule(id="breakpoints.default-placement")
@given(messages=s.rendered_messages(max_size=30, empties=False))
def test_default_profile_placement(impl, messages):
    """The default profile marks the last system block, the final message and the second-to-last user message."""
    body, request = _body(impl, messages, "breakpoints.default-placement", advisor_cache_profile=False)
    users = [i for i, m in enumerate(body["messages"]) if m["role"] == "user"]
    expected = {len(body["messages"]) - 1} | ({users[-2]} if len(users) >= 2 else set())
    got = {m.message for m in marks(body) if m.where == "messages"}
    check_equal(got, expected, "breakpoints.default-placement", "the default markers are misplaced", input=request)
    system_marked = [("cache_control" in block) for block in body.get("system", [])]
    check_equal(system_marked, [False] * (len(system_marked) - 1) + [True] if system_marked else [],
                "breakpoints.default-placement", "the last system block is not the one marked", input=request)


@pytest.mark.rule(id="breakpoints.wire-validity")
@given(messages=s.rendered_messages(max_size=60), advisor=st.booleans())
def test_no_request_the_api_would_refuse(impl, messages, advisor):
    """No request breaks the API's marker rules: at most 4, none on an empty block, no 1h after a 5m."""
    body, request = _body(impl, messages, "breakpoints.wire-validity", advisor_cache_profile=advisor)
    check_equal(anthropic_400_problems(body), [], "breakpoints.wire-validity", "the API would answer 400",
                input=request)


@pytest.mark.rule(id="breakpoints.cache-reuse")
@given(count=st.integers(1, 100), grown=st.integers(0, 60))
@example(count=33, grown=29)  # the earlier marker at 3 needs a later one in [3, 22]
def test_appending_keeps_earlier_breakpoints_within_reach(impl, count, grown):
    """After k blocks are appended, every earlier marker at distance 15*i with i + k // 15 <= 2 has a later marker
    at most 19 blocks after it, so the later request reads the cache the earlier one wrote."""
    earlier, _ = _body(impl, s.block_messages(count), "breakpoints.cache-reuse")
    later, _ = _body(impl, s.block_messages(count + grown), "breakpoints.cache-reuse")
    before, after = _tail_positions(earlier), _tail_positions(later)
    for i, position in enumerate(before):
        if i + grown // SPACING > 2:
            continue  # the later request's 3 tail markers sit too far on: a new cache is written instead
        check(any(0 <= q - position < LOOKBACK for q in after), "breakpoints.cache-reuse",
              f"the earlier marker at block {position} has no later marker within {LOOKBACK} blocks",
              input={"tail_blocks": count, "appended": grown}, expected=f"a marker in [{position}, "
              f"{position + LOOKBACK - 1}]", actual=after)
    check("cache_control" in later["system"][-1], "breakpoints.cache-reuse", "the system block is not marked",
          input={"tail_blocks": count, "appended": grown})
