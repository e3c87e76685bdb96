"""advisor_reference._tool: the advisor tool's definition and the decoding of its input."""

from __future__ import annotations

import pytest

from advisor_reference import TOOL_DEFINITION, AdvisorInputError, ToolInput, decode_tool_input
from advisor_reference.adapter import ReferenceAdapter


def test_bare_and_missing_inputs_decode_to_an_empty_call():
    """A null or empty tool input is a bare call without question or files."""
    assert decode_tool_input(None) == decode_tool_input({}) == decode_tool_input({"other": 1})
    assert decode_tool_input({}).files == ()


def test_non_object_input_is_an_error_naming_input():
    """A tool input that is not an object is an input error at ``input``."""
    with pytest.raises(AdvisorInputError) as info:
        decode_tool_input(["question"])
    assert info.value.at == "input" and info.value.code == "invalid_input"


@pytest.mark.parametrize(
    "raw, at, given",
    [
        ("ask", "input", "string"),
        (7, "input", "number"),
        ([], "input", "array"),
        ({"question": None}, "input.question", "null"),
        ({"question": ["a"]}, "input.question", "array"),
        ({"files": "a.txt"}, "input.files", "string"),
        ({"files": {"a": 1}}, "input.files", "object"),
        ({"files": None}, "input.files", "null"),
        ({"files": ["a", 1]}, "input.files[1]", "number"),
        ({"files": [True]}, "input.files[0]", "boolean"),
        ({"question": 1, "files": 1}, "input.question", "number"),
    ],
    ids=[
        "string",
        "number",
        "array",
        "null-question",
        "array-question",
        "string-files",
        "object-files",
        "null-files",
        "number-item",
        "boolean-item",
        "question-first",
    ],
)
def test_tool_input_errors_name_the_field_and_the_type(raw, at, given):
    """A tool input of the wrong type is an invalid_input error at the field, whose message names the field and the
    JSON type given."""
    with pytest.raises(AdvisorInputError) as info:
        decode_tool_input(raw)
    assert (info.value.at, info.value.code) == (at, "invalid_input")
    field = at.rsplit(".", 1)[-1].split("[")[0]  # input, question or files
    assert field in info.value.detail and given in info.value.detail


@pytest.mark.parametrize(
    "raw, decoded",
    [
        ({"question": "why?", "files": ["a", "b", "a"]}, ToolInput("why?", ("a", "b", "a"))),
        ({"question": "  padded  "}, ToolInput("  padded  ", ())),
        ({"files": []}, ToolInput("", ())),
        ({"extra": [1], "question": ""}, ToolInput("", ())),
    ],
)
def test_tool_input_decodes_question_and_files(raw, decoded):
    """Question and files decode as given, in order with duplicates; unknown keys are ignored."""
    assert decode_tool_input(raw) == decoded


def test_tool_definition_offers_question_and_up_to_8_files():
    """The advisor tool is named advisor and takes an optional question and at most 8 file paths."""
    schema = TOOL_DEFINITION["input_schema"]
    assert TOOL_DEFINITION["name"] == "advisor"
    assert schema["properties"]["files"]["maxItems"] == 8
    assert schema.get("required", []) == []
    assert ReferenceAdapter().tool_definition({}) == TOOL_DEFINITION
