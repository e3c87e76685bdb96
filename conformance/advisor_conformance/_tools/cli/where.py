"""``advisor-conformance where RULE-ID``: a rule and everything that concerns it."""

from __future__ import annotations

import argparse
import difflib
import json
import sys

from ...catalogue import load_catalogue
from ._options import add_impl, resolve

NAME = "where"
ORDER = 30
HELP = "show a rule: statement, level, source sentence, code, tests, vectors and snapshots"
DESCRIPTION = """\
Show one rule of the catalogue and everything that concerns it: its statement, level and tag, the spec
sentence it comes from, the places of the reference that implement it (relative to the installed packages), the
conformance tests that check it, the golden vectors that name it and the snapshots that record it. Each test
is shown as the command that reruns it from the current directory, wherever the suite is installed, against the
implementation a run here tests (--impl, else $ADVISOR_CONFORMANCE_IMPL, else conformance_impl of the nearest
configuration file, whose settings the command then runs under; else the reference). The suite's collection is
kept in the user's cache folder, so a lookup after the first takes a fraction of a second.

  advisor-conformance where elision.marker-format
  advisor-conformance where elision.marker-format --impl mypkg.advisor_adapter --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", metavar="RULE-ID", help="a rule ID, such as elision.marker-format")
    add_impl(
        parser,
        "the implementation the printed commands rerun the tests against; default: $ADVISOR_CONFORMANCE_IMPL, else "
        "conformance_impl of the nearest configuration file, else the reference",
    )
    parser.add_argument("--json", action="store_true", help="print the same as JSON")


def describe(rule_id: str, impl: str | None = None) -> dict:
    from ..._pytest_plugin.commands import impl_options, pyargs_id, pytest_command
    from ..trace import (
        collect_rule_tests,
        implementation_sites,
        snapshots_of,
        vectors_of,
    )

    rule = load_catalogue()[rule_id]
    named = resolve(impl)
    tests = sorted(pyargs_id(nodeid) for nodeid in collect_rule_tests(cache=True).get(rule_id, []))
    return {
        **rule.to_json(),
        "implemented_at": [str(site) for site in implementation_sites().get(rule_id, [])],
        "tests": tests,
        "rerun": {
            "implementation": named.target,
            "from": named.origin,
            "commands": [pytest_command(impl_options(named.target, named.source), test) for test in tests],
        },
        "vectors": vectors_of(rule_id),
        "snapshots": snapshots_of(tests),
    }


def run(args: argparse.Namespace, extra: list[str]) -> int:
    catalogue = load_catalogue()
    if args.rule not in catalogue:
        close = difflib.get_close_matches(args.rule, list(catalogue.rules), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `advisor-conformance rules` lists them"
        print(f"advisor-conformance where: no rule {args.rule!r} in the catalogue{hint}", file=sys.stderr)
        return 2
    from ..._contract.implementation import TargetError

    try:
        found = describe(args.rule, args.impl)
    except TargetError as exc:
        print(f"advisor-conformance where: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(found, indent=1, ensure_ascii=False))
        return 0
    level = f"{found['level']}, " if "level" in found else ""
    print(f"{found['id']}  ({level}{found['tag']}; area {found['area']})")
    print(f"  statement: {found['statement']}")
    print(f"  source:    {found['source']}")
    rerun = found["rerun"]
    for title, key in (
        ("implemented at", "implemented_at"),
        ("tests", "tests"),
        ("golden vectors", "vectors"),
        ("snapshots", "snapshots"),
    ):
        items = rerun["commands"] if key == "tests" else found[key]
        how = f"; each reruns against {rerun['implementation']}, from {rerun['from']}" if key == "tests" else ""
        print(f"  {title} ({len(items)}{how}):" if items else f"  {title}: none")
        for item in items:
            print(f"    {item}")
    return 0
