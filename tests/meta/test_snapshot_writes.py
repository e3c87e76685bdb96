"""The suite's own writes in a real run: snapshots of any text recorded whole and compared equal later; the shipped
snapshots never selected by an implementation's name; an unwritable rule report a usage error before the run."""

from __future__ import annotations

import os

from ..support.runner import ROOT, SUITE, run_pytest

SNAPSHOTS = f"{SUITE}/flatten/test_snapshots.py"
SHIPPED = ROOT / "snapshots" / "reference" / "test_snapshots.ambr"


def test_answers_with_a_lone_surrogate_are_recorded_whole_and_compare_equal_later(tmp_path, monkeypatch):
    """An implementation that cuts an emoji in half records all 7 snapshots with --snapshot-update, and the next run
    compares equal to them."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # ROOT's ini is the run's (its -n auto undone): its folder is the project's, so the snapshots are named apart
    folder = tmp_path / "snapshots" / "cut-emoji"
    args = ["--impl=tests.fakes.renamed:CutEmoji", f"--impl-snapshots={folder}", str(ROOT / SNAPSHOTS), "-q", "-n", "0"]
    recorded = run_pytest(*args, "--snapshot-update", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stdout[-2000:] + recorded.stderr[-2000:]
    stored = (folder / "test_snapshots.ambr").read_bytes()
    assert stored.count(b"# name: ") == 7 and b"\\ud83d" in stored
    again = run_pytest(*args, cwd=tmp_path)
    assert again.returncode == 0 and {test["outcome"] for test in again.report["tests"]} == {"passed"}, again.stdout


def test_an_implementation_named_reference_never_writes_the_shipped_snapshots():
    """Run where the shipped snapshots are snapshots/reference/, an implementation calling itself reference stops
    with a usage error naming them, before any test, and they stay as they were."""
    before = SHIPPED.read_bytes()
    run = run_pytest("--impl=tests.fakes.renamed:NamedReference", "--snapshot-update", SNAPSHOTS, "-q")
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
    assert str(SHIPPED.parent) in run.stderr and "--impl-snapshots" in run.stderr, run.stderr
    assert SHIPPED.read_bytes() == before


def test_a_rule_report_that_cannot_be_written_is_a_usage_error_before_the_run(tmp_path):
    """--rule-report into a folder that does not exist stops the run at once (exit 4), naming the option and path."""
    path = tmp_path / "missing" / "rules.json"
    run = run_pytest(SNAPSHOTS, f"--rule-report={path}", "-q")
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"--rule-report {path}" in run.stderr and "passed" not in run.stdout, run.stderr
