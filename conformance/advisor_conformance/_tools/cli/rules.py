"""``advisor-conformance rules``: the rule catalogue."""

from __future__ import annotations

import argparse
import json
import sys

from ...catalogue import load_catalogue, markdown

NAME = "rules"
ORDER = 20
HELP = "print the rule catalogue"
DESCRIPTION = """\
Print the rule catalogue: one line per rule, its ID and statement separated by a tab. With --json, an object
with the suite's version, the catalogue version (it changes whenever a rule is added, changed or retired) and the
rules (id, area, level, tag, statement, source, why for a should rule, partition: its input classes and the
tests that pin each, mistakes: the plausible mistakes of a port and the tests that fail each, and tested: whether
some test of the suite carries the ID). With --markdown, the rules document (docs/rules.md in the repository).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--json", action="store_true", help="print JSON, with the catalogue version and whether each rule is tested"
    )
    form.add_argument("--markdown", action="store_true", help="print the rules document (every rule by area)")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ... import __version__

    catalogue = load_catalogue()
    if args.json:
        from ...partition import load_mistakes, load_partitions
        from ..trace import collect_rule_tests

        tested = collect_rule_tests()
        partitions, mistakes = load_partitions(), load_mistakes()
        rows = [
            {
                **rule.to_json(),
                "tested": rule.id in tested,
                "partition": [input_class.to_json() for input_class in partitions.get(rule.id, ())],
                "mistakes": [mistake.to_json() for mistake in mistakes.get(rule.id, ())],
            }
            for rule in catalogue.rules.values()
        ]
        print(
            json.dumps(
                {
                    "suite": __version__,
                    "catalogue": catalogue.version,
                    "rules": rows,
                    "retired": list(catalogue.retired),
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    elif args.markdown:
        sys.stdout.write(markdown(catalogue, __version__))
    else:
        for rule in catalogue.rules.values():
            print(f"{rule.id}\t{rule.statement}")
    return 0
