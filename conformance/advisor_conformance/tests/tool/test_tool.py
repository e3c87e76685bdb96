"""The advisor tool: its definition and how its input is decoded (clarifications §4)."""

from __future__ import annotations

import jsonschema
import pytest

from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import call, error_of, requests_of, result_of, run, scenario
from advisor_conformance.workspace import workspace

SPEC = {"src/app.py": {"text": "print('hello')\n"}, "docs/notes.md": {"text": "# Notes\n"}}
ANSWER = "Looks fine; run the tests next."


def _definition(impl):
    definition = answer_of(impl, "tool_definition", {}, "tool.definition")
    check("error" not in definition and isinstance(definition.get("input_schema"), dict), "tool.definition",
          "the tool definition was not answered with an input schema", answer=definition)
    return definition


@pytest.mark.rule(id="tool.definition")
def test_tool_definition(impl):
    """The tool is `advisor` with optional string `question` and string-array `files`, nothing required, no other
    property (whether the schema also refuses keys it does not name is open: unknown keys are ignored at run time)."""
    definition = _definition(impl)
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


def _validates(schema, value):
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return validator(schema).is_valid(value)


@pytest.mark.rule(id="tool.definition")
@pytest.mark.parametrize("value", [{}, {"question": "Is the retry loop safe?"}, {"files": ["src/app.py"]},
                                   {"question": "Which is right?", "files": ["src/a.go", "src/b.go", "src/a.go"]},
                                   {"question": "", "files": []}],
                         ids=["bare", "question-only", "files-only", "both-repeated-path", "both-empty"])
def test_input_schema_admits_every_well_typed_input(impl, value):
    """The input schema admits a bare call, a question alone, files alone, both together, and both empty."""
    schema = _definition(impl)["input_schema"]
    check(_validates(schema, value), "tool.definition", "the input schema refuses a well-typed input",
          input=value, answer=schema)


@pytest.mark.rule(id="tool.definition")
@pytest.mark.parametrize("value", [{"question": 42}, {"question": ["why"]}, {"files": "src/app.py"}, {"files": [7]},
                                   {"files": ["src/app.py", {"path": "b"}]}],
                         ids=["question-number", "question-list", "files-string", "files-number-item",
                              "files-object-item"])
def test_input_schema_refuses_wrong_types(impl, value):
    """The input schema refuses a question that is not a string and files that are not an array of strings."""
    schema = _definition(impl)["input_schema"]
    check(not _validates(schema, value), "tool.definition", "the input schema admits an input it must refuse",
          input=value, answer=schema)


def _requests_alike(impl, given, plain, rule, work_dir=None):
    """The call with ``given`` is answered, and its provider request has the messages of the call with ``plain``."""
    first = scenario([{"call": call(input=given)}], work_dir=work_dir)
    second = scenario([{"call": call(input=plain)}], work_dir=work_dir)
    answers = [run(impl, first, rule), run(impl, second, rule)]
    result_of(answers[0], 0, rule, first)
    sent = [[request["messages"] for request in requests_of(answer, 0)] for answer in answers]
    check_equal(sent[0], sent[1], rule, f"the input {given!r} was not sent as {plain!r} is", input=first)


@pytest.mark.rule(id="tool.unknown-keys-ignored")
def test_bare_call_is_answered(impl):
    """A call with an empty input object is a bare advisor call."""
    params = scenario([{"call": call(input={})}])
    answer = run(impl, params, "tool.unknown-keys-ignored")
    result_of(answer, 0, "tool.unknown-keys-ignored", params)


UNKNOWN = [
    ({"question": "Is the retry loop safe?", "urgency": "high", "n": 3}, {"question": "Is the retry loop safe?"}),
    ({"urgency": "high"}, {}),
    ({"question": "Is the retry loop safe?", "questions": ["a"], "question_": 7, "context": None},
     {"question": "Is the retry loop safe?"}),
    ({"question": "ok?", "max_uses": 99, "model": "other", "nested": {"files": ["docs/notes.md"], "question": 1}},
     {"question": "ok?"}),
    ({"files": ["src/app.py"], "file": ["docs/notes.md"], "paths": 3, "files_extra": [None]},
     {"files": ["src/app.py"]}),
]


