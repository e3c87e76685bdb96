"""Unit tests of the reference's transcript model: canonical JSON out, and error messages that name the field."""

from __future__ import annotations

import pytest

from advisor_reference import AdvisorInputError, Message, ToolCall, parse_transcript, transcript_to_json

READ_CALL = {"id": "c1", "name": "read", "arguments": {"path": "a.go"}}


def test_canonical_json_of_a_full_transcript():
    """Parsing a transcript and writing it back gives each message's fields, defaults left out, null content as ""."""
    raw = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": None, "reasoning_content": None},
        {
            "role": "assistant",
            "content": "Reading.",
            "reasoning_content": "Need the file.",
            "metadata": {"signature": "sig-1"},
            "tool_calls": [READ_CALL, {"name": "ls", "arguments": {}}],
        },
        {"role": "tool", "name": "read", "tool_call_id": "c1", "content": "package a"},
        {"role": "assistant", "content": "Done.", "tool_calls": None},
    ]
    assert transcript_to_json(parse_transcript(raw)) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": ""},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {"id": "c1", "name": "read", "arguments": {"path": "a.go"}},
                {"id": "", "name": "ls", "arguments": {}},
            ],
            "reasoning_content": "Need the file.",
            "metadata": {"signature": "sig-1"},
        },
        {"role": "tool", "content": "package a", "name": "read", "tool_call_id": "c1"},
        {"role": "assistant", "content": "Done."},
    ]


def test_canonical_json_of_a_tool_message_keeps_its_empty_fields():
    """A tool message always writes its required name and tool_call_id, even when they are empty."""
    raw = [{"role": "tool", "name": "", "tool_call_id": ""}]
    assert transcript_to_json(parse_transcript(raw)) == [
        {"role": "tool", "content": "", "name": "", "tool_call_id": ""}
    ]


def test_parsed_message_fields():
    """Every field of an assistant and a tool message is carried into the parsed Message."""
    assistant, tool = parse_transcript([
        {"role": "assistant", "content": "x", "reasoning_content": "why", "metadata": {"k": 1},
         "tool_calls": [READ_CALL]},
        {"role": "tool", "name": "read", "tool_call_id": "c1", "content": "out"},
    ])
    assert assistant == Message(
        role="assistant", content="x", tool_calls=(ToolCall("c1", "read", {"path": "a.go"}),), reasoning_content="why"
    )
    assert assistant.metadata == {"k": 1}
    assert tool == Message(role="tool", content="out", name="read", tool_call_id="c1")
    assert tool.metadata is None


def test_a_bare_message_takes_the_defaults():
    """A message with only a role has empty text, no tool calls, empty name and call id, and no metadata."""
    (message,) = parse_transcript([{"role": "user"}])
    assert (message.role, message.content, message.tool_calls, message.name, message.tool_call_id) == (
        "user", "", (), "", ""
    )
    assert message.reasoning_content == ""
    assert message.metadata is None


@pytest.mark.parametrize(
    "raw, error",
    [
        ({"role": "user"}, "transcript: must be an array of messages, got object"),
        ([["user", "hi"]], "transcript[0]: must be an object, got array"),
        ([{"role": "user"}, {"user"}], "transcript[1]: must be an object, got set"),
        ([{"content": "hi"}], "transcript[0].role: is required"),
        ([{"role": None}], "transcript[0].role: must be a string, got null"),
        ([{"role": 5}], "transcript[0].role: must be a string, got number"),
        ([{"role": "robot"}], "transcript[0].role: must be one of system, user, assistant, tool, got 'robot'"),
        ([{"role": "user", "reasoning_content": True}], "transcript[0].reasoning_content: must be a string, got boolean"),
        ([{"role": "user", "metadata": []}], "transcript[0].metadata: must be an object, got array"),
        ([{"role": "user", "tool_calls": []}],
         "transcript[0].tool_calls: only assistant messages carry tool calls, this is 'user'"),
        ([{"role": "tool", "tool_call_id": "c1"}], "transcript[0].name: is required"),
        ([{"role": "tool", "name": None, "tool_call_id": "c1"}], "transcript[0].name: must be a string, got null"),
        ([{"role": "tool", "name": "read"}], "transcript[0].tool_call_id: is required"),
        ([{"role": "user", "name": "bob"}], "transcript[0].name: only tool messages carry name, this is 'user'"),
        ([{"role": "assistant", "tool_call_id": "c1"}],
         "transcript[0].tool_call_id: only tool messages carry tool_call_id, this is 'assistant'"),
    ],
    ids=["not-a-list", "message-array", "message-set", "missing-role", "null-role", "number-role", "unknown-role",
         "boolean-reasoning", "metadata-array", "calls-on-user", "missing-tool-name", "null-tool-name",
         "missing-tool-call-id", "name-on-user", "tool-call-id-on-assistant"],
)
def test_message_errors_name_the_index_field_and_problem(raw, error):
    """A malformed message raises AdvisorInputError naming its index, its field and what is wrong with it."""
    with pytest.raises(AdvisorInputError) as info:
        parse_transcript(raw)
    assert str(info.value) == error


@pytest.mark.parametrize(
    "calls, error",
    [
        ({"0": READ_CALL}, "transcript[0].tool_calls: must be an array, got object"),
        ([READ_CALL, "read"], "transcript[0].tool_calls[1]: must be an object, got string"),
        ([{**READ_CALL, "args": {}}], "transcript[0].tool_calls[0].args: unknown field 'args'"),
        ([{"id": "c1", "arguments": {}}], "transcript[0].tool_calls[0].name: is required"),
        ([{"id": "c1", "name": "", "arguments": {}}], "transcript[0].tool_calls[0].name: must not be empty"),
        ([{"id": "c1", "name": "read"}], "transcript[0].tool_calls[0].arguments: is required"),
        ([{"id": "c1", "name": "read", "arguments": ["a.go"]}],
         "transcript[0].tool_calls[0].arguments: must be an object, got array"),
        ([{"id": 7, "name": "read", "arguments": {}}], "transcript[0].tool_calls[0].id: must be a string, got number"),
        ([{"id": None, "name": "read", "arguments": {}}], "transcript[0].tool_calls[0].id: must be a string, got null"),
    ],
    ids=["calls-object", "call-string", "unknown-call-field", "missing-call-name", "empty-call-name",
         "missing-arguments", "arguments-array", "number-id", "null-id"],
)
def test_tool_call_errors_name_the_call_and_field(calls, error):
    """A malformed tool call raises AdvisorInputError naming the message, the call index, the field and the problem."""
    raw = [{"role": "assistant", "tool_calls": calls}]
    with pytest.raises(AdvisorInputError) as info:
        parse_transcript(raw)
    assert str(info.value) == error
    assert info.value.at == error.split(": ", 1)[0]
