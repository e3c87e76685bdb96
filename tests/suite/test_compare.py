"""The comparison of two runs (``advisor-conformance compare``), from small hand-written rule reports."""

from __future__ import annotations

import json

import pytest

from advisor_conformance._tools.cli import main
from advisor_conformance._tools.report import compare_runs, parse_run


def report(
    rules: dict[str, str], tests: list[tuple[str, list[str], str]] = (), *, name: str = "impl", catalogue: str = "cat1"
) -> dict:
    """A format-1 rule report with these rule outcomes and tests (node ID, rules, outcome)."""
    return {
        "format": 1,
        "suite": {"name": "advisor-conformance", "version": "0.1.0", "protocol": 1, "catalogue": catalogue},
        "implementation": {"name": name, "version": "1.0"},
        "run": {
            "target": name,
            "arguments": [],
            "strict_should": False,
            "started": "2026-01-02T03:04:05+00:00",
            "duration_s": 1.5,
        },
        "rules": [
            {
                "id": rule_id,
                "area": rule_id.split(".")[0],
                "level": "must",
                "tag": "SPEC",
                "outcome": outcome,
                "tests": 1,
                "passed": 0,
                "failed": 0,
                "warned": 0,
                "xfailed": 0,
                "skipped": 0,
            }
            for rule_id, outcome in rules.items()
        ],
        "tests": [
            {
                "nodeid": nodeid,
                "rules": ids,
                "outcome": outcome,
                **({"message": f"[{ids[0]}] it broke"} if outcome != "passed" else {}),
            }
            for nodeid, ids, outcome in tests
        ],
        "collected": {},
    }


BASE_RULES = {"a.one": "passed", "a.two": "passed", "b.three": "warning"}
BASE_TESTS = [
    ("tests/test_a.py::t1", ["a.one"], "passed"),
    ("tests/test_a.py::t2", ["a.two"], "passed"),
    ("tests/test_b.py::t3", ["b.three"], "warned"),
]


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_same_run_has_no_change_and_exits_0(tmp_path, capsys):
    """A run compared with itself changes nothing, and `compare` exits 0."""
    path = write(tmp_path, "run.json", report(BASE_RULES, BASE_TESTS))
    comparison = compare_runs(parse_run(report(BASE_RULES, BASE_TESTS)), parse_run(report(BASE_RULES, BASE_TESTS)))
    assert comparison.rules == [] and comparison.tests == [] and not comparison.worse
    assert main(["compare", path, path]) == 0


def test_one_more_failing_rule_exits_1_and_names_it(tmp_path, capsys):
    """A run with one more failing rule makes `compare` exit 1 and print that rule's ID."""
    old = write(tmp_path, "old.json", report(BASE_RULES, BASE_TESTS))
    new_rules = {**BASE_RULES, "a.two": "failed"}
    new_tests = [BASE_TESTS[0], ("tests/test_a.py::t2", ["a.two"], "failed"), BASE_TESTS[2]]
    new = write(tmp_path, "new.json", report(new_rules, new_tests))
    capsys.readouterr()
    assert main(["compare", old, new]) == 1
    out = capsys.readouterr().out
    assert "a.two" in out and "tests/test_a.py::t2" in out
    assert "a.one" not in out


def test_comparison_lists_the_worse_rule_and_test():
    """The worse rule and the worse test are the only changes, each with its old and new outcome."""
    new = report(
        {**BASE_RULES, "a.two": "failed"}, [BASE_TESTS[0], ("tests/test_a.py::t2", ["a.two"], "failed"), BASE_TESTS[2]]
    )
    comparison = compare_runs(parse_run(report(BASE_RULES, BASE_TESTS)), parse_run(new))
    assert [(c.id, c.old, c.new, c.direction) for c in comparison.rules] == [("a.two", "passed", "failed", "worse")]
    assert [(c.id, c.old, c.new, c.direction) for c in comparison.tests] == [
        ("tests/test_a.py::t2", "passed", "failed", "worse")
    ]
    assert "it broke" in comparison.tests[0].message


