"""Golden vectors: hand-reviewed JSON cases of input and expected output (fixtures/vectors)."""

from __future__ import annotations

import contextlib

import pytest

from advisor_conformance.checks import answer_of, violation
from advisor_conformance.shaping import check_last_message_stays, check_none_left_out
from advisor_conformance.vectors import attribute, differences, fill, load_all, refused
from advisor_conformance.workspace import workspace

CASES = list(load_all())


def _param(case):
    """A vector with its rules, the declared options it needs (its `requires`), the provider it encodes for, and for a
    scenario the areas of the provider requests' fields."""
    marks = [pytest.mark.rule(id=rule_id) for rule_id in case.rules]
    if case.requires:
        marks.append(pytest.mark.needs(options=dict(case.requires)))
    if case.op == "encode" and isinstance(case.input, dict) and isinstance(case.input.get("provider"), str):
        marks.append(pytest.mark.needs(providers=[case.input["provider"]]))
    if case.op == "scenario":  # every provider request is compared whole: its messages, its sessions and cache key
        marks.append(pytest.mark.needs(areas=["handler", "transport"]))
    return pytest.param(case, id=case.key, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_golden_vector(impl, strings, case):
    """The implementation's answer to a golden vector's input equals the vector's expected output."""
    with workspace(case.workspace) if case.workspace is not None else contextlib.nullcontext() as work:
        known = {**strings, "work_dir": str(work)} if work is not None else strings
        params = fill(case.input, known)
        expected = fill(case.expect, known)
        answer = answer_of(impl, case.op, params, case.rules)
    what = f"golden vector {case.key}: {case.description}"
    if "error" in expected and "error" not in answer:
        raise violation(case.rules, what + " (expected an error)", input=params, expected=expected, actual=answer)
    contents = {file["path"]: file.get("content", "") for file in params.get("files", []) if isinstance(file, dict)}
    found = differences(expected, answer, exact_args=impl.option("args_json") == "origin",
                        strings=known, contents=contents)
    if not found:
        return
    found, refusal = refused(found, expected, answer)
    if case.op == "shape" and any(len(diff.path) == 1 and diff.path[0][0] == "messages" for diff in found):
        # the count of messages differs: first, does a last message of another role than the assistant's stay? Then,
        # are some snapshot messages left out (each blamed on the rule that renders it)?
        check_last_message_stays(impl, (params.get("transcript") or [None])[-1])
        if isinstance(answer.get("messages"), list) and len(answer["messages"]) < len(expected["messages"]):
            check_none_left_out(impl, params.get("transcript"), answer["messages"], input=params)
    blamed = attribute(case, found, known) if refusal is None else {diff: refusal for diff in found}
    broken = list(dict.fromkeys(rule for rules in blamed.values() for rule in rules))
    shown = [f"  {diff} [{', '.join(rules)}]" for diff, rules in list(blamed.items())[:10]]
    if len(found) > 10:
        shown.append(f"  … and {len(found) - 10} more differences")
    raise violation(broken, f"{what}\n  {len(found)} field(s) differ:\n" + "\n".join(shown), input=params,
                    checked=[rule for rule in case.rules if rule not in broken])
