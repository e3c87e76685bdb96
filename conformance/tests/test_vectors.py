"""Golden vectors: hand-reviewed JSON cases of input and expected output (fixtures/vectors)."""

from __future__ import annotations

import pytest

from conformance.checks import check_equal, violation
from conformance.vectors import canonical_tool_calls, fill, load_all

CASES = list(load_all())


def _param(case):
    marks = [pytest.mark.rule(id=rule_id) for rule_id in case.rules]
    return pytest.param(case, id=case.key, marks=marks)


def _comparable(messages, exact_args):
    if exact_args:
        return messages
    return [{**message, "content": canonical_tool_calls(message["content"])} for message in messages]


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_golden_vector(impl, strings, case):
    """The implementation's answer to a golden vector's input equals the vector's expected output."""
    for key, value in case.requires.items():
        if impl.option(key, "") != value:
            pytest.skip(f"needs the declared option {key}={value}; {impl.name} declares {impl.option(key, '(none)')}")
    params = fill(case.input, strings)
    expected = fill(case.expect, strings)
    answer = impl.call(case.op, params)
    what = f"golden vector {case.key}: {case.description}"
    if "error" in expected:
        if "error" not in answer:
            raise violation(case.rules, what + " (expected an error)", input=params, expected=expected,
                            actual=answer)
        check_equal(answer["error"]["code"], expected["error"]["code"], case.rules, what + " (wrong error code)",
                    input=params)
        return
    if "error" in answer:
        raise violation(case.rules, what + " (answered an error)", input=params, actual=answer["error"])
    exact = impl.option("args_json", "semantic") == "origin"
    got, want = _comparable(answer["messages"], exact), _comparable(expected["messages"], exact)
    check_equal(len(got), len(want), case.rules, what + " (number of messages)", input=params)
    for index, (message, expected_message) in enumerate(zip(got, want, strict=True)):
        check_equal(message["role"], expected_message["role"], case.rules, what + f" (role of message {index})",
                    input=params)
        check_equal(message["content"], expected_message["content"], case.rules,
                    what + f" (content of message {index})", input=params)