@pytest.mark.parametrize(
    ("old", "new", "direction"),
    [
        ("passed", "failed", "worse"),
        ("passed", "warning", "worse"),
        ("passed", "xfailed", "worse"),
        ("passed", "skipped", "worse"),
        ("passed", "no tests", "worse"),
        ("warning", "failed", "worse"),
        ("xfailed", "warning", "worse"),
        ("skipped", "xfailed", "worse"),
        ("failed", "passed", "better"),
        ("failed", "warning", "better"),
        ("warning", "xfailed", "better"),
        ("no tests", "passed", "better"),
        ("skipped", "no tests", "changed"),
        ("passed", "not checked", "worse"),
        ("not checked", "skipped", "changed"),
        ("no tests", "skipped", "changed"),
    ],
)
def test_rule_outcomes_are_ordered_failed_warning_xfailed_skipped_passed(old, new, direction):
    """A rule's change is worse down the order failed < warning < xfailed < skipped = no tests < passed."""
    comparison = compare_runs(parse_run(report({"a.one": old})), parse_run(report({"a.one": new})))
    assert [change.direction for change in comparison.rules] == [direction]
    assert comparison.worse == (direction == "worse")


@pytest.mark.parametrize(
    ("old", "new", "direction"),
    [
        ("passed", "failed", "worse"),
        ("passed", "warned", "worse"),
        ("passed", "skipped", "worse"),
        ("xfailed", "failed", "worse"),
        ("failed", "xfailed", "better"),
        ("skipped", "passed", "better"),
        ("warned", "passed", "better"),
    ],
)
def test_test_outcomes_are_ordered_failed_warned_xfailed_skipped_passed(old, new, direction):
    """A test's change is worse down the order failed < warned < xfailed < skipped < passed."""
    rules = {"a.one": "passed"}
    comparison = compare_runs(
        parse_run(report(rules, [("tests/test_a.py::t", ["a.one"], old)])),
        parse_run(report(rules, [("tests/test_a.py::t", ["a.one"], new)])),
    )
    assert [change.direction for change in comparison.tests] == [direction]
    assert comparison.worse == (direction == "worse")


def test_new_failing_rule_is_worse_and_a_new_passing_one_is_not():
    """A rule found only in the new run counts as worse when it fails, and merely appeared when it passes."""
    old = parse_run(report({"a.one": "passed"}))
    failing = compare_runs(old, parse_run(report({"a.one": "passed", "a.new": "failed"})))
    passing = compare_runs(old, parse_run(report({"a.one": "passed", "a.new": "passed"})))
    assert [(c.id, c.old, c.direction) for c in failing.rules] == [("a.new", None, "worse")] and failing.worse
    assert [(c.id, c.direction) for c in passing.rules] == [("a.new", "appeared")] and not passing.worse


def test_disappeared_rule_and_test_are_listed_but_not_worse():
    """A rule or test found only in the old run is listed as disappeared and does not count as worse."""
    old = parse_run(
        report(
            {"a.one": "passed", "a.gone": "passed"},
            [("tests/test_a.py::t", ["a.one"], "passed"), ("tests/test_a.py::gone", ["a.gone"], "passed")],
        )
    )
    new = parse_run(report({"a.one": "passed"}, [("tests/test_a.py::t", ["a.one"], "passed")]))
    comparison = compare_runs(old, new)
    assert [(c.id, c.new, c.direction) for c in comparison.rules] == [("a.gone", None, "disappeared")]
    assert [(c.id, c.direction) for c in comparison.tests] == [("tests/test_a.py::gone", "disappeared")]
    assert not comparison.worse


def test_new_failing_test_is_worse():
    """A test found only in the new run counts as worse when it fails."""
    old = parse_run(report({"a.one": "failed"}, [("tests/test_a.py::t", ["a.one"], "failed")]))
    new = parse_run(
        report(
            {"a.one": "failed"},
            [("tests/test_a.py::t", ["a.one"], "failed"), ("tests/test_a.py::u", ["a.one"], "failed")],
        )
    )
    comparison = compare_runs(old, new)
    assert comparison.rules == []
    assert [(c.id, c.old, c.direction) for c in comparison.tests] == [("tests/test_a.py::u", None, "worse")]


@pytest.mark.parametrize("module", ["test_a.py", "a/test_a.py"], ids=["top", "area-folder"])
def test_tests_match_across_the_folder_the_run_started_in(module):
    """A test reported as tests/… by one run and conformance/advisor_conformance/tests/… by another is one test, at
    the top of the suite or in an area's folder."""
    rules = {"a.one": "passed"}
    old = parse_run(report(rules, [(f"conformance/advisor_conformance/tests/{module}::t[1]", ["a.one"], "passed")]))
    new = parse_run(report(rules, [(f"tests/{module}::t[1]", ["a.one"], "failed")]))
    comparison = compare_runs(old, new)
    assert [(c.id, c.old, c.new) for c in comparison.tests] == [(f"tests/{module}::t[1]", "passed", "failed")]


