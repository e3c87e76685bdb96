"""Broken implementations make the tests of the rule they break fail, with messages that name it.

Every rule of the catalogue has a broken implementation in ``advisor_conformance._broken``
(the reference with exactly that rule broken), and some rules have variants: further
plausible ways to break them (a byte-order mark removed, Unicode normalised, an event
stream read with a hand-written reader). All of them run in one pytest
session (``tests/support/matrix.py``), each against the tests of its own rule; the
tests of every broken implementation must fail, and every failure must name
the rule and show the input. The same tests pass against the reference in the
main run of the suite, so the failures come from the breakage.
"""

from __future__ import annotations

import pytest

from advisor_conformance._broken import load_entries, load_registry
from advisor_conformance.catalogue import load_catalogue

from ..support.matrix import REFERENCE_SNAPSHOTS, read_outcomes, run_matrix_session
from ..support.runner import SUITE

REGISTRY = load_registry()
ENTRIES = load_entries()  # the first broken implementation of every rule, and the variants


def test_every_rule_has_a_broken_implementation():
    """Each rule of the catalogue has a registered broken implementation, and each entry names a catalogue rule."""
    catalogue = load_catalogue()
    missing = sorted(set(catalogue.rules) - set(REGISTRY))
    unknown = sorted({entry.rule for entry in ENTRIES} - set(catalogue.rules))
    assert not missing, f"rules without a broken implementation: {missing}"
    assert not unknown, f"broken implementations of rules not in the catalogue: {unknown}"


@pytest.fixture(scope="module")
def broken_runs(tmp_path_factory, progress):
    """Every broken implementation run against its rule's tests: one pytest session over both cores."""
    tmp = tmp_path_factory.mktemp("broken")
    matrix = [
        {
            "id": entry.id,
            "target": entry.target,
            "rules": [entry.rule],
            **({"modules": list(entry.modules)} if entry.modules else {}),
        }
        for entry in ENTRIES
    ]
    run = run_matrix_session(
        matrix,
        tmp / "outcomes.jsonl",
        SUITE,
        "-n",
        "2",
        "--hypothesis-profile=advisor-conformance-mutation",
        REFERENCE_SNAPSHOTS,
        progress=progress,
        label="broken implementations",
    )
    return run, read_outcomes(tmp / "outcomes.jsonl")


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.id for entry in ENTRIES])
def test_broken_implementation_is_caught(broken_runs, entry):
    """Running a rule's tests against an implementation that breaks it fails them, naming the rule and the input."""
    run, outcomes = broken_runs
    records = outcomes.get(entry.id, [])
    assert records, f"no outcome for {entry.target}; the matrix run said:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    failed = [record for record in records if record["outcome"] == "failed"]
    assert failed, (
        f"the tests of {entry.rule} passed against {entry.target} ({entry.how}): "
        f"{[record['nodeid'] for record in records]}"
    )
    named = lambda record, rule: f"[{rule}" in record["message"] or f", {rule}" in record["message"]  # noqa: E731
    assert any(named(record, entry.rule) for record in failed), (
        f"no failure names {entry.rule}:\n{failed[0]['message'][:3000]}"
    )
    for record in failed:
        assert entry.rule in record["rules"], f"{record['nodeid']} does not carry {entry.rule}"
        assert any(named(record, rule) for rule in (entry.rule, *entry.also)), (
            f"the failure of {record['nodeid']} names neither {entry.rule} nor what it also breaks "
            f"({list(entry.also)}):\n{record['message'][:3000]}"
        )
        assert "input:" in record["message"] or "answer:" in record["message"], (
            f"the failure of {record['nodeid']} shows neither the input nor the answer:\n{record['message'][:3000]}"
        )


def test_every_failure_message_names_a_catalogue_rule(broken_runs):
    """Every failure of every broken implementation (in its rule's tests) starts by naming at least one rule of the
    catalogue: `[rule.id, ...] what differs`, whatever failed (a rule violation, a refusal, a crash of the test)."""
    from ..support.first_failure import names_a_rule

    _, outcomes = broken_runs
    failures = [record for records in outcomes.values() for record in records if record["outcome"] == "failed"]
    silent = [
        f"{record['nodeid']}: {record['message'][:300]}" for record in failures if not names_a_rule(record["message"])
    ]
    assert len(failures) > len(outcomes) and not silent, silent[:5]


def test_cross_rule_figure_sorts_each_failure_by_the_rules_it_is_blamed_on():
    """The cross-rule figure counts a failure as precise (its rule or what the mistake also breaks), over-broad,
    misattributed (only rules kept) or a documented dependency (a whole-request test)."""
    from ..support.cross_rule import classify

    entry = REGISTRY["request.prefix-stable-across-calls"]
    node = "conformance/advisor_conformance/tests/request/test_request.py::test_x"
    kinds = [
        classify({"nodeid": node, "failed_rules": rules}, entry)
        for rules in ([entry.rule], [*entry.also], [entry.rule, "flatten.args-json"], ["flatten.args-json"])
    ]
    snapshot = {
        "nodeid": "x/flatten/test_snapshots.py::test_rendered_request_matches_snapshot[a]",
        "failed_rules": ["flatten.deterministic"],
    }
    assert kinds == ["precise", "precise", "over-broad", "misattributed"] and entry.also
    assert classify(snapshot, entry) == "dependency"
