"""Capabilities and per-test needs, through real runs: declining black-box HTTP skips what goes over HTTP, naming
it; a declared capability that is not there, or declined under an area that needs it, stops the run first; a failure
is never blamed on a rule of an area the implementation does not declare."""

from __future__ import annotations

import pytest

from advisor_conformance._contract.implementation import load_target
from advisor_conformance._pytest_plugin.plugin import check_areas

from ..support.runner import SUITE, run_pytest


@pytest.mark.parametrize(
    "target, named",
    [
        ("StreamingWithoutHttp", ["streaming", "http"]),
        ("HttpUnanswered", ["http", "unsupported_op"]),
        ("HomeDirUnanswered", ["home_dir", "unsupported_op"]),
    ],
    ids=["declined-under-streaming", "offered-but-unanswered", "home-dir-offered-but-unanswered"],
)
def test_a_capability_declined_under_its_area_or_not_answered_stops_the_run_first(target, named):
    """Declaring streaming while describe declines http, or offering http when its probe is answered unsupported_op,
    is one usage error before any test (the start-of-run check, in process), naming what is wrong."""
    implementation = load_target(f"tests.fakes.partial:{target}")
    with pytest.raises(pytest.UsageError) as refused:
        check_areas(implementation)
    assert all(word in str(refused.value) for word in named), str(refused.value)


def test_tests_over_http_skip_naming_the_capability():
    """An implementation without an HTTP client that says nothing of capabilities (no streaming, no wire) gets every
    handler and budget test over HTTP skipped, naming the capability http, while the same rules' other tests run."""
    run = run_pytest(
        f"{SUITE}/handler/test_handler_notes.py",
        f"{SUITE}/budget/test_budget_failures.py",
        "--impl=tests.fakes.alternative:WithoutHttp",
        "-q",
        "-k",
        "over_http or http_call or cut_at",
    )
    assert run.returncode == 0 and run.report is not None, run.stdout[-2000:] + run.stderr[-2000:]
    tests = run.report["tests"]
    over_http = [test for test in tests if "http" in test["nodeid"]]
    assert len(over_http) >= 10 and all(
        test["outcome"] == "skipped" and "capability http" in test["message"] for test in over_http
    ), over_http[:3]
    assert any(test["outcome"] == "passed" for test in tests if "http" not in test["nodeid"]), tests


def test_an_implementation_written_before_home_dir_has_the_tilde_tests_skipped():
    """An implementation that does not declare the capability home_dir, and refuses runtime.home_dir as an unknown
    field, is never sent it: the tests of ~ in blocked paths are skipped, naming the capability, and none fails."""
    run = run_pytest(f"{SUITE}/workspace/test_workspace_home.py", "--impl=tests.fakes.partial:BeforeHomeDir", "-q")
    assert run.returncode == 0 and run.report is not None, run.stdout[-2000:] + run.stderr[-2000:]
    tests = run.report["tests"]
    assert len(tests) >= 5 and all(
        test["outcome"] == "skipped" and "capability home_dir" in test["message"] for test in tests
    ), tests[:3]


def test_a_failure_is_not_blamed_on_an_area_that_is_not_declared():
    """An implementation that offers http without declaring streaming, and streams every call, fails a handler test
    over HTTP on the handler's rule: the streaming rule its control names is of an undeclared area, and its row stays
    skipped."""
    run = run_pytest(
        f"{SUITE}/handler/test_handler_notes.py",
        "--impl=tests.fakes.partial:HttpWithoutStreamingAlwaysStreams",
        "-q",
        "-k",
        "test_answer_over_http_is_trimmed",
    )
    assert run.report is not None, run.stdout[-2000:] + run.stderr[-2000:]
    failed = run.failed_tests()
    assert failed and all(test["failed_rules"] == ["handler.note-trimmed"] for test in failed), failed[:2]
    rows = {row["id"]: row["outcome"] for row in run.report["rules"]}
    assert rows["handler.note-trimmed"] == "failed", rows["handler.note-trimmed"]
    assert all(outcome in ("skipped", "no tests") for rule, outcome in rows.items() if rule.startswith("streaming.")), {
        rule: outcome for rule, outcome in rows.items() if rule.startswith("streaming.")
    }
