"""Transcript pieces and the request-shape check shared by the request tests."""

from __future__ import annotations

from advisor_conformance.checks import answer_of, check, violation
from advisor_conformance.shaping import file_param, params

CALL = {"id": "c1", "name": "bash", "arguments": {"cmd": "pytest -q"}}


RESULT = {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "3 passed"}


ADVISOR_CALL = {"id": "a1", "name": "advisor", "arguments": {"question": "Is this right?"}}


ADVISOR_RESULT = {"role": "tool", "name": "advisor", "tool_call_id": "a1", "content": "Mostly; check the edge case."}


FILE_A = ("src/zeta.py", b"def zeta():\n    return 1\n")


FILE_B = ("docs/alpha.md", b"# Alpha\n")


def _files(pairs):
    return [file_param(path, data) for path, data in pairs]


def shape_valid(impl, request, rule):
    """The messages for valid input; an error fails naming ``rule``, or transcript.roles when the snapshot alone is
    refused too (a well-formed message the implementation does not accept)."""
    answer = answer_of(impl, "shape", request, rule)
    if "error" in answer:
        bare = params(request["transcript"])
        alone = answer_of(impl, "shape", bare, "transcript.roles")
        check("error" not in alone, "transcript.roles", "a well-formed snapshot was refused", input=bare,
              actual=alone.get("error"))
        raise violation(rule, "shape answered an error for valid input", input=request, actual=answer["error"])
    return answer["messages"]
