"""Precision across rules, in CI: every known mistake against every golden vector, and a fixed sample of them (with
the implementations that each lack one newer feature of the spec) against the whole suite.

The golden vectors are where one difference most easily cascades (a vector names many rules and pins whole
messages or sessions), so CI holds them to no misattribution at all. The whole catalogue against the whole suite is
measured by ``python3 -m tests.support.cross_rule`` (outside CI for its length; docs/measured.md gives the figure);
CI runs its fixed sample (``--sample``) and the feature-lacking implementations, each of whose failures across the
whole suite must be blamed on its own rules only.
"""

from __future__ import annotations

import pytest

from ..support.cross_rule import SAMPLE, entries, isolated, run_matrix, summarise, tally
from ..support.runner import SUITE

pytestmark = pytest.mark.slow

#: Implementations that lack one newer feature of the spec, each with the rules of that feature: the in-flight
#: removal alone, the in-flight label (no in-flight handling at all), the deduped-file notice, transport sessions.
FEATURES = {
    "inflight.assistant-removed": {"inflight.assistant-removed"},
    "inflight.label-at-head~predates-label": {"inflight.label-at-head", "inflight.assistant-removed"},
    "dedupe.notice~predates-notice": {"dedupe.notice"},
    "transport.main-session~predates-sessions": {"transport.main-session", "transport.subagent-session"},
}


def test_no_vector_failure_is_blamed_only_on_rules_the_broken_implementation_keeps(tmp_path):
    """Each known mistake's golden-vector failures name its own rule (or what the same mistake also breaks), never
    only rules it keeps."""
    outcomes = tmp_path / "outcomes.jsonl"
    run_matrix(outcomes, [f"{SUITE}/test_vectors.py"])
    text, _ = summarise(outcomes)
    kinds, _, _ = tally(outcomes)
    assert "failures: 0 precise" not in text, f"the matrix ran no failing vector:\n{text}"
    assert sum(counts["misattributed"] for counts in kinds.values()) == 0, text


@pytest.fixture(scope="module")
def whole_suite(tmp_path_factory):
    """The sample and the feature-lacking implementations against every deterministic test of the suite."""
    outcomes = tmp_path_factory.mktemp("cross") / "outcomes.jsonl"
    run_matrix(outcomes, ids=sorted({*SAMPLE, *FEATURES}))
    return outcomes


def test_every_failure_of_the_sample_is_blamed_on_its_own_rules(whole_suite):
    """Each known mistake of the fixed sample fails some test, and every failure across the whole suite is blamed
    only on its own rule (or what the same mistake also breaks), or is a documented dependency."""
    text, _ = summarise(whole_suite)
    kinds, _, _ = tally(whole_suite)
    for key in SAMPLE:
        assert sum(kinds[key].values()), f"{key} failed no test:\n{text}"
        assert isolated(kinds[key]), text


@pytest.mark.parametrize("key", list(FEATURES))
def test_an_implementation_lacking_one_feature_fails_only_that_features_rules(whole_suite, key):
    """An implementation that lacks one newer feature fails some test, and every failure across the whole suite is
    blamed only on that feature's rules (snapshots and the cache-efficiency measure, which judge whole requests,
    aside)."""
    assert FEATURES[key] == {entries()[key].rule, *entries()[key].also}
    kinds, examples, _ = tally(whole_suite)
    assert kinds[key]["precise"], f"{key} failed no test of its feature"
    assert isolated(kinds[key]), examples[key]
