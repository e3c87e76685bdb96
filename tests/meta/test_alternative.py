"""Precision: an implementation that makes every choice the spec leaves open differently from the reference
(tests/fakes/alternative.py) passes every `must` test of the suite; only `should` tests may warn."""

from __future__ import annotations

import pytest

from advisor_conformance.catalogue import load_catalogue

from ..support.runner import SUITE, run_pytest


@pytest.mark.slow
def test_alternative_implementation_passes_every_must_test(tmp_path, progress):
    """The whole suite against the alternative implementation (its snapshots recorded in the same run): no test
    fails; the tests that warn are all of `should` rules."""
    run = run_pytest(SUITE, "--impl=tests.fakes.alternative", f"--impl-snapshots={tmp_path / 'snapshots'}",
                     "--snapshot-update", "-o", "conformance_strict_should=false", "-q", "-n", "2",
                     progress=progress, label="the alternative implementation")
    assert run.report is not None, run.stdout[-3000:] + run.stderr[-3000:]
    failed = run.failed_tests()
    assert not failed, f"{len(failed)} test(s) fail a conformant implementation:\n" + "\n".join(
        f"{test['nodeid']}: {test['message'][:600]}" for test in failed[:5])
    assert run.returncode == 0, run.stdout[-3000:]
    catalogue = load_catalogue()
    warned = {rule for test in run.report["tests"] if test["outcome"] == "warned"
              for rule in test.get("failed_rules", test["rules"])}
    assert all(catalogue[rule].level == "should" for rule in warned), sorted(warned)
    counts = run.report["counts"]["tests"]
    assert counts.get("passed", 0) > 400, counts
