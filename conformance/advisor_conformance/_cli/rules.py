"""``advisor-conformance rules``: the rule catalogue."""

from __future__ import annotations

import argparse
import json

from ..catalogue import load_catalogue

NAME = "rules"
ORDER = 20
HELP = "print the rule catalogue"
DESCRIPTION = """\
Print the rule catalogue: one line per rule, its ID and statement separated by a tab; with --json, a list of
rules with id, area, statement, tag, source and tested (whether some test of the suite carries the ID).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON, with whether each rule is tested")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    catalogue = load_catalogue()
    if args.json:
        from .._trace import collect_rule_tests

        tested = collect_rule_tests()
        rows = [{**rule.to_json(), "tested": rule.id in tested} for rule in catalogue.rules.values()]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    else:
        for rule in catalogue.rules.values():
            print(f"{rule.id}\t{rule.statement}")
    return 0
