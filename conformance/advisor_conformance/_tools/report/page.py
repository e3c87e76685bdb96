"""The HTML report: one self-contained page with the matrix of rules (rows, grouped by area) by runs (columns).

The matrix itself is static HTML (readable without JavaScript, and printable);
each cell is a button whose colour, symbol and accessible label give the rule's
outcome in that run. The details a click opens (the rule's statement and source
sentence, the tests of that run that did not pass with their messages) come from
one JSON block in the page that the inline script reads; every text from a report
reaches the page escaped (``html.escape`` in the markup; ``<``, ``>``, ``&``,
U+2028 and U+2029 as ``\\u`` escapes in the JSON; ``textContent`` in the script).
The page fetches nothing: no external URL, and a Content-Security-Policy that
forbids any request.

Messages are capped: at most :data:`MESSAGE_LIMIT` characters of each test's
message, and when the distinct messages of all runs together exceed
:data:`MESSAGE_BUDGET` characters, each is cut shorter (to no less than
:data:`MESSAGE_FLOOR`), so the page stays small; the page says where it cut, and
the JSON reports keep the messages whole.
"""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from importlib import resources
from pathlib import PurePath
from typing import Any

from ..._pytest_plugin.reporting import REVIEW_OUTCOMES
from ...catalogue import Catalogue, Rule, load_catalogue
from ..inputs import check_value
from .compare import Comparison, compare_runs
from .runs import Run, attributed_outcomes, clean_text

MESSAGE_LIMIT = 4000
MESSAGE_BUDGET = 300_000
MESSAGE_FLOOR = 400

#: Rule outcomes, in the order of the legend, with their symbol and label; "absent": the run has no such rule.
OUTCOMES = {
    "passed": ("✓", "passed"),
    "failed": ("✗", "failed"),
    "warning": ("!", "warning"),
    "xfailed": ("x", "xfailed"),
    "not checked": ("?", "not checked (its tests failed on another rule first, or were snapshots)"),
    "skipped": ("–", "skipped"),
    "no tests": ("·", "no tests"),
    "absent": ("∅", "not in this run"),
}
_TEST_ORDER = {"failed": 0, "warned": 1, "xfailed": 2, "changed": 3, "not recorded": 3, "skipped": 4, "passed": 5}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _e(value: Any) -> str:
    """Text for HTML content or a quoted attribute: escaped, control characters shown as U+FFFD."""
    return html.escape(_CONTROL.sub("\ufffd", clean_text(value)), quote=True)


def _css_class(outcome: str) -> str:
    return "o-" + outcome.replace(" ", "-")


def script_json(value: Any) -> str:
    """Strict JSON (no NaN or infinities: a browser's ``JSON.parse`` refuses them, and no cell's detail would open)
    that is safe inside a ``<script>`` element: no ``</script>``, no ``<!--``, no raw U+2028. A value JSON cannot
    carry raises :class:`~advisor_conformance._tools.inputs.InputError` naming its field."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        check_value(value, "the page's data")  # names the field
        raise
    text = clean_text(text)
    return re.sub("[<>&\u2028\u2029]", lambda match: _JSON_ESCAPES[match[0]], text)


def _when(started: str) -> str:
    try:
        moment = datetime.fromisoformat(started)
    except ValueError:
        return started
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _rule_json(rule: Rule, area_title: str, known: bool) -> dict[str, Any]:
    """A rule as the page's script reads it: the catalogue's JSON of it, its area's title, and whether the installed
    catalogue has it."""
    return {**rule.to_json(), "areaTitle": area_title, "known": known}


def _matrix_rules(runs: list[Run], catalogue: Catalogue) -> tuple[list[tuple[str, str, list[Rule]]], int]:
    """The rules of the runs grouped by area, in the catalogue's order; unknown rules and areas come last (with only
    the ID, area, level and tag their runs give)."""
    seen: dict[str, Rule] = {}
    for run in runs:
        for row in run.rules:
            rule_id = clean_text(row["id"])
            if rule_id in seen:
                continue
            if rule_id in catalogue:
                seen[rule_id] = catalogue[rule_id]
            else:
                seen[rule_id] = Rule(
                    rule_id,
                    clean_text(row.get("area") or rule_id.split(".", 1)[0]),
                    statement="",
                    tag=clean_text(row.get("tag") or "?"),
                    source="",
                    level=clean_text(row.get("level") or "?"),
                )
    order = {rule_id: index for index, rule_id in enumerate(catalogue.rules)}
    by_area: dict[str, list[Rule]] = {area: [] for area in catalogue.areas}  # then unknown areas, as they come
    for rule in seen.values():
        by_area.setdefault(rule.area, []).append(rule)
    groups = []
    for area, members in by_area.items():
        if not members:
            continue
        members.sort(key=lambda rule: order.get(rule.id, len(order)))  # stable: unknown rules in report order
        title = catalogue.areas[area].title if area in catalogue.areas else f"{area} (an area the catalogue lacks)"
        groups.append((area, title, members))
    return groups, len(seen)


class _Strings:
    """A table of distinct strings (node IDs, messages), referenced by index from the cells."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.items)
            self.items.append(text)
        return self.index[text]


