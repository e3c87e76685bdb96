"""Per-rule outcomes of a conformance run: the summary table and the JSON report.

Outcomes are taken from test reports (``pytest_runtest_logreport``), which
carry each test's rule IDs in ``user_properties``; that also works on the
pytest-xdist controller, which never sees the test items themselves.

A test's outcome is ``passed``, ``failed``, ``warned`` (a `should` rule's test
failed in a run that is not strict), ``xfailed``, ``skipped``, or, for a snapshot
(a review item, not a rule check), ``changed`` (the rendered request differs from
its recorded snapshot) or ``not recorded`` (no snapshot yet). A failure counts
against the rules it is blamed on (``failed_rules``); the test's other rules that it
checked in full count as passed, and the rest get no verdict from it.

A rule's row counts every test of the rule that ran (``tests``), whatever the blame:
``failed``, ``warned``, ``xfailed``, ``passed`` and ``skipped`` count its verdicts,
``elsewhere`` the tests of the rule whose failure was blamed on other rules only
(the rule was not checked past it), ``changed`` and ``not recorded`` its snapshots;
failures of other rules' tests blamed on it count too. A rule's outcome is, in this
order of precedence: ``failed`` (some test failed), ``warning`` (some test warned),
``xfailed`` (a known failure), ``passed``, ``not checked`` (tests ran, but none gave it
a verdict: each failed on another rule first, or was a snapshot), ``skipped`` (every
test skipped), or ``no tests``. A snapshot to review never makes a rule fail; it fails
the run (a review gate), and the report names the command that accepts it.

The JSON report (``--rule-report FILE``; format 1)::

    {"format": 1,
     "suite": {"name", "version", "protocol", "catalogue"},
     "implementation": {...what describe answered...},
     "run": {"target", "arguments", "strict_should", "started" (ISO 8601, UTC), "duration_s"},
     "counts": {"rules": {outcome: n}, "tests": {outcome: n}},
     "rules": [{"id", "area", "level", "tag", "outcome", "tests", "passed", "failed", "warned", "xfailed",
                "skipped", "elsewhere", "changed", "not recorded"}],
     "tests": [{"nodeid", "rules", "outcome", "message"?, "failed_rules"?, "checked_rules"?, "unknown_rules"?,
                "accept"?, "diagnosis"?, "located_rules"?, "wire"?}],
     "snapshots": {"changed": [node IDs], "not recorded": [node IDs], "accept": command},
     "unknown_rules": {rule ID: [node IDs]},
     "collected": {rule ID: [node IDs]}}
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from .._outputs import write_atomic
from ..catalogue import Catalogue

REPORT_FORMAT = 1
#: A snapshot's outcomes: review items, not rule verdicts.
REVIEW_OUTCOMES = ("changed", "not recorded")
TEST_OUTCOMES = ("failed", "warned", "xfailed", *REVIEW_OUTCOMES, "passed", "skipped")
RULE_OUTCOMES = ("failed", "warning", "xfailed", "passed", "not checked", "skipped", "no tests")
#: A rule row's counts: its tests' verdicts, the tests blamed on other rules only, and its snapshots to review.
ROW_COUNTS = ("failed", "warned", "xfailed", "passed", "skipped", "elsewhere", *REVIEW_OUTCOMES)
_ORDER = {outcome: rank for rank, outcome in enumerate(TEST_OUTCOMES)}


def put_property(holder: pytest.Item | pytest.TestReport, name: str, value: Any) -> None:
    """Attach ``value`` to a test as JSON text: it travels from xdist workers as is, and JUnit XML writes it as JSON
    (not a Python repr)."""
    holder.user_properties.append((name, json.dumps(value, ensure_ascii=False)))


def get_property(report: pytest.TestReport, name: str, default: Any = None) -> Any:
    """A property :func:`put_property` attached, decoded; ``default`` when there is none."""
    for key, value in report.user_properties:
        if key == name:
            return json.loads(value) if isinstance(value, str) else value
    return default


def _property(report: pytest.TestReport, name: str) -> list[str] | None:
    value = get_property(report, name)
    return None if value is None else list(value)


def _rules_from(report: pytest.TestReport) -> list[str]:
    return _property(report, "rules") or []


def _message(report: pytest.TestReport, limit: int = 20000) -> str:
    """The failure's own message (the rule violation), or a skip's reason."""
    if isinstance(report.longrepr, tuple):  # skips: (path, line, reason)
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else (report.longreprtext or "")
    return text if len(text) <= limit else text[:limit] + "\n…"


def test_outcome(report: pytest.TestReport) -> str | None:
    """The outcome this report gives its test, or None when the report decides nothing (a passing setup)."""
    if hasattr(report, "wasxfail") and report.skipped:
        return "xfailed"
    if (report.failed or report.skipped) and get_property(report, "review") in REVIEW_OUTCOMES:
        return get_property(report, "review")  # a changed snapshot fails; one not recorded is reported apart
    if report.failed:
        return "failed"
    if report.skipped:
        return "skipped"
    if report.when == "call":
        return "warned" if get_property(report, "should_failed", False) else "passed"
    return None


def attributed(test: dict[str, Any]) -> dict[str, str]:
    """Each rule of a test with the outcome it gets from that test.

    A failure (or expected failure, or warning) counts against the rules it was attributed to; the test's other
    rules that it checked in full count as passed; its remaining rules were not checked past the failure and get
    nothing from this test.
    """
    failed = test.get("failed_rules")
    if test["outcome"] in REVIEW_OUTCOMES:
        return {}
    if failed is None or test["outcome"] in ("passed", "skipped"):
        return dict.fromkeys(test["rules"], test["outcome"])
    checked = set(test.get("checked_rules", []))
    out = {rule: test["outcome"] for rule in [*test["rules"], *failed] if rule in failed}
    out.update({rule: "passed" for rule in test["rules"] if rule in checked and rule not in failed})
    return out


def row_counts(test: dict[str, Any]) -> dict[str, str]:
    """What one test adds to the rows of the rules: its verdicts (:func:`attributed`), and for each rule of the test
    that got none, why: ``elsewhere`` (its failure was blamed on other rules only) or the snapshot's review outcome.
    Every rule whose test ran is counted; a skipped test counts as skipped for each of its rules."""
    out = attributed(test)
    missing = test["outcome"] if test["outcome"] in REVIEW_OUTCOMES else "elsewhere"
    out.update({rule: missing for rule in test["rules"] if rule not in out})
    return out


def rule_outcome(bucket: dict[str, int]) -> str:
    """A rule's outcome from the counts of its tests (:data:`ROW_COUNTS`)."""
    if bucket["failed"]:
        return "failed"
    if bucket["warned"]:
        return "warning"
    if bucket["xfailed"]:
        return "xfailed"
    if bucket["passed"]:
        return "passed"
    if any(bucket.get(reason, 0) for reason in ("elsewhere", *REVIEW_OUTCOMES)):
        return "not checked"
    if bucket["skipped"]:
        return "skipped"
    return "no tests"


