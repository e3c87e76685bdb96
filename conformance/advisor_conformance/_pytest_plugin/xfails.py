"""Expected failures (``--xfails-file``): which tests may fail, for which rules, and entries that rot.

One entry per line, ``#`` starts a comment. An entry is a rule ID, or a test's
node ID as the suite names it (``elision/test_elision.py::test_x[1001]``) or as
pytest printed it from wherever the suite is installed
(``.../advisor_conformance/tests/elision/test_elision.py::test_x[1001]``).

* A **node-ID** entry is strict: that test is expected to fail, and it fails
  the run if it passes (``XPASS(strict)``).
* A **rule-ID** entry expects failures of that rule: a test whose failure is
  attributed to listed rules only is an expected failure (whichever rules the
  test is about: a failure may be blamed on a rule the test relies on); the
  rule's tests that pass simply pass; a failure attributed to a rule the file
  does not list still fails. The entry must earn its place: a rule entry whose tests ran and
  none failed is stale, and the run fails saying so.
* Several entries may match one test (a node and its rules): all of them count.
* An entry that matches no collected test is a usage error before any test runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .reporting import get_property, put_property

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
    """A node ID as the suite names it: the test file's path inside the suite (``area/test_x.py``) and the rest,
    wherever the suite was installed."""
    if "::" not in text:
        return text
    path, rest = text.split("::", 1)
    return path.replace("\\", "/").rpartition("tests/")[2] + "::" + rest


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
    rules: dict[str, Entry] = field(default_factory=dict)  # entries of the rules the test carries
    others: dict[str, Entry] = field(default_factory=dict)  # the other rule entries: a failure may be blamed on them

    def entries(self) -> list[Entry]:
        """The entries that expect this test to run: its node entries and the entries of its own rules."""
        return [*self.nodes, *self.rules.values()]

    def covering(self, failed_rules: list[str]) -> list[Entry] | None:
        """The entries that expect a failure attributed to ``failed_rules``; None when the failure is unexpected."""
        allowed = {**self.others, **self.rules}
        if self.nodes:
            return [*self.nodes, *(allowed[rule] for rule in failed_rules if rule in allowed)]
        if failed_rules and all(rule in allowed for rule in failed_rules):
            return [allowed[rule] for rule in dict.fromkeys(failed_rules)]
        return None


def apply(
    entries: list[Entry],
    items: Iterable[pytest.Item],
    node_id: Callable[[pytest.Item], str],
    rules_of: Callable[[pytest.Item], list[str]],
) -> list[Entry]:
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
                if not entry.is_node:
                    expectation.others.setdefault(entry.text, entry)
                continue
            matched.add(entry.line)
        if expectation.nodes or expectation.rules or expectation.others:
            item.stash[ITEM] = expectation
    return [entry for entry in entries if entry.line not in matched]


def judge(item: pytest.Item, report: pytest.TestReport, failed_rules: list[str]) -> None:
    """Turn a call report into an expected failure or a strict unexpected pass, as the xfails file says."""
    expectation = item.stash.get(ITEM, None)
    if expectation is None or report.when != "call":
        return
    put_property(report, "xfail_ran", [entry.line for entry in expectation.entries()])
    if report.failed:
        covering = expectation.covering(failed_rules)
        if covering is not None:
            report.outcome = "skipped"
            report.wasxfail = "; ".join(str(entry) for entry in covering)
            put_property(report, "xfail_used", [entry.line for entry in covering])
    elif report.passed and expectation.nodes:
        report.outcome = "failed"
        report.longrepr = f"[XPASS(strict)] {'; '.join(str(entry) for entry in expectation.nodes)}: the test passed"


@dataclass(eq=False)  # registered as a pytest plugin: hashed by identity
class Ledger:
    """On the controller: which entries' tests ran and which expected a failure that came; stale ones at the end."""

    entries: list[Entry]
    ran: set[int] = field(default_factory=set)
    used: set[int] = field(default_factory=set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran.update(get_property(report, "xfail_ran", []))
        self.used.update(get_property(report, "xfail_used", []))

    def stale(self) -> list[Entry]:
        """Rule entries whose tests ran without a single expected failure."""
        return [
            entry
            for entry in self.entries
            if not entry.is_node and entry.line in self.ran and entry.line not in self.used
        ]

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
