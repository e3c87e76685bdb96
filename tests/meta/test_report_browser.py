"""The HTML report in a real browser: Debian's Chromium, headless, driven by playwright (which downloads nothing).

The browser is ``/usr/bin/chromium`` (or ``ADVISOR_CHROMIUM``, or ``chromium`` on
PATH). Where there is none, or playwright is not installed, the tests skip and
say why; when the environment variable ``CI`` is set they fail instead, since
``.ci/run`` installs the browser. Screenshots go to pytest's ``tmp_path``, and
with ``CI`` set the acceptance screenshot is also copied to ``.ci/out/report.png``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest

from advisor_conformance._tools.report import build_page, parse_run
from advisor_conformance.catalogue import Catalogue, load_catalogue

from ..support.browser import FLAGS, VIEWPORT, chromium_path
from ..support.rule_reports import COUNTED, rule_report, rule_row
from ..support.runner import ROOT, SUITE, run_pytest

HOSTILE = "[elision.marker-format] got </script><script>alert('x')</script> \"q\" 'a' \u2028next & <b>b</b>"
CI_OUT = ROOT / ".ci" / "out"


def _in_ci() -> bool:
    return bool(os.environ.get("CI"))


def _unavailable(reason: str) -> None:
    if _in_ci():
        pytest.fail(f"{reason}; CI is set, so the browser test must run (.ci/run installs Debian's chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for this module's tests (skips, or in CI fails, when there is none)."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (python3 -m pip install -c constraints.txt -e '.[dev]')")
    path = chromium_path()
    if path is None:
        _unavailable("no Chromium found at /usr/bin/chromium or on PATH (apt-get install chromium)")
    with sync_playwright() as playwright:
        try:
            instance = playwright.chromium.launch(executable_path=path, headless=True, args=FLAGS)
        except Error as exc:
            _unavailable(f"Chromium at {path} did not start: {str(exc).splitlines()[0]}")
        yield instance
        instance.close()


class Page:
    """A browser tab on one report file, recording requests, script errors and dialogs."""

    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport=VIEWPORT)
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)

        def on_dialog(dialog) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", on_dialog)
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("html[data-ready='1']", timeout=10_000)

    def cells(self) -> list[dict[str, str]]:
        return self.page.eval_on_selector_all(
            "td.cell",
            "cells => cells.map(c => ({rule: c.closest('tr').dataset.rule, run: c.dataset.run, "
            "outcome: c.dataset.outcome, symbol: c.querySelector('.sym').textContent, "
            "label: c.querySelector('button').getAttribute('aria-label'), "
            "colour: getComputedStyle(c).backgroundColor}))",
        )

    def visible_rules(self) -> list[str]:
        return self.page.eval_on_selector_all(
            "tbody tr[data-rule]", "rows => rows.filter(r => r.offsetParent !== null).map(r => r.dataset.rule)"
        )

    def close(self) -> None:
        self.page.close()


def synthetic_runs() -> list[dict]:
    """Three hand-made reports over the real catalogue: all passed; every outcome; a missing and an unknown rule."""
    catalogue = load_catalogue()
    rule_ids = list(catalogue.rules)

    def make(
        name: str,
        outcomes: dict[str, str],
        messages: dict[str, str],
        drop: tuple[str, ...] = (),
        extra: tuple[str, ...] = (),
    ) -> dict:
        rows, tests = [], []
        for rule_id in [*rule_ids, *extra]:
            if rule_id in drop:
                continue
            outcome = outcomes.get(rule_id, "passed")
            test_outcome = {"warning": "warned", "no tests": None}.get(outcome, outcome)
            counts = dict.fromkeys(COUNTED, 0)
            if test_outcome:
                counts[test_outcome] = 1
                test = {"nodeid": f"tests/test_x.py::test_{rule_id}", "rules": [rule_id], "outcome": test_outcome}
                if test_outcome != "passed":
                    test["message"] = messages.get(rule_id, f"[{rule_id}] {test_outcome} here")
                tests.append(test)
            rows.append(rule_row(rule_id, outcome, sum(counts.values()), counts))
        return rule_report(
            name,
            rows,
            tests,
            catalogue=catalogue.version,
            arguments=[],
            started="2026-01-02T03:04:05+00:00",
            duration_s=3.2,
        )

    first, second, third = rule_ids[:3]
    return [
        make("all-good", {}, {}),
        make(
            "mixed",
            {
                "elision.marker-format": "failed",
                first: "warning",
                second: "xfailed",
                third: "skipped",
                rule_ids[-1]: "no tests",
            },
            {"elision.marker-format": HOSTILE},
        ),
        make(
            "other-catalogue",
            {"elision.marker-format": "failed"},
            {},
            drop=(rule_ids[-2],),
            extra=("elision.retired-rule",),
        ),
    ]


def catalogue_with_should_rules() -> Catalogue:
    """The installed catalogue with the rules of the request area made `should` rules (the filter needs some)."""
    real = load_catalogue()
    rules = {
        rule_id: dataclasses.replace(rule, level="should", why="for the filter test")
        if rule.area == "request"
        else rule
        for rule_id, rule in real.rules.items()
    }
    return Catalogue(real.areas, rules, real.version)


@pytest.fixture(scope="module")
def synthetic_page(tmp_path_factory):
    """The page of the three hand-made runs, with the comparison, and the runs' data."""
    runs = synthetic_runs()
    folder = tmp_path_factory.mktemp("report")
    path = folder / "report.html"
    path.write_text(
        build_page(
            [parse_run(data, f"{data['implementation']['name']}.json") for data in runs],
            catalogue=catalogue_with_should_rules(),
            compare=True,
        ),
        encoding="utf-8",
    )
    return path, runs


