"""Reading a run's JSON rule report (``--rule-report``, format 1) and checking the parts the reports use.

Only what the page and the comparison rely on is required: ``format`` 1 and the
``rules`` list (each with an ``id`` and a rule outcome). ``tests`` (each with a
``nodeid`` and a test outcome), ``implementation``, ``suite`` and ``run`` are
read when present, so a report of another suite release still loads. Any other
defect is a :class:`ReportInputError` naming the file and the place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._pytest_plugin.reporting import (
    REPORT_FORMAT,
    REVIEW_OUTCOMES,
    RULE_OUTCOMES,
    TEST_OUTCOMES,
)

_SUITE_TESTS = re.compile(r"^(?:[^:]*/)?tests/(?=(?:[^/:]+/)*[^/:]+\.py::)")  # up to the suite: area/test_x.py::


class ReportInputError(ValueError):
    """A run report that cannot be read or is not a rule report; ``str()`` names the file."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def clean_text(value: Any) -> str:
    """``value`` as text that encodes as UTF-8: lone surrogates (from ``\\ud800`` escapes) become U+FFFD."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def node_key(nodeid: str) -> str:
    """The node ID without the folder of the suite's tests, so runs started from different directories match.

    ``advisor-conformance run`` reports ``tests/elision/test_elision.py::t``, a pytest run in this repository
    ``conformance/advisor_conformance/tests/elision/test_elision.py::t``: both are ``elision/test_elision.py::t``.
    """
    return _SUITE_TESTS.sub("", nodeid, count=1)


def attributed_outcomes(test: dict[str, Any]) -> dict[str, str]:
    """Each rule of a reported test with the outcome the test gives it.

    Every rule of the test gets the test's outcome, unless the report says which rules a failure (or warning, or
    expected failure) counts against (``failed_rules``): then those get it, the rules the test checked in full
    (``checked_rules``) count as passed, and the others get nothing from this test. A snapshot to review (``changed``,
    ``not recorded``) gives its rules nothing.
    """
    rules = [clean_text(rule) for rule in test.get("rules", [])]
    if test["outcome"] in REVIEW_OUTCOMES:
        return {}
    failed = test.get("failed_rules")
    if not isinstance(failed, list) or test["outcome"] in ("passed", "skipped"):
        return dict.fromkeys(rules, test["outcome"])
    failed_ids = {clean_text(rule) for rule in failed}
    checked = {clean_text(rule) for rule in test.get("checked_rules", []) or []}
    out = {rule: test["outcome"] for rule in rules if rule in failed_ids}
    out.update({rule: "passed" for rule in rules if rule in checked and rule not in failed_ids})
    return out


@dataclass(frozen=True)
class Run:
    """One run report: where it came from and its data, checked."""

    path: str
    data: dict[str, Any]

    @property
    def rules(self) -> list[dict[str, Any]]:
        return self.data["rules"]

    @property
    def tests(self) -> list[dict[str, Any]]:
        return self.data.get("tests", [])

    @property
    def implementation(self) -> dict[str, Any]:
        value = self.data.get("implementation")
        return value if isinstance(value, dict) else {}

    @property
    def suite(self) -> dict[str, Any]:
        value = self.data.get("suite")
        return value if isinstance(value, dict) else {}

    @property
    def meta(self) -> dict[str, Any]:
        value = self.data.get("run")
        return value if isinstance(value, dict) else {}

    @property
    def name(self) -> str:
        """The implementation's name and version, as ``describe`` answered them."""
        impl = self.implementation
        name = clean_text(impl.get("name") or "unnamed implementation")
        version = clean_text(impl.get("version") or "")
        return f"{name} {version}".strip()

    @property
    def target(self) -> str:
        return clean_text(self.meta.get("target", ""))

    @property
    def started(self) -> str:
        return clean_text(self.meta.get("started", ""))

    @property
    def catalogue(self) -> str:
        return clean_text(self.suite.get("catalogue", ""))

    def describe(self) -> str:
        """One line: file, implementation, target, start, suite and catalogue versions."""
        parts = [self.name]
        if self.target:
            parts.append(f"target {self.target}")
        if self.started:
            parts.append(f"started {self.started}")
        if self.suite.get("version"):
            parts.append(f"suite {clean_text(self.suite['version'])}")
        if self.catalogue:
            parts.append(f"catalogue {self.catalogue}")
        return f"{self.path} ({', '.join(parts)})"

    def rule_outcomes(self) -> dict[str, str]:
        return {clean_text(row["id"]): row["outcome"] for row in self.rules}

    def reviews(self) -> dict[str, Any]:
        """The snapshots to review: node IDs by outcome (``changed``, ``not recorded``), and the command that
        accepts them (``accept``) when the report names one."""
        out: dict[str, Any] = {
            outcome: [clean_text(test["nodeid"]) for test in self.tests if test["outcome"] == outcome]
            for outcome in REVIEW_OUTCOMES
        }
        recorded = self.data.get("snapshots")
        if isinstance(recorded, dict) and isinstance(recorded.get("accept"), str):
            out["accept"] = clean_text(recorded["accept"])
        return out


def load_run(path: str | Path) -> Run:
    """Read and check the run report at ``path``; raises :class:`ReportInputError` naming it."""
    label = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReportInputError(label, f"cannot be read ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ReportInputError(label, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ReportInputError(label, f"is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None
    return parse_run(data, label)


def parse_run(data: Any, path: str = "<report>") -> Run:
    """Check the decoded report ``data``; raises :class:`ReportInputError` naming ``path`` and the defect."""
    if not isinstance(data, dict) or "format" not in data:
        raise ReportInputError(
            path, 'is not a rule report of advisor-conformance (no "format"; write one with --rule-report FILE)'
        )
    if data["format"] != REPORT_FORMAT:
        raise ReportInputError(path, f"has report format {data['format']!r}; this version reads format {REPORT_FORMAT}")
    rules = data.get("rules")
    if not isinstance(rules, list):
        raise ReportInputError(path, 'has no "rules" list')
    seen: set[str] = set()
    for index, row in enumerate(rules):
        where = f"rules[{index}]"
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
            raise ReportInputError(path, f'{where} has no rule "id"')
        if row.get("outcome") not in RULE_OUTCOMES:
            raise ReportInputError(
                path,
                f"{where} ({row['id']}) has the outcome {row.get('outcome')!r}, not one of {', '.join(RULE_OUTCOMES)}",
            )
        if row["id"] in seen:
            raise ReportInputError(path, f"{where}: rule {row['id']} appears twice")
        seen.add(row["id"])
    tests = data.get("tests", [])
    if not isinstance(tests, list):
        raise ReportInputError(path, 'has a "tests" entry that is not a list')
    for index, test in enumerate(tests):
        where = f"tests[{index}]"
        if not isinstance(test, dict) or not isinstance(test.get("nodeid"), str):
            raise ReportInputError(path, f'{where} has no "nodeid"')
        if test.get("outcome") not in TEST_OUTCOMES:
            raise ReportInputError(
                path,
                f"{where} ({test['nodeid']}) has the outcome {test.get('outcome')!r}, not "
                f"one of {', '.join(TEST_OUTCOMES)}",
            )
        if not isinstance(test.get("rules", []), list):
            raise ReportInputError(path, f'{where} ({test["nodeid"]}) has "rules" that are not a list')
    return Run(path, data)
