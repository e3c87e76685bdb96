"""Anthropic cache breakpoints of advisor requests (spec: Transport and cache; clarifications §9).

The placement tests count the tail (the blocks of every message but the final one) on the encoded body, so how
the wire lays out messages (an empty one left out or given a text) never moves what they expect. A difference is
blamed on the rule it breaks: the final message marked, more than four markers, the last system block unmarked,
a marker off the 15-block grid, or marking that stops at three markers (:func:`check_advisor_marks`).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.wire import MAX_MARKS, blocks, encode, expected_advisor_positions, marks
from advisor_conformance.wire import neutral_request as request_of

from .marks import (
    check_at_most_four,
    check_final_unmarked,
    check_system_marked,
    check_walk_not_stopped_at_three,
    tail_count,
    tail_positions,
)

pytestmark = pytest.mark.needs(providers=["anthropic"])  # every body here is encoded for Anthropic

ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}


def _body(impl, messages, rule, **fields):
    request = request_of(messages, **fields)
    return encode(impl, "anthropic", request, rule)["body"], request


def check_no_empty_block(body, context):
    """Control: no text block on the wire is empty (wire.anthropic-nonempty), so none shifts or hides a marker."""
    empty = [f"{where}[{position}]" for where, position, _, block in blocks(body)
             if block.get("type") == "text" and not block.get("text")]
    check(not empty, "wire.anthropic-nonempty", "an empty text block is on the wire", input=context, actual=empty)


def check_advisor_marks(body, context):
    """The advisor markers sit on the last system block and at distances 0, 15, 30, ... back from the tail's last
    block, while the request holds fewer than 4; each way they can differ is blamed on the rule it breaks."""
    check_no_empty_block(body, context)
    check_final_unmarked(body, context)
    check_at_most_four(body, context)
    check_system_marked(body, context)
    check_walk_not_stopped_at_three(body, context)
    count, got = tail_count(body), tail_positions(body)
    check_equal(got, expected_advisor_positions(count, len(body.get("system") or [])), "breakpoints.spacing",
                f"the {count} tail blocks are not marked at distances 0, 15, 30, ... back from the last one",
                input=context)


def _conversation(count, *, empty_at=(), system_at=()):
    """``count`` conversation messages before the final one, with an empty assistant message inserted before each
    index of ``empty_at`` and a system message before each index of ``system_at``."""
    out = [{"role": "system", "content": "You advise."}]
    for index, message in enumerate(s.block_messages(count, system=False)[:-1]):
        out += [{"role": "assistant", "content": ""}] * empty_at.count(index)
        out += [{"role": "system", "content": "more rules"}] * system_at.count(index)
        out.append(message)
    out += [{"role": "assistant", "content": ""}] * empty_at.count(count)
    return out + [{"role": "user", "content": "final: advise me"}]


def _blank(count, blank_at):
    """``count`` conversation messages before the final one, those of ``blank_at`` (tail-block positions) holding
    white space only: a block of the wire all the same."""
    out = s.block_messages(count)
    for position, text in blank_at.items():
        out[position + 1] = {**out[position + 1], "content": text}
    return out


# ------------------------------------------------------------------------------------------------- TTL


@pytest.mark.rule(id="breakpoints.advisor-ttl")
@example(messages=s.block_messages(0)).via("breakpoints.advisor-ttl:system-only")
@example(messages=s.block_messages(10)).via("breakpoints.advisor-ttl:system-and-tail")
@example(messages=s.block_messages(80)).via("breakpoints.advisor-ttl:full-budget")
@example(messages=s.block_messages(46, system=False)).via("breakpoints.advisor-ttl:no-system")
@example(messages=[{"role": "system", "content": "a"}, {"role": "system", "content": "b"},
                   *s.block_messages(16, system=False)]).via("breakpoints.advisor-ttl:several-system-blocks")
@example(messages=[{"role": "system", "content": "a"}, {"role": "system", "content": " \n"},
                   *_conversation(16, empty_at=(4, 16))[1:]]).via("breakpoints.advisor-ttl:blank-and-empty-messages")
@given(messages=s.rendered_messages(max_size=40))
def test_every_advisor_marker_lasts_an_hour(impl, messages):
    """Every marker of an advisor-profile request is ephemeral with a one-hour TTL."""
    body, request = _body(impl, messages, "breakpoints.advisor-ttl")
    controls = [block["cache_control"] for _, _, _, block in blocks(body) if "cache_control" in block]
    check(all(c == ONE_HOUR for c in controls), "breakpoints.advisor-ttl",
          "an advisor marker is not {type: ephemeral, ttl: 1h}", input=request, actual=controls)


@pytest.mark.rule(id="breakpoints.advisor-ttl")
@pytest.mark.parametrize("session, parent", [("s-subagent-advisor", "s"), ("s", None), (None, None)],
                         ids=["sub-agent-advisor", "main-session", "no-session"])
def test_the_profile_flag_decides_the_ttl(impl, session, parent):
    """A request with the advisor profile gets one-hour markers whatever its transport session is called."""
    body, request = _body(impl, s.block_messages(20), "breakpoints.advisor-ttl", transport_session=session,
                          parent_session=parent)
    controls = [block["cache_control"] for _, _, _, block in blocks(body) if "cache_control" in block]
    check(bool(controls) and all(c == ONE_HOUR for c in controls), "breakpoints.advisor-ttl",
          "the advisor profile's markers are not all {type: ephemeral, ttl: 1h}", input=request, actual=controls)


# ------------------------------------------------------------------------------------------- system


SYSTEM_AFTER = [{"role": "system", "content": "first"}, *s.block_messages(3, system=False)[:-1],
                {"role": "system", "content": "late rules"}, {"role": "user", "content": "advise"}]


@pytest.mark.rule(id="breakpoints.system-marked")
@given(messages=s.rendered_messages(max_size=20).filter(lambda ms: any(m["role"] == "system" and m["content"].strip()
                                                                        for m in ms)))
@example(messages=s.block_messages(0)).via("breakpoints.system-marked:one-block")
@example(messages=[{"role": "system", "content": "first"}, {"role": "system", "content": "second"},
                   {"role": "user", "content": "advise"}]).via("breakpoints.system-marked:several-blocks")
@example(messages=[{"role": "system", "content": "first"}, {"role": "system", "content": " \n\t"},
                   {"role": "user", "content": "advise"}]).via("breakpoints.system-marked:blank-last")
@example(messages=SYSTEM_AFTER).via("breakpoints.system-marked:after-conversation")
@example(messages=s.block_messages(60)).via("breakpoints.system-marked:long-tail")
def test_last_system_block_is_marked(impl, messages):
    """The last system block carries a marker, and no other system block does."""
    body, request = _body(impl, messages, "breakpoints.system-marked")
    marked = [("cache_control" in block) for block in body["system"]]
    check_equal(marked, [False] * (len(marked) - 1) + [True], "breakpoints.system-marked",
                "the system markers are not exactly the last system block", input=request)


# ------------------------------------------------------------------------------------------ spacing


@pytest.mark.rule(id="breakpoints.spacing")
@example(count=0, system=True).via("breakpoints.spacing:empty-tail")
@example(count=1, system=True).via("breakpoints.spacing:one-block")
@example(count=14, system=True).via("breakpoints.spacing:under-spacing")
@example(count=15, system=True).via("breakpoints.spacing:at-spacing")
@example(count=16, system=True).via("breakpoints.spacing:just-over-spacing")
@example(count=30, system=True).via("breakpoints.spacing:two-spacings")
@example(count=60, system=True).via("breakpoints.spacing:long")
@example(count=61, system=False).via("breakpoints.spacing:long-without-system")
@example(count=16, system=False).via("breakpoints.spacing:short-without-system")
@given(count=st.integers(0, 120), system=st.booleans())
def test_markers_every_15_blocks_back_from_the_tail(impl, count, system):
    """The tail is marked at distances 0, 15, 30, ... back from its last block, within the 4-marker budget."""
    body, _ = _body(impl, s.block_messages(count, system), "breakpoints.spacing")
    check_advisor_marks(body, {"tail_blocks": count, "system": system})


@pytest.mark.rule(id="breakpoints.spacing")
@pytest.mark.parametrize("count, positions", [(80, [79, 64, 49]), (31, [30, 15, 0]), (10, [9]), (0, [])],
                         ids=["N=80", "N=31", "N=10", "N=0"])
def test_worked_examples(impl, count, positions):
    """The clarifications' worked examples: N = 80 marks 79, 64, 49; 31 marks 30, 15, 0; 10 marks 9; 0 none."""
    body, _ = _body(impl, s.block_messages(count), "breakpoints.spacing")
    check_advisor_marks(body, {"tail_blocks": count})
    check_equal(tail_positions(body), positions, "breakpoints.spacing", f"N = {count}: wrong marked positions",
                input={"tail_blocks": count})


