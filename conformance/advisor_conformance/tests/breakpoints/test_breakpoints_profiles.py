"""Anthropic cache breakpoints beside the advisor placement: the default profile, what the API accepts, and the
reuse of earlier breakpoints as a transcript grows (spec: Transport and cache; clarifications §9)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.wire import LOOKBACK, SPACING, anthropic_400_problems, blocks, encode, marks
from advisor_conformance.wire import neutral_request as request_of

from .marks import (
    check_at_most_four,
    check_final_unmarked,
    check_system_marked,
    check_walk_not_stopped_at_three,
    tail_positions,
)

pytestmark = pytest.mark.needs(providers=["anthropic"])  # every body here is encoded for Anthropic

DEFAULT = {"type": "ephemeral"}


def _body(impl, messages, rule, **fields):
    request = request_of(messages, **fields)
    return encode(impl, "anthropic", request, rule)["body"], request


def _no_one_hour(body, context):
    """Control: a request without the advisor profile carries no one-hour TTL (breakpoints.default-profile)."""
    check(all(mark.ttl != "1h" for mark in marks(body)), "breakpoints.default-profile",
          "a non-advisor request carries a 1h TTL", input=context, actual=marks(body))


def _messages(*roles):
    """A system prompt, messages of ``roles`` and a final user message."""
    return [{"role": "system", "content": "You code."}, *({"role": role, "content": f"{role} {i}"}
                                                          for i, role in enumerate(roles)),
            {"role": "user", "content": "go on"}]


# ------------------------------------------------------------------------------------------ default profile


@pytest.mark.rule(id="breakpoints.default-profile")
@example(messages=s.block_messages(3)).via("breakpoints.default-profile:short")
@example(messages=s.block_messages(3, system=False)).via("breakpoints.default-profile:no-system")
@example(messages=s.block_messages(60)).via("breakpoints.default-profile:long")
@example(messages=_messages("user", "assistant")[:1] + [{"role": "system", "content": "notes"}]
         + _messages("user", "assistant")[1:]).via("breakpoints.default-profile:several-system-blocks")
@given(messages=s.rendered_messages(max_size=40))
def test_default_profile_has_no_one_hour_ttl(impl, messages):
    """A request without the advisor profile carries no one-hour TTL."""
    body, request = _body(impl, messages, "breakpoints.default-profile", advisor_cache_profile=False)
    _no_one_hour(body, request)


@pytest.mark.rule(id="breakpoints.default-profile")
def test_default_request_after_advisor_requests_keeps_its_profile(impl):
    """A request without the advisor profile, encoded after advisor requests of the same messages, has no 1h TTL."""
    messages = s.block_messages(20)
    for _ in range(2):
        _body(impl, messages, "breakpoints.default-profile")
    body, request = _body(impl, messages, "breakpoints.default-profile", advisor_cache_profile=False)
    _no_one_hour(body, request)


@pytest.mark.rule(id="breakpoints.default-placement")
@example(messages=_messages()).via("breakpoints.default-placement:final-only")
@example(messages=_messages("user", "assistant")).via("breakpoints.default-placement:assistant-before-final")
@example(messages=_messages("user", "user")).via("breakpoints.default-placement:consecutive-users")
@example(messages=_messages("user", "assistant", "assistant", "assistant")).via(
    "breakpoints.default-placement:user-far-back")
@example(messages=s.block_messages(4, system=False)).via("breakpoints.default-placement:no-system")
@example(messages=[{"role": "system", "content": "a"}, {"role": "user", "content": "u"},
                   {"role": "system", "content": "b"}, {"role": "assistant", "content": "x"},
                   {"role": "user", "content": "go on"}]).via("breakpoints.default-placement:several-system")
@example(messages=s.block_messages(60)).via("breakpoints.default-placement:long")
@given(messages=s.rendered_messages(max_size=30, empties=False))
def test_default_profile_placement(impl, messages):
    """The default profile marks the last system block, the final message and the second-to-last user message,
    each with {type: ephemeral} and no TTL."""
    body, request = _body(impl, messages, "breakpoints.default-placement", advisor_cache_profile=False)
    users = [i for i, m in enumerate(body["messages"]) if m["role"] == "user"]
    expected = {len(body["messages"]) - 1} | ({users[-2]} if len(users) >= 2 else set())
    got = {m.message for m in marks(body) if m.where == "messages"}
    check_equal(got, expected, "breakpoints.default-placement", "the default markers are misplaced", input=request)
    system_marked = [("cache_control" in block) for block in body.get("system", [])]
    check_equal(system_marked, [False] * (len(system_marked) - 1) + [True] if system_marked else [],
                "breakpoints.default-placement", "the last system block is not the one marked", input=request)
    _no_one_hour(body, request)
    controls = [block["cache_control"] for _, _, _, block in blocks(body) if "cache_control" in block]
    check(all(control == DEFAULT for control in controls), "breakpoints.default-placement",
          "a default marker is not {type: ephemeral} without a TTL", input=request, actual=controls)


# -------------------------------------------------------------------------------------------- wire validity


EMPTY_ASSISTANT_LAST = _messages("user", "assistant", "user")[:-1] + [{"role": "assistant", "content": ""},
                                                                     {"role": "user", "content": "go on"}]
EMPTY_USER_LAST = _messages("user", "assistant")[:-1] + [{"role": "user", "content": ""},
                                                        {"role": "user", "content": "go on"}]
EMPTY_INSIDE = [{"role": "system", "content": "a"}, {"role": "user", "content": "u"},
                {"role": "user", "content": ""}, {"role": "assistant", "content": ""},
                {"role": "user", "content": "w"}, {"role": "user", "content": "go on"}]
BLANK_SYSTEM_LAST = [{"role": "system", "content": "a"}, {"role": "system", "content": " \n"},
                     *s.block_messages(2, system=False)]


@pytest.mark.rule(id="breakpoints.wire-validity")
@example(messages=EMPTY_ASSISTANT_LAST, advisor=True).via("breakpoints.wire-validity:empty-assistant-at-distance-0")
@example(messages=EMPTY_USER_LAST, advisor=True).via("breakpoints.wire-validity:empty-user-at-distance-0")
@example(messages=EMPTY_INSIDE, advisor=True).via("breakpoints.wire-validity:empty-inside")
@example(messages=BLANK_SYSTEM_LAST, advisor=True).via("breakpoints.wire-validity:blank-system-last")
@example(messages=s.block_messages(20), advisor=True).via("breakpoints.wire-validity:system-then-tail")
@example(messages=s.block_messages(80), advisor=True).via("breakpoints.wire-validity:long-advisor")
@example(messages=s.block_messages(4), advisor=False).via("breakpoints.wire-validity:default-profile")
@example(messages=EMPTY_USER_LAST, advisor=False).via("breakpoints.wire-validity:default-empty-user")
@given(messages=s.rendered_messages(max_size=60), advisor=st.booleans())
def test_no_request_the_api_would_refuse(impl, messages, advisor):
    """No request breaks the API's marker rules: at most 4, none on an empty block, no 1h after a 5m."""
    body, request = _body(impl, messages, "breakpoints.wire-validity", advisor_cache_profile=advisor)
    if advisor:
        check_final_unmarked(body, request)
    check_at_most_four(body, request)
    # An empty block is wire.anthropic-nonempty's; a marker on it breaks this rule as well.
    empty = {f"{where}[{position}]": "cache_control" in block for where, position, _, block in blocks(body)
             if block.get("type") == "text" and not block.get("text")}
    check(not empty, ["wire.anthropic-nonempty"] + (["breakpoints.wire-validity"] if any(empty.values()) else []),
          "an empty text block is on the wire", input=request, actual=empty)
    check_equal(anthropic_400_problems(body), [], "breakpoints.wire-validity", "the API would answer 400",
                input=request)