@pytest.mark.rule(id="tool.unknown-keys-ignored")
@pytest.mark.parametrize("given, plain", UNKNOWN, ids=["beside-question", "only-unknown", "near-names-beside-question",
                                                        "any-value-type", "beside-files"])
def test_unknown_keys_change_nothing(impl, given, plain):
    """Unknown keys, whatever their values and however close their names are to question and files, are ignored:
    the request is the one the call without them sends."""
    with workspace(SPEC) as work:
        _requests_alike(impl, given, plain, "tool.unknown-keys-ignored", work_dir=str(work))


# JSON null is left open: the origin decodes with Go's encoding/json, which reads null into a string or a string
# array item as its zero value without an error, so an implementation may refuse it or take it as absent.
WRONG_TYPES = [
    ({"question": 42}, "question"),
    ({"question": ["why"]}, "question"),
    ({"question": True}, "question"),
    ({"question": {"text": "why"}}, "question"),
    ({"files": "src/main.go"}, "files"),
    ({"files": ["a.go", 7]}, "files"),
    ({"files": {"0": "a.go"}}, "files"),
    ({"files": 3}, "files"),
    ({"files": [["src/app.py"]]}, "files"),
    ({"files": ["src/app.py", {"path": "docs/notes.md"}]}, "files"),
    ({"question": "Is it safe?", "files": "src/app.py"}, "files"),
    ({"question": 7, "files": ["src/app.py"]}, "question"),
]
WRONG_TYPE_IDS = [
    "question-number", "question-list", "question-boolean", "question-object", "files-string",
    "files-number-item", "files-object", "files-number", "files-nested-array-item",
    "files-object-item-after-good", "good-question-files-string", "question-number-good-files",
]


@pytest.mark.rule(id="tool.wrong-type-error")
@pytest.mark.parametrize("bad, field", WRONG_TYPES, ids=WRONG_TYPE_IDS)
def test_wrong_types_are_errors_that_cost_nothing(impl, bad, field):
    """A wrongly typed question or files is an invalid_input error naming the field; it makes no provider call and
    consumes no use."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input=bad)}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1},
                          work_dir=str(work))
        answer = run(impl, params, "tool.wrong-type-error")
    error = error_of(answer, 0, "tool.wrong-type-error", params)
    check_equal(error["code"], "invalid_input", "tool.wrong-type-error", "the error code is not invalid_input",
                input=params, actual=error)
    check(field in error.get("at", "") + error["message"], "tool.wrong-type-error",
          f"the error does not name the field {field!r}", input=params, actual=error)
    check_equal(len(requests_of(answer, 0)), 0, "tool.wrong-type-error", "a provider call was made", input=params)
    result = result_of(answer, 1, "tool.wrong-type-error", params)
    check_equal(result, ANSWER, "tool.wrong-type-error", "the failed call consumed the only use", input=params)


@pytest.mark.rule(id="tool.wrong-type-error")
@pytest.mark.parametrize("agent, follow_up", [
    ("child-1", {"agent": "child-1"}),
    (None, {"conversation": 2, "turn": 1}),
    (None, {}),
], ids=["child-agent", "next-conversation", "same-turn-twice"])
def test_wrong_type_costs_no_use_of_any_counter(impl, agent, follow_up):
    """Wrongly typed calls, by the main agent or a child, cost no use of that agent's counter: with a cap of 1, two
    bad calls and then a good one, the good one is answered."""
    bad = [{"call": call(agent=agent, input={"question": 1})}, {"call": call(agent=agent, input={"files": "x"})}]
    good = {"call": call(**{"agent": agent, **follow_up})}
    params = scenario([*bad, good], runtime={"max_uses_per_run": 1, "child_max_uses": 1})
    answer = run(impl, params, "tool.wrong-type-error")
    for index in (0, 1):
        error = error_of(answer, index, "tool.wrong-type-error", params)
        check_equal(error["code"], "invalid_input", "tool.wrong-type-error", f"call {index}'s error is not "
                    "invalid_input", input=params, actual=error)
    result = result_of(answer, 2, "tool.wrong-type-error", params)
    check_equal(result, ANSWER, "tool.wrong-type-error", "the wrongly typed calls consumed the only use",
                input=params)
