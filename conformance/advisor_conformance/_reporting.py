"""Per-rule outcomes of a conformance run: the summary table and the JSON report.

Outcomes are taken from test reports (``pytest_runtest_logreport``), which
carry each test's rule IDs in ``user_properties``; that also works on the
pytest-xdist controller, which never sees the test items themselves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from .catalogue import Catalogue

_ORDER = {"failed": 0, "passed": 1, "xfailed": 2, "skipped": 3}


def _rules_from(report: pytest.TestReport) -> list[str]:
    for key, value in report.user_properties:
        if key == "rules":
            return list(value)
    return []


def _message(report: pytest.TestReport, limit: int = 20000) -> str:
    """The failure's own message (the rule violation), or a skip's reason."""
    if isinstance(report.longrepr, tuple):  # skips: (path, line, reason)
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else (report.longreprtext or "")
    return text if len(text) <= limit else text[:limit] + "\n…"


class RuleTally:
    """Collects test outcomes by rule; prints and writes them at the end of the session."""

    def __init__(self, catalogue: Catalogue, implementation: dict[str, Any]) -> None:
        self.catalogue = catalogue
        self.implementation = implementation
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
        entry = self.tests.setdefault(report.nodeid, {"nodeid": report.nodeid, "rules": rules, "outcome": None})
        if hasattr(report, "wasxfail") and report.skipped:
            outcome = "xfailed"
        elif report.failed:
            outcome = "failed"
        elif report.skipped:
            outcome = "skipped"
        elif report.when == "call":
            outcome = "passed"
        else:
            return
        if entry["outcome"] is None or _ORDER[outcome] < _ORDER[entry["outcome"]]:
            entry["outcome"] = outcome
            if outcome != "passed":
                entry["message"] = _message(report)

    # -- results ---------------------------------------------------------------------

    def by_rule(self) -> list[dict[str, Any]]:
        counts: dict[str, dict[str, int]] = {}
        for test in self.tests.values():
            if test["outcome"] is None:
                continue
            for rule_id in test["rules"]:
                bucket = counts.setdefault(rule_id, {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0})
                bucket[test["outcome"]] += 1
        rows = []
        for rule in self.catalogue.rules.values():
            bucket = counts.get(rule.id, {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0})
            total = sum(bucket.values())
            if bucket["failed"]:
                outcome = "failed"
            elif bucket["passed"]:
                outcome = "passed"
            elif total:
                outcome = "skipped"
            else:
                outcome = "no tests"
            rows.append({"id": rule.id, "area": rule.area, "tag": rule.tag, "outcome": outcome, "tests": total, **bucket})
        return rows

    def report(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "rules": self.by_rule(),
            "tests": sorted(self.tests.values(), key=lambda test: test["nodeid"]),
            "collected": {rule_id: sorted(nodeids) for rule_id, nodeids in sorted(self.collected_rules.items())},
        }

    # -- output ----------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # an xdist worker: the controller writes the report
        path = session.config.getoption("rule_report")
        if path:
            Path(path).write_text(json.dumps(self.report(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @pytest.hookimpl(trylast=True)  # after the other plugins' sections: the table ends the report
    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if not config.getoption("rule_summary") or hasattr(config, "workerinput"):
            return
        rows = self.by_rule()
        name = f"{self.implementation.get('name')} {self.implementation.get('version')}"
        terminalreporter.write_sep("=", f"advisor-conformance: outcome per rule ({name})")
        width = max(len(row["id"]) for row in rows)
        terminalreporter.write_line(f"{'rule':<{width}}  {'outcome':<8}  tests")
        for row in rows:
            markup = {"failed": {"red": True}, "passed": {"green": True}}.get(row["outcome"], {"yellow": True})
            terminalreporter.write_line(f"{row['id']:<{width}}  {row['outcome']:<8}  {row['tests']}", **markup)
        totals: dict[str, int] = {}
        for row in rows:
            totals[row["outcome"]] = totals.get(row["outcome"], 0) + 1
        terminalreporter.write_line(
            f"{len(rows)} rules: " + ", ".join(f"{count} {outcome}" for outcome, count in sorted(totals.items()))
        )
