"""``advisor-conformance report RUN.json...``: one HTML page with the matrix of rules by runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "report"
ORDER = 40
HELP = "build one self-contained HTML page of the rules by runs from --rule-report files"
DESCRIPTION = """\
Build one self-contained HTML page (inline CSS and JavaScript; it fetches nothing) from the JSON rule reports
of one or more runs (`advisor-conformance run --rule-report RUN.json`): the rules of the catalogue as rows,
grouped by area, one column per run in the order given (implementation, version, target, start time) with
the totals per run, and in each cell the rule's outcome in that run by colour and symbol:

  ✓ passed   ✗ failed   ! warning   x xfailed   – skipped   · no tests   ∅ not in this run

A click (or Enter) on a cell shows the rule's statement, source sentence, level and tag, and the tests of
that run that did not pass with their messages (cut at a few thousand characters each; the JSON reports keep
them whole). Filters show only the rules not passed in every run, one area, or only `must` rules. Statements
come from the installed catalogue; a rule it lacks (a report of another suite release) is marked unknown.

With --compare, the first run is the baseline: the page adds a section of what changed from it to each
other run (rules and tests that got worse, better, appeared or disappeared; `advisor-conformance compare`
explains the order) and marks the cells that got worse (▼) or better (▲).

Every input is read bounded and checked before use (its size, encoding, depth, numbers and the type of every
field the page reads); the output is checked writable before the work and written whole or not at all.

Exit status: 0 when the page was written; 2 when a run report cannot be read or is not a rule report (the message
names the file and the field), or the output cannot be written (it names -o and the path).

  advisor-conformance report reference.json mine.json -o report.html
  advisor-conformance report last-release.json mine.json --compare -o review.html
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN.json", help="a --rule-report file; one column each, in order")
    parser.add_argument(
        "-o", "--output", default="report.html", metavar="FILE", help="the HTML file to write (default: report.html)"
    )
    parser.add_argument("--compare", action="store_true", help="add the changes from the first run to each other run")
    parser.add_argument("--title", help="the page's title (default: advisor-conformance: N rules × M runs)")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..._outputs import unwritable, write_atomic
    from ..inputs import InputError
    from ..report import build_page, load_run

    if args.compare and len(args.runs) < 2:
        print(
            "advisor-conformance report: --compare needs at least two runs (the first is the baseline)", file=sys.stderr
        )
        return 2
    output = Path(args.output)
    reason = unwritable(output)
    if reason:
        print(f"advisor-conformance report: -o {args.output}: cannot be written: {reason}"[:1000], file=sys.stderr)
        return 2
    try:
        runs = [load_run(path) for path in args.runs]
        page = build_page(runs, compare=args.compare, title=args.title)
    except InputError as exc:  # a run report, or a value the page cannot carry (ReportInputError is one)
        print(f"advisor-conformance report: {exc}", file=sys.stderr)
        return 2
    try:
        write_atomic(output, page.encode("utf-8"))
    except OSError as exc:
        print(
            f"advisor-conformance report: -o {args.output}: cannot be written ({exc.strerror or exc})"[:1000],
            file=sys.stderr,
        )
        return 2
    rules = len({row["id"] for run_ in runs for row in run_.rules})
    print(
        f"wrote {output}: {rules} rules × {len(runs)} run{'s' * (len(runs) != 1)}, "
        f"{len(page.encode('utf-8')) / 1024:.0f} KiB"
    )
    return 0