def _cap_messages(messages: list[str]) -> tuple[list[str], int]:
    """The messages cut to the page's limit, and the limit applied (smaller when the budget asks for it)."""
    limit = MESSAGE_LIMIT
    lengths = sorted(min(len(message), MESSAGE_LIMIT) for message in messages)
    remaining = MESSAGE_BUDGET
    for done, length in enumerate(lengths):  # short messages stay whole; the long ones share what is left
        share = remaining // (len(lengths) - done)
        if length > share:
            limit = max(MESSAGE_FLOOR, share)
            break
        remaining -= length
    out = []
    for message in messages:
        if len(message) > limit:
            message = (
                f"{message[:limit]}\n… [cut: the page keeps {limit:,} of {len(message):,} characters; "
                "the JSON report has more]"
            )
        out.append(message)
    return out, limit


def _cell_tests(run: Run, nodes: _Strings, messages: _Strings) -> dict[str, list[list[Any]]]:
    """Per rule, the tests of ``run`` that did not pass: [node index, outcome, message index or -1, diagnosis index
    or -1] (the diagnosis: the known mistakes the implementation's answer matched, and where the difference was
    located before the blame was narrowed to them)."""
    by_rule: dict[str, list[list[Any]]] = {}
    tests = sorted(
        (test for test in run.tests if test["outcome"] != "passed"),
        key=lambda test: (_TEST_ORDER[test["outcome"]], test["nodeid"]),
    )
    for test in tests:
        message = clean_text(test.get("message", ""))
        node, text = nodes.add(clean_text(test["nodeid"])), messages.add(message) if message else -1
        said = diagnosis_text(test)
        known = messages.add(said) if said else -1
        verdicts = attributed_outcomes(test)
        # a rule of the test that got no verdict from it: a snapshot to review (listed under its rules, blaming none),
        # or a failure blamed on other rules first (the rule was not checked past it)
        unchecked = test["outcome"] if test["outcome"] in REVIEW_OUTCOMES else "not checked"
        verdicts.update({rule: unchecked for rule in map(clean_text, test.get("rules", [])) if rule not in verdicts})
        for rule_id, outcome in verdicts.items():
            if outcome != "passed":  # a test that failed another of its rules passed this one
                by_rule.setdefault(rule_id, []).append([node, outcome, text, known])
    return by_rule


def diagnosis_text(test: dict[str, Any]) -> str:
    """A test's diagnosis in words: each known mistake its answer matched (with its rule), and the rules the
    difference was located at; empty without one."""
    matches = [match for match in test.get("diagnosis") or [] if isinstance(match, dict)]
    if not matches:
        return ""
    said = "; ".join(
        f"{clean_text(str(match.get('how', '')))} (rule {clean_text(str(match.get('rule', '')))}, known mistake "
        f"{clean_text(str(match.get('mistake', '')))})"
        for match in matches[:3]
    )
    located = [clean_text(str(rule)) for rule in test.get("located_rules") or []]
    return f"Your answer is what an implementation gives that {said}." + (
        f" The difference itself was located at: {', '.join(located)}." if located else ""
    )


