"""``advisor-conformance harness``: serve a Python implementation over the harness protocol."""

from __future__ import annotations

import argparse
import sys

from ._options import add_impl

NAME = "harness"
ORDER = 90
HELP = "serve a Python implementation over the harness protocol on stdin and stdout"
DESCRIPTION = """\
Serve a Python adapter (the reference by default) over the harness protocol: one JSON request per line on
stdin, one answer per line on stdout (docs/harness.md). The suite starts it as a harness:

  pytest --impl='cmd:advisor-conformance harness'
  pytest --impl='cmd:advisor-conformance harness --impl mypkg.advisor_adapter'
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl(parser, "the Python adapter to serve: 'reference' (the default) or 'package.module[:object]'")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    import os

    from ..._contract.harness import serve
    from ..._contract.implementation import TargetError, load_target

    if args.impl.startswith("cmd:"):
        print("advisor-conformance harness serves a Python adapter, not a command", file=sys.stderr)
        return 2
    try:
        # a package in the directory the harness runs in is importable, as under `python -m` (and `pytest --impl`)
        implementation = load_target(args.impl, cwd=os.getcwd())
    except TargetError as exc:
        print(f"advisor-conformance harness: {exc}", file=sys.stderr)
        return 2
    return serve(implementation.transport.adapter)  # type: ignore[attr-defined]
