"""A failure names the rule the mistake breaks and says what differs: realistic mistakes (tests/fakes/mistakes.py,
and the registry's missing retry) that once gave messages about another problem."""

from __future__ import annotations

import pytest

from ..support.runner import SUITE, run_pytest

CASES = {
    # a cap off by one: blamed on the cap, with the counts, not on a retry or a failed call's use
    "cap-off-by-one": (
        "tests.fakes.mistakes:CapOffByOne",
        ["budget/test_budget.py", "streaming/test_streaming.py", "handler/test_handler.py"],
        "budget.no-provider-call",
        {
            "budget.no-provider-call",
            "budget.zero-cap",
            "budget.shared-counter",
            "budget.child-store",
            "budget.exhausted-result",
            "handler.failure-consumes-use",
            "budget.child-default-cap",
        },
        "reached the provider",
    ),
    # no stream-required retry: the counts of requests made, not "the retry was retried"
    "missing-retry": (
        "advisor_conformance._broken.wire:NoStreamRequiredRetry",
        ["streaming/test_streaming.py"],
        "streaming.stream-required-retry",
        {"streaming.stream-required-retry"},
        "made 1 HTTP request",
    ),
    # a wrong closing fence: the file block's frame, with the region that differs
    "closing-fence": (
        "tests.fakes.mistakes:WrongClosingFence",
        ["files/test_files.py", "dedupe/test_dedupe.py"],
        "files.render-format",
        None,
        "departs at character",
    ),
    # a question capped before it is trimmed: the question's rules, not the order of the blocks
    "question-capped-first": (
        "tests.fakes.mistakes:QuestionCappedBeforeTrim",
        ["question/test_question.py", "test_vectors.py"],
        "question.cap",
        {"question.trim", "question.cap", "elision.byte-cut"},
        "departs at",
    ),
    # a child default cap of 2: budget.child-default-cap, not the shared counter
    "child-default-cap": (
        "tests.fakes.mistakes:ChildDefaultTwo",
        ["budget/test_budget.py", "test_vectors.py"],
        "budget.child-default-cap",
        {
            "budget.child-default-cap",
            "budget.exhausted-result",
            "budget.child-store",
            "budget.no-provider-call",
            "handler.failure-consumes-use",
        },
        "default cap",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_mistake_is_blamed_on_its_rule_with_what_differs(case):
    """Every failure the mistake causes is blamed on the rule it breaks (or, for the stated few, on rules the same
    mistake breaks as well), never on the rule of a test that only relies on it; one message says what differs."""
    target, modules, rule, allowed, detail = CASES[case]
    run = run_pytest(
        *(f"{SUITE}/{module}" for module in modules),
        f"--impl={target}",
        "-q",
        "--hypothesis-profile=advisor-conformance-explicit",
    )
    failed = run.failed_tests()
    assert failed, run.stdout[-2000:]
    blamed = {blame for test in failed for blame in test.get("failed_rules", test["rules"])}
    assert rule in blamed, blamed
    if allowed is None:  # only the rule itself
        allowed = {rule}
    assert blamed <= allowed, f"blamed on {sorted(blamed - allowed)} too: " + "; ".join(
        test["message"][:300] for test in failed if set(test.get("failed_rules", test["rules"])) - allowed
    )
    assert any(detail in test["message"] for test in failed if rule in test.get("failed_rules", [])), failed[0][
        "message"
    ]
