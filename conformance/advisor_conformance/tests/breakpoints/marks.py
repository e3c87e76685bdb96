"""Checks of where cache breakpoints sit in a rendered request, shared by the breakpoint tests."""

from __future__ import annotations

from advisor_conformance.checks import check
from advisor_conformance.wire import MAX_MARKS, SPACING, expected_advisor_positions, marks


def tail_positions(body):
    """Positions of the marked blocks among the blocks of every message but the final one, last first."""
    final = len(body["messages"]) - 1
    return sorted({m.index for m in marks(body) if m.where == "messages" and m.message != final}, reverse=True)


def tail_count(body):
    """The number of blocks of every message but the final one."""
    return sum(len(message.get("content") or []) for message in body["messages"][:-1])


def check_final_unmarked(body, context):
    """Control: the final message carries no marker (breakpoints.final-unmarked)."""
    final = body["messages"][-1] if body.get("messages") else {"content": []}
    check(all("cache_control" not in block for block in final.get("content") or []), "breakpoints.final-unmarked",
          "the final message is marked", input=context, actual=final)


def check_at_most_four(body, context):
    """Control: the request holds at most 4 markers (breakpoints.max-four)."""
    found = marks(body)
    check(len(found) <= MAX_MARKS, "breakpoints.max-four", f"{len(found)} markers (at most {MAX_MARKS})",
          input=context, actual=found)


def check_system_marked(body, context):
    """Control: the last system block, when there is one, is marked (breakpoints.system-marked)."""
    system = body.get("system") or []
    if system:
        check("cache_control" in system[-1], "breakpoints.system-marked", "the last system block is not marked",
              input=context, actual=system)


def check_walk_not_stopped_at_three(body, context):
    """Control: tail markers on the 15-block grid from distance 0 do not stop at 3 markers in all while a grid block
    is left (breakpoints.max-four: marking stops when the request holds 4)."""
    count, got, found = tail_count(body), tail_positions(body), marks(body)
    expected = expected_advisor_positions(count, len(body.get("system") or []))
    on_grid = got == list(range(count - 1, -1, -SPACING))[:len(got)]
    check(not (on_grid and len(got) < len(expected) and len(found) == MAX_MARKS - 1), "breakpoints.max-four",
          f"marking stops at {len(found)} markers", input=context, expected=expected, actual=got)
