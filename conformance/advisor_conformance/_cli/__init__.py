"""The ``advisor-conformance`` command: one module per subcommand.

Each subcommand module has ``NAME``, ``HELP`` (one line for the command list),
``DESCRIPTION`` (its ``--help`` text), ``add_arguments(parser)`` and
``run(args, extra) -> int``; ``extra`` holds the arguments the parser did not
know, which only ``run`` accepts (they go to pytest).
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module
from types import ModuleType

#: The subcommands, in the order ``--help`` lists them.
COMMANDS = ("run", "rules", "where", "harness")

DESCRIPTION = """\
The conformance suite of the LLM advisor sub-agent: run it against an implementation (the reference by
default), read its rules, and serve a Python implementation over the harness protocol.

  advisor-conformance run                          the suite against the reference, with the outcome per rule
  advisor-conformance run --impl mypkg.adapter     ... against your Python adapter
  advisor-conformance run --impl 'cmd:node h.js'   ... against a harness in any language (HARNESS.md)
  advisor-conformance where elision.marker-format  a rule: its statement, code, tests and vectors
"""


def _module(name: str) -> ModuleType:
    return import_module(f"{__name__}.{name.replace('-', '_')}")


def version_line() -> str:
    from .. import __version__
    from .._protocol import PROTOCOL_VERSION

    return f"advisor-conformance {__version__} (protocol {PROTOCOL_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="advisor-conformance", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = _module(name)
        sub = commands.add_parser(module.NAME, help=module.HELP, description=module.DESCRIPTION,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    module = _module(args.command)
    if extra and not getattr(module, "PASSES_EXTRA", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return module.run(args, extra)


def entry() -> None:
    """Console-script entry point: quiet on a closed pipe (``advisor-conformance rules | head``)."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
