"""The advisor tool: its definition and how its input is decoded (clarifications §4)."""

from __future__ import annotations

import pytest

from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import call, error_of, requests_of, result_of, run, scenario


@pytest.mark.rule(id="tool.definition")
def test_tool_definition(impl):
    """The tool is `advisor` with optional string `question` and string-array `files`, nothing required, nothing else."""
    definition = answer_of(impl, "tool_definition", {}, "tool.definition")
    check("error" not in definition, "tool.definition", "the tool definition was not answered", answer=definition)
    schema = definition["input_schema"]
    check_equal(definition["name"], "advisor", "tool.definition", "the tool is not named advisor", actual=definition)
    check_equal(schema.get("type"), "object", "tool.definition", "the input schema is not an object schema",
                input=definition)
    properties = schema.get("properties", {})
    check_equal(sorted(properties), ["files", "question"], "tool.definition",
                "the input schema does not have exactly question and files", input=definition)
    check_equal(properties["question"].get("type"), "string", "tool.definition", "question is not a string",
                input=definition)
    check(properties["files"].get("type") == "array" and properties["files"].get("items", {}).get("type") == "string",
          "tool.definition", "files is not an array of strings", answer=definition)
    check(not schema.get("required"), "tool.definition", "the input schema requires a field", answer=definition)
    check(schema.get("additionalProperties") is False, "tool.definition",
          "the input schema allows extra properties", answer=definition)
    check(isinstance(definition["description"], str) and definition["description"].strip() != "", "tool.definition",
          "the tool has no description", answer=definition)


@pytest.mark.rule(id="tool.unknown-keys-ignored")
def test_unknown_keys_are_ignored(impl):
    """A call with unknown keys beside a question is answered, the question reaching the request."""
    params = scenario([{"call": call(input={"question": "Is the retry loop safe?", "urgency": "high", "n": 3})}])
    answer = run(impl, params, "tool.unknown-keys-ignored")
    result_of(answer, 0, "tool.unknown-keys-ignored", params)
    (request,) = requests_of(answer, 0)
    check("Is the retry loop safe?" in request["messages"][-1]["content"], "tool.unknown-keys-ignored",
          "the question did not reach the request", input=params, actual=request["messages"][-1])


@pytest.mark.rule(id="tool.unknown-keys-ignored")
def test_bare_call_is_answered(impl):
    """A call with an empty input object is a bare advisor call."""
    params = scenario([{"call": call(input={})}])
    answer = run(impl, params, "tool.unknown-keys-ignored")
    result_of(answer, 0, "tool.unknown-keys-ignored", params)


WRONG_TYPES = [
    ({"question": 42}, "question"),
    ({"question": None}, "question"),
    ({"question": ["why"]}, "question"),
    ({"files": "src/main.go"}, "files"),
    ({"files": ["a.go", 7]}, "files"),
    ({"files": [None]}, "files"),
    ({"files": {"0": "a.go"}}, "files"),
]


@pytest.mark.rule(id="tool.wrong-type-error")
@pytest.mark.parametrize("bad, field", WRONG_TYPES,
                         ids=["question-number", "question-null", "question-list", "files-string",
                              "files-number-item", "files-null-item", "files-object"])
def test_wrong_types_are_errors_that_cost_nothing(impl, bad, field):
    """A wrongly typed question or files is an invalid_input error naming the field; it makes no provider call and
    consumes no use."""
    params = scenario([{"call": call(input=bad)}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "tool.wrong-type-error")
    error = error_of(answer, 0, "tool.wrong-type-error", params)
    check_equal(error["code"], "invalid_input", "tool.wrong-type-error", "the error code is not invalid_input",
                input=params, actual=error)
    check(field in error.get("at", "") + error["message"], "tool.wrong-type-error",
          f"the error does not name the field {field!r}", input=params, actual=error)
    check_equal(len(requests_of(answer, 0)), 0, "tool.wrong-type-error", "a provider call was made", input=params)
    result = result_of(answer, 1, "tool.wrong-type-error", params)
    check_equal(result, "Looks fine; run the tests next.", "tool.wrong-type-error",
                "the failed call consumed the only use", input=params)
