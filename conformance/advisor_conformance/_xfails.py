"""Expected failures (``--xfails-file``): which tests may fail, for which rules, and entries that rot.

One entry per line, ``#`` starts a comment. An entry is a rule ID, or a test's
node ID as the suite names it (``test_elision.py::test_x[1001]``) or as
pytest printed it from wherever the suite is installed
(``.../advisor_conformance/tests/test_elision.py::test_x[1001]``).

* A **node-ID** entry is strict: that test is expected to fail, and it fails
  the run if it passes (``XPASS(strict)``).
* A **rule-ID** entry expects failures of that rule: a test whose failure is
  attributed to listed rules only is an expected failure; the rule's tests that
  pass simply pass; a failure attributed to a rule the file does not list
  still fails. The entry must earn its place: a rule entry whose tests ran and
  none failed is stale, and the run fails saying so.
* Several entries may match one test (a node and its rules): all of them count.
* An entry that matches no collected test is a usage error before any test runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ITEM = pytest.StashKey["Expectation"]()


@dataclass(frozen=True)
class Entry:
    text: str
    comment: str
    line: int
    file: str

    @property
    def is_node(self) -> bool:
        return "::" in self.text

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}" + (f" ({self.comment})" if self.comment else "")


def normalise(text: str) -> str:
    """A node ID as the suite names it: the test file's name and the rest, wherever the suite was installed."""
    if "::" not in text:
        return text
    path, rest = text.split("::", 1)
    return path.replace("\\", "/").rsplit("/", 1)[-1] + "::" + rest


def read(path: Path, shown: str) -> list[Entry]:
    """The entries of an xfails file, node IDs normalised."""
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text, _, comment = line.partition("#")
        text = text.strip()
        if text:
            entries.append(Entry(normalise(text), comment.strip(), number, shown))
    return entries


@dataclass
class Expectation:
    """What the xfails file expects of one test: its node entries and its rule entries, by rule."""

    nodes: list[Entry] = field(default_factory=list)
    rules: dict[str, Entry] = field(default_factory=dict)

    def entries(self) -> list[Entry]:
        return [*self.nodes, *self.rules.values()]

    def reason(self) -> str:
        return "; ".join(str(entry) for entry in self.entries())


def apply(entries: list[Entry], items: Iterable[pytest.Item], node_id: Callable[[pytest.Item], str],
          rules_of: Callable[[pytest.Item], list[str]]) -> list[Entry]:
    """Attach each matching entry to its tests; return the entries that match no test."""
    matched: set[int] = set()
    for item in items:
        node, rules = node_id(item), set(rules_of(item))
        expectation = Expectation()
        for entry in entries:
            if entry.is_node and entry.text == node:
                expectation.nodes.append(entry)
            elif not entry.is_node and entry.text in rules:
                expectation.rules[entry.text] = entry
            else:
                continue
            matched.add(entry.line)
        if expectation.entries():
            item.stash[ITEM] = expectation
    return [entry for entry in entries if entry.line not in matched]


def judge(item: pytest.Item, report: pytest.TestReport, failed_rules: list[str]) -> None:
    """Turn a call report into an expected failure or a strict unexpected pass, as the xfails file says."""
    expectation = item.stash.get(ITEM, None)
    if expectation is None or report.when != "call":
        return
    ran = [entry.line for entry in expectation.entries()]
    report.user_properties.append(("xfail_ran", ran))
    if report.failed:
        covered = bool(expectation.nodes) or set(failed_rules) <= set(expectation.rules)
        if covered:
            report.outcome = "skipped"
            report.wasxfail = expectation.reason()  # type: ignore[attr-defined]
            report.user_properties.append(("xfail_used", ran))
    elif report.passed and expectation.nodes:
        report.outcome = "failed"
        report.longrepr = f"[XPASS(strict)] {'; '.join(str(entry) for entry in expectation.nodes)}: the test passed"


@dataclass
class Ledger:
    """On the controller: which entries' tests ran and which expected a failure that came; stale ones at the end."""

    entries: list[Entry]
    ran: set[int] = field(default_factory=set)
    used: set[int] = field(default_factory=set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == "xfail_ran":
                self.ran.update(value)
            elif key == "xfail_used":
                self.used.update(value)

    def stale(self) -> list[Entry]:
        """Rule entries whose tests ran without a single expected failure."""
        return [entry for entry in self.entries
                if not entry.is_node and entry.line in self.ran and entry.line not in self.used]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        stale = self.stale()
        if stale:
            reporter = session.config.pluginmanager.getplugin("terminalreporter")
            if reporter is not None:
                reporter.write_sep("=", "advisor-conformance: stale entries of the xfails file", red=True)
                for entry in stale:
                    reporter.write_line(f"{entry}: its rule's tests ran and none failed; remove the entry")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
