"""What a failing conformance test adds to its blame in a real run: the known mistake its answer matched (narrowing
the blame, never the verdict), and the wire a black-box test saw."""

from __future__ import annotations

import pytest

from ..support.runner import SUITE, run_pytest

FEATURELESS = "--impl=advisor_conformance._broken.features:PredatesInFlightLabel"


def _tests(run):
    return {test["nodeid"].rsplit("::", 1)[-1]: test for test in run.report["tests"]}


@pytest.mark.slow  # a run of the in-flight area (several seconds)
def test_a_failure_names_the_known_mistake_it_matches_and_is_blamed_on_its_rule():
    """Against an implementation without in-flight handling, a failing in-flight test says which known mistake its
    answer is, blames that mistake's rules, and keeps where the difference was located in the JSON report."""
    run = run_pytest(
        f"{SUITE}/inflight/test_inflight.py", FEATURELESS, "-q", "--hypothesis-profile=advisor-conformance-explicit"
    )
    failed = [test for test in run.report["tests"] if test["outcome"] == "failed"]
    assert failed, run.stdout[-2000:]
    diagnosed = [test for test in failed if test.get("diagnosis")]
    assert diagnosed, [test["message"][:200] for test in failed]
    for test in diagnosed:
        assert "inflight.label-at-head~predates-label" in {match["mistake"] for match in test["diagnosis"]}
        assert set(test["failed_rules"]) <= {"inflight.label-at-head", "inflight.assistant-removed"}
        assert "located_rules" in test and "known mistake" in test["message"]


@pytest.mark.slow  # two runs of the in-flight area
def test_the_diagnosis_never_changes_a_verdict(monkeypatch):
    """The same run without the diagnosis has the very same outcome for every test: only the blame differs."""
    args = (
        f"{SUITE}/inflight/test_inflight.py",
        FEATURELESS,
        "-q",
        "--hypothesis-profile=advisor-conformance-explicit",
    )
    with_it = run_pytest(*args)
    monkeypatch.setenv("ADVISOR_CONFORMANCE_DIAGNOSIS", "0")
    without = run_pytest(*args)
    outcomes = lambda run: {key: test["outcome"] for key, test in _tests(run).items()}  # noqa: E731
    assert outcomes(with_it) == outcomes(without)
    assert not any(test.get("diagnosis") for test in _tests(without).values())


def test_a_failing_black_box_test_shows_the_wire_it_saw():
    """A failing test that went through the loopback provider reports the requests it received (headers and body) and
    the replies it sent (tests/suite/test_diagnosis.py shows a credential header's value removed)."""
    run = run_pytest(
        f"{SUITE}/streaming/test_streaming.py",
        "--impl=advisor_conformance._broken.wire:NoStreamRequiredRetry",
        "-q",
        "-k",
        "test_stream_required_is_retried_once_as_a_stream",
    )
    failed = [test for test in run.report["tests"] if test["outcome"] == "failed"]
    assert failed, run.stdout[-2000:]
    for test in failed:
        assert "request 1:" in test["wire"] and "reply 1:" in test["wire"], test.get("wire")
        assert "headers:" in test["wire"] and "body:" in test["wire"]
    assert "the wire seen by the loopback provider" in run.stdout