#: A rule row's counts, in the order the page's data holds them (the script reads them by position).
COUNT_KEYS = ("tests", "passed", "failed", "warned", "xfailed", "skipped", "elsewhere", "changed", "not recorded")


def _counts(row: dict[str, Any] | None) -> list[int]:
    """A rule row's test counts (:data:`COUNT_KEYS`; 0 where a report lacks one)."""
    if row is None:
        return []
    return [
        value if isinstance(value := row.get(key), int) and not isinstance(value, bool) else 0 for key in COUNT_KEYS
    ]


def _cell_text(outcome: str, counts: list[int]) -> str:
    """The count shown next to the symbol: failing/tests for failed and warning, else the number of tests."""
    if not counts:
        return ""
    tests, _passed, failed, warned, xfailed = counts[:5]
    if outcome == "failed":
        return f"{failed}/{tests}"
    if outcome == "warning":
        return f"{warned}/{tests}"
    if outcome == "xfailed":
        return f"{xfailed}/{tests}"
    return str(tests) if tests else ""


def _cell_label(rule_id: str, index: int, run: Run, outcome: str, counts: list[int], change: str) -> str:
    label = f"{rule_id} in #{index + 1} {run.name}: {OUTCOMES[outcome][1]}"
    if counts and counts[0]:
        tests, passed, failed, warned, xfailed, skipped, elsewhere, changed, unrecorded = counts
        parts = [
            f"{n} {what}"
            for n, what in (
                (failed, "failed"),
                (warned, "warned"),
                (xfailed, "xfailed"),
                (passed, "passed"),
                (skipped, "skipped"),
                (elsewhere, "failed on another rule first"),
                (changed, "snapshot changed"),
                (unrecorded, "snapshot not recorded"),
            )
            if n
        ]
        label += f" ({tests} test{'s' * (tests != 1)}: {', '.join(parts)})"
    if change:
        label += f", {change} than in #1"
    return label


def _run_json(run: Run) -> dict[str, Any]:
    impl = run.implementation
    meta = run.meta
    return {
        "name": run.name,
        "file": PurePath(run.path).name,
        "path": clean_text(run.path),
        "target": run.target,
        "started": run.started,
        "duration": meta.get("duration_s"),
        "arguments": [clean_text(arg) for arg in meta.get("arguments", []) or []],
        "strict": bool(meta.get("strict_should")),
        "suite": {key: clean_text(value) for key, value in run.suite.items()},
        "implementation": {
            key: impl[key] for key in ("name", "version", "language", "protocol", "areas", "options") if key in impl
        },
        "tests": (run.data.get("counts") or {}).get("tests", {}),
    }


#: Changed tests listed per pair of runs in the page's changes section (every changed rule is listed).
CHANGED_TESTS_SHOWN = 50
_DIRECTION_ORDER = ("worse", "better", "review", "changed", "appeared", "disappeared")


