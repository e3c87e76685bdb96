"""Broken implementations make the tests of the rule they break fail, with messages that name it.

Every rule of the catalogue has a broken implementation in ``tests/broken``
(the reference with exactly that rule broken). Each runs, in a pytest process
of its own, against the tests of its rule only (``-m 'rule(id=...)'``); the
run must fail, and every failure must name the rule and show the input. The
same tests pass against the reference in the main run of the suite, so the
failures come from the breakage.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from conformance.catalogue import load_catalogue

from ._runner import ROOT, run_pytest
from .broken import load_registry

REGISTRY = load_registry()
ENTRIES = sorted(REGISTRY.values(), key=lambda entry: entry.rule)


def test_every_rule_has_a_broken_implementation():
    """Each rule of the catalogue has a registered broken implementation, and each entry names a catalogue rule."""
    catalogue = load_catalogue()
    missing = sorted(set(catalogue.rules) - set(REGISTRY))
    unknown = sorted(set(REGISTRY) - set(catalogue.rules))
    assert not missing, f"rules without a broken implementation: {missing}"
    assert not unknown, f"broken implementations of rules not in the catalogue: {unknown}"


@pytest.fixture(scope="module")
def broken_runs():
    """Each broken implementation run against its rule's tests, on every core (they are separate processes)."""

    def one(entry):
        # A broken implementation is the reference with one rule broken: its rendered requests are held to the
        # reference's snapshots, so a snapshot test fails only where the breakage changes a request.
        return entry.rule, run_pytest("conformance/tests", f"--impl={entry.target}", "-m", f'rule(id="{entry.rule}")',
                                      "-q", "--hypothesis-profile=advisor-conformance-noshrink",
                                      f"--impl-snapshots={ROOT / 'snapshots' / 'reference'}")

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(pool.map(one, ENTRIES))


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.rule for entry in ENTRIES])
def test_broken_implementation_is_caught(broken_runs, entry):
    """Running a rule's tests against an implementation that breaks it fails them, naming the rule and the input."""
    run = broken_runs[entry.rule]
    assert run.report is not None, f"no report from the run against {entry.target}:\n{run.stdout}\n{run.stderr}"
    failed = run.failed_tests()
    assert run.returncode == 1 and failed, (
        f"the tests of {entry.rule} passed against {entry.target} ({entry.how}):\n{run.stdout[-3000:]}"
    )
    for test in failed:
        assert entry.rule in test["rules"], f"{test['nodeid']} does not carry {entry.rule}"
        assert f"[{entry.rule}" in test["message"] or f", {entry.rule}" in test["message"], (
            f"the failure of {test['nodeid']} does not name {entry.rule}:\n{test['message']}"
        )
        assert "input:" in test["message"] or "answer:" in test["message"], (
            f"the failure of {test['nodeid']} shows neither the input nor the answer:\n{test['message']}"
        )
