"""``advisor-conformance diff --impl A --impl B``: differential testing of two implementations."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ._options import add_harness_timeout, add_impl

NAME = "diff"
ORDER = 70
HELP = "draw inputs, send them to two implementations, and show the first (shrunk) input they answer differently"
DESCRIPTION = """\
Differential testing: draw inputs for shape, encode and scenario from the suite's hypothesis strategies (only
from the areas and providers both implementations declare: an operation of no area both declare is skipped, and
files, a question, tool calls, a workspace, caps or sessions are drawn only when both declare their area), send
each to both implementations, and compare the two answers modulo what the spec leaves open: the declared
strings, a deduped file's layout, <args-json> as a JSON value (unless both declare args_json: origin), fresh
cache keys, error messages (errors compare by code and at), the Anthropic thinking budget (enabled, at least
1024, below max_tokens) and an empty user message on the Anthropic wire (left out or given a text). The first
input on which they differ is shrunk to a minimal one and printed with the paths where the answers differ and
both answers there.

The same seed draws the same inputs: a run is reproducible. Exit status: 0 when no divergence was found, 1
when one was (after printing it), 2 on a usage error or a target that cannot be loaded.

  advisor-conformance diff --impl reference --impl 'cmd:node examples/advisor-js/harness.js'
  advisor-conformance diff --impl reference --impl mypkg.adapter --op shape --examples 1000 --seed 7
  advisor-conformance diff --impl reference --impl mypkg.adapter --json
"""


OPERATIONS = ("shape", "encode", "scenario")  # as in _diff, which imports hypothesis: only `diff` itself loads it


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl(
        parser,
        "an implementation, given twice: 'reference', 'package.module[:object]' or 'cmd:COMMAND LINE'",
        default=[],
        action="append",
        required=True,
    )
    parser.add_argument(
        "--op",
        action="append",
        choices=OPERATIONS,
        metavar="OP",
        help=f"an operation to draw inputs for ({', '.join(OPERATIONS)}); repeatable; default: all three",
    )
    parser.add_argument(
        "--examples", type=int, default=200, metavar="N", help="inputs drawn per operation (default 200)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="the seed of the draws (default 0): the same seed draws the same inputs",
    )
    add_harness_timeout(parser, 60.0)
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")


def _described(impl) -> dict:
    d = impl.description
    return {"target": impl.target, "name": d.get("name"), "version": d.get("version"), "language": d.get("language")}


def _label(impl) -> str:
    d = impl.description
    return f"{d.get('name')} {d.get('version')} ({d.get('language')})"


def _line(outcome) -> str:
    if outcome.skipped:
        return f"  {outcome.op:<9} skipped: {outcome.skipped}"
    if outcome.divergence is None:
        return f"  {outcome.op:<9} {outcome.inputs} inputs, no divergence ({outcome.seconds:.1f} s)"
    return (
        f"  {outcome.op:<9} DIVERGENCE, found at input {outcome.found_after}, shrunk in "
        f"{outcome.inputs - (outcome.found_after or 0)} more runs ({outcome.seconds:.1f} s)"
    )


def _print_divergence(divergence, names: tuple[str, str]) -> None:
    from ..._bounded import cap_lines, show

    print(f"\n{divergence.op}: the answers differ on this input (shrunk):")
    print("  " + show(divergence.input).replace("\n", "\n  "))
    parts = divergence.parts()
    print(
        f"where they differ ({len(parts)}; after the open choices are normalised; "
        f"in each line A's answer is the expected one, B's the one got):"
    )
    for part in parts[:10]:
        print(f"  {part['path']}: {cap_lines(part['what'], lines=3)}")
        for side, name in (("a", names[0]), ("b", names[1])):
            print(f"    A = {name}:" if side == "a" else f"    B = {name}:")
            print("      " + show(part[side]).replace("\n", "\n      "))
    if len(parts) > 10:
        print(f"  … and {len(parts) - 10} more")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..._contract.implementation import TargetError, load_target
    from ..diff import run as run_diff

    prog = "advisor-conformance diff"
    if len(args.impl) != 2:
        print(f"{prog}: give exactly two implementations (--impl A --impl B), got {len(args.impl)}", file=sys.stderr)
        return 2
    if args.examples < 1:
        print(f"{prog}: --examples is at least 1", file=sys.stderr)
        return 2
    ops = list(dict.fromkeys(args.op or OPERATIONS))
    loaded = []  # `package.module` targets import from here (cwd), as with `python -m`
    try:
        for target in args.impl:
            loaded.append(load_target(target, harness_timeout=args.harness_timeout, cwd=os.getcwd()))
    except TargetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        for impl in loaded:
            impl.close()
        return 2
    pair = (loaded[0], loaded[1])
    if not args.json:
        print(
            f"{prog}: A = {_label(pair[0])} (--impl={pair[0].target}), B = {_label(pair[1])} "
            f"(--impl={pair[1].target}); seed {args.seed}, {args.examples} inputs per operation"
        )

    def progress(outcome) -> None:
        if not args.json:
            print(_line(outcome), flush=True)

    try:
        report = run_diff(pair, ops, examples=args.examples, seed=args.seed, progress=progress)
    finally:
        for impl in pair:
            impl.close()
    if args.json:
        print(
            json.dumps(
                {
                    "a": _described(pair[0]),
                    "b": _described(pair[1]),
                    "seed": args.seed,
                    "examples": args.examples,
                    "diverged": report.diverged,
                    "operations": [outcome.to_json() for outcome in report.outcomes],
                },
                indent=1,
                ensure_ascii=False,
                default=repr,
            )
        )
    else:
        for outcome in report.outcomes:
            if outcome.divergence is not None:
                _print_divergence(outcome.divergence, (_label(pair[0]), _label(pair[1])))
        print(f"\n{prog}: " + ("the implementations diverge" if report.diverged else "no divergence found"))
    return 1 if report.diverged else 0