def _changes_html(comparisons: list[Comparison], runs: list[Run]) -> str:
    parts = [
        '<section id="changes" class="changes"><h2>Changes from run #1</h2>',
        '<p class="note">Order, worst first: failed &lt; warning &lt; xfailed &lt; skipped = no tests &lt; '
        "passed (tests: failed &lt; warned &lt; xfailed &lt; skipped &lt; passed). A new failing rule or test "
        "counts as worse; one that disappeared does not. <code>advisor-conformance compare OLD NEW</code> "
        f"prints the same (every test; here the first {CHANGED_TESTS_SHOWN} of each pair) and exits 1 when "
        "something got worse.</p>",
    ]
    for index, comparison in enumerate(comparisons, start=1):
        parts.append(
            f'<section class="pair {"worse" if comparison.worse else "ok"}" data-pair="{index}">'
            f"<h3>#1 {_e(runs[0].name)} → #{index + 1} {_e(runs[index].name)}</h3>"
        )
        summary = []
        for kind in ("rule", "test"):
            counts = {direction: n for direction, n in comparison.counts(kind).items() if n}
            summary.append(
                f"{kind}s: "
                + (", ".join(f"{n} {direction}" for direction, n in counts.items()) if counts else "no change")
            )
        parts.append(f'<p class="summary">{_e("; ".join(summary))}</p>')
        parts += [f'<p class="note">{_e(note)}</p>' for note in comparison.notes]
        for kind, changes in (("rule", comparison.rules), ("test", comparison.tests)):
            if not changes:
                continue
            ordered = sorted(changes, key=lambda change: _DIRECTION_ORDER.index(change.direction))
            shown = ordered if kind == "rule" else ordered[:CHANGED_TESTS_SHOWN]
            parts.append(
                f'<table class="diff"><thead><tr><th scope="col">{kind}</th><th scope="col">#1</th>'
                f'<th scope="col">#{index + 1}</th><th scope="col">change</th>'
                + ('<th scope="col">message</th>' if kind == "test" else "")
                + "</tr></thead><tbody>"
            )
            for change in shown:
                name = (
                    f'<a href="#r-{_e(change.id)}"><code>{_e(change.id)}</code></a>'
                    if kind == "rule"
                    else f"<code>{_e(change.id)}</code>"
                )
                row = (
                    f'<tr class="d-{change.direction}"><td>{name}</td><td>{_e(change.old or "absent")}</td>'
                    f'<td>{_e(change.new or "absent")}</td><td class="dir">{change.direction}</td>'
                )
                if kind == "test":
                    bad = change.new not in ("passed", None)
                    row += f"<td>{_e(change.message.strip().split(chr(10), 1)[0][:120] if bad else '')}</td>"
                parts.append(row + "</tr>")
            if len(shown) < len(ordered):
                parts.append(
                    f'<tr><td colspan="5">… and {len(ordered) - len(shown)} more tests: '
                    "<code>advisor-conformance compare</code> lists them all</td></tr>"
                )
            parts.append("</tbody></table>")
        if comparison.accept and comparison.counts("test")["review"]:
            parts.append(
                f'<p class="note">Snapshots to review (a changed prompt, not a worse rule); accept them '
                f"with <code>{_e(comparison.accept)}</code></p>"
            )
        parts.append("</section>")
    parts.append("</section>")
    return "".join(parts)


def _reviews_html(runs: list[Run]) -> str:
    """The snapshots to review of each run: review items, not rule failures, with the command that accepts them."""
    parts = []
    for index, run in enumerate(runs):
        reviews = run.reviews()
        listed = [(outcome, nodeid) for outcome in REVIEW_OUTCOMES for nodeid in reviews[outcome]]
        if not listed:
            continue
        items = "".join(
            f'<li><span class="badge {_css_class(outcome)}">{_e(outcome)}</span> <code>{_e(nodeid)}</code></li>'
            for outcome, nodeid in listed
        )
        accept = (
            f"<p>Accept them (after review): <code>{_e(reviews['accept'])}</code></p>" if reviews.get("accept") else ""
        )
        parts.append(
            f'<section class="pair" data-reviews="{index}"><h3>#{index + 1} {_e(run.name)}: {len(listed)} '
            f"snapshot{'s' * (len(listed) != 1)} to review</h3><ul>{items}</ul>{accept}</section>"
        )
    if not parts:
        return ""
    return (
        '<section id="reviews" class="changes"><h2>Snapshots to review</h2><p class="note">A snapshot that '
        "changed, or was never recorded, is a review item, not a rule failure: no rule is marked failed for it. "
        "The run fails until it is accepted (or the implementation mended).</p>" + "".join(parts) + "</section>"
    )


def _run_header(index: int, run: Run) -> str:
    """The column head of a run: its number, implementation, target, date, file, and tests run."""
    duration = run.meta.get("duration_s")
    tests = sum((run.data.get("counts") or {}).get("tests", {}).values()) if run.data.get("counts") else len(run.tests)
    detail = [run.target, _when(run.started) if run.started else "", PurePath(run.path).name]
    sub = "".join(f'<span class="sub">{_e(text)}</span>' for text in detail if text)
    extra = f"{tests} tests" + (f" in {duration:.0f} s" if isinstance(duration, int | float) else "")
    reviews = run.reviews()
    pending = sum(len(reviews[outcome]) for outcome in REVIEW_OUTCOMES)
    # a run that failed on snapshots alone has every rule green: its head says that it failed, and why
    review = (
        f'<span class="sub review" data-reviews-pending="{pending}">⚠ failed: {pending} snapshot'
        f"{'s' * (pending != 1)} to review</span>"
        if pending
        else ""
    )
    return (
        f'<th scope="col" class="run" data-run="{index}"><button type="button" class="runinfo" '
        f'data-run-info="{index}" title="{_e(run.describe())}"><span class="num">#{index + 1}</span> '
        f'<span class="impl">{_e(run.name)}</span></button>{sub}<span class="sub">{_e(extra)}</span>{review}'
        "</th>"
    )


