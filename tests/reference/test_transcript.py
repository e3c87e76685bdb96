"""advisor_reference._transcript: parsing a transcript into messages, its errors, and canonical JSON out."""

from __future__ import annotations

import json
import sys

import pytest

from advisor_reference import AdvisorInputError, Message, ToolCall, parse_transcript, transcript_to_json
from advisor_reference._transcript import MAX_ARGUMENT_DEPTH

READ_CALL = {"id": "c1", "name": "read", "arguments": {"path": "a.go"}}


# --- canonical JSON -------------------------------------------------------------------------------------------------


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


# --- parsed messages ------------------------------------------------------------------------------------------------


def test_parsed_message_fields():
    """Every field of an assistant and a tool message is carried into the parsed Message."""
    assistant, tool = parse_transcript(
        [
            {
                "role": "assistant",
                "content": "x",
                "reasoning_content": "why",
                "metadata": {"k": 1},
                "tool_calls": [READ_CALL],
            },
            {"role": "tool", "name": "read", "tool_call_id": "c1", "content": "out"},
        ]
    )
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
        "user",
        "",
        (),
        "",
        "",
    )
    assert message.reasoning_content == ""
    assert message.metadata is None


def test_lone_surrogates_become_replacement_characters():
    """A lone surrogate (legal as a JSON escape) is read as U+FFFD, as Go's decoder does."""
    (message,) = parse_transcript([{"role": "user", "content": "a\ud800b"}])
    assert message.content == "a\ufffdb"


# --- errors ---------------------------------------------------------------------------------------------------------


def _error_at(raw) -> str:
    """The ``at`` of the invalid_input error that parsing ``raw`` raises, checked to be named in its message."""
    with pytest.raises(AdvisorInputError) as info:
        parse_transcript(raw)
    assert info.value.code == "invalid_input"
    assert info.value.at in str(info.value), f"the message does not name {info.value.at!r}: {info.value}"
    return info.value.at


@pytest.mark.parametrize(
    "transcript, at",
    [
        ([{"role": "user", "content": "a"}, {"role": "robot"}], "transcript[1].role"),
        ([{"role": "user", "content": "a", "colour": "red"}], "transcript[0].colour"),
        ([{"role": "user", "tool_calls": []}], "transcript[0].tool_calls"),
        ([{"role": "assistant", "tool_calls": [{"name": "x"}]}], "transcript[0].tool_calls[0].arguments"),
        ([{"role": "assistant", "tool_calls": [{"name": "", "arguments": {}}]}], "transcript[0].tool_calls[0].name"),
        ([{"role": "tool", "name": "bash", "content": "x"}], "transcript[0].tool_call_id"),
        ([{"role": "user", "name": "bob", "content": "x"}], "transcript[0].name"),
        ([{"role": "user", "metadata": []}], "transcript[0].metadata"),
        ({"role": "user"}, "transcript"),
    ],
    ids=[
        "role",
        "unknown-field",
        "calls-on-user",
        "missing-arguments",
        "empty-call-name",
        "missing-tool-call-id",
        "name-on-user",
        "metadata-array",
        "not-a-list",
    ],
)
def test_parse_errors_name_the_field(transcript, at):
    """A malformed transcript raises AdvisorInputError whose ``at`` is the message index and field."""
    assert _error_at(transcript) == at


@pytest.mark.parametrize(
    "raw, at",
    [
        ({"role": "user"}, "transcript"),
        ([["user", "hi"]], "transcript[0]"),
        ([{"role": "user"}, {"user"}], "transcript[1]"),
        ([{"content": "hi"}], "transcript[0].role"),
        ([{"role": None}], "transcript[0].role"),
        ([{"role": 5}], "transcript[0].role"),
        ([{"role": "robot"}], "transcript[0].role"),
        ([{"role": "user", "reasoning_content": True}], "transcript[0].reasoning_content"),
        ([{"role": "user", "metadata": []}], "transcript[0].metadata"),
        ([{"role": "user", "tool_calls": []}], "transcript[0].tool_calls"),
        ([{"role": "tool", "tool_call_id": "c1"}], "transcript[0].name"),
        ([{"role": "tool", "name": None, "tool_call_id": "c1"}], "transcript[0].name"),
        ([{"role": "tool", "name": "read"}], "transcript[0].tool_call_id"),
        ([{"role": "user", "name": "bob"}], "transcript[0].name"),
        ([{"role": "assistant", "tool_call_id": "c1"}], "transcript[0].tool_call_id"),
    ],
    ids=[
        "not-a-list",
        "message-array",
        "message-set",
        "missing-role",
        "null-role",
        "number-role",
        "unknown-role",
        "boolean-reasoning",
        "metadata-array",
        "calls-on-user",
        "missing-tool-name",
        "null-tool-name",
        "missing-tool-call-id",
        "name-on-user",
        "tool-call-id-on-assistant",
    ],
)
def test_message_errors_name_the_index_field_and_problem(raw, at):
    """A malformed message raises an invalid_input error whose ``at`` and message name its index and field."""
    assert _error_at(raw) == at


