"""``advisor-conformance compare OLD.json NEW.json``: what changed between two runs; exit 1 when something got worse."""

from __future__ import annotations

import argparse
import json
import sys

NAME = "compare"
ORDER = 50
HELP = "compare two --rule-report files: the rules and tests whose outcome changed; exit 1 on a regression"
DESCRIPTION = """\
Compare the JSON rule reports of two runs (`advisor-conformance run --rule-report FILE`): the rules whose
outcome changed, the tests whose outcome changed, and the rules and tests that appeared or disappeared.

Outcomes are ordered worst to best: failed < warning < xfailed < skipped = no tests < passed (for tests:
failed < warned < xfailed < skipped < passed). A change down that order is worse (a rule that passed and is
now skipped is no longer checked: worse), up it is better, between equals it merely changed. A rule or test
found only in NEW counts as worse when it fails or warns (a new failure); one found only in OLD disappeared,
which never counts as worse. Tests are matched by node ID without the folder of the suite. A snapshot whose new
outcome is "changed" or "not recorded" is a review item, listed with the command that accepts it, never worse.

Exit status: 0 when nothing got worse, 1 when some rule or test got worse (so CI can gate on regressions),
2 when a file cannot be read or is not a rule report: too large, not UTF-8, not JSON, NaN or a number of
thousands of digits, a key twice, nested too deep, or a field of the wrong type (the message names the file and
the field). A corrupt baseline is never read as a regression.

  advisor-conformance compare last-release.json rules.json
  advisor-conformance compare old.json new.json --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD.json", help="the baseline run's --rule-report file")
    parser.add_argument("new", metavar="NEW.json", help="the run to judge against it")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--all", action="store_true", help="list every changed test (default: 50 per kind of change)")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..report import ReportInputError, compare_runs, load_run, render_text

    try:
        old, new = load_run(args.old), load_run(args.new)
    except ReportInputError as exc:
        print(f"advisor-conformance compare: {exc}", file=sys.stderr)
        return 2
    comparison = compare_runs(old, new)
    if args.json:
        print(json.dumps(comparison.to_json(), indent=1, ensure_ascii=False))
    else:
        sys.stdout.write(render_text(comparison, limit=None if args.all else 50))
    return 1 if comparison.worse else 0