def write_report(path: Path, report: Any) -> None:
    """Write the rule report as UTF-8 JSON, whole or not at all (:func:`~advisor_conformance._outputs.write_atomic`).
    A lone surrogate (an implementation's answer may carry one into a failure message) is written as its JSON escape
    ``\\udXXX``, so the file stays valid UTF-8 and valid JSON. Raises ``OSError`` when it cannot be written."""
    text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8", "backslashreplace"))


class RuleTally:
    """Collects test outcomes by rule; prints and writes them at the end of the session."""

    def __init__(
        self,
        catalogue: Catalogue,
        implementation: dict[str, Any],
        *,
        target: str = "",
        arguments: list[str] | None = None,
        strict: bool = False,
    ) -> None:
        self.catalogue = catalogue
        self.implementation = implementation
        self.target = target
        self.arguments = arguments or []
        self.strict = strict
        self.started = datetime.now(UTC)
        self.clock = time.monotonic()
        self.tests: dict[str, dict[str, Any]] = {}
        self.collected_rules: dict[str, list[str]] = {}
        #: Why the rule report could not be written at the end of the run (said after the summary), or None.
        self.unwritten: str | None = None

    # -- collection and outcomes ----------------------------------------------------

    def collected(self, items: Iterable[tuple[str, list[str]]]) -> None:
        for nodeid, rules in items:
            for rule_id in rules:
                self.collected_rules.setdefault(rule_id, []).append(nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rules = _rules_from(report)
        if not rules:
            return
        outcome = test_outcome(report)
        if outcome is None:
            return
        entry = self.tests.setdefault(report.nodeid, {"nodeid": report.nodeid, "rules": rules, "outcome": None})
        if entry["outcome"] is None or _ORDER[outcome] < _ORDER[entry["outcome"]]:
            entry["outcome"] = outcome
            if outcome != "passed":
                entry["message"] = _message(report)
            failed = _property(report, "failed_rules")
            if failed is not None and outcome != "passed":
                entry["failed_rules"] = failed
                entry["checked_rules"] = _property(report, "checked_rules") or []
            for name in ("unknown_rules", "accept", "accept_all", "diagnosis", "located_rules", "wire"):
                value = get_property(report, name)
                if value is not None and outcome != "passed":
                    entry[name] = value

    # -- results ---------------------------------------------------------------------

    def by_rule(self) -> list[dict[str, Any]]:
        counts: dict[str, dict[str, int]] = {}
        for test in self.tests.values():
            if test["outcome"] is None:
                continue
            for rule_id, outcome in row_counts(test).items():
                bucket = counts.setdefault(rule_id, dict.fromkeys(ROW_COUNTS, 0))
                bucket[outcome] += 1
        rows = []
        for rule in self.catalogue.rules.values():
            bucket = counts.get(rule.id, dict.fromkeys(ROW_COUNTS, 0))
            rows.append(
                {
                    "id": rule.id,
                    "area": rule.area,
                    "level": rule.level,
                    "tag": rule.tag,
                    "outcome": rule_outcome(bucket),
                    "tests": sum(bucket.values()),
                    **{outcome: bucket[outcome] for outcome in ROW_COUNTS},
                }
            )
        return rows

    def snapshots(self) -> dict[str, Any]:
        """The snapshots to review: node IDs by outcome, and the command that accepts them all."""
        out: dict[str, Any] = {
            outcome: sorted(test["nodeid"] for test in self.tests.values() if test["outcome"] == outcome)
            for outcome in REVIEW_OUTCOMES
        }
        tests = [test for test in self.tests.values() if test.get("accept")]
        if tests:  # one command for them all
            out["accept"] = tests[0]["accept"] if len(tests) == 1 else tests[0].get("accept_all", tests[0]["accept"])
        return out

    def unknown_rules(self) -> dict[str, list[str]]:
        """Rule IDs failures were blamed on that the catalogue does not know, with the tests that named them."""
        out: dict[str, list[str]] = {}
        for test in self.tests.values():
            for rule_id in test.get("unknown_rules", []):
                out.setdefault(rule_id, []).append(test["nodeid"])
        return {rule_id: sorted(nodeids) for rule_id, nodeids in sorted(out.items())}

    def report(self) -> dict[str, Any]:
        from .. import __version__
        from .._contract.protocol import PROTOCOL_VERSION

        rows = self.by_rule()
        tests = sorted(self.tests.values(), key=lambda test: test["nodeid"])
        rule_counts = {outcome: sum(1 for row in rows if row["outcome"] == outcome) for outcome in RULE_OUTCOMES}
        test_counts = {outcome: sum(1 for test in tests if test["outcome"] == outcome) for outcome in TEST_OUTCOMES}
        return {
            "format": REPORT_FORMAT,
            "suite": {
                "name": "advisor-conformance",
                "version": __version__,
                "protocol": PROTOCOL_VERSION,
                "catalogue": self.catalogue.version,
            },
            "implementation": self.implementation,
            "run": {
                "target": self.target,
                "arguments": self.arguments,
                "strict_should": self.strict,
                "started": self.started.isoformat(timespec="seconds"),
                "duration_s": round(time.monotonic() - self.clock, 3),
            },
            "counts": {"rules": rule_counts, "tests": test_counts},
            "rules": rows,
            "tests": tests,
            "snapshots": self.snapshots(),
            "unknown_rules": self.unknown_rules(),
            "collected": {rule_id: sorted(nodeids) for rule_id, nodeids in sorted(self.collected_rules.items())},
        }

    # -- output ----------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # an xdist worker: the controller writes the report
        path = session.config.getoption("rule_report")
        if not path:
            return
        try:
            write_report(session.config.invocation_params.dir / path, self.report())
        except OSError as exc:  # checked writable before the run; the folder changed since: keep the summary
            self.unwritten = f"--rule-report {path}: the report could not be written ({exc.strerror or exc})"[:1000]
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    @pytest.hookimpl(trylast=True)  # after the other plugins' sections: the table ends the report
    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        self._summary(terminalreporter, config)
        if self.unwritten:
            terminalreporter.write_sep("=", "advisor-conformance: the rule report was not written", red=True)
            terminalreporter.write_line(self.unwritten, red=True)

    def _summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        warned = [test for test in self.tests.values() if test["outcome"] == "warned"]
        if warned:
            terminalreporter.write_sep(
                "=",
                f"advisor-conformance: {len(warned)} warned (should rules; --strict-should makes them fail)",
                yellow=True,
            )
            for test in sorted(warned, key=lambda t: t["nodeid"]):
                first = test.get("message", "").split("\n", 1)[0]
                terminalreporter.write_line(f"WARNED {test['nodeid']} - {first[:300]}")
        unknown = self.unknown_rules()
        if unknown:
            terminalreporter.write_sep(
                "=",
                f"advisor-conformance: failures blamed on {len(unknown)} rule ID(s) the catalogue does not know",
                red=True,
            )
            for rule_id, nodeids in unknown.items():
                terminalreporter.write_line(
                    f"{rule_id!r}: {len(nodeids)} test(s), e.g. {nodeids[0]} (counted against the test's own rules)"
                )
        snapshots = self.snapshots()
        if any(snapshots[outcome] for outcome in REVIEW_OUTCOMES):
            failed = any(test["outcome"] == "failed" for test in self.tests.values())
            terminalreporter.write_sep(
                "=",
                "advisor-conformance: snapshots to review ("
                + ("besides the failures above" if failed else "no rule failed")
                + "; the run fails until they are accepted)",
                yellow=True,
            )
            for outcome in REVIEW_OUTCOMES:
                for nodeid in snapshots[outcome]:
                    terminalreporter.write_line(f"{outcome:<13} {nodeid}")
            terminalreporter.write_line(f"accept them (after review): {snapshots['accept']}")
        if not config.getoption("rule_summary"):
            return
        rows = self.by_rule()
        name = f"{self.implementation.get('name')} {self.implementation.get('version')}"
        terminalreporter.write_sep("=", f"advisor-conformance: outcome per rule ({name})")
        width = max(len(row["id"]) for row in rows)
        terminalreporter.write_line(f"{'rule':<{width}}  {'level':<6}  {'outcome':<11}  failed/tests")
        colours = {
            "failed": {"red": True},
            "passed": {"green": True},
            "warning": {"yellow": True},
            "xfailed": {"yellow": True},
        }
        for row in rows:
            failing = row["failed"] + row["warned"]
            notes = [
                f"{row[key]} {label}"
                for key, label in (
                    ("elsewhere", "failed on another rule first"),
                    ("changed", "snapshot changed"),
                    ("not recorded", "snapshot not recorded"),
                )
                if row[key]
            ]
            terminalreporter.write_line(
                f"{row['id']:<{width}}  {row['level']:<6}  {row['outcome']:<11}  "
                f"{failing}/{row['tests']}" + (f"  ({'; '.join(notes)})" if notes else ""),
                **colours.get(row["outcome"], {"yellow": True}),
            )
        totals: dict[str, int] = {}
        for row in rows:
            totals[row["outcome"]] = totals.get(row["outcome"], 0) + 1
        terminalreporter.write_line(
            f"{len(rows)} rules: " + ", ".join(f"{count} {outcome}" for outcome, count in sorted(totals.items()))
        )
        reviews = {outcome: len(snapshots[outcome]) for outcome in REVIEW_OUTCOMES if snapshots[outcome]}
        if reviews:
            terminalreporter.write_line(
                "snapshots: "
                + ", ".join(f"{count} {outcome}" for outcome, count in reviews.items())
                + " (review items, not rules)"
            )
