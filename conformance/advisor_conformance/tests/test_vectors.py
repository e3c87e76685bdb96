"""Golden vectors: hand-reviewed JSON cases of input and expected output (fixtures/vectors)."""

from __future__ import annotations

import contextlib

import pytest

from advisor_conformance.checks import answer_of, check, violation
from advisor_conformance.vectors import difference, fill, load_all
from advisor_conformance.workspace import workspace

CASES = list(load_all())


def _param(case):
    marks = [pytest.mark.rule(id=rule_id) for rule_id in case.rules]
    return pytest.param(case, id=case.key, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_golden_vector(impl, strings, case):
    """The implementation's answer to a golden vector's input equals the vector's expected output."""
    for key, value in case.requires.items():
        if impl.description.get("options", {}).get(key) != value:
            pytest.skip(f"needs the declared option {key}={value!r}; {impl.name} does not declare it")
    with workspace(case.workspace) if case.workspace is not None else contextlib.nullcontext() as work:
        known = {**strings, "work_dir": str(work)} if work is not None else strings
        params = fill(case.input, known)
        expected = fill(case.expect, known)
        answer = answer_of(impl, case.op, params, case.rules)
    what = f"golden vector {case.key}: {case.description}"
    if "error" in expected and "error" not in answer:
        raise violation(case.rules, what + " (expected an error)", input=params, expected=expected, actual=answer)
    found = difference(expected, answer, exact_args=impl.option("args_json", "semantic") == "origin", keys={})
    check(found is None, case.rules, f"{what}\n  first difference: {found}", input=params)