# ---------------------------------------------------------------------------------------------- cache reuse


@pytest.mark.rule(id="breakpoints.cache-reuse")
@given(count=st.integers(1, 100), grown=st.integers(0, 60))
@example(count=40, grown=0).via("breakpoints.cache-reuse:unchanged")
@example(count=1, grown=14).via("breakpoints.cache-reuse:from-one-block")
@example(count=40, grown=7).via("breakpoints.cache-reuse:under-spacing")
@example(count=40, grown=15).via("breakpoints.cache-reuse:one-spacing")
@example(count=40, grown=19).via("breakpoints.cache-reuse:just-under-lookback")
@example(count=5, grown=25).via("breakpoints.cache-reuse:short-to-long")
@example(count=33, grown=29).via("breakpoints.cache-reuse:crossing-the-budget")  # the marker at 3 needs one in [3, 22]
@example(count=100, grown=12).via("breakpoints.cache-reuse:long")
def test_appending_keeps_earlier_breakpoints_within_reach(impl, count, grown):
    """After k blocks are appended, every earlier marker at distance 15*i with i + k // 15 <= 2 has a later marker
    at most 19 blocks after it, so the later request reads the cache the earlier one wrote."""
    context = {"tail_blocks": count, "appended": grown}
    earlier, _ = _body(impl, s.block_messages(count), "breakpoints.cache-reuse")
    later, _ = _body(impl, s.block_messages(count + grown), "breakpoints.cache-reuse")
    for body, blocks_before_final in ((earlier, count), (later, count + grown)):
        where = {**context, "request_tail_blocks": blocks_before_final}
        check_final_unmarked(body, where)
        check_at_most_four(body, where)
        check_system_marked(body, where)
        check_walk_not_stopped_at_three(body, where)
    before, after = tail_positions(earlier), tail_positions(later)
    for i, position in enumerate(before):
        if i + grown // SPACING > 2:
            continue  # the later request's 3 tail markers sit too far on: a new cache is written instead
        check(any(0 <= q - position < LOOKBACK for q in after), "breakpoints.cache-reuse",
              f"the earlier marker at block {position} has no later marker within {LOOKBACK} blocks",
              input=context, expected=f"a marker in [{position}, {position + LOOKBACK - 1}]", actual=after)
