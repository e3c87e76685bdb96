"""Capabilities, providers and per-test needs, through real runs: declining black-box HTTP skips what goes over HTTP,
naming it; a test over HTTP needs streaming; an implementation of one provider gets the others' tests skipped; a
declared capability or provider that is not there, or an area declared without what it needs, stops the run first."""

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
        ("CodexDeclaredNotEncoded", ["codex", "absent", "encode", "HTTP"]),
        ("BreakpointsWithoutAnthropic", ["breakpoints", "anthropic"]),
    ],
    ids=[
        "declined-under-streaming",
        "offered-but-unanswered",
        "home-dir-offered-but-unanswered",
        "provider-declared-but-absent",
        "area-without-provider",
    ],
)
def test_a_capability_declined_under_its_area_or_not_answered_stops_the_run_first(target, named):
    """Declaring streaming while describe declines http, offering http when its probe is answered unsupported_op,
    declaring a provider that an encode for it and a call over HTTP to it answer unsupported_op, or declaring
    breakpoints without the provider anthropic, is one usage error before any test (the start-of-run check, in
    process), naming what is wrong."""
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


def test_a_test_over_http_is_skipped_naming_streaming_when_it_is_not_declared():
    """An implementation that offers http without declaring streaming, and streams every call, gets the handler's
    tests over HTTP skipped, naming the area streaming (a call over HTTP is sent and read by its rules): none fails,
    and no rule of streaming is shown failed."""
    run = run_pytest(
        f"{SUITE}/handler/test_handler_notes.py",
        "--impl=tests.fakes.partial:HttpWithoutStreamingAlwaysStreams",
        "-q",
        "-k",
        "test_answer_over_http_is_trimmed",
    )
    assert run.returncode == 0 and run.report is not None, run.stdout[-2000:] + run.stderr[-2000:]
    tests = run.report["tests"]
    assert tests and all(test["outcome"] == "skipped" and "area(s) streaming" in test["message"] for test in tests), (
        tests[:2]
    )
    rows = {row["id"]: row["outcome"] for row in run.report["rules"]}
    assert all(outcome in ("skipped", "no tests") for rule, outcome in rows.items() if rule.startswith("streaming.")), {
        rule: outcome for rule, outcome in rows.items() if rule.startswith("streaming.")
    }


def test_an_implementation_of_one_provider_gets_that_provider_tested_and_the_others_skipped():
    """An implementation that declares only the provider anthropic (and wire and streaming) passes the Anthropic
    encoding and stream-reading tests, and every test of OpenAI or Codex is skipped, naming the provider."""
    run = run_pytest(
        f"{SUITE}/wire/test_wire.py",
        f"{SUITE}/streaming/test_streaming.py",
        "--impl=tests.fakes.partial:OneProvider",
        "--hypothesis-profile=advisor-conformance-explicit",
        "-q",
        "-k",
        "endpoint_and_json_body or anthropic_version_header or one_plain_call or streams_only or stream_required_means",
    )
    assert run.returncode == 0 and run.report is not None, run.stdout[-2000:] + run.stderr[-2000:]
    tests = run.report["tests"]
    others = [test for test in tests if test["outcome"] == "skipped" and "provider" in test["message"]]
    assert {"provider openai", "provider codex"} <= {
        f"provider {name}" for test in others for name in ("openai", "codex") if f"provider {name}" in test["message"]
    }, others[:3]
    assert not [test for test in others if "provider anthropic" in test["message"]], others[:3]
    ran = {test["nodeid"].split("::")[0].rsplit("/", 1)[1] for test in tests if test["outcome"] == "passed"}
    assert ran == {"test_wire.py", "test_streaming.py"}, ran
    assert all(test["outcome"] in ("passed", "skipped") for test in tests), run.failed_tests()[:2]
