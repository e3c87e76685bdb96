"""Selecting the suite's tests by rule: `rule(id=...)`, `rule(area=...)`, `rule(level=...)` in a `-m` expression."""

from __future__ import annotations

import pytest

from advisor_conformance._pytest_plugin.markers import problems, rule_selections
from advisor_conformance.catalogue import load_catalogue


def test_rule_calls_of_an_expression_are_read_with_their_arguments():
    """Every `rule(...)` of a marker expression is read, quoted with either quote or bare, with each argument."""
    expression = """not slow and (rule(id="elision.marker-format", area='elision') or rule(level=must))"""
    assert rule_selections(expression) == [("id", "elision.marker-format"), ("area", "elision"), ("level", "must")]
    assert rule_selections("rule or not slow") == []


def test_names_of_the_catalogue_are_no_problem():
    """An ID, area and level of the catalogue, or an expression without rule(...), select without a problem."""
    catalogue = load_catalogue()
    rule = next(iter(catalogue.rules.values()))
    assert problems(f'rule(id="{rule.id}") and rule(area="{rule.area}") or rule(level="should")') == []
    assert problems("not slow") == []


@pytest.mark.parametrize(
    "expression, named, suggested",
    [
        ('rule(id="elision.marker-formt")', "elision.marker-formt", "elision.marker-format"),
        ('rule(area="elison")', "elison", "elision"),
        ('rule(level="musst")', "musst", "must"),
        ('rule(aera="elision")', "aera", "area"),
        ('rule("elision.marker-format")', "elision.marker-format", None),
    ],
    ids=["rule", "area", "level", "keyword", "positional"],
)
def test_a_name_outside_the_catalogue_is_a_problem_with_the_closest_names(expression, named, suggested):
    """An unknown rule ID, area, level or keyword in rule(...) is a problem naming it and the closest known name."""
    (problem,) = problems(expression)
    assert named in problem
    assert suggested is None or suggested in problem.split(named, 1)[1]


def test_every_problem_of_an_expression_is_told():
    """Each faulty rule(...) of one expression is a problem of its own."""
    assert len(problems('rule(id="nope.nope") or rule(area="nowhere")')) == 2