def test_different_catalogues_are_noted():
    """Runs of different catalogue versions compare, with a note that says so."""
    comparison = compare_runs(
        parse_run(report({"a.one": "passed"}, catalogue="old")), parse_run(report({"a.one": "passed"}, catalogue="new"))
    )
    assert any("old" in note and "new" in note for note in comparison.notes)


def test_json_output_carries_the_changes_and_the_verdict(tmp_path, capsys):
    """`compare --json` prints the rule changes and whether something got worse, and exits like the text form."""
    old = write(tmp_path, "old.json", report(BASE_RULES))
    new = write(tmp_path, "new.json", report({**BASE_RULES, "b.three": "passed"}))
    capsys.readouterr()
    assert main(["compare", old, new, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["worse"] is False
    assert [(c["id"], c["direction"]) for c in data["rules"]["changes"]] == [("b.three", "better")]


def test_text_output_lists_every_test_with_all(tmp_path, capsys):
    """Past 50 changed tests of one kind the text lists the first 50, and `--all` lists every one."""
    rules = {"a.one": "passed"}
    old_tests = [(f"tests/test_a.py::t[{i:03}]", ["a.one"], "passed") for i in range(60)]
    new_tests = [(nodeid, ids, "failed") for nodeid, ids, _ in old_tests]
    old = write(tmp_path, "old.json", report(rules, old_tests))
    new = write(tmp_path, "new.json", report({"a.one": "failed"}, new_tests))
    capsys.readouterr()
    assert main(["compare", old, new]) == 1
    assert "t[059]" not in capsys.readouterr().out
    assert main(["compare", old, new, "--all"]) == 1
    assert "t[059]" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "which"),
    [
        (None, "old"),
        ("{not json", "old"),
        ('{"rules": []}', "new"),
        ('{"format": 99, "rules": []}', "new"),
        ('{"format": 1, "rules": [{"id": "a.one", "outcome": "great"}]}', "new"),
        ('{"format": 1, "rules": [], "tests": [{"nodeid": "t", "outcome": "meh"}]}', "old"),
        (b"\xff\xfe{}", "old"),
    ],
)
def test_unreadable_input_exits_2_naming_the_file(tmp_path, capsys, content, which):
    """A missing, non-JSON, non-report or malformed input makes `compare` exit 2 with a message naming that file."""
    good = write(tmp_path, "good.json", report(BASE_RULES))
    bad = tmp_path / "bad-input.json"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    elif content is not None:
        bad.write_text(content, encoding="utf-8")
    args = [str(bad), good] if which == "old" else [good, str(bad)]
    capsys.readouterr()
    assert main(["compare", *args]) == 2
    assert "bad-input.json" in capsys.readouterr().err


@pytest.mark.parametrize("outcome", ["changed", "not recorded"])
def test_snapshot_to_review_is_neither_worse_nor_a_rule(tmp_path, capsys, outcome):
    """A snapshot that changed (or was never recorded) is listed as a review item with the command that accepts it;
    the rule it carries keeps its outcome, nothing counts as worse, and `compare` exits 0."""
    node = "tests/flatten/test_snapshots.py::test_rendered_request_matches_snapshot[go]"
    old = report({"flatten.deterministic": "passed"}, [(node, ["flatten.deterministic"], "passed")])
    new = report({"flatten.deterministic": "passed"}, [(node, ["flatten.deterministic"], outcome)])
    new["snapshots"] = {"changed": [], "not recorded": [], "accept": "python -m pytest --snapshot-update x"}
    comparison = compare_runs(parse_run(old), parse_run(new))
    assert comparison.rules == [] and not comparison.worse
    assert [(change.id, change.direction) for change in comparison.tests] == [(node, "review")]
    assert main(["compare", write(tmp_path, "old.json", old), write(tmp_path, "new.json", new)]) == 0
    out = capsys.readouterr().out
    assert "python -m pytest --snapshot-update x" in out and out.rstrip().endswith("nothing got worse"), out