def expected_cells(runs: list[dict]) -> dict[tuple[str, str], str]:
    rule_ids = dict.fromkeys(row["id"] for data in runs for row in data["rules"])
    expected = {}
    for index, data in enumerate(runs):
        outcomes = {row["id"]: row["outcome"] for row in data["rules"]}
        for rule_id in rule_ids:
            expected[(rule_id, str(index))] = outcomes.get(rule_id, "absent")
    return expected


def test_cells_match_the_reports(browser, synthetic_page, tmp_path):
    """In the browser the matrix has one cell per rule and run, each showing that run's outcome of the rule."""
    path, runs = synthetic_page
    page = Page(browser, path)
    try:
        cells = page.cells()
        expected = expected_cells(runs)
        assert len(cells) == len(expected) == (len(load_catalogue().rules) + 1) * 3  # one unknown rule
        assert {(cell["rule"], cell["run"]): cell["outcome"] for cell in cells} == expected
        symbols = {
            "passed": "✓",
            "failed": "✗",
            "warning": "!",
            "xfailed": "x",
            "skipped": "–",
            "no tests": "·",
            "absent": "∅",
        }
        for cell in cells:
            assert cell["symbol"] == symbols[cell["outcome"]]
            assert cell["rule"] in cell["label"]
        colours = {cell["outcome"]: cell["colour"] for cell in cells}
        assert len({colours[outcome] for outcome in ("passed", "failed", "warning", "xfailed", "skipped")}) == 5
        assert page.requests == [path.as_uri()], "the page requested something besides itself"
        assert page.errors == []
        page.page.screenshot(path=str(tmp_path / "synthetic.png"), full_page=True)
    finally:
        page.close()


def test_clicking_a_failing_cell_shows_its_message(browser, synthetic_page, tmp_path):
    """A click on a failing cell opens the panel with the rule's statement and the failing test's exact message."""
    path, _ = synthetic_page
    page = Page(browser, path)
    try:
        page.page.click("tr[data-rule='elision.marker-format'] td.cell[data-run='1'] button")
        panel = page.page.locator("#detail")
        panel.wait_for(state="visible")
        assert page.page.text_content("#detail-title") == "elision.marker-format"
        assert page.page.locator("#detail pre.message").first.text_content() == HOSTILE
        statement = load_catalogue()["elision.marker-format"].statement
        assert statement in panel.text_content()
        assert page.dialogs == [] and page.errors == []
        page.page.screenshot(path=str(tmp_path / "panel.png"))
        page.page.keyboard.press("Escape")
        panel.wait_for(state="hidden")
    finally:
        page.close()


