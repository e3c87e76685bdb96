"""Diagnosis by known mistakes: a failing call replayed through the catalogue's mistakes names the one that gives
the implementation's answer, within its bounds; and the wire a failing black-box test saw, bounded and without
credentials."""

from __future__ import annotations

import dataclasses
import time

from advisor_conformance._broken.shaping import MarkerOffByOne
from advisor_conformance._contract.loopback import (
    TRACE_BODY,
    TRACE_EXCHANGES,
    LoopbackProvider,
    Received,
    Reply,
    wire_trace,
)
from advisor_conformance._judging.diagnosis import Call, Match, diagnose, mistakes_of, narrowed, replayable
from advisor_reference.adapter import ReferenceAdapter

LONG = {
    "transcript": [
        {"role": "user", "content": "fix it"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "edit", "arguments": {"text": "x" * 1500}}],
        },
        {"role": "tool", "name": "edit", "tool_call_id": "c1", "content": "ok"},
    ]
}
REFERENCE = ReferenceAdapter()
DESCRIPTION = REFERENCE.describe()


def _call(adapter, params=LONG, op="shape", seconds=0.01):
    return Call(op, params, getattr(adapter, op)(params), seconds)


def test_an_answer_a_known_mistake_gives_is_named_with_its_rule():
    """The answer of the marker-off-by-one mistake, replayed through the mistakes of its rule, is named as that
    mistake."""
    (match,) = diagnose([_call(MarkerOffByOne())], ["elision.marker-format"], DESCRIPTION)
    assert (match.mistake, match.rule, match.op) == ("elision.marker-format", "elision.marker-format", "shape")
    assert "elision.marker-format" in match.sentence()


def test_the_mistakes_of_other_rules_are_not_tried_and_the_references_answer_matches_none():
    """Only the mistakes of the rules in question are tried; an answer the reference gives matches no mistake."""
    assert diagnose([_call(MarkerOffByOne())], ["question.trim"], DESCRIPTION) == []
    assert diagnose([_call(REFERENCE)], ["elision.marker-format"], DESCRIPTION) == []


def test_the_implementations_own_wording_is_spoken_by_the_mistakes():
    """An implementation that declares other strings is still matched: the mistakes answer in its wording."""
    strings = dataclasses.replace(ReferenceAdapter.strings, guidance_request="What next? Be brief.")
    own = type("Own", (MarkerOffByOne,), {"strings": strings})()
    description = {**DESCRIPTION, "strings": strings.to_json()}
    assert [match.rule for match in diagnose([_call(own)], ["elision.marker-format"], description)] == [
        "elision.marker-format"
    ]


def test_only_cheap_calls_without_real_http_are_replayed():
    """A call that took long when sent, or a scenario that makes real HTTP calls, is not replayed."""
    assert replayable(Call("shape", LONG, {}, 0.01))
    assert not replayable(Call("shape", LONG, {}, 5.0))
    assert not replayable(Call("scenario", {"runtime": {"http_provider": {"kind": "openai"}}}, {}, 0.01))
    assert not replayable(Call("describe", {}, {}, 0.01))


def test_the_diagnosis_keeps_to_its_time_budget():
    """With no time left, no mistake is tried past the first check."""
    started = time.monotonic()
    assert diagnose([_call(MarkerOffByOne())], ["elision.marker-format"], DESCRIPTION, budget_s=0.0) == []
    assert time.monotonic() - started < 2.0


def test_the_mistakes_in_question_include_those_that_also_break_a_rule():
    """A mistake whose also rules hold a rule in question is tried, after the rule's own mistakes."""
    ids = [entry.id for entry in mistakes_of(["inflight.assistant-removed"])]
    assert ids[0] == "inflight.assistant-removed" and "inflight.label-at-head~predates-label" in ids


def test_the_narrowed_blame_is_the_mistakes_rule_then_its_also_rules_where_the_difference_was_located():
    """The blame starts with each matching mistake's rule; its also rules follow only where the difference was
    located too."""
    match = Match("x.y~v", "x.y", ("x.z", "x.w"), "does it wrong", "shape")
    assert narrowed([match], ["x.z", "a.b"]) == ["x.y", "x.z"]


def test_the_wire_trace_removes_credentials_and_is_bounded():
    """The trace shows each request and the reply sent to it, never a credential header's value, and at most its
    number of exchanges of bounded bodies."""
    provider = LoopbackProvider(server=None)  # type: ignore[arg-type]  # the trace reads what was recorded only
    for index in range(TRACE_EXCHANGES + 3):
        provider.received.append(
            Received(
                "POST",
                "/v1/messages",
                {"x-api-key": "sk-secret-1", "authorization": "Bearer sk-secret-2", "session-id": "s1"},
                {"model": "m", "text": "y" * 5000},
            )
        )
        provider.sent.append(Reply(200 + index, "z" * 5000))
    trace = wire_trace(provider)
    assert "sk-secret" not in trace and "s1" in trace
    assert trace.count("request ") == TRACE_EXCHANGES and "3 more" in trace
    assert len(trace) < TRACE_EXCHANGES * (3 * TRACE_BODY + 600)
