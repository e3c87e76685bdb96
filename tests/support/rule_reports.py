"""Format-1 rule reports (what a run's ``--report-json`` writes), made up by hand for the tests of the HTML report."""

from __future__ import annotations

from typing import Any

#: The test outcomes a rule's row counts, in the order a report lists them.
COUNTED = ("passed", "failed", "warned", "xfailed", "skipped")


def rule_row(rule_id: str, outcome: str, tests: int, counts: dict[str, int]) -> dict[str, Any]:
    """A must rule's row (tagged SPEC, its area the rule ID's first part): its outcome, its number of tests and their
    count by outcome."""
    return {
        "id": rule_id,
        "area": rule_id.split(".")[0],
        "level": "must",
        "tag": "SPEC",
        "outcome": outcome,
        "tests": tests,
        **counts,
    }


def rule_report(
    name: str,
    rows: list[dict[str, Any]],
    tests: list[dict[str, Any]],
    *,
    catalogue: str,
    arguments: list[str],
    started: str,
    duration_s: float,
    language: str | None = None,
    counts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report of a run of version 1.0 of the implementation ``name`` (through ``cmd:NAME``) with these rows and
    tests; ``counts`` and the implementation's ``language`` only where given."""
    implementation = {"name": name, "version": "1.0", **({"language": language} if language else {})}
    report: dict[str, Any] = {
        "format": 1,
        "suite": {"name": "advisor-conformance", "version": "0.1.0", "protocol": 1, "catalogue": catalogue},
        "implementation": implementation,
        "run": {
            "target": f"cmd:{name}",
            "arguments": arguments,
            "strict_should": False,
            "started": started,
            "duration_s": duration_s,
        },
    }
    if counts is not None:
        report["counts"] = counts
    return {**report, "rules": rows, "tests": tests, "collected": {}}
