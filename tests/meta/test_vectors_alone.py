"""The golden vectors prove themselves: run alone, they catch the broken implementation of every rule they cover.

Each broken implementation (``advisor_conformance._broken``) whose rule some golden vector names runs against
``test_vectors.py`` only, restricted to the vectors that name its rule (one pytest session,
``tests/support/matrix.py``). A vector that names a rule but cannot tell an implementation that breaks it
from the reference is a vector that pins nothing of that rule.
"""

from __future__ import annotations

import pytest

from advisor_conformance._broken import load_registry
from advisor_conformance.vectors import load_all

from ..support.matrix import REFERENCE_SNAPSHOTS, read_outcomes, run_matrix_session
from ..support.runner import SUITE

REGISTRY = load_registry()
NAMED = sorted({rule for case in load_all() for rule in case.rules} & set(REGISTRY))
#: Rules some vector names whose broken implementation no golden vector can catch, each with the reason; the tests
#: of the rule's own module catch it (tests/meta/test_broken.py).
EXEMPT = {
    "handler.one-request": "the mistake (a stale snapshot in a later call of the same turn) shows only in the shaped "
    "messages, which runtime vectors leave to the shape vectors ($ignore), so that a shaping "
    "mistake never fails a runtime vector",
    "wire.anthropic-nonempty": "the mistake (an empty user message sent as an empty text block) has two conformant "
    "answers, leaving the message out or sending it with text: a vector holds one answer",
}
COVERED = [rule for rule in NAMED if rule not in EXEMPT]


@pytest.fixture(scope="module")
def vector_runs(tmp_path_factory, progress):
    """Every broken implementation of a rule the vectors cover, against those vectors alone."""
    tmp = tmp_path_factory.mktemp("vectors-alone")
    matrix = [{"id": rule, "target": REGISTRY[rule].target, "rules": [rule]} for rule in COVERED]
    run = run_matrix_session(
        matrix,
        tmp / "outcomes.jsonl",
        f"{SUITE}/test_vectors.py",
        REFERENCE_SNAPSHOTS,
        progress=progress,
        label="golden vectors alone",
    )
    return run, read_outcomes(tmp / "outcomes.jsonl")


def test_vectors_cover_most_rules_and_every_exemption_is_named_by_a_vector():
    """The golden vectors name most rules of the catalogue, and each exempt rule is one they name."""
    assert len(NAMED) >= 90, NAMED
    assert set(EXEMPT) <= set(NAMED), sorted(set(EXEMPT) - set(NAMED))


@pytest.mark.parametrize("rule", COVERED)
def test_vectors_alone_catch_the_broken_implementation(vector_runs, rule):
    """The vectors that name a rule fail against the implementation that breaks it, blaming that rule."""
    run, outcomes = vector_runs
    records = outcomes.get(rule, [])
    assert records, f"no vector outcome for {rule}; the run said:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    blamed = [
        record
        for record in records
        if record["outcome"] == "failed" and {rule, *REGISTRY[rule].also} & set(record["failed_rules"])
    ]
    assert blamed, (
        f"{len(records)} vectors name {rule}, and none fails blaming it against "
        f"{REGISTRY[rule].target} ({REGISTRY[rule].how}): "
        f"{[record['nodeid'].rsplit('[', 1)[-1] for record in records][:20]}"
    )
