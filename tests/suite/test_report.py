"""The HTML report of runs (``advisor-conformance report``), built in process from hand-written rule reports."""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser

import pytest

from advisor_conformance._tools.cli import main
from advisor_conformance._tools.report import MESSAGE_BUDGET, MESSAGE_LIMIT, build_page, parse_run
from advisor_conformance.catalogue import parse_catalogue

from ..support.rule_reports import COUNTED, rule_report, rule_row

CATALOGUE = parse_catalogue("""
[[area]]
id = "alpha"
title = "Alpha things"
covered = true

[[area]]
id = "beta"
title = "Beta things"
covered = true

[[rule]]
id = "alpha.one"
tag = "SPEC"
level = "must"
statement = "Alpha one holds."
source = "spec: alpha one."

[[rule]]
id = "alpha.two"
tag = "ORIGIN"
level = "should"
why = "safer"
statement = "Alpha two holds."
source = "spec: alpha two."

[[rule]]
id = "beta.three"
tag = "CHOICE"
level = "must"
statement = "Beta three <holds> & \\"quotes\\"."
source = "spec: beta three."
""")

HOSTILE = "</script><script>alert('x')</script> <!-- \"quoted\" 'single' \u2028line\u2029para & <b>bold</b>"


def report(
    rules: dict[str, str],
    tests: list[tuple[str, list[str], str, str]] = (),
    *,
    name: str = "impl",
    catalogue: str = "cat1",
    started: str = "2026-01-02T03:04:05+00:00",
) -> dict:
    """A format-1 rule report with these rule outcomes and tests (node ID, rules, outcome, message)."""
    rows = []
    for rule_id, outcome in rules.items():
        mine = [test for test in tests if rule_id in test[1]]
        counts = {key: sum(1 for test in mine if test[2] == key) for key in COUNTED}
        rows.append(rule_row(rule_id, outcome, len(mine), counts))
    return rule_report(
        name,
        rows,
        [
            {"nodeid": nodeid, "rules": ids, "outcome": outcome, **({"message": message} if message else {})}
            for nodeid, ids, outcome, message in tests
        ],
        catalogue=catalogue,
        arguments=["-q"],
        started=started,
        duration_s=2.0,
        language="python",
        counts={"rules": {}, "tests": {"passed": sum(1 for t in tests if t[2] == "passed")}},
    )


GOOD = report(
    {"alpha.one": "passed", "alpha.two": "passed", "beta.three": "passed"},
    [
        ("tests/test_a.py::one", ["alpha.one"], "passed", ""),
        ("tests/test_a.py::two", ["alpha.two"], "passed", ""),
        ("tests/test_b.py::three", ["beta.three"], "passed", ""),
    ],
    name="good",
)
BAD = report(
    {"alpha.one": "failed", "alpha.two": "warning", "beta.three": "skipped"},
    [
        ("tests/test_a.py::one", ["alpha.one"], "failed", "[alpha.one] " + HOSTILE),
        ("tests/test_a.py::two", ["alpha.two"], "warned", "[alpha.two] should have"),
        ("tests/test_b.py::three", ["beta.three"], "skipped", "area beta not declared"),
    ],
    name="bad",
)


