"""What the terminal shows of a conformance failure: its short-summary line, and hypothesis's notes, bounded.

**The short summary** (``-ra``) writes one line per failed test, ``FAILED
<node ID> - <message>``, and drops the message when the node ID fills the
terminal: the node ID of an installed suite
(``.venv/lib/python3.11/site-packages/advisor_conformance/tests/...``) often
does at 80 columns. A failed conformance test's line then starts with what
its failure is: ``FAILED [elision.marker-format] the elided string is ... -``,
cut to the terminal's width, and the node ID follows. When the message fits
after the node ID, the line is pytest's own (with the rules in front of a
message that does not name them).

**Hypothesis's notes** on a failure (``Falsifying explicit example:
test_x(value='...')``, one line per argument, each printed whole) are cut to
:data:`NOTE_LINES` lines of at most :data:`NOTE_WIDTH` characters, each cut
saying how much is left out: the failure message itself shows the input,
bounded.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .._paths import TESTS_DIR
from .reporting import get_property

NOTE_LINES = 12
NOTE_WIDTH = 200
_IN_SUMMARY = pytest.StashKey[bool]()


def bounded_note(note: str, lines: int = NOTE_LINES, width: int = NOTE_WIDTH) -> str:
    """A note of at most ``lines`` lines of at most ``width`` characters (plus the account of what was cut)."""
    kept = note.split("\n")
    out = [
        line if len(line) <= width else f"{line[:width]} [the line goes on: {len(line)} characters in all]"
        for line in kept[:lines]
    ]
    if len(kept) > lines:
        out.append(f"[{len(kept) - lines} more lines of this note are not shown]")
    return "\n".join(out)


def _bound_notes(error: BaseException, seen: set[int]) -> None:
    if id(error) in seen:
        return
    seen.add(id(error))
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, list):
        error.__notes__ = [bounded_note(note) if isinstance(note, str) else note for note in notes]
    for inner in (*getattr(error, "exceptions", ()), error.__cause__, error.__context__):
        if isinstance(inner, BaseException):
            _bound_notes(inner, seen)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Bound the notes of a conformance test's failure before pytest writes them into the report."""
    if call.excinfo is not None and Path(str(item.path)).resolve().is_relative_to(TESTS_DIR):
        _bound_notes(call.excinfo.value, set())
    return (yield)


def pytest_terminal_summary(config: pytest.Config) -> None:
    """Runs inside pytest's own terminal summary, before its short summary: from here on the lines are summary lines."""
    config.stash[_IN_SUMMARY] = True


def _message_shown_whole(config: pytest.Config) -> bool:
    """pytest's condition for writing a summary line's message untrimmed (on CI, or with -vv)."""
    on_ci = any(os.environ.get(name) for name in ("CI", "BUILD_NUMBER"))
    return (on_ci or config.option.verbose >= 2) and not getattr(config.option, "force_short_summary", False)


def _shown_node_id(config: pytest.Config, nodeid: str) -> str:
    path, _, rest = nodeid.partition("::")
    if config.invocation_params.dir != config.rootpath:
        path = os.path.relpath(config.rootpath / path, config.invocation_params.dir)
    return f"{path}::{rest}" if rest else path


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """In the short summary, a failed conformance test's line carries its rules and the start of its message within
    the terminal's width."""
    if not config.stash.get(_IN_SUMMARY, False) or report.when != "call" or not report.failed:
        return None
    rules = get_property(report, "failed_rules") or get_property(report, "rules")
    if not rules:
        return None
    crash = getattr(report.longrepr, "reprcrash", None)
    message = (crash.message if crash is not None else "").split("\n", 1)[0]
    named = message.startswith("[")
    status = ("failed", "F")
    if _message_shown_whole(config) or (
        len(f"FAILED {_shown_node_id(config, report.nodeid)} - {message}") <= config.get_terminal_writer().fullwidth
    ):
        return None if named else (*status, (f"FAILED [{', '.join(rules)}]", {"red": True}))
    text = message if named else f"[{', '.join(rules)}] {message}".rstrip()
    room = max(config.get_terminal_writer().fullwidth - len("FAILED  -"), 40)
    if len(text) > room:
        text = text[: room - 3] + "..."
    return (*status, (f"FAILED {text} -", {"red": True}))
