"""The per-rule tally of a run (``--rule-summary``, ``--rule-report``), from hand-made test reports."""

from __future__ import annotations

import pytest

from advisor_conformance._pytest_plugin.reporting import RuleTally, put_property
from advisor_conformance.catalogue import load_catalogue


def _report(nodeid: str, rules: list[str], outcome: str = "passed", **properties) -> pytest.TestReport:
    report = pytest.TestReport(
        nodeid,
        ("x.py", 1, nodeid),
        {},
        outcome,
        "[x] message" if outcome != "passed" else None,
        "call",
        user_properties=[],
    )
    put_property(report, "rules", rules)
    for name, value in properties.items():
        put_property(report, name, value)
    return report


def _tally(*reports: pytest.TestReport) -> RuleTally:
    tally = RuleTally(load_catalogue(), {"name": "impl", "version": "1"})
    for report in reports:
        tally.pytest_runtest_logreport(report)
    return tally


def _row(tally: RuleTally, rule_id: str) -> dict:
    return next(row for row in tally.by_rule() if row["id"] == rule_id)


def test_rule_whose_test_failed_on_another_rule_counts_the_test_and_is_not_checked():
    """A rule whose only test failed, blamed on another rule, counts that test (not "no tests 0/0"): it was not
    checked past the failure; the rule blamed counts it as failed."""
    tally = _tally(
        _report("t.py::a", ["question.cap"], "failed", failed_rules=["request.guidance-request"], checked_rules=[])
    )
    own, blamed = _row(tally, "question.cap"), _row(tally, "request.guidance-request")
    assert (own["outcome"], own["tests"], own["elsewhere"], own["failed"]) == ("not checked", 1, 1, 0)
    assert (blamed["outcome"], blamed["tests"], blamed["failed"]) == ("failed", 1, 1)
    assert _row(tally, "question.trim")["outcome"] == "no tests"


def test_rule_with_a_passing_test_besides_one_blamed_elsewhere_passes_and_counts_both():
    """A rule with a passing test and a test that failed on another rule passes, counting both tests."""
    tally = _tally(
        _report("t.py::a", ["question.cap"], "failed", failed_rules=["question.trim"], checked_rules=[]),
        _report("t.py::b", ["question.cap"]),
    )
    row = _row(tally, "question.cap")
    assert (row["outcome"], row["tests"], row["passed"], row["elsewhere"]) == ("passed", 2, 1, 1)


@pytest.mark.parametrize("outcome", ["changed", "not recorded"])
def test_snapshot_to_review_has_its_outcome_and_fails_no_rule(outcome):
    """A snapshot to review gets its own outcome and the command that accepts it; its rule is counted, not failed."""
    node = "flatten/test_snapshots.py::test_rendered_request_matches_snapshot[go]"
    tally = _tally(
        _report(
            node,
            ["flatten.deterministic"],
            "failed",
            review=outcome,
            failed_rules=[],
            checked_rules=[],
            accept="python -m pytest --snapshot-update x",
        ),
        _report("t.py::b", ["flatten.deterministic"]),
    )
    report = tally.report()
    row = _row(tally, "flatten.deterministic")
    assert (row["outcome"], row["tests"], row[outcome]) == ("passed", 2, 1)
    assert [test["outcome"] for test in report["tests"] if test["nodeid"] == node] == [outcome]
    assert report["snapshots"][outcome] == [node]
    assert report["snapshots"]["accept"] == "python -m pytest --snapshot-update x"
    assert report["counts"]["tests"][outcome] == 1 and report["counts"]["rules"]["failed"] == 0


def test_rule_ids_the_catalogue_does_not_know_are_reported():
    """A failure blamed on a rule ID the catalogue does not know is reported with it, not dropped."""
    tally = _tally(
        _report("t.py::a", ["question.cap"], "failed", failed_rules=["question.cap"], unknown_rules=["question.kap"])
    )
    assert tally.report()["unknown_rules"] == {"question.kap": ["t.py::a"]}
    assert _row(tally, "question.cap")["outcome"] == "failed"