def _run_totals(index: int, groups: list[tuple[str, str, list[Rule]]], present: dict[str, Any]) -> str:
    """The totals cell of a run: how many of the matrix's rules have each outcome."""
    tally: dict[str, int] = {}
    for _area, _title, members in groups:
        for rule in members:
            outcome = present[rule.id]["outcome"] if rule.id in present else "absent"
            tally[outcome] = tally.get(outcome, 0) + 1
    spans = "".join(
        f'<span class="t {_css_class(outcome)}" title="{_e(label)}">'
        f'<span aria-hidden="true">{symbol}</span> {tally[outcome]}'
        f'<span class="sr"> {_e(label)}</span></span>'
        for outcome, (symbol, label) in OUTCOMES.items()
        if tally.get(outcome)
    )
    return f'<td class="total" data-run="{index}" data-total="{sum(tally.values())}">{spans}</td>'


def _rule_row(
    rule: Rule, known: bool, runs: list[Run], rows_of: list[dict[str, Any]], change_of: list[dict[str, str]]
) -> str:
    """A rule's row: its ID, level and tag (marked unknown when the installed catalogue lacks it), one cell per run
    (outcome, counts, change), its statement."""
    outcomes = [rows_of[i][rule.id]["outcome"] if rule.id in rows_of[i] else "absent" for i in range(len(runs))]
    passed = all(outcome == "passed" for outcome in outcomes)
    unknown = "" if known else ' <span class="unknown" title="not in the installed catalogue">unknown</span>'
    row_class = "" if known else ' class="unknown-rule"'
    cells = []
    for i, outcome in enumerate(outcomes):
        counts = _counts(rows_of[i].get(rule.id))
        change = change_of[i].get(rule.id, "")
        change = change if change in ("worse", "better") else ""
        mark = {"worse": '<span class="chg">▼</span>', "better": '<span class="chg">▲</span>'}.get(change, "")
        if counts and (counts[COUNT_KEYS.index("changed")] or counts[COUNT_KEYS.index("not recorded")]):
            mark += '<span class="rev" title="a snapshot of this rule to review">⚠</span>'  # green, yet the run failed
        label = _cell_label(rule.id, i, runs[i], outcome, counts, change)
        cells.append(
            f'<td class="cell {_css_class(outcome)}{" " + change if change else ""}" '
            f'data-outcome="{outcome}" data-run="{i}"><button aria-label="{_e(label)}">'
            f'<span class="sym">{OUTCOMES[outcome][0]}</span>'
            f'<span class="n">{_cell_text(outcome, counts)}</span>{mark}</button></td>'
        )
    return (
        f'<tr id="r-{_e(rule.id)}" data-rule="{_e(rule.id)}" data-level="{_e(rule.level)}" '
        f'data-all-passed="{"1" if passed else "0"}"{row_class}>'
        f'<th scope="row" class="rule"><code>{_e(rule.id)}</code>{unknown}</th>'
        f'<td class="lvl lvl-{_e(rule.level)}">{_e(rule.level)}</td><td class="tag">{_e(rule.tag)}</td>'
        + "".join(cells)
        + f'<td class="stmt">{_e(rule.statement)}</td></tr>'
    )


def _notes(runs: list[Run], catalogue: Catalogue, limit: int) -> list[str]:
    """The notes above the matrix: another catalogue in some run, and where messages are cut."""
    catalogues = sorted({run.catalogue for run in runs if run.catalogue} - {catalogue.version})
    notes = []
    if catalogues:
        notes.append(
            f"Some runs used another rule catalogue ({', '.join(catalogues)}) than the installed one "
            f"({catalogue.version}): statements are the installed ones; rules it lacks are marked unknown."
        )
    notes.append(f"Each test's message is cut at {limit:,} characters here; the JSON reports keep them whole.")
    return notes


