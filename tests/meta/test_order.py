"""The suite runs in the catalogue's order of its rules, the simplest areas first, so ``-x`` stops at the simplest
rule that fails."""

from __future__ import annotations

import subprocess
import sys

from advisor_conformance.catalogue import load_catalogue

from ..support.runner import SUITE, clean_env, run_pytest


def test_tests_are_collected_in_the_catalogue_order_of_their_rules():
    """Each conformance test comes after the tests of every rule it names (by the latest of its rules), and the
    snapshots (review items, not rule checks) come last."""
    run = run_pytest(SUITE, "--co", "-q", "--impl=reference")
    assert run.returncode == 0 and run.report, run.stdout[-2000:] + run.stderr[-2000:]
    order = {rule_id: index for index, rule_id in enumerate(load_catalogue().rules)}
    rules_of: dict[str, list[str]] = {}
    for rule_id, nodeids in run.report["collected"].items():
        for nodeid in nodeids:
            rules_of.setdefault(nodeid, []).append(rule_id)
    collected = [line for line in run.stdout.splitlines() if "::" in line]
    keys = [
        (int("flatten/test_snapshots.py" in nodeid), max(order[rule] for rule in rules_of[nodeid]))
        for nodeid in collected
    ]
    assert len(collected) == len(rules_of) > 500
    late = [(collected[i], collected[i + 1]) for i in range(len(keys) - 1) if keys[i] > keys[i + 1]]
    assert not late, f"tests out of the catalogue's order, e.g. {late[:3]}"
    assert collected[0].split("::")[0].endswith("transcript/test_transcript.py"), collected[0]
    assert all("flatten/test_snapshots.py" in nodeid for nodeid in collected[-7:]), collected[-7:]


def test_skeletons_first_failure_is_a_rule_of_its_simplest_area(tmp_path):
    """The Python skeleton of `init` (it renders no files) stops, under `-x`, at a test of the first areas of the
    catalogue (the transcript model or the request), not at a dedupe block."""
    init = subprocess.run(
        [sys.executable, "-m", "advisor_conformance", "init", "--python", "skeleton_pkg"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert init.returncode == 0, init.stdout + init.stderr
    run = run_pytest("--impl=skeleton_pkg.advisor_adapter", "-x", "-q", cwd=tmp_path)
    failed = run.failed_tests()
    assert run.returncode == 1 and len(failed) == 1, run.stdout[-3000:]
    first = failed[0]
    assert first["failed_rules"] and {rule.split(".")[0] for rule in first["failed_rules"]} <= {
        "transcript",
        "request",
    }, (first["nodeid"], first["failed_rules"], first["message"][:500])
