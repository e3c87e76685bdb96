"""Areas stand alone: a test of a declared area never fails on the behaviour of an area that is not declared.

For each area B, ``tests.fakes.undeclared:without_B`` declares every other area and gets B's rules wrong (its broken
implementations combined). All of them run the suite in one session (``tests/support/matrix.py``), on the
deterministic examples: no test may fail. A test whose input needs B's behaviour avoids it, or skips naming B (a
``needs`` marker, or the areas an area's tests rely on: ``_pytest_plugin.needs.AREA_NEEDS``).

Sixteen implementations against the whole suite is the cost of showing it for every pair: a few minutes on two cores
(``-m slow``). Running each area's tests alone against an implementation that gets every other area wrong would cost
one suite, but it judges the mistakes together: two of them (an in-flight message left in the transcript, and its
tool calls kept beside the text) fail tests that neither fails alone.
"""

from __future__ import annotations

import importlib

import pytest

from advisor_conformance._broken import load_entries
from advisor_conformance.catalogue import load_catalogue
from advisor_reference.adapter import ReferenceAdapter

from ..fakes import undeclared
from ..support.matrix import read_outcomes, run_matrix_session
from ..support.runner import SUITE

AREAS = load_catalogue().areas


@pytest.fixture(scope="module")
def alone_runs(tmp_path_factory, progress):
    """Every ``without_B`` against the other areas' tests: one session over both cores."""
    tmp = tmp_path_factory.mktemp("alone")
    catalogue = load_catalogue()
    matrix = [
        {
            "id": f"without-{area}",
            "target": f"tests.fakes.undeclared:without_{area}",
            "rules": [rule for rule in catalogue.rules if catalogue[rule].area != area],
        }
        for area in AREAS
    ]
    run = run_matrix_session(
        matrix,
        tmp / "outcomes.jsonl",
        SUITE,
        "-n",
        "2",
        "--hypothesis-profile=advisor-conformance-explicit",
        # the snapshots hold whole requests to the reference's recordings: review items, not rules
        "-k",
        "not test_rendered_request_matches_snapshot",
        timeout=3600,
        progress=progress,
        label="areas alone",
    )
    return run, read_outcomes(tmp / "outcomes.jsonl")


def _failures(records):
    failed = [record for record in records if record["outcome"] == "failed"]
    shown = "\n".join(f"{record['nodeid']}: {record['message'][:400]}" for record in failed[:8])
    return failed, f"{len(failed)} failed:\n{shown}"


@pytest.mark.slow
@pytest.mark.parametrize("area", AREAS)
def test_no_test_fails_without_an_area_it_does_not_need(alone_runs, area):
    """An implementation that declares every area but one, whose rules it gets wrong, fails none of the other areas'
    tests; those that need the area are skipped, naming it."""
    run, outcomes = alone_runs
    records = outcomes.get(f"without-{area}", [])
    assert records, f"no outcome for without-{area}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    failed, shown = _failures(records)
    assert not failed, shown
    assert sum(record["outcome"] == "passed" for record in records) > len(records) // 2, records[:3]
    skipped = [
        record for record in records if record["outcome"] == "skipped" and "does not declare" in record["message"]
    ]
    assert all(area in record["message"] for record in skipped), skipped[:3]


@pytest.mark.parametrize("area", AREAS)
def test_each_fake_holds_every_broken_implementation_of_its_areas(area):
    """``without_A`` is built from every broken implementation of A's rules: each one's own parts (its adapter, builder,
    HTTP provider, runtime, handler, path policy, where they are not the reference's) are in the method order of the
    combined adapter's."""
    held = {cls for part in undeclared.parts(undeclared.without(area)) for cls in part.__mro__}
    for entry in load_entries():
        if entry.rule.split(".", 1)[0] != area:
            continue
        module, _, attribute = entry.target.partition(":")
        adapter = getattr(importlib.import_module(module), attribute)
        mine = set(undeclared.parts(adapter)) - set(undeclared.parts(ReferenceAdapter))
        if not undeclared.own_methods(adapter):
            mine.discard(adapter)  # a shell around its parts
        assert mine and mine <= held, f"{entry.id}: {mine - held} not in without_{area}"
