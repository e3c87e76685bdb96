"""The entries of an xfails file: how a line is read, and which failures an entry expects."""

from __future__ import annotations

from advisor_conformance._pytest_plugin.xfails import Entry, Expectation, parse

NODE = "elision/test_elision.py::test_marker_reports_the_true_length[1001]"


def test_lines_are_read_as_rules_nodes_and_checks():
    """A rule ID, a node ID (as printed from an installed suite too) and a node ID with a rule (a check) are read,
    with their comments and line numbers; blank and comment lines are skipped."""
    text = (
        "# known differences\n\nelision.marker-format  # a NUL\n"
        f".venv/lib/site-packages/advisor_conformance/tests/{NODE}\n{NODE} elision.marker-format # one check\n"
    )
    rule, node, check = parse(text, "x.txt")
    assert (rule.text, rule.rule, rule.comment, rule.line, rule.is_node) == (
        "elision.marker-format",
        "",
        "a NUL",
        3,
        False,
    )
    assert (node.text, node.rule, node.line) == (NODE, "", 4)
    assert (check.text, check.rule, check.comment, check.line) == (NODE, "elision.marker-format", "one check", 5)


def _entry(text: str, line: int, rule: str = "") -> Entry:
    return Entry(text, "", line, "x.txt", rule)


def test_a_rule_entry_covers_a_failure_its_violation_names_though_the_summary_names_another():
    """A failure whose summary names the test's own rule (the violation's rule is of an area not declared) is covered
    by an entry of either rule; a failure naming neither is not."""
    blames = [[["files.aggregate-cap"], ["dedupe.notice"]]]
    named = Expectation(others={"dedupe.notice": _entry("dedupe.notice", 1)})
    summary = Expectation(rules={"files.aggregate-cap": _entry("files.aggregate-cap", 2)})
    other = Expectation(others={"question.cap": _entry("question.cap", 3)})
    assert [entry.line for entry in named.covering(blames) or []] == [1]
    assert [entry.line for entry in summary.covering(blames) or []] == [2]
    assert other.covering(blames) is None


def test_every_violation_of_a_failure_must_be_covered():
    """Two failing examples blamed on two rules: covered only when both rules are listed."""
    blames = [[["elision.marker-format"], ["elision.marker-format"]], [["elision.threshold"], ["elision.threshold"]]]
    one = Expectation(rules={"elision.marker-format": _entry("elision.marker-format", 1)})
    both = Expectation(
        rules={"elision.marker-format": _entry("elision.marker-format", 1)},
        others={"elision.threshold": _entry("elision.threshold", 2)},
    )
    assert one.covering(blames) is None
    assert sorted(entry.line for entry in both.covering(blames) or []) == [1, 2]


def test_a_check_expects_its_own_rules_failure_only():
    """A check entry (a test and a rule) covers that test's failure on its rule, not a failure on another rule; a
    plain node entry covers any failure of its test."""
    check = Expectation(nodes=[_entry(NODE, 1, "elision.marker-format")])
    assert [entry.line for entry in check.covering([[["elision.marker-format"], []]]) or []] == [1]
    assert check.covering([[["elision.threshold"], ["elision.threshold"]]]) is None
    plain = Expectation(nodes=[_entry(NODE, 2)])
    assert [entry.line for entry in plain.covering([[["elision.threshold"], []]]) or []] == [2]
