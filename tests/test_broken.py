"""Broken implementations make the tests of the rule they break fail, with messages that name it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from ._runner import run_pytest

# (adapter in tests.broken.adapters, the rule it breaks)
BROKEN = [
    ("marker_off_by_one", "elision.marker-format"),
    ("threshold_inclusive", "elision.threshold"),
    ("cut_by_characters", "elision.byte-cut"),
    ("in_flight_left_in_transcript", "inflight.assistant-removed"),
    ("advisor_note_as_tool_result", "flatten.advisor-note"),
    ("reasoning_leaked", "flatten.reasoning-cleared"),
    ("question_not_trimmed", "question.trim"),
    ("question_before_files", "request.final-message-order"),
    ("no_aggregate_cap", "files.aggregate-cap"),
    ("dedupe_on_partial_read", "dedupe.full-read-definition"),
    ("nine_files_allowed", "files.max-count"),
    ("python_replace_decoding", "files.invalid-utf8"),
    ("budget_per_handler", "budget.shared-counter"),
    ("child_shares_parent_counter", "budget.child-store"),
    ("subagent_uses_advisor_session", "transport.subagent-session"),
    ("store_key_ignored", "transport.cache-key-store"),
    ("use_on_missing_file", "handler.validation-no-use"),
    ("breakpoint_spacing_16", "breakpoints.spacing"),
    ("final_message_marked", "breakpoints.final-unmarked"),
    ("five_minute_advisor_ttl", "breakpoints.advisor-ttl"),
    ("cache_key_sent_to_anthropic", "wire.anthropic-no-key"),
    ("retry_on_every_400", "streaming.no-other-retry"),
    ("no_stream_required_retry", "streaming.stream-required-retry"),
]


@pytest.fixture(scope="module")
def broken_runs():
    """Each broken implementation run against its rule's tests, two runs at a time (they are separate processes)."""

    def one(entry):
        adapter, rule = entry
        return adapter, run_pytest("conformance/tests", f"--impl=tests.broken.adapters:{adapter}", "-m",
                                   f'rule(id="{rule}")', "-q", "--hypothesis-profile=advisor-conformance-noshrink")

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, BROKEN))


@pytest.mark.parametrize("adapter, rule", BROKEN, ids=[adapter for adapter, _ in BROKEN])
def test_broken_rule_is_caught(broken_runs, adapter, rule):
    """Running a rule's tests against an implementation that breaks it fails them, naming the rule and the input."""
    run = broken_runs[adapter]
    assert run.report is not None, f"no report from the run against {adapter}:\n{run.stdout}\n{run.stderr}"
    failed = run.failed_tests()
    assert run.returncode == 1 and failed, (
        f"the tests of {rule} passed against {adapter}, which breaks it:\n{run.stdout[-3000:]}"
    )
    assert all(rule in test["rules"] for test in failed), f"tests outside {rule} failed: {failed}"
    for test in failed:
        assert f"[{rule}" in test["message"] or f", {rule}" in test["message"], (
            f"the failure of {test['nodeid']} does not name {rule}:\n{test['message']}"
        )
        assert "input:" in test["message"], (
            f"the failure of {test['nodeid']} does not show the input:\n{test['message']}"
        )


def test_reference_passes_every_broken_rules_tests():
    """The same selection of tests passes against the reference, so the failures above come from the breakage."""
    expression = " or ".join(f'rule(id="{rule}")' for _, rule in BROKEN)
    run = run_pytest("conformance/tests", "--impl=reference", "-m", expression, "-q")
    assert run.returncode == 0, run.stdout[-3000:]
