"""The transcript model: what a snapshot may hold, and what is rejected (clarifications §1)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.shaping import body, flattened, params, shape, shape_error


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
    message = flattened(shape(impl, params(transcript), "transcript.roles"), 1, "transcript.roles", input=transcript)
    check_equal(message["content"], "[tool_call: bash {}]", "transcript.roles",
                "a null content was not read as empty text", input=transcript)


MALFORMED = [
    ({"content": "no role"}, "role"),
    ({"role": 7, "content": "role not a string"}, "role"),
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
    "missing-role", "role-not-a-string", "numeric-content", "array-content", "tool-calls-object", "arguments-string",
    "arguments-array", "call-name-number", "tool-name-number", "tool-content-object", "reasoning-number",
    "message-not-object",
]


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("bad, field", MALFORMED, ids=MALFORMED_IDS)
@given(before=s.transcripts(max_size=4), after=s.transcripts(max_size=2))
@example(before=[], after=[])
@example(before=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
         after=[{"role": "user", "content": "c"}])
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


def _unknown_role_outcome(impl, transcript, index, rule="transcript.malformed-rejected"):
    """A message of an unknown role at ``index``: rejected naming that index, or kept with its role and content."""
    request = params(transcript)
    answer = answer_of(impl, "shape", request, rule)
    if "error" in answer:
        error = answer["error"]
        check(error["code"] == "invalid_input" and error.get("at", "").startswith(f"transcript[{index}]"), rule,
              f"the message of an unknown role at {index} was refused, but not as invalid_input naming "
              f"transcript[{index}]", input=request, actual=error)
        return
    kept = body(answer["messages"])
    message = transcript[index]
    check(index < len(kept) and kept[index] == {"role": message["role"], "content": message.get("content") or ""},
          rule, f"the message of an unknown role at {index} was neither refused nor kept with its role and content",
          input=request, actual=kept)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("index", [0, 1, 2], ids=["first", "middle", "last"])
def test_unknown_role_is_refused_or_kept_never_dropped(impl, index):
    """A message of a role the model does not know is refused naming its index, or kept with its role and content
    (as the origin's flattening passes it); it is never dropped silently."""
    transcript = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
                  {"role": "user", "content": "three"}]
    transcript[index] = {"role": "narrator", "content": f"narrated at {index}"}
    _unknown_role_outcome(impl, transcript, index)


@pytest.mark.rule(id="transcript.malformed-rejected")
@given(transcript=s.transcripts(min_size=1, max_size=5), data=st.data())
def test_nothing_is_dropped_silently(impl, transcript, data):
    """Replacing any message's role with an unknown one makes the call fail at that message, or keeps the message
    with its role: it is never dropped."""
    index = data.draw(st.integers(0, len(transcript) - 1), label="index")
    transcript[index] = {"role": "narrator", "content": transcript[index].get("content") or ""}
    _unknown_role_outcome(impl, transcript, index)