@pytest.mark.rule(id="breakpoints.spacing")
@pytest.mark.parametrize("messages", [
    pytest.param(_conversation(15, empty_at=(5,)), id="empty-assistant-inside"),
    pytest.param(_conversation(15, empty_at=(15,)), id="empty-assistant-before-final"),
    pytest.param(_conversation(30, empty_at=(3, 20, 20)), id="several-empty-assistants"),
    pytest.param(_conversation(15, system_at=(7,)), id="system-inside"),
    pytest.param(_blank(31, {30: " ", 15: "\n\t", 7: "\u3000"}), id="white-space-blocks-on-the-grid"),
])
def test_distances_count_the_blocks_on_the_wire(impl, messages):
    """Distances count the tail blocks the request sends: a message left out or moved to the system is not one."""
    body, request = _body(impl, messages, "breakpoints.spacing")
    check_advisor_marks(body, request)


# --------------------------------------------------------------------------------------- four markers


@pytest.mark.rule(id="breakpoints.max-four")
@example(messages=s.block_messages(200), advisor=True).via("breakpoints.max-four:long-advisor")
@example(messages=s.block_messages(200, system=False), advisor=True).via("breakpoints.max-four:long-without-system")
@example(messages=s.block_messages(200), advisor=False).via("breakpoints.max-four:long-default")
@given(messages=s.rendered_messages(max_size=80), advisor=st.booleans())
def test_never_more_than_four_markers(impl, messages, advisor):
    """A request never holds more than 4 markers, whichever profile."""
    body, request = _body(impl, messages, "breakpoints.max-four", advisor_cache_profile=advisor)
    if advisor:
        check_final_unmarked(body, request)
    check_at_most_four(body, request)


