"""The plugin blames a failure on the rules of its violations, several failing explicit examples included."""

from __future__ import annotations

from advisor_conformance._plugin import _violations
from advisor_conformance.checks import RuleViolation


def test_one_violation_is_its_own_blame():
    """A single rule violation is the whole blame."""
    error = RuleViolation("x", ["question.cap"])
    assert _violations(error) == [error]


def test_a_group_of_violations_is_blamed_on_each():
    """An exception group of violations (several explicit examples failing) yields every leaf, nested groups too."""
    first, second, third = (RuleViolation("a", ["question.trim"]), RuleViolation("b", ["question.cap"]),
                            RuleViolation("c", ["question.blank-line"]))
    group = ExceptionGroup("examples", [first, ExceptionGroup("more", [second, third])])
    assert _violations(group) == [first, second, third]


def test_a_group_with_another_error_is_not_blamed_on_violations_alone():
    """A group holding an error that is not a violation gives no rule blame (the test's own rules are named)."""
    group = ExceptionGroup("examples", [RuleViolation("a", ["question.trim"]), KeyError("messages")])
    assert _violations(group) == [] and _violations(ValueError("x")) == []
