"""Expected failures (``--xfails-file``): which tests may fail, for which rules, and entries that rot.

One entry per line, ``#`` starts a comment. An entry is

* a **rule ID** (``elision.marker-format``): a failure whose message blames listed rules only is an expected
  failure, in whichever test it happens (a failure may be blamed on a rule the test relies on); the rule's tests
  that pass simply pass; a failure blamed on a rule the file does not list still fails. A failure's blame is the
  rules its short summary names, or, as well, the rules its violation names (a rule of an area the implementation
  does not declare is named by the violation, while the summary names the test's own rules): either covers it.
* a **test's node ID**, as the suite names it (``elision/test_elision.py::test_x[1001]``) or as pytest printed it
  from wherever the suite is installed (``.../advisor_conformance/tests/elision/test_elision.py::test_x[1001]``):
  that test is expected to fail, whatever the rule, and it fails the run if it passes (``XPASS(strict)``).
* a **check**: a test's node ID and a rule ID on one line (``elision/test_elision.py::test_x[1001]
  elision.marker-format``): that test is expected to fail on that rule (and on the listed rules), and fails the
  run if it passes or fails on another rule.

Several entries may match one test (a node and its rules): all of them count. Entries cannot rot:

* an entry that can match no test of the suite (a rule the catalogue does not have, a test file the suite does not
  hold), or, when the run collected the whole suite, matches no collected test, is a usage error before any test
  runs; a run of part of the suite (a file, a test, as ``where`` prints it) leaves the entries outside that part
  alone.
* a rule entry whose tests all ran (none deselected, the whole suite collected, the run not stopped early) without
  one expected failure is stale: the run fails saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pytest

from .reporting import get_property, put_property

ITEM = pytest.StashKey["Expectation"]()
#: A rule ID: ``area.rule-name``.
RULE_ID = re.compile(r"^[a-z][a-z0-9]*\.[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Entry:
    text: str  # a rule ID, or a node ID as the suite names it
    comment: str
    line: int
    file: str
    rule: str = ""  # a check's rule (with a node ID in ``text``)

    @property
    def is_node(self) -> bool:
        return "::" in self.text

    def __str__(self) -> str:
        shown = f"{self.text} {self.rule}" if self.rule else self.text
        return f"{self.file}:{self.line}: {shown}" + (f" ({self.comment})" if self.comment else "")


def normalise(text: str) -> str:
    """A node ID as the suite names it: the test file's path inside the suite (``area/test_x.py``) and the rest,
    wherever the suite was installed."""
    if "::" not in text:
        return text
    path, rest = text.split("::", 1)
    return path.replace("\\", "/").rpartition("tests/")[2] + "::" + rest


def parse(text: str, shown: str) -> list[Entry]:
    """The entries of an xfails file's text (``shown``: the file as messages name it), node IDs normalised."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        body, _, comment = line.partition("#")
        body = body.strip()
        if not body:
            continue
        rule = ""
        head, _, last = body.rpartition(" ")
        if "::" in head and RULE_ID.match(last.strip()):
            body, rule = head.strip(), last.strip()
        entries.append(Entry(normalise(body), comment.strip(), number, shown, rule))
    return entries


@dataclass
class Expectation:
    """What the xfails file expects of one test: its node and check entries, and the rule entries."""

    nodes: list[Entry] = field(default_factory=list)
    rules: dict[str, Entry] = field(default_factory=dict)  # entries of the rules the test carries
    others: dict[str, Entry] = field(default_factory=dict)  # the other rule entries: a failure may be blamed on them
    judged: set[int] = field(default_factory=set)  # lines of its rule entries this run can judge stale

    def entries(self) -> list[Entry]:
        """The entries that expect this test to run: its node and check entries and the entries of its own rules."""
        return [*self.nodes, *self.rules.values()]

    def covering(self, blames: Sequence[Sequence[Sequence[str]]]) -> list[Entry] | None:
        """The entries that expect a failure, given each of its violations' blames (the rules the summary names, and
        the rules the violation names: either, when all listed, covers the violation); None when it is unexpected."""
        allowed = {**self.others, **self.rules}
        checks = [entry for entry in self.nodes if entry.rule]
        plain = [entry for entry in self.nodes if not entry.rule]
        if plain:  # a node entry expects any failure of its test
            named = {rule for blame in blames for rules in blame for rule in rules}
            return [*plain, *(allowed[rule] for rule in sorted(named) if rule in allowed)]
        listed = {**allowed, **{entry.rule: entry for entry in checks}}
        used: dict[int, Entry] = {}
        for blame in blames:
            cover = next((rules for rules in blame if rules and all(rule in listed for rule in rules)), None)
            if cover is None:
                return None
            used.update({listed[rule].line: listed[rule] for rule in cover})
        if checks and not any(entry.line in used for entry in checks):
            return None  # a check expects its own rule's failure
        return list(used.values()) or None


