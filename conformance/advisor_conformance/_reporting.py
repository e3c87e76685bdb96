"""Per-rule outcomes of a conformance run: the summary table and the JSON report.

Outcomes are taken from test reports (``pytest_runtest_logreport``), which
carry each test's rule IDs in ``user_properties``; that also works on the
pytest-xdist controller, which never sees the test items themselves.

A test's outcome is ``passed``, ``failed``, ``warned`` (a `should` rule's test
failed in a run that is not strict), ``xfailed``, or ``skipped``. A rule's
outcome is, in this order of precedence: ``failed`` (some test failed),
``warning`` (some test warned), ``xfailed`` (a known failure), ``passed``,
``skipped`` (every test skipped), or ``no tests``.

The JSON report (``--rule-report FILE``; format 1)::

    {"format": 1,
     "suite": {"name", "version", "protocol", "catalogue"},
     "implementation": {...what describe answered...},
     "run": {"target", "arguments", "strict_should", "started" (ISO 8601, UTC), "duration_s"},
     "counts": {"rules": {outcome: n}, "tests": {outcome: n}},
     "rules": [{"id", "area", "level", "tag", "outcome", "tests", "passed", "failed", "warned", "xfailed",
                "skipped"}],
     "tests": [{"nodeid", "rules", "outcome", "message"?}],
     "collected": {rule ID: [node IDs]}}
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from .catalogue import Catalogue

REPORT_FORMAT = 1
TEST_OUTCOMES = ("failed", "warned", "xfailed", "passed", "skipped")
RULE_OUTCOMES = ("failed", "warning", "xfailed", "passed", "skipped", "no tests")
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
    if failed is None or test["outcome"] in ("passed", "skipped"):
        return dict.fromkeys(test["rules"], test["outcome"])
    checked = set(test.get("checked_rules", []))
    out = {rule: test["outcome"] for rule in [*test["rules"], *failed] if rule in failed}
    out.update({rule: "passed" for rule in test["rules"] if rule in checked and rule not in failed})
    return out


def rule_outcome(bucket: dict[str, int]) -> str:
    """A rule's outcome from the outcomes of its tests."""
    if bucket["failed"]:
        return "failed"
    if bucket["warned"]:
        return "warning"
    if bucket["xfailed"]:
        return "xfailed"
    if bucket["passed"]:
        return "passed"
    if bucket["skipped"]:
        return "skipped"
    return "no tests"


def write_report(path: Path, report: Any) -> None:
    """Write the rule report as UTF-8 JSON. A lone surrogate (an implementation's answer may carry one into a failure
    message) is written as its JSON escape ``\\udXXX``, so the file stays valid UTF-8 and valid JSON."""
    text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    path.write_bytes(text.encode("utf-8", "backslashreplace"))


class RuleTally:
    """Collects test outcomes by rule; prints and writes them at the end of the session."""

    def __init__(self, catalogue: Catalogue, implementation: dict[str, Any], *, target: str = "",
                 arguments: list[str] | None = None, strict: bool = False) -> None:
        self.catalogue = catalogue
        self.implementation = implementation
        self.target = target
        self.arguments = arguments or []
        self.strict = strict
        self.started = datetime.now(timezone.utc)
        self.clock = time.monotonic()
        self.tests: dict[str, dict[str, Any]] = {}
        self.collected_rules: dict[str, list[str]] = {}

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

    # -- results ---------------------------------------------------------------------

    def by_rule(self) -> list[dict[str, Any]]:
        counts: dict[str, dict[str, int]] = {}
        for test in self.tests.values():
            if test["outcome"] is None:
                continue
            for rule_id, outcome in attributed(test).items():
                bucket = counts.setdefault(rule_id, dict.fromkeys(TEST_OUTCOMES, 0))
                bucket[outcome] += 1
        rows = []
        for rule in self.catalogue.rules.values():
            bucket = counts.get(rule.id, dict.fromkeys(TEST_OUTCOMES, 0))
            rows.append({"id": rule.id, "area": rule.area, "level": rule.level, "tag": rule.tag,
                         "outcome": rule_outcome(bucket), "tests": sum(bucket.values()),
                         **{outcome: bucket[outcome] for outcome in TEST_OUTCOMES}})
        return rows

    def report(self) -> dict[str, Any]:
        from . import __version__
        from ._protocol import PROTOCOL_VERSION

        rows = self.by_rule()
        tests = sorted(self.tests.values(), key=lambda test: test["nodeid"])
        rule_counts = {outcome: sum(1 for row in rows if row["outcome"] == outcome) for outcome in RULE_OUTCOMES}
        test_counts = {outcome: sum(1 for test in tests if test["outcome"] == outcome) for outcome in TEST_OUTCOMES}
        return {
            "format": REPORT_FORMAT,
            "suite": {"name": "advisor-conformance", "version": __version__, "protocol": PROTOCOL_VERSION,
                      "catalogue": self.catalogue.version},
            "implementation": self.implementation,
            "run": {"target": self.target, "arguments": self.arguments, "strict_should": self.strict,
                    "started": self.started.isoformat(timespec="seconds"),
                    "duration_s": round(time.monotonic() - self.clock, 3)},
            "counts": {"rules": rule_counts, "tests": test_counts},
            "rules": rows,
            "tests": tests,
            "collected": {rule_id: sorted(nodeids) for rule_id, nodeids in sorted(self.collected_rules.items())},
        }

    # -- output ----------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # an xdist worker: the controller writes the report
        path = session.config.getoption("rule_report")
        if path:
            write_report(Path(path), self.report())

    @pytest.hookimpl(trylast=True)  # after the other plugins' sections: the table ends the report
    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        warned = [test for test in self.tests.values() if test["outcome"] == "warned"]
        if warned:
            terminalreporter.write_sep("=", f"advisor-conformance: {len(warned)} warned (should rules; "
                                            "--strict-should makes them fail)", yellow=True)
            for test in sorted(warned, key=lambda t: t["nodeid"]):
                first = test.get("message", "").split("\n", 1)[0]
                terminalreporter.write_line(f"WARNED {test['nodeid']} - {first[:300]}")
        if not config.getoption("rule_summary"):
            return
        rows = self.by_rule()
        name = f"{self.implementation.get('name')} {self.implementation.get('version')}"
        terminalreporter.write_sep("=", f"advisor-conformance: outcome per rule ({name})")
        width = max(len(row["id"]) for row in rows)
        terminalreporter.write_line(f"{'rule':<{width}}  {'level':<6}  {'outcome':<8}  failed/tests")
        colours = {"failed": {"red": True}, "passed": {"green": True}, "warning": {"yellow": True},
                   "xfailed": {"yellow": True}}
        for row in rows:
            failing = row["failed"] + row["warned"]
            terminalreporter.write_line(f"{row['id']:<{width}}  {row['level']:<6}  {row['outcome']:<8}  "
                                        f"{failing}/{row['tests']}", **colours.get(row["outcome"], {"yellow": True}))
        totals: dict[str, int] = {}
        for row in rows:
            totals[row["outcome"]] = totals.get(row["outcome"], 0) + 1
        terminalreporter.write_line(
            f"{len(rows)} rules: " + ", ".join(f"{count} {outcome}" for outcome, count in sorted(totals.items()))
        )