def build_page(
    runs: list[Run],
    *,
    catalogue: Catalogue | None = None,
    compare: bool = False,
    title: str | None = None,
    generated: datetime | None = None,
) -> str:
    """The HTML page of ``runs`` (one column each, in order); with ``compare``, changes from the first run."""
    if not runs:
        raise ValueError("a report needs at least one run")
    catalogue = catalogue or load_catalogue()
    groups, rule_count = _matrix_rules(runs, catalogue)
    comparisons = [compare_runs(runs[0], run) for run in runs[1:]] if compare else []
    change_of: list[dict[str, str]] = [{}] + [{change.id: change.direction for change in c.rules} for c in comparisons]
    change_of += [{}] * (len(runs) - len(change_of))  # without compare, no cell is marked
    nodes, messages = _Strings(), _Strings()
    cell_tests = [_cell_tests(run, nodes, messages) for run in runs]
    capped, limit = _cap_messages(messages.items)
    rows_of = [{clean_text(row["id"]): row for row in run.rules} for run in runs]

    columns = 3 + len(runs) + 1
    head = [
        '<tr><th scope="col" class="rule">Rule</th><th scope="col" class="lvl">Level</th>'
        '<th scope="col" class="tag">Tag</th>',
        *(_run_header(i, run) for i, run in enumerate(runs)),
        '<th scope="col" class="stmt">Statement</th></tr>',
    ]
    totals = [
        '<tr class="totals"><th scope="row" colspan="3">Rules by outcome</th>',
        *(_run_totals(i, groups, rows_of[i]) for i in range(len(runs))),
        '<td class="stmt"></td></tr>',
    ]
    body = []
    for area, area_title, members in groups:
        body.append(
            f'<tbody data-area="{_e(area)}"><tr class="area"><th scope="rowgroup" colspan="{columns}">'
            f'{_e(area_title)} <span class="areaid">{_e(area)} · {len(members)} '
            f"rule{'s' * (len(members) != 1)}</span></th></tr>"
        )
        body += [_rule_row(rule, rule.id in catalogue, runs, rows_of, change_of) for rule in members]
        body.append("</tbody>")

    area_options = "".join(f'<option value="{_e(area)}">{_e(area_title)}</option>' for area, area_title, _ in groups)
    legend = "".join(
        f'<li><span class="swatch {_css_class(outcome)}" aria-hidden="true">{symbol}</span> {_e(label)}</li>'
        for outcome, (symbol, label) in OUTCOMES.items()
    )
    data = {
        "catalogue": catalogue.version,
        "limit": limit,
        "runs": [_run_json(run) for run in runs],
        "rules": {
            rule.id: _rule_json(rule, area_title, rule.id in catalogue)
            for _area, area_title, members in groups
            for rule in members
        },
        "cells": [{rule_id: tests for rule_id, tests in by_rule.items()} for by_rule in cell_tests],
        "counts": [{rule_id: [row["outcome"], *_counts(row)] for rule_id, row in rows.items()} for rows in rows_of],
        "nodes": nodes.items,
        "messages": capped,
    }
    generated = generated or datetime.now(UTC)
    title = title or f"advisor-conformance: {rule_count} rules × {len(runs)} run{'s' * (len(runs) != 1)}"
    from ... import __version__

    fields = {
        "TITLE": _e(title),
        "CSS": _asset("page.css"),
        "JS": _asset("page.js"),
        "DATA": script_json(data),
        "GENERATED": _e(
            f"Built {generated.strftime('%Y-%m-%d %H:%M UTC')} by advisor-conformance {__version__}; "
            f"installed catalogue {catalogue.version}."
        ),
        "NOTES": "".join(f'<p class="note">{_e(note)}</p>' for note in _notes(runs, catalogue, limit)),
        "AREAS": area_options,
        "LEGEND": legend,
        "HEAD": "".join(head) + "".join(totals),
        "BODY": "".join(body),
        "CHANGES": _reviews_html(runs) + (_changes_html(comparisons, runs) if comparisons else ""),
        "RULES": str(rule_count),
    }
    template = _asset("page.html")
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda match: fields[match[1]], template)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
