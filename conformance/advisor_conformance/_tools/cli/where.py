"""``advisor-conformance where RULE-ID``: a rule and everything that concerns it."""

from __future__ import annotations

import argparse
import difflib
import json
import sys

from ...catalogue import load_catalogue

NAME = "where"
ORDER = 30
HELP = "show a rule: statement, level, source sentence, code, tests, vectors and snapshots"
DESCRIPTION = """\
Show one rule of the catalogue and everything that concerns it: its statement, level and tag, the spec
sentence it comes from, the places of the reference that implement it (relative to the installed packages), the
conformance tests that check it, the golden vectors that name it and the snapshots that record it. A test is
named as pytest reruns it from any directory, wherever the suite is installed:

  advisor-conformance where elision.marker-format
  advisor-conformance where elision.marker-format --json
  python3 -m pytest --impl=mypkg.advisor_adapter --pyargs 'advisor_conformance.tests.test_elision::test_x[1001]'
"""
#: How to rerun a test that ``where`` lists (pytest's ``--pyargs`` finds the installed suite).
RERUN = "python3 -m pytest --impl=TARGET --pyargs 'TEST'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", metavar="RULE-ID", help="a rule ID, such as elision.marker-format")
    parser.add_argument("--json", action="store_true", help="print the same as JSON")


def describe(rule_id: str) -> dict:
    from ..trace import (
        collect_rule_tests,
        implementation_sites,
        snapshots_of,
        vectors_of,
    )

    rule = load_catalogue()[rule_id]
    tests = sorted(rerunnable(nodeid) for nodeid in collect_rule_tests().get(rule_id, []))
    return {
        **rule.to_json(),
        "implemented_at": [str(site) for site in implementation_sites().get(rule_id, [])],
        "tests": tests,
        "vectors": vectors_of(rule_id),
        "snapshots": snapshots_of(tests),
    }


def rerunnable(nodeid: str) -> str:
    """A node ID of the suite as ``--pyargs`` takes it, from any directory: ``tests/test_elision.py::test_x[1001]``
    becomes ``advisor_conformance.tests.test_elision::test_x[1001]``."""
    path, _, rest = nodeid.partition("::")
    module = "advisor_conformance." + path.removesuffix(".py").replace("/", ".")
    return f"{module}::{rest}" if rest else module


def run(args: argparse.Namespace, extra: list[str]) -> int:
    catalogue = load_catalogue()
    if args.rule not in catalogue:
        close = difflib.get_close_matches(args.rule, list(catalogue.rules), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `advisor-conformance rules` lists them"
        print(f"advisor-conformance where: no rule {args.rule!r} in the catalogue{hint}", file=sys.stderr)
        return 2
    found = describe(args.rule)
    if args.json:
        print(json.dumps(found, indent=1, ensure_ascii=False))
        return 0
    level = f"{found['level']}, " if "level" in found else ""
    print(f"{found['id']}  ({level}{found['tag']}; area {found['area']})")
    print(f"  statement: {found['statement']}")
    print(f"  source:    {found['source']}")
    for title, key in (
        ("implemented at", "implemented_at"),
        ("tests", "tests"),
        ("golden vectors", "vectors"),
        ("snapshots", "snapshots"),
    ):
        items = found[key]
        rerun = f"; rerun one with {RERUN}" if key == "tests" and items else ""
        print(f"  {title} ({len(items)}{rerun}):" if items else f"  {title}: none")
        for item in items:
            print(f"    {item}")
    return 0
