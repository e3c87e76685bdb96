"""The rule catalogue: well formed, complete for covered areas, and printed by `advisor-conformance rules`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from advisor_conformance._contract.protocol import schema_errors
from advisor_conformance._tools.trace import collect_rule_tests
from advisor_conformance.catalogue import CatalogueError, load_catalogue, parse_catalogue
from advisor_conformance.vectors import load_all

from ..support.runner import ROOT

SPEC_AREAS = {
    "request",
    "flatten",
    "elision",
    "files",
    "question",
    "dedupe",
    "inflight",
    "budget",
    "transport",
    "streaming",
    "breakpoints",
}


@pytest.fixture(scope="module")
def rule_tests():
    return collect_rule_tests()


def test_every_rule_of_a_covered_area_has_a_test(rule_tests):
    """Each rule of an area the suite covers is carried by at least one collected conformance test."""
    missing = [rule.id for rule in load_catalogue().covered_rules() if rule.id not in rule_tests]
    assert not missing, f"rules of covered areas without a test: {missing}"


def test_areas_not_covered_have_no_tests_yet(rule_tests):
    """An area marked not covered has no tests; when it gets some, mark it covered so its rules are enforced."""
    catalogue = load_catalogue()
    early = sorted(
        {rule_id.split(".")[0] for rule_id in rule_tests} - {a for a, area in catalogue.areas.items() if area.covered}
    )
    assert not early, f"areas with tests but covered = false in rules.toml: {early}"


def test_catalogue_spans_every_area_of_the_spec():
    """The catalogue has rules for every area the spec describes."""
    catalogue = load_catalogue()
    empty = sorted(area for area in SPEC_AREAS if not catalogue.in_area(area))
    assert not empty, f"areas without rules: {empty}"


_AREA = '[[area]]\nid="a"\ntitle="A"\ncovered=true\n'


def _rule(rule_id="a.x", tag="SPEC", level="must", statement="s", extra=""):
    return f'[[rule]]\nid="{rule_id}"\ntag="{tag}"\nlevel="{level}"\nstatement="{statement}"\nsource="q"\n{extra}'


@pytest.mark.parametrize(
    "text, named",
    [
        (_AREA + _rule() + _rule(), "a.x"),
        (_AREA + _rule("a.Bad_Name"), "a.Bad_Name"),
        (_AREA + _rule("b.x"), "b.x"),
        (_AREA + _rule(tag="MAYBE"), "tag"),
        (_AREA + _rule(statement=" "), "statement"),
        (_AREA + _rule(level="could"), "level"),
        (_AREA + _rule(level="should"), "why"),
        (_AREA + _rule(extra='why="because"\n'), "why"),
        (_AREA + _rule(extra='owner="me"\n'), "owner"),
        (_AREA + _rule(extra="retired=true\n") + _rule(), "a.x"),
        (_AREA + _rule(extra='retired="yes"\n'), "retired"),
    ],
    ids=[
        "duplicate",
        "bad-id",
        "unknown-area",
        "unknown-tag",
        "empty-statement",
        "unknown-level",
        "should-without-why",
        "must-with-why",
        "unknown-key",
        "retired-id-reused",
        "retired-not-boolean",
    ],
)
def test_malformed_catalogues_are_rejected_naming_the_problem(text, named):
    """A catalogue with a duplicate or malformed ID, an unknown area, tag or level, an empty field, a should rule
    without its reason or an unknown key does not load, and the error names the rule and the faulty part."""
    with pytest.raises(CatalogueError) as info:
        parse_catalogue(text)
    assert named in str(info.value) and "rule[" in str(info.value)


def test_levels_and_reasons_load():
    """A should rule loads with its reason; a must rule without one."""
    catalogue = parse_catalogue(_AREA + _rule() + _rule("a.y", level="should", extra='why="safer"\n'))
    assert (catalogue["a.x"].level, catalogue["a.y"].level, catalogue["a.y"].why) == ("must", "should", "safer")


@pytest.mark.parametrize(
    "other",
    [
        _AREA + _rule(statement="t") + _rule("a.y"),
        _AREA + _rule(tag="ORIGIN") + _rule("a.y"),
        _AREA + _rule() + _rule("a.y") + _rule("a.z"),
        _AREA + _rule() + _rule("a.y", extra="retired=true\n"),
        _AREA + _rule(),
    ],
    ids=["statement-changed", "tag-changed", "rule-added", "rule-retired", "rule-removed"],
)
def test_catalogue_version_changes_with_any_rule(other):
    """The catalogue version changes when a rule is added, changed, retired or removed."""
    assert parse_catalogue(other).version != parse_catalogue(_AREA + _rule() + _rule("a.y")).version


def test_retired_rule_is_not_a_rule_of_the_suite():
    """A retired rule is kept by its ID (never reused) but is not a rule tests may name."""
    catalogue = parse_catalogue(_AREA + _rule() + _rule("a.y", extra="retired=true\n"))
    assert "a.y" not in catalogue and list(catalogue.retired) == ["a.y"]


def test_rules_document_is_current():
    """docs/rules.md is the document `advisor-conformance rules --markdown` renders from the catalogue."""
    from advisor_conformance import __version__
    from advisor_conformance.catalogue import markdown

    document = ROOT / "docs" / "rules.md"
    expected = markdown(load_catalogue(), __version__)
    assert document.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is out of date: advisor-conformance rules --markdown > docs/rules.md"
    )
    assert _cli("rules", "--markdown") == expected
    for rule in load_catalogue().rules.values():
        assert f"### `{rule.id}`" in expected


def test_every_area_lists_its_operations_and_vectors_use_them():
    """Each catalogue area names the operations its tests call, and each golden vector's operation is one that some
    area of its rules needs (a vector runs only where all its rules' areas are declared)."""
    from advisor_conformance._contract.protocol import AREA_OPERATIONS, OPERATIONS

    catalogue = load_catalogue()
    assert set(AREA_OPERATIONS) == set(catalogue.areas)
    assert all(ops and set(ops) <= set(OPERATIONS) - {"describe"} for ops in AREA_OPERATIONS.values())
    for case in load_all():
        areas = {rule.split(".")[0] for rule in case.rules}
        assert any(case.op in AREA_OPERATIONS[area] for area in areas), (case.key, case.op, sorted(areas))


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "advisor_conformance", *args], capture_output=True, text=True, check=True, timeout=300
    ).stdout


