"""Reading a run's JSON rule report (``--rule-report``, format 1) and checking it before any of it is used.

The loader of rule reports (:func:`load_run`) reads the file with the commands' bounded JSON reader
(:mod:`.._tools.inputs`: size, encoding, NaN, long numbers, repeated keys, depth) and checks it against
:data:`REPORT_SCHEMA`: ``format`` 1 and the ``rules`` list (each with an ``id`` and a rule outcome) are required;
``tests`` (each with a ``nodeid`` and a test outcome), ``implementation``, ``suite``, ``run``, ``counts`` and
``snapshots`` are read when present, so a report of another suite release still loads, but every field the
reports read has its type checked (``checked_rules: 5``, ``run.arguments: 7`` and ``counts: [1]`` are refused). Any
defect is a :class:`ReportInputError` naming the file and the field; ``report`` and ``compare`` exit 2 on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..._pytest_plugin.reporting import (
    REPORT_FORMAT,
    REVIEW_OUTCOMES,
    RULE_OUTCOMES,
    TEST_OUTCOMES,
)
from ..inputs import InputError, check, check_value, read_json, validator

_SUITE_TESTS = re.compile(r"^(?:[^:]*/)?tests/(?=(?:[^/:]+/)*[^/:]+\.py::)")  # up to the suite: area/test_x.py::
#: The largest rule report read: the suite's 1,579 tests, each failing with a message at the report's 20,000-character
#: cap, take about 35 MB (four times that if every character took four bytes).
REPORT_BYTES = 128 * 1024 * 1024

_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": _TEXT}
_COUNT = {"type": "integer", "minimum": 0, "maximum": 2**53}
_COUNTS = {"type": "object", "additionalProperties": _COUNT}
#: The fields of a rule report that the reports read, each with its type; other fields are let through.
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "rules"],
    "properties": {
        "format": {"const": REPORT_FORMAT},
        "suite": {"type": "object", "additionalProperties": {"type": ["string", "integer"]}},
        "implementation": {
            "type": "object",
            "properties": {"name": _TEXT, "version": _TEXT, "language": _TEXT, "areas": _TEXTS},
        },
        "run": {
            "type": "object",
            "properties": {
                "target": _TEXT,
                "arguments": _TEXTS,
                "strict_should": {"type": "boolean"},
                "started": _TEXT,
                "duration_s": {"type": "number", "minimum": 0},
            },
        },
        "counts": {"type": "object", "properties": {"rules": _COUNTS, "tests": _COUNTS}},
        "rules": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "outcome"],
                "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "area": _TEXT,
                    "level": _TEXT,
                    "tag": _TEXT,
                    "outcome": {"enum": list(RULE_OUTCOMES)},
                    **{
                        key: _COUNT
                        for key in (
                            "tests",
                            "passed",
                            "failed",
                            "warned",
                            "xfailed",
                            "skipped",
                            "elsewhere",
                            *REVIEW_OUTCOMES,
                        )
                    },
                },
            },
        },
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["nodeid", "outcome"],
                "properties": {
                    "nodeid": _TEXT,
                    "rules": _TEXTS,
                    "outcome": {"enum": list(TEST_OUTCOMES)},
                    "message": _TEXT,
                    "failed_rules": _TEXTS,
                    "checked_rules": _TEXTS,
                    "unknown_rules": _TEXTS,
                    "accept": _TEXT,
                    "accept_all": _TEXT,
                },
            },
        },
        "snapshots": {
            "type": "object",
            "properties": {**{outcome: _TEXTS for outcome in REVIEW_OUTCOMES}, "accept": _TEXT},
        },
        "unknown_rules": {"type": "object", "additionalProperties": _TEXTS},
        "collected": {"type": "object", "additionalProperties": _TEXTS},
    },
}


class ReportInputError(InputError):
    """A run report that cannot be read or is not a rule report; ``str()`` names the file and the field."""


@cache
def _checker() -> Any:
    return validator(REPORT_SCHEMA)


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
    """Read and check the run report at ``path``; raises :class:`ReportInputError` naming it and the field."""
    try:
        data = read_json(path, limit=REPORT_BYTES)
    except InputError as exc:
        raise ReportInputError(exc.path, exc.reason, exc.field) from None
    return parse_run(data, str(path))


def parse_run(data: Any, path: str = "<report>") -> Run:
    """Check the decoded report ``data``; raises :class:`ReportInputError` naming ``path``, the field and the
    defect."""
    try:
        check_value(data, path)
    except InputError as exc:
        raise ReportInputError(exc.path, exc.reason, exc.field) from None
    if not isinstance(data, dict) or "format" not in data:
        raise ReportInputError(
            path, 'is not a rule report of advisor-conformance (no "format"; write one with --rule-report FILE)'
        )
    if data["format"] != REPORT_FORMAT or isinstance(data["format"], bool):
        raise ReportInputError(
            path, f"has report format {str(data['format'])[:40]!r}; this version reads format {REPORT_FORMAT}", "format"
        )
    try:
        check(_checker(), data, path)
    except InputError as exc:
        raise ReportInputError(exc.path, exc.reason, exc.field) from None
    _unique(path, "rules", [row["id"] for row in data["rules"]], "rule")
    _unique(path, "tests", [test["nodeid"] for test in data.get("tests", [])], "test")
    return Run(path, data)


def _unique(path: str, field: str, names: list[str], kind: str) -> None:
    """Refuse a rule or test listed twice (one of the two would be dropped silently)."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            raise ReportInputError(path, f"{kind} {name[:200]!r} appears twice", f"{field}/{index}")
        seen.add(name)
