"""The ``advisor-conformance`` command: one module per subcommand, found in this package.

Each subcommand module has ``NAME``, ``ORDER`` (its place in ``--help``),
``HELP`` (one line for the command list), ``DESCRIPTION`` (its ``--help``
text), ``add_arguments(parser)`` and ``run(args, extra) -> int``; ``extra``
holds the arguments the parser did not know, which only a module with
``PASSES_EXTRA = True`` accepts (``run`` hands them to pytest). A new
subcommand is a new module here; nothing else changes. Options that several
subcommands take (``--impl``, ``--harness-timeout``) are declared once, in
``_options``.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import sys
from importlib import import_module
from types import ModuleType

DESCRIPTION = """\
The conformance suite of the LLM advisor sub-agent: run it against an implementation (the one your project's
configuration names, else the reference), read its rules, and serve a Python implementation over the harness
protocol. A misspelt ADVISOR_CONFORMANCE_* variable is an error.

  advisor-conformance run                          the suite against the implementation your configuration names
                                                   (else the reference), with the outcome per rule
  advisor-conformance run --impl mypkg.adapter     ... against your Python adapter
  advisor-conformance run --impl 'cmd:node h.js'   ... against a harness in any language (docs/harness.md)
  advisor-conformance where elision.marker-format  a rule: its statement, code, tests and vectors
"""


def commands() -> list[ModuleType]:
    """The subcommand modules of this package, in their ``ORDER``."""
    found = [
        import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    ]
    return sorted(found, key=lambda module: (module.ORDER, module.NAME))


def version_line() -> str:
    """The suite's version, the version of its rule catalogue and the harness protocol's."""
    from ... import __version__
    from ..._contract.protocol import PROTOCOL_VERSION
    from ...catalogue import load_catalogue

    return f"advisor-conformance {__version__} (catalogue {load_catalogue().version}, protocol {PROTOCOL_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="advisor-conformance", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=version_line())
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in commands():
        sub = subparsers.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.set_defaults(module=module)
        module.add_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from _advisor_conformance_pytestplugin import environment_problem

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    module = args.module
    # a misspelt variable never leaves a command to the configuration or the reference (`run`'s pytest says so itself)
    problem = None if getattr(module, "PASSES_EXTRA", False) else environment_problem()
    if problem:
        print(f"advisor-conformance {args.command}: {problem}", file=sys.stderr)
        return 2
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
