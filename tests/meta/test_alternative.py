"""Precision: an implementation that makes every choice the spec leaves open differently from the reference
(tests/fakes/alternative.py) passes every `must` test of the suite, or skips it naming what it does not declare; only
`should` tests may warn. It runs twice: as it is, and declining black-box HTTP as an implementation without an HTTP
client does (no streaming, no wire, unsupported_op for runtime.http_provider), where no rule of an undeclared area
may show failed."""

from __future__ import annotations

import pytest

from advisor_conformance.catalogue import load_catalogue

from ..support.runner import SUITE, run_pytest

TARGETS = {"as-is": "tests.fakes.alternative", "without-http": "tests.fakes.alternative:WithoutHttp"}
#: The modules whose every test goes over HTTP.
HTTP_MODULES = (
    "streaming/test_streaming.py",
    "streaming/test_streaming_answers.py",
    "streaming/test_streaming_credentials.py",
    "streaming/test_streaming_failures.py",
    "streaming/test_streaming_encodings.py",
    "streaming/test_streaming_http_edges.py",
    "streaming/test_streaming_decoding.py",
    "streaming/test_stream_contents.py",
    "streaming/test_stream_reads.py",
    "wire/test_wire_http.py",
)


@pytest.mark.slow
@pytest.mark.parametrize("target", list(TARGETS.values()), ids=list(TARGETS))
def test_alternative_implementation_passes_every_must_test(tmp_path, progress, target):
    """The whole suite against the alternative implementation (its snapshots recorded in the same run): no test
    fails; the tests that warn are all of `should` rules; every skip names what is not declared; no rule of an area
    it does not declare shows failed or warned."""
    run = run_pytest(
        SUITE,
        f"--impl={target}",
        f"--impl-snapshots={tmp_path / 'snapshots'}",
        "--snapshot-update",
        "-o",
        "conformance_strict_should=false",
        "-q",
        "-n",
        "2",
        progress=progress,
        label=f"the alternative implementation ({target})",
    )
    assert run.report is not None, run.stdout[-3000:] + run.stderr[-3000:]
    failed = run.failed_tests()
    assert not failed, f"{len(failed)} test(s) fail a conformant implementation:\n" + "\n".join(
        f"{test['nodeid']}: {test['message'][:600]}" for test in failed[:5]
    )
    assert run.returncode == 0, run.stdout[-3000:]
    catalogue = load_catalogue()
    tests = run.report["tests"]
    warned = {rule for test in tests if test["outcome"] == "warned" for rule in test.get("failed_rules", test["rules"])}
    assert all(catalogue[rule].level == "should" for rule in warned), sorted(warned)
    skipped = [test for test in tests if test["outcome"] == "skipped"]
    assert all(test.get("message", "").strip() for test in skipped), [
        t["nodeid"] for t in skipped if not t.get("message")
    ]
    declared = set(run.report["implementation"]["areas"])
    shown = {row["id"]: row["outcome"] for row in run.report["rules"] if row["area"] not in declared}
    assert all(outcome in ("skipped", "no tests") for outcome in shown.values()), {
        rule: outcome for rule, outcome in shown.items() if outcome not in ("skipped", "no tests")
    }
    counts = run.report["counts"]["tests"]
    if target == TARGETS["as-is"]:
        assert counts.get("passed", 0) > 1000, counts
        return
    # declining HTTP: every test over HTTP is skipped, naming the capability
    assert {"wire", "streaming"}.isdisjoint(declared) and shown, declared
    over_http = [
        test
        for test in tests
        if test["nodeid"].split("::")[0].endswith(HTTP_MODULES)
        or "over_http" in test["nodeid"]
        or "failed_http_call" in test["nodeid"]
    ]
    assert len(over_http) > 200 and all(test["outcome"] == "skipped" for test in over_http), [
        test["nodeid"] for test in over_http if test["outcome"] != "skipped"
    ][:5]
    # a call over HTTP is read by the streaming rules (CAPABILITY_AREAS), so each also names the undeclared area
    assert all("capability http" in test["message"] for test in over_http), [
        test["message"] for test in over_http if "capability http" not in test["message"]
    ][:3]
    legs = {
        test["nodeid"].rsplit("[", 1)[-1].split("-")[0]: test
        for test in tests
        if "breakpoints/test_cache_efficiency.py" in test["nodeid"]
    }
    assert (
        legs["anthropic"]["outcome"] == "passed"
        and legs["openai"]["outcome"] == legs["codex"]["outcome"] == "skipped"
        and "wire" in legs["codex"]["message"]
    ), legs
    assert counts.get("passed", 0) > 800, counts
