"""The independent JavaScript implementation passes the whole suite through its harness."""

from __future__ import annotations

import shutil

import pytest

from ..support.runner import ROOT, SUITE, run_pytest

HARNESS = "node examples/advisor-js/harness.js"


@pytest.mark.slow
def test_advisor_js_passes_the_suite():
    """advisor-js, run through the harness protocol, passes every test of every rule it declares."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    args = [SUITE, f"--impl=cmd:{HARNESS}", "-q"]
    xfails = ROOT / "examples" / "advisor-js" / "xfails.txt"
    if xfails.exists():
        args.append(f"--xfails-file={xfails}")
    run = run_pytest(*args)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    declared = set(run.report["implementation"]["areas"])
    untested = [row["id"] for row in run.report["rules"] if row["area"] in declared and row["outcome"] != "passed"]
    assert not untested, f"declared rules that did not pass: {untested}"