def test_rules_command_prints_id_tab_statement():
    """`advisor-conformance rules` prints one `ID<TAB>statement` line per rule of the catalogue."""
    lines = _cli("rules").splitlines()
    catalogue = load_catalogue()
    assert [line.split("\t") for line in lines] == [[r.id, r.statement] for r in catalogue.rules.values()]


def test_rules_json_lists_every_rule_with_tested_flag(rule_tests):
    """`advisor-conformance rules --json` gives the suite and catalogue versions and every rule with id, area, level,
    tag, statement, source, its partition's input classes, its plausible mistakes and tested."""
    from advisor_conformance import __version__
    from advisor_conformance.partition import load_mistakes, load_partitions

    printed = json.loads(_cli("rules", "--json"))
    catalogue = load_catalogue()
    assert (printed["suite"], printed["catalogue"], printed["retired"]) == (__version__, catalogue.version, [])
    rows = printed["rules"]
    assert [row["id"] for row in rows] == list(catalogue.rules)
    for row in rows:
        rule = catalogue[row["id"]]
        classes = [input_class.to_json() for input_class in load_partitions().get(rule.id, ())]
        mistakes = [mistake.to_json() for mistake in load_mistakes().get(rule.id, ())]
        assert row == {**rule.to_json(), "tested": rule.id in rule_tests, "partition": classes, "mistakes": mistakes}
    assert any(row["tested"] for row in rows)


def test_vectors_name_known_rules_and_valid_params():
    """Every golden vector (its rules, pins and segments) names catalogue rules and its input fits the operation's
    params schema."""
    catalogue = load_catalogue()
    for case in load_all():
        unknown = sorted(rule for rule in case.named_rules() if rule not in catalogue)
        assert not unknown, f"{case.key} names unknown rules {unknown}"
        assert not schema_errors(f"{case.op}.params", case.input), (
            f"{case.key}: {schema_errors(case.op + '.params', case.input)}"
        )


def test_vectors_carry_every_rule_they_blame():
    """A golden vector's rules list holds every rule its pins and segments can blame, so each failure it reports is
    of a test carrying that rule (the cross-rule figure counts by the rules a test carries)."""
    for case in load_all():
        missing = sorted(case.named_rules() - set(case.rules))
        assert not missing, f"{case.key}: pins or segments name {missing}, which its rules list lacks"


def test_every_rule_is_tagged_where_the_reference_implements_it():
    """Each rule of the catalogue has at least one `rule:` tag in the reference, and every tag names a known rule."""
    from advisor_conformance._tools.trace import implementation_sites

    sites = implementation_sites()
    rules = load_catalogue().rules
    missing = sorted(set(rules) - set(sites))
    unknown = sorted(set(sites) - set(rules))
    assert not missing, f"rules with no implementation site in the reference (tag them `# rule: ID`): {missing}"
    assert not unknown, f"tags of rules not in the catalogue: {[str(sites[rule][0]) for rule in unknown]}"


def test_tags_are_read_from_comments_and_docstrings():
    """A tag names one or several rules after `rule:` or `rules:`, separated by commas or `and`."""
    from advisor_conformance._tools.trace import tags_in

    text = (
        "x = 1  # rule: a.b\n"
        'def f():\n    """Does it (rules: c.d, e.f-g and h.i)."""\n'
        "y = 2  # no rule here: not.a.tag\n"
    )
    assert tags_in(text) == [
        (1, "x = 1  # rule: a.b", ["a.b"]),
        (3, '"""Does it (rules: c.d, e.f-g and h.i)."""', ["c.d", "e.f-g", "h.i"]),
    ]
