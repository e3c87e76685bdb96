"""The transcript model where mutants of the reference went unseen: a malformed message in a scenario call's snapshot
(the snapshot is parsed by the same rule as shape's transcript, and its refusal must come back in the protocol's
form), and tool-call arguments nested deeper than a recursive walk of a few hundred frames takes.

How deep arguments may nest is open (the origin's decoder takes 10,000 levels; the reference refuses past 200), so
the nesting test accepts either outcome the rule allows: the request, whose tool-call line parses back to the
arguments, or an invalid_input naming the call's arguments. Never a broken operation.
"""

from __future__ import annotations

from typing import Any

import pytest

from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import call, requests_of, scenario
from advisor_conformance.shaping import body, params, parse_args, tool_call_lines, with_tool_call

RULE = "transcript.malformed-rejected"
#: A malformed message (what it is, the message, the field its error must name), placed at index 1 of a snapshot.
MALFORMED = [
    ("missing-role", {"content": "hi"}, "role"),
    ("numeric-content", {"role": "user", "content": 7}, "content"),
    ("arguments-not-an-object",
     {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "bash", "arguments": "ls"}]},
     "arguments"),
]


def _names(error, field, request):
    """The error is invalid_input and its `at` names snapshot[1] and the field below it."""
    check_equal(error.get("code"), "invalid_input", RULE, "the error code is not invalid_input", input=request,
                actual=error)
    at = str(error.get("at", ""))
    where = at.find("snapshot[1]")
    check(where >= 0 and field in at[where + len("snapshot[1]"):], RULE,
          f"the error's 'at' does not name the call's snapshot[1] and the field {field!r}", input=request,
          actual=error)


@pytest.mark.rule(id=RULE)
@pytest.mark.needs(operations=["scenario"])
@pytest.mark.parametrize("bad, field", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_malformed_message_in_a_scenario_snapshot_is_rejected_naming_it(impl, bad, field):
    """A malformed message in a scenario call's snapshot is an invalid_input naming the snapshot's index and field,
    answered for the whole scenario or for that call, which then makes no provider request."""
    snapshot = [{"role": "user", "content": "Make the failing test pass."}, bad,
                {"role": "user", "content": "go on"}]
    request = scenario([{"call": call()}, {"call": call(snapshot=snapshot)}])
    answer = answer_of(impl, "scenario", request, RULE)
    if "error" in answer:  # the scenario refused as a whole
        _names(answer["error"], field, request)
        return
    calls = answer["calls"]
    check(len(calls) == 2 and "error" in calls[1], RULE, "the call with a malformed snapshot message was not "
          "refused", input=request, actual=calls)
    _names(calls[1]["error"], field, request)
    check(not requests_of(answer, 1), RULE, "the call refused for its snapshot made a provider request",
          input=request, actual=answer["provider_requests"])


#: Deeper than a recursive walk of Python's default 1000 frames takes at two or more frames a level.
DEPTH = 600


def _nested(depth):
    arguments: dict[str, Any] = {}
    inner = arguments
    for _ in range(depth - 1):
        inner["k"] = {}
        inner = inner["k"]
    return arguments


@pytest.mark.rule(id=RULE)
def test_arguments_nested_hundreds_of_levels_get_an_outcome(impl):
    """Tool-call arguments nested 600 levels deep are either rendered, their tool-call line parsing back to them,
    or refused as an invalid_input naming the call's arguments; the operation never breaks."""
    arguments = _nested(DEPTH)
    request = params(with_tool_call(arguments))
    shown = {"transcript": f"with_tool_call(arguments): arguments nest {DEPTH} objects deep under the key 'k'"}
    answer = answer_of(impl, "shape", request, RULE)
    if "error" in answer:
        error = answer["error"]
        check_equal(error.get("code"), "invalid_input", RULE, "deeply nested arguments are refused, not as "
                    "invalid_input", input=shown, actual=error)
        at = str(error.get("at", ""))
        check(at.startswith("transcript[1].tool_calls[0].arguments"), RULE, "the refusal of deeply nested "
              "arguments does not name transcript[1].tool_calls[0].arguments", input=shown, actual=error)
        return
    assistants = [message for message in body(answer["messages"]) if message["role"] == "assistant"]
    lines = tool_call_lines(assistants[0]["content"]) if len(assistants) == 1 else []
    check(len(lines) == 1, "flatten.tool-call-line", "the assistant message of the deeply nested call does not hold "
          "one tool-call line", input=shown, actual=[message["content"][:300] for message in assistants])
    check(parse_args(lines[0][1], "flatten.args-json", shown) == arguments, "flatten.args-json", "the <args-json> "
          f"of arguments nested {DEPTH} levels does not parse back to them", input=shown, actual=lines[0][1][:300])