def test_enter_on_a_focused_cell_opens_the_panel(browser, synthetic_page):
    """Focusing a cell and pressing Enter opens its panel; Escape closes it and gives the focus back."""
    path, _ = synthetic_page
    page = Page(browser, path)
    try:
        selector = "tr[data-rule='elision.retired-rule'] td.cell[data-run='2'] button"
        page.page.focus(selector)
        page.page.keyboard.press("Enter")
        page.page.locator("#detail").wait_for(state="visible")
        assert page.page.text_content("#detail-title") == "elision.retired-rule"
        first_badge = page.page.locator("#detail-body .badge").first.get_attribute("class")
        assert "o-passed" in first_badge.split()  # this run's outcome of the rule comes first
        assert page.page.locator("tr.unknown-rule[data-rule='elision.retired-rule']").count() == 1
        page.page.keyboard.press("Escape")
        page.page.locator("#detail").wait_for(state="hidden")
        assert page.page.evaluate("document.activeElement.closest('tr').dataset.rule") == "elision.retired-rule"
    finally:
        page.close()


def test_filters_show_failures_one_area_and_must_rules(browser, synthetic_page):
    """The filters leave only rules not passed in every run, only one area's rules, or only must rules."""
    path, runs = synthetic_page
    catalogue = catalogue_with_should_rules()
    page = Page(browser, path)
    try:
        everything = page.visible_rules()
        assert len(everything) == len(catalogue.rules) + 1
        expected = expected_cells(runs)
        not_passed = {rule for (rule, _), outcome in expected.items() if outcome != "passed"}
        page.page.check("#f-failing")
        assert set(page.visible_rules()) == not_passed
        page.page.uncheck("#f-failing")
        page.page.select_option("#f-area", "elision")
        elision = {rule.id for rule in catalogue.in_area("elision")}
        assert set(page.visible_rules()) == elision | {"elision.retired-rule"}
        page.page.select_option("#f-area", "")
        page.page.check("#f-must")
        shown = set(page.visible_rules())
        assert shown == {
            rule_id for rule_id in everything if rule_id not in catalogue.rules or catalogue[rule_id].level == "must"
        }
        assert not shown & {rule.id for rule in catalogue.in_area("request")} and len(shown) < len(everything)
    finally:
        page.close()


@pytest.mark.slow
def test_three_real_runs_show_the_broken_rule_red(browser, tmp_path, progress):
    """The page of the reference, a broken implementation and advisor-js shows the broken rule failed, in red."""
    if shutil.which("node") is None:
        _unavailable("Node.js is not installed (advisor-js needs it)")
    targets = [
        ("reference", "reference", []),
        (
            "broken",
            "advisor_conformance._broken.shaping:MarkerOffByOne",
            [
                "--hypothesis-profile=advisor-conformance-noshrink",
                f"--impl-snapshots={ROOT / 'snapshots' / 'reference'}",
            ],
        ),
        ("advisor-js", "cmd:node examples/advisor-js/harness.js", []),
    ]
    paths = []
    for name, target, extra in targets:
        progress(f"report: the suite against {name}")
        run = run_pytest(SUITE, f"--impl={target}", "-q", *extra)
        assert run.report is not None, run.stdout[-3000:] + run.stderr[-2000:]
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(run.report), encoding="utf-8")
        paths.append(path)
    from advisor_conformance._tools.cli import main

    output = tmp_path / "report.html"
    assert main(["report", *map(str, paths), "-o", str(output)]) == 0
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
    page = Page(browser, output)
    try:
        cells = page.cells()
        assert {(cell["rule"], cell["run"]): cell["outcome"] for cell in cells} == expected_cells(runs)
        broken = {cell["run"]: cell for cell in cells if cell["rule"] == "elision.marker-format"}
        assert broken["1"]["outcome"] == "failed" and broken["0"]["outcome"] == broken["2"]["outcome"] == "passed"
        red, green, blue = (int(part) for part in broken["1"]["colour"].split("(")[1].rstrip(")").split(",")[:3])
        assert red > 150 and green < 80 and blue < 80, broken["1"]["colour"]
        screenshot = tmp_path / "report.png"
        page.page.screenshot(path=str(screenshot), full_page=True)
        page.page.click("tr[data-rule='elision.marker-format'] td.cell[data-run='1'] button")
        page.page.locator("#detail pre.message").first.wait_for(state="visible")
        assert "elision.marker-format" in page.page.locator("#detail pre.message").first.text_content()
        page.page.screenshot(path=str(tmp_path / "report-detail.png"))
        assert page.errors == [] and page.requests == [output.as_uri()]
    finally:
        page.close()
    if _in_ci():
        CI_OUT.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(screenshot, CI_OUT / "report.png")
        shutil.copyfile(tmp_path / "report-detail.png", CI_OUT / "report-detail.png")