@pytest.mark.rule(id="breakpoints.max-four")
@pytest.mark.parametrize("count, system", [(31, True), (45, True), (46, True), (47, True), (46, False), (61, False)],
                         ids=["31-system", "45-system", "46-system", "47-system", "46-no-system", "61-no-system"])
def test_marking_stops_at_the_fourth_marker(impl, count, system):
    """Marking goes on until the request holds 4 markers and stops there: the system block's counts, none is kept
    back for a system block that is absent."""
    body, _ = _body(impl, s.block_messages(count, system), "breakpoints.max-four")
    context = {"tail_blocks": count, "system": system}
    check_advisor_marks(body, context)
    check_equal(len(marks(body)), MAX_MARKS, "breakpoints.max-four", "the request does not use all 4 markers",
                input=context, actual=marks(body))


@pytest.mark.rule(id="breakpoints.max-four")
def test_several_system_blocks_take_one_marker(impl):
    """Several system blocks take one marker, so a long tail still gets 3."""
    messages = [{"role": "system", "content": "first"}, *s.block_messages(60)]
    body, request = _body(impl, messages, "breakpoints.max-four")
    check_advisor_marks(body, request)
    check_equal(len(marks(body)), MAX_MARKS, "breakpoints.max-four", "the request does not use all 4 markers",
                input=request, actual=marks(body))


# --------------------------------------------------------------------------------------- final message


@pytest.mark.rule(id="breakpoints.final-unmarked")
@example(messages=s.block_messages(0)).via("breakpoints.final-unmarked:final-only")
@example(messages=s.block_messages(0, system=False)).via("breakpoints.final-unmarked:final-alone")
@example(messages=s.block_messages(1)).via("breakpoints.final-unmarked:budget-to-spare")
@example(messages=s.block_messages(14, system=False)).via("breakpoints.final-unmarked:no-system")
@example(messages=s.block_messages(60)).via("breakpoints.final-unmarked:long")
@example(messages=_conversation(3, empty_at=(3,))).via("breakpoints.final-unmarked:after-empty-assistant")
@given(messages=s.rendered_messages(max_size=40))
def test_final_message_never_marked(impl, messages):
    """The final message carries no marker in the advisor profile."""
    body, request = _body(impl, messages, "breakpoints.final-unmarked")
    check_final_unmarked(body, request)
