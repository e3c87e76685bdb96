"""The plugin blames a failure on the rules of its violations, several failing explicit examples included."""

from __future__ import annotations

from advisor_conformance._pytest_plugin.plugin import _violations
from advisor_conformance.catalogue import load_catalogue
from advisor_conformance.checks import RuleViolation

ALL_AREAS = set(load_catalogue().areas)


def test_one_violation_is_its_own_blame():
    """A single rule violation is the whole blame."""
    error = RuleViolation("x", ["question.cap"])
    assert _violations(error) == [error]


def test_a_group_of_violations_is_blamed_on_each():
    """An exception group of violations (several explicit examples failing) yields every leaf, nested groups too."""
    first, second, third = (
        RuleViolation("a", ["question.trim"]),
        RuleViolation("b", ["question.cap"]),
        RuleViolation("c", ["question.blank-line"]),
    )
    group = ExceptionGroup("examples", [first, ExceptionGroup("more", [second, third])])
    assert _violations(group) == [first, second, third]


def test_a_group_with_another_error_is_not_blamed_on_violations_alone():
    """A group holding an error that is not a violation gives no rule blame (the test's own rules are named)."""
    group = ExceptionGroup("examples", [RuleViolation("a", ["question.trim"]), KeyError("messages")])
    assert _violations(group) == [] and _violations(ValueError("x")) == []


def test_a_refusal_is_blamed_on_the_rules_of_the_test_that_made_the_call():
    """An operation that answered an error where an answer was expected is blamed on the test's own rules, whatever
    rule the helper that read the answer named."""
    from advisor_conformance._pytest_plugin.plugin import blame_of
    from advisor_conformance.checks import refusal

    error = refusal("streaming.non-streaming-default", "the scenario as a whole was refused")
    assert blame_of(error, ["handler.note-trimmed"], ALL_AREAS) == (["handler.note-trimmed"], [])


def test_rule_ids_the_catalogue_does_not_know_are_returned_not_dropped():
    """A violation naming an ID the catalogue does not know returns it apart; with no known rule at all, the failure
    counts against the test's own rules."""
    from advisor_conformance._pytest_plugin.plugin import blame_of

    assert blame_of(RuleViolation("x", ["question.cap", "question.kap"]), ["question.trim"], ALL_AREAS) == (
        ["question.cap"],
        ["question.kap"],
    )
    assert blame_of(RuleViolation("x", ["question.kap"]), ["question.trim"], ALL_AREAS) == (
        ["question.trim"],
        ["question.kap"],
    )


def test_a_rule_of_an_area_not_declared_is_never_blamed():
    """A violation naming only rules of areas the implementation does not declare counts against the test's own
    rules; named beside a rule of a declared area, only that rule is blamed."""
    from advisor_conformance._pytest_plugin.plugin import blame_of

    named = RuleViolation("x", ["streaming.anthropic-events", "handler.note-trimmed"])
    assert blame_of(named, ["handler.empty-answer-note"], {"handler"}) == (["handler.note-trimmed"], [])
    assert blame_of(RuleViolation("x", ["streaming.anthropic-events"]), ["handler.empty-answer-note"], {"handler"}) == (
        ["handler.empty-answer-note"],
        [],
    )