@dataclass
class Matched:
    """What the entries matched in a run's collected tests: the entries that can match nothing, and per rule entry
    how many collected tests carry its rule."""

    unmatched: list[Entry]
    carried: dict[int, int]


def apply(
    entries: list[Entry],
    items: Iterable[pytest.Item],
    node_id: Callable[[pytest.Item], str],
    rules_of: Callable[[pytest.Item], list[str]],
) -> Matched:
    """Attach each matching entry to its tests; count the tests each rule entry's rule has."""
    matched: set[int] = set()
    carried: dict[int, int] = {}
    for item in items:
        node, rules = node_id(item), set(rules_of(item))
        expectation = Expectation()
        for entry in entries:
            if entry.is_node and entry.text == node:
                expectation.nodes.append(entry)
            elif not entry.is_node and entry.text in rules:
                expectation.rules[entry.text] = entry
                carried[entry.line] = carried.get(entry.line, 0) + 1
            else:
                if not entry.is_node:
                    expectation.others.setdefault(entry.text, entry)
                continue
            matched.add(entry.line)
        if expectation.nodes or expectation.rules or expectation.others:
            item.stash[ITEM] = expectation
    return Matched([entry for entry in entries if entry.line not in matched], carried)


def judgeable(items: Iterable[pytest.Item], carried: dict[int, int]) -> None:
    """After selection: mark on each selected test the rule entries whose every collected test was selected (a rule
    entry can be stale only when all its tests run)."""
    items = list(items)
    selected: dict[int, int] = {}
    for item in items:
        expectation = item.stash.get(ITEM, None)
        for entry in expectation.rules.values() if expectation is not None else ():
            selected[entry.line] = selected.get(entry.line, 0) + 1
    whole = {line for line, count in selected.items() if count == carried.get(line)}
    for item in items:
        expectation = item.stash.get(ITEM, None)
        if expectation is not None:
            expectation.judged = {entry.line for entry in expectation.rules.values() if entry.line in whole}


def judge(item: pytest.Item, report: pytest.TestReport, blames: Sequence[Sequence[Sequence[str]]]) -> None:
    """Turn a call report into an expected failure or a strict unexpected pass, as the xfails file says (``blames``:
    for each violation of a failure, the rule lists it is blamed on; empty when the test did not fail)."""
    expectation = item.stash.get(ITEM, None)
    if expectation is None or report.when != "call":
        return
    put_property(report, "xfail_ran", sorted(expectation.judged))
    if report.failed:
        covering = expectation.covering(blames)
        if covering is not None:
            report.outcome = "skipped"
            report.wasxfail = "; ".join(str(entry) for entry in covering)
            put_property(report, "xfail_used", [entry.line for entry in covering])
    elif report.passed and expectation.nodes:
        report.outcome = "failed"
        report.longrepr = f"[XPASS(strict)] {'; '.join(str(entry) for entry in expectation.nodes)}: the test passed"


@dataclass(eq=False)  # registered as a pytest plugin: hashed by identity
class Ledger:
    """On the controller: which rule entries' tests all ran and which expected a failure that came; stale ones at the
    end of a run that was not stopped early."""

    entries: list[Entry]
    ran: set[int] = field(default_factory=set)
    used: set[int] = field(default_factory=set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran.update(get_property(report, "xfail_ran", []))
        self.used.update(get_property(report, "xfail_used", []))

    def stale(self) -> list[Entry]:
        """Rule entries whose tests all ran without a single expected failure."""
        return [
            entry
            for entry in self.entries
            if not entry.is_node and entry.line in self.ran and entry.line not in self.used
        ]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        maxfail = session.config.getoption("maxfail", 0) or 0
        if session.shouldstop or session.shouldfail or (maxfail and session.testsfailed >= maxfail):
            return  # stopped early (-x): a rule's failing test may not have run
        stale = self.stale()
        if stale:
            reporter = session.config.pluginmanager.getplugin("terminalreporter")
            if reporter is not None:
                reporter.write_sep("=", "advisor-conformance: stale entries of the xfails file", red=True)
                for entry in stale:
                    reporter.write_line(f"{entry}: its rule's tests ran and none failed; remove the entry")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