@pytest.mark.parametrize(
    "calls, at",
    [
        ({"0": READ_CALL}, "transcript[0].tool_calls"),
        ([READ_CALL, "read"], "transcript[0].tool_calls[1]"),
        ([{**READ_CALL, "args": {}}], "transcript[0].tool_calls[0].args"),
        ([{"id": "c1", "arguments": {}}], "transcript[0].tool_calls[0].name"),
        ([{"id": "c1", "name": "", "arguments": {}}], "transcript[0].tool_calls[0].name"),
        ([{"id": "c1", "name": "read"}], "transcript[0].tool_calls[0].arguments"),
        ([{"id": "c1", "name": "read", "arguments": ["a.go"]}], "transcript[0].tool_calls[0].arguments"),
        ([{"id": 7, "name": "read", "arguments": {}}], "transcript[0].tool_calls[0].id"),
        ([{"id": None, "name": "read", "arguments": {}}], "transcript[0].tool_calls[0].id"),
    ],
    ids=[
        "calls-object",
        "call-string",
        "unknown-call-field",
        "missing-call-name",
        "empty-call-name",
        "missing-arguments",
        "arguments-array",
        "number-id",
        "null-id",
    ],
)
def test_tool_call_errors_name_the_call_and_field(calls, at):
    """A malformed tool call raises AdvisorInputError whose ``at`` and message name the message, the call
    index and the field."""
    assert _error_at([{"role": "assistant", "tool_calls": calls}]) == at


# --- arguments the origin cannot decode -----------------------------------------------------------------------------


def _nested(depth, leaf=1):
    """``leaf`` inside ``depth`` levels of objects and arrays, alternating."""
    value = leaf
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


def _arguments_error_at(arguments):
    return _error_at([{"role": "assistant", "tool_calls": [{"id": "c1", "name": "read", "arguments": arguments}]}])


@pytest.mark.parametrize("depth", [MAX_ARGUMENT_DEPTH + 1, 500, 5000], ids=["one-over", "500", "5000"])
def test_arguments_nested_too_deep_are_refused_naming_the_arguments(depth):
    """Arguments nested deeper than MAX_ARGUMENT_DEPTH objects and arrays are an invalid_input at the arguments."""
    assert _arguments_error_at({"x": _nested(depth - 1)}) == "transcript[0].tool_calls[0].arguments"


def test_arguments_nested_to_the_limit_are_kept():
    """Arguments nested exactly MAX_ARGUMENT_DEPTH levels deep parse as they are."""
    arguments = {"x": _nested(MAX_ARGUMENT_DEPTH - 1)}
    (message,) = parse_transcript([{"role": "assistant", "tool_calls": [{"name": "f", "arguments": arguments}]}])
    assert message.tool_calls[0].arguments == arguments


@pytest.mark.parametrize(
    "arguments, at",
    [
        ({"n": json.loads("1e400")}, "transcript[0].tool_calls[0].arguments.n"),
        ({"n": json.loads("-1e400")}, "transcript[0].tool_calls[0].arguments.n"),
        ({"n": [1, {"big": 10**400}]}, "transcript[0].tool_calls[0].arguments.n[1].big"),
        ({"n": -(10**309)}, "transcript[0].tool_calls[0].arguments.n"),
        ({"odd key": float("nan")}, 'transcript[0].tool_calls[0].arguments["odd key"]'),
        ({"t": (1, 2)}, "transcript[0].tool_calls[0].arguments.t"),
        ({"o": {1: "x"}}, "transcript[0].tool_calls[0].arguments.o"),
    ],
    ids=["1e400", "-1e400", "10**400-inside", "-10**309", "nan", "tuple", "number-key"],
)
def test_arguments_outside_json_or_float64_are_refused_naming_the_value(arguments, at):
    """A non-finite number, an integer float64 cannot hold, or a value JSON has no form for is an invalid_input
    naming its path."""
    assert _arguments_error_at(arguments) == at


def test_arguments_at_the_edges_of_float64_are_kept():
    """The largest float64, an integer just inside its range and -0.0 are valid arguments."""
    arguments = {"max": sys.float_info.max, "int": int(sys.float_info.max), "neg": -0.0, "tiny": 5e-324}
    (message,) = parse_transcript([{"role": "assistant", "tool_calls": [{"name": "f", "arguments": arguments}]}])
    assert message.tool_calls[0].arguments == arguments