class PageParser(HTMLParser):
    """The parts of the page the tests read: cells per rule row, group headers, totals, attributes, the data."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: dict[str, list[str]] = {}
        self.cell_info: list[dict[str, str]] = []
        self.row_attrs: dict[str, dict[str, str]] = {}
        self.areas: list[str] = []
        self.group_titles: list[str] = []
        self.totals: list[str] = []
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: dict[str, str] = {}
        self.text: list[str] = []
        self._row: str | None = None
        self._script: str | None = None
        self._in_group_header = False
        self._symbol = False

    def handle_starttag(self, tag, attrs):
        attrs = {key: value or "" for key, value in attrs}
        self.tags.append((tag, attrs))
        if tag == "tbody" and "data-area" in attrs:
            self.areas.append(attrs["data-area"])
        if tag == "tr":
            self._row = attrs.get("data-rule")
            if self._row:
                self.cells[self._row] = []
                self.row_attrs[self._row] = attrs
        if tag == "td" and "cell" in attrs.get("class", "").split() and self._row:
            self.cells[self._row].append(attrs["data-outcome"])
            self.cell_info.append(
                {
                    "rule": self._row,
                    "run": attrs["data-run"],
                    "outcome": attrs["data-outcome"],
                    "class": attrs["class"],
                    "symbol": "",
                }
            )
        if tag == "button" and self.cell_info and self._row == self.cell_info[-1]["rule"]:
            self.cell_info[-1]["label"] = attrs.get("aria-label", "")
        self._symbol = tag == "span" and attrs.get("class") == "sym"
        if tag == "td" and "total" in attrs.get("class", "").split():
            self.totals.append(attrs["data-total"])
        if tag == "th" and attrs.get("scope") == "rowgroup":
            self._in_group_header = True
            self.group_titles.append("")
        if tag == "script":
            self._script = attrs.get("id", "inline")
            self.scripts[self._script] = ""

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None
        if tag == "th":
            self._in_group_header = False
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._symbol:
            self.cell_info[-1]["symbol"] += data
        if self._script:
            self.scripts[self._script] += data
        else:
            self.text.append(data)
        if self._in_group_header:
            self.group_titles[-1] += data


def parse(page: str) -> tuple[PageParser, dict]:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser, json.loads(parser.scripts["report-data"])


def build(*reports: dict, **options) -> str:
    return build_page(
        [parse_run(data, f"run{i}.json") for i, data in enumerate(reports)], catalogue=CATALOGUE, **options
    )


def test_one_cell_per_rule_and_run_with_the_reports_outcome():
    """The page has a row per rule and a cell per run in each, holding that run's outcome of the rule."""
    page, _ = parse(build(GOOD, BAD))
    assert page.cells == {
        "alpha.one": ["passed", "failed"],
        "alpha.two": ["passed", "warning"],
        "beta.three": ["passed", "skipped"],
    }


def test_rules_are_grouped_by_area_under_the_area_title():
    """Rows are grouped by area in the catalogue's order, each group headed by the area's title."""
    page, _ = parse(build(GOOD))
    assert page.areas == ["alpha", "beta"]
    assert page.group_titles[0].startswith("Alpha things") and page.group_titles[1].startswith("Beta things")


def test_each_outcome_has_its_own_symbol_and_label():
    """Every rule outcome is shown by a distinct symbol, and each cell has an accessible label naming the outcome."""
    data = report({"alpha.one": "passed", "alpha.two": "failed", "beta.three": "warning"})
    more = report({"alpha.one": "xfailed", "alpha.two": "skipped", "beta.three": "no tests"})
    last = report({"alpha.one": "not checked", "alpha.two": "passed", "beta.three": "passed"})
    page, _ = parse(build(data, more, last))
    assert {cell["outcome"]: cell["symbol"] for cell in page.cell_info} == {
        "passed": "✓",
        "failed": "✗",
        "warning": "!",
        "xfailed": "x",
        "skipped": "–",
        "no tests": "·",
        "not checked": "?",
    }
    expected = {
        (row["id"], str(run)): row["outcome"] for run, rules in enumerate((data, more, last)) for row in rules["rules"]
    }
    assert len(page.cell_info) == len(expected) == 9
    for cell in page.cell_info:
        assert cell["label"].startswith(cell["rule"]) and f": {expected[(cell['rule'], cell['run'])]}" in cell["label"]


def test_header_totals_count_the_rules_of_each_run():
    """The header row gives, per run, the number of rules it counts, and the count of each outcome."""
    html = build(GOOD, BAD)
    page, _ = parse(html)
    assert page.totals == ["3", "3"]
    first, second = re.findall(r'<td class="total"[^>]*>(.*?)</td>', html)
    assert re.sub(r"<[^>]+>", " ", first).split()[:2] == ["✓", "3"]
    assert "✗ 1" in re.sub(r"<[^>]+>", "", second) and "! 1" in re.sub(r"<[^>]+>", "", second)


