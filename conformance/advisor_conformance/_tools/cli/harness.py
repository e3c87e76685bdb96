"""``advisor-conformance harness``: serve a Python implementation over the harness protocol."""

from __future__ import annotations

import argparse
import sys

from ._options import Named, add_impl, announce, resolve

NAME = "harness"
ORDER = 90
HELP = "serve a Python implementation over the harness protocol on stdin and stdout"
DESCRIPTION = """\
Serve a Python adapter over the harness protocol: one JSON request per line on stdin, one answer per line on
stdout (docs/harness.md). The adapter is --impl, else $ADVISOR_CONFORMANCE_IMPL, else conformance_impl of the
nearest configuration file, else the reference (a `cmd:` target found in the environment or the configuration, as
when the suite starts this very harness, is not served: the reference is); the first line on stderr says which.
The suite starts it as a harness:

  pytest --impl='cmd:advisor-conformance harness'
  pytest --impl='cmd:advisor-conformance harness --impl mypkg.advisor_adapter'
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl(
        parser,
        "the Python adapter to serve: 'reference' or 'package.module[:object]'; default: $ADVISOR_CONFORMANCE_IMPL, "
        "else conformance_impl of the nearest configuration file, else the reference",
    )


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..._contract.harness import serve
    from ..._contract.implementation import TargetError, load_target

    prog = "advisor-conformance harness"
    if args.impl is not None and args.impl.startswith("cmd:"):
        print(f"{prog} serves a Python adapter, not a command", file=sys.stderr)
        return 2
    try:
        named = resolve(args.impl)
    except TargetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if named.target.startswith("cmd:"):  # the harness the configuration names (this one, likely): not served
        named = Named(
            "reference",
            f"the default: the reference ({named.origin} names a command, which {prog} does not serve)",
            named.directory,
            "default",
        )
    try:
        # a package of the folder it is named from is importable, as under `python -m` (and `pytest --impl`)
        implementation = load_target(named.target, cwd=named.directory, origin=named.origin)
    except TargetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    announce(prog, implementation, named)  # on stderr: stdout is the protocol's
    return serve(implementation.transport.adapter)  # type: ignore[attr-defined]
