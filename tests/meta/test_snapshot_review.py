"""Snapshots are review items, not rule failures: a changed or missing snapshot has its own outcome everywhere."""

from __future__ import annotations

import json

from advisor_conformance._tools.cli import main

from ..support.runner import run_pytest

SELECT = ["-k", "test_rendered_request_matches_snapshot", "-q", "--rule-summary"]


def test_changed_snapshot_fails_the_run_as_a_review_item_not_a_rule(tmp_path):
    """A reworded prompt gives its snapshots the outcome "changed" with the command that accepts them: the run fails
    (a review gate), no rule is failed in the summary or the report, `compare` lists it as a review and exits 0, and
    the HTML report lists it apart. (A missing snapshot's "not recorded": test_plugin.py.)"""
    snapshots = f"--impl-snapshots={tmp_path / 'snaps'}"
    recorded = run_pytest("--impl=tests.fakes.renamed", snapshots, "--snapshot-update", *SELECT)
    assert recorded.returncode == 0, recorded.stdout[-2000:]
    changed = run_pytest("--impl=tests.fakes.renamed:Reworded", snapshots, *SELECT)
    assert changed.returncode == 1, changed.stdout[-2000:]
    report = changed.report
    assert {test["outcome"] for test in report["tests"]} == {"changed"}
    assert report["counts"]["rules"]["failed"] == 0
    row = next(row for row in report["rules"] if row["id"] == "flatten.deterministic")
    assert row["outcome"] == "not checked" and row["changed"] == row["tests"] > 0, row
    accept = report["snapshots"]["accept"]
    assert "--snapshot-update" in accept and "--impl=tests.fakes.renamed:Reworded" in accept, accept
    assert "snapshots to review" in changed.stdout and accept in changed.stdout, changed.stdout[-3000:]
    assert "changed" in changed.stdout and "flatten.deterministic  must    failed" not in changed.stdout
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(recorded.report), encoding="utf-8")
    new.write_text(json.dumps(report), encoding="utf-8")
    assert main(["compare", str(old), str(new)]) == 0
    page = tmp_path / "page.html"
    assert main(["report", str(old), str(new), "-o", str(page)]) == 0
    assert 'id="reviews"' in page.read_text(encoding="utf-8")