def test_failing_cell_data_holds_the_failing_tests_and_their_messages():
    """The page's data lists, for a failing cell, its failing test with the exact message."""
    _, data = parse(build(GOOD, BAD))
    entries = data["cells"][1]["alpha.one"]
    assert [(data["nodes"][node], outcome) for node, outcome, *_ in entries] == [("tests/test_a.py::one", "failed")]
    assert data["messages"][entries[0][2]] == "[alpha.one] " + HOSTILE
    assert "alpha.one" not in data["cells"][0]  # a run where every test passed lists none
    assert data["rules"]["alpha.one"]["statement"] == "Alpha one holds."
    assert data["rules"]["alpha.one"]["source"] == "spec: alpha one."


def test_failing_test_is_listed_as_failed_only_under_the_rules_its_failure_counts_against():
    """A failing test whose report names the rules it failed is listed as failed under those rules' cells, as not
    checked under its rules it did not check past the failure, and not at all under the rules it checked in full."""
    data = report({"alpha.one": "failed", "alpha.two": "passed", "beta.three": "not checked"})
    data["tests"] = [
        {
            "nodeid": "tests/test_a.py::both",
            "rules": ["alpha.one", "alpha.two", "beta.three"],
            "outcome": "failed",
            "message": "[alpha.one] no",
            "failed_rules": ["alpha.one"],
            "checked_rules": ["alpha.two"],
        }
    ]
    _, embedded = parse(build(data))
    assert {rule: tests[0][1] for rule, tests in embedded["cells"][0].items()} == {
        "alpha.one": "failed",
        "beta.three": "not checked",
    }
    plain = report(
        {"alpha.one": "failed", "alpha.two": "failed"},
        [("tests/test_a.py::both", ["alpha.one", "alpha.two"], "failed", "[alpha.one, alpha.two] no")],
    )
    _, embedded = parse(build(plain))
    assert set(embedded["cells"][0]) == {"alpha.one", "alpha.two"}


def test_text_from_reports_is_escaped_everywhere():
    """Messages, names and statements with markup, quotes and U+2028 cannot close the script or add elements."""
    hostile_name = report(
        {"alpha.one": "failed"},
        [("tests/test_a.py::x", ["alpha.one"], "failed", HOSTILE)],
        name='<img src=x onerror="alert(1)">',
    )
    html = build(hostile_name)
    assert html.count("</script>") == 2  # the data block and the script, nothing from a report
    assert "<img" not in html and "<b>bold" not in html and "\u2028" not in html and "\u2029" not in html
    page, data = parse(html)
    assert [tag for tag, _ in page.tags].count("script") == 2
    assert all(tag not in ("img", "b") for tag, _ in page.tags)
    assert data["messages"] == [HOSTILE]
    assert data["runs"][0]["name"].startswith('<img src=x onerror="alert(1)">')
    assert "Beta three &lt;holds&gt; &amp; &quot;quotes&quot;." in build(GOOD)


def test_lone_surrogates_and_control_characters_do_not_break_the_page():
    """A message with a lone surrogate or NUL is written as valid UTF-8, the surrogate replaced."""
    data = report({"alpha.one": "failed"}, [("tests/test_a.py::x", ["alpha.one"], "failed", "bad \ud800 and \x00")])
    html = build(data)
    html.encode("utf-8")
    _, embedded = parse(html)
    assert embedded["messages"] == ["bad \ufffd and \x00"]


