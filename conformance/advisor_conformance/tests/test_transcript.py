"""The transcript model: what a snapshot may hold, and what is rejected (clarifications §1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import params, shape, shape_error


@pytest.mark.rule(id="transcript.roles")
@given(transcript=s.transcripts(max_size=10))
def test_every_well_formed_transcript_is_accepted(impl, transcript):
    """A transcript of system, user, assistant (with calls, reasoning, metadata) and tool messages is shaped."""
    shape(impl, params(transcript), "transcript.roles")


@pytest.mark.rule(id="transcript.roles")
def test_openai_style_null_content_is_empty(impl):
    """An assistant message whose content is null (only tool calls) is accepted as empty text."""
    transcript = [{"role": "user", "content": "hi"},
                  {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "name": "bash", "arguments": {}}]},
                  {"role": "tool", "name": "bash", "tool_call_id": "c", "content": "ok"}]
    messages = shape(impl, params(transcript), "transcript.roles")
    check_equal(messages[2]["content"], "[tool_call: bash {}]", "transcript.roles",
                "a null content was not read as empty text", input=transcript)


MALFORMED = [
    ({"role": "bot", "content": "hi"}, "role"),
    ({"content": "no role"}, "role"),
    ({"role": "user", "content": 42}, "content"),
    ({"role": "user", "content": ["a", "b"]}, "content"),
    ({"role": "assistant", "content": "", "tool_calls": {"id": "c"}}, "tool_calls"),
    ({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "name": "bash", "arguments": "{}"}]}, "arguments"),
    ({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "name": "bash", "arguments": [1]}]}, "arguments"),
    ({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "name": 7, "arguments": {}}]}, "name"),
    ({"role": "tool", "name": 5, "tool_call_id": "c", "content": "x"}, "name"),
    ({"role": "tool", "name": "bash", "tool_call_id": "c", "content": {"out": 1}}, "content"),
    ({"role": "user", "content": "hi", "reasoning_content": 3}, "reasoning_content"),
    ("just a string", ""),
]
MALFORMED_IDS = [
    "unknown-role", "missing-role", "numeric-content", "array-content", "tool-calls-object", "arguments-string",
    "arguments-array", "call-name-number", "tool-name-number", "tool-content-object", "reasoning-number",
    "message-not-object",
]


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("bad, field", MALFORMED, ids=MALFORMED_IDS)
@given(before=s.transcripts(max_size=4), after=s.transcripts(max_size=2))
def test_malformed_message_is_rejected_naming_index_and_field(impl, bad, field, before, after):
    """A malformed message anywhere in the snapshot is an invalid_input error that names its index and field."""
    transcript = [*before, bad, *after]
    index = len(before)
    request = params(transcript)
    error = shape_error(impl, request, "transcript.malformed-rejected")
    check_equal(error["code"], "invalid_input", "transcript.malformed-rejected", "the error code is not invalid_input",
                input=request)
    at = error.get("at", "")
    check(at.startswith(f"transcript[{index}]") and field in at, "transcript.malformed-rejected",
          f"the error's 'at' does not name transcript[{index}] and the field {field!r}", input=request, actual=error)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("transcript", ["not a list", {"role": "user"}, None], ids=["string", "object", "null"])
def test_snapshot_that_is_not_a_list_is_rejected(impl, transcript):
    """A snapshot that is not an array of messages is an invalid_input error."""
    error = shape_error(impl, {"transcript": transcript}, "transcript.malformed-rejected")
    check_equal(error["code"], "invalid_input", "transcript.malformed-rejected", "the error code is not invalid_input",
                input={"transcript": transcript})


@pytest.mark.rule(id="transcript.malformed-rejected")
@given(transcript=s.transcripts(min_size=1, max_size=5), data=st.data())
def test_nothing_is_dropped_silently(impl, transcript, data):
    """Replacing any message's role with an unknown one makes the whole call fail rather than drop the message."""
    index = data.draw(st.integers(0, len(transcript) - 1), label="index")
    transcript[index] = {**transcript[index], "role": "narrator"}
    request = params(transcript)
    error = shape_error(impl, request, "transcript.malformed-rejected")
    check(error.get("at", "").startswith(f"transcript[{index}]"), "transcript.malformed-rejected",
          f"the error's 'at' does not name transcript[{index}]", input=request, actual=error)