def test_page_fetches_nothing():
    """The page has no external src or href, no link, no CSS url() or @import, and a CSP that forbids requests."""
    data = report(
        {"alpha.one": "failed"}, [("tests/test_a.py::x", ["alpha.one"], "failed", "see https://example.invalid/a.png")]
    )
    html = build(data, GOOD, compare=True)
    page, _ = parse(html)
    for tag, attrs in page.tags:
        assert tag not in ("link", "img", "iframe", "object", "embed", "base"), tag
        for key in ("src", "href", "action", "srcset", "poster", "data"):
            value = attrs.get(key)
            assert value is None or value.startswith("#"), f"<{tag} {key}={value!r}>"
    css = re.search(r"<style>(.*?)</style>", html, re.S)[1]
    assert "url(" not in css and "@import" not in css
    script = page.scripts["inline"]
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|sendBeacon)\b|import\(", script)
    assert not re.search(r"https?://", html.replace("https://example.invalid/a.png", ""))
    csp = next(attrs["content"] for tag, attrs in page.tags if attrs.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp


def test_long_messages_are_cut_to_the_limit():
    """A message longer than the page's limit is embedded cut to that limit, and the page says where it cuts."""
    long = "[alpha.one] " + "y" * (MESSAGE_LIMIT * 5)
    html = build(report({"alpha.one": "failed"}, [("tests/test_a.py::x", ["alpha.one"], "failed", long)]))
    page, data = parse(html)
    message = data["messages"][0]
    assert message.startswith(long[:MESSAGE_LIMIT]) and len(message) < MESSAGE_LIMIT + 200
    assert f"{MESSAGE_LIMIT:,}" in "".join(page.text)


def test_many_long_messages_stay_within_the_budget():
    """Many long distinct messages are cut shorter so the page stays near the message budget."""
    tests = [
        (f"tests/test_a.py::x[{i}]", ["alpha.one"], "failed", f"[alpha.one] {i} " + "z" * MESSAGE_LIMIT)
        for i in range(400)
    ]
    html = build(report({"alpha.one": "failed"}, tests))
    _, data = parse(html)
    assert len(data["messages"]) == 400
    assert sum(len(message) for message in data["messages"]) < MESSAGE_BUDGET * 1.3
    assert len(html.encode("utf-8")) < 1_000_000


def test_short_messages_stay_whole_when_long_ones_are_cut():
    """Past the budget only the long messages are cut; a short message next to them is embedded whole."""
    tests = [
        (f"tests/test_a.py::x[{i}]", ["alpha.one"], "failed", f"[alpha.one] {i} " + "z" * MESSAGE_LIMIT)
        for i in range(200)
    ]
    short = "[alpha.two] short and whole"
    tests.append(("tests/test_a.py::short", ["alpha.two"], "failed", short))
    _, data = parse(build(report({"alpha.one": "failed", "alpha.two": "failed"}, tests)))
    assert short in data["messages"]
    assert data["limit"] < MESSAGE_LIMIT


def test_rule_unknown_to_the_catalogue_is_shown_marked_unknown():
    """A rule the catalogue lacks gets its row, in its area, marked unknown, with the run's outcome."""
    data = report({"alpha.one": "passed", "alpha.retired": "failed", "gamma.new": "passed"}, catalogue="other")
    html = build(data)
    page, embedded = parse(html)
    assert page.cells["alpha.retired"] == ["failed"] and page.cells["gamma.new"] == ["passed"]
    assert page.row_attrs["alpha.retired"].get("class") == "unknown-rule"
    assert embedded["rules"]["alpha.retired"]["known"] is False and embedded["rules"]["alpha.one"]["known"] is True
    assert page.areas == ["alpha", "gamma"]
    assert "other" in "".join(page.text)  # the page notes the run's other catalogue


def test_rule_missing_from_one_run_is_absent_there():
    """A rule that one run reports and another does not has an 'absent' cell in the other run's column."""
    page, _ = parse(build(report({"alpha.one": "passed"}), report({"alpha.one": "passed", "alpha.two": "failed"})))
    assert page.cells == {"alpha.one": ["passed", "passed"], "alpha.two": ["absent", "failed"]}


def test_filter_attributes_mark_rules_not_passed_everywhere_and_levels():
    """Each row says whether every run passed it and the rule's level, which the filters read."""
    page, _ = parse(build(GOOD, BAD))
    assert {rule: attrs["data-all-passed"] for rule, attrs in page.row_attrs.items()} == {
        "alpha.one": "0",
        "alpha.two": "0",
        "beta.three": "0",
    }
    assert {rule: attrs["data-level"] for rule, attrs in page.row_attrs.items()} == {
        "alpha.one": "must",
        "alpha.two": "should",
        "beta.three": "must",
    }
    page, _ = parse(build(GOOD, GOOD))
    assert {attrs["data-all-passed"] for attrs in page.row_attrs.values()} == {"1"}


def test_compare_adds_the_changes_and_marks_worse_cells():
    """With compare, the page has a changes section naming the rule that got worse, and marks its cell worse."""
    html = build(GOOD, BAD, compare=True)
    section = re.search(r'<section id="changes".*?</section>\s*</section>', html, re.S)
    assert section and "alpha.one" in section[0] and "worse" in section[0]
    page, _ = parse(html)
    marked = {(cell["rule"], cell["run"]): cell["class"].split()[2:] for cell in page.cell_info}
    assert marked[("alpha.one", "1")] == ["worse"] and marked[("alpha.one", "0")] == []
    assert '<section id="changes"' not in build(GOOD, BAD)


@pytest.mark.parametrize("outcome", ["changed", "not recorded"])
def test_snapshot_to_review_is_listed_apart_and_marks_no_rule(outcome):
    """A snapshot that changed (or was never recorded) is listed in a section of snapshots to review with the command
    that accepts it, and under its rule's cell with its own outcome; the rule's cell keeps the run's rule outcome,
    and the run's head says that the run failed on a snapshot to review (its rules all green)."""
    node = "tests/flatten/test_snapshots.py::test_rendered_request_matches_snapshot[go]"
    data = report({"alpha.one": "passed"}, [(node, ["alpha.one"], outcome, "[snapshot changed] it changed")])
    data["snapshots"] = {"changed": [], "not recorded": [], "accept": "python -m pytest --snapshot-update t.py"}
    html = build(data)
    section = re.search(r'<section id="reviews".*?</section>\s*</section>', html, re.S)
    assert section and node in section[0] and outcome in section[0] and "--snapshot-update t.py" in section[0]
    page, embedded = parse(html)
    assert page.cells == {"alpha.one": ["passed"]}
    assert [(embedded["nodes"][test[0]], test[1]) for test in embedded["cells"][0]["alpha.one"]] == [(node, outcome)]
    assert '<section id="reviews"' not in build(GOOD)
    assert 'data-reviews-pending="1"' in html and "data-reviews-pending" not in build(GOOD)


def test_report_command_writes_the_page(tmp_path, capsys):
    """`report` writes one HTML file with a column per given run and exits 0."""
    paths = []
    for name, data in (("good.json", GOOD), ("bad.json", BAD)):
        paths.append(str(tmp_path / name))
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["report", *paths, "-o", str(out), "--compare"]) == 0
    page, data = parse(out.read_text(encoding="utf-8"))
    assert [run["file"] for run in data["runs"]] == ["good.json", "bad.json"]
    assert all(len(cells) == 2 for cells in page.cells.values())


@pytest.mark.parametrize("content", [None, "[1, 2]", '{"format": 1, "rules": {}}'])
def test_report_command_exits_2_naming_an_unreadable_file(tmp_path, capsys, content):
    """`report` exits 2 with a message naming the file that is missing or is not a rule report."""
    bad = tmp_path / "broken-input.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(good), str(bad), "-o", str(tmp_path / "r.html")]) == 2
    assert "broken-input.json" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_compare_needs_two_runs(tmp_path, capsys):
    """`report --compare` with a single run exits 2."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    assert main(["report", str(good), "--compare", "-o", str(tmp_path / "r.html")]) == 2


def test_rule_report_with_a_lone_surrogate_is_valid_utf8_json(tmp_path):
    """A failure message carrying a lone surrogate (from an implementation's answer) is written as its JSON escape:
    the rule report stays valid UTF-8 and reads back to the same text."""
    from advisor_conformance._pytest_plugin.reporting import write_report

    report = {"tests": {"t": {"message": "got \udc80 and \\\ud800 here", "rules": ["a.b"]}}}
    path = tmp_path / "report.json"
    write_report(path, report)
    assert json.loads(path.read_bytes().decode("utf-8")) == report


def test_a_failing_test_shows_the_known_mistake_its_answer_matched():
    """A failing test whose report carries a diagnosis lists, in its cell's data, the matched mistake with its rule
    and where the difference was located; a test without one has none."""
    bad = copy.deepcopy(BAD)
    bad["tests"][0]["diagnosis"] = [
        {"mistake": "alpha.one~late", "rule": "alpha.one", "also": [], "how": "counts one too many <b>", "op": "shape"}
    ]
    bad["tests"][0]["located_rules"] = ["alpha.one", "beta.three"]
    _, data = parse(build(GOOD, bad))
    (entry,) = data["cells"][1]["alpha.one"]
    said = data["messages"][entry[3]]
    assert "counts one too many <b>" in said and "alpha.one~late" in said and "beta.three" in said
    assert all(test[3] == -1 for test in data["cells"][1]["alpha.two"])
