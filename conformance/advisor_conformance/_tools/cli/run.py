"""``advisor-conformance run``: the suite against an implementation, ending with the outcome of every rule."""

from __future__ import annotations

import argparse
import subprocess
import sys

from ..._paths import pytest_args
from ._options import add_impl

NAME = "run"
ORDER = 10
HELP = "run the conformance suite and print the outcome of every rule"
DESCRIPTION = """\
Run the conformance suite against an implementation and end with the outcome of every rule of the catalogue.
The implementation is --impl, else $ADVISOR_CONFORMANCE_IMPL, else the reference; the report's header says which.
Every other option goes to pytest: -k EXPR, -x, -n 4 (pytest-xdist),
--rule-report FILE, --xfails-file FILE, --impl-snapshots DIR, --snapshot-update, --hypothesis-profile NAME.
The run does not read the pytest configuration of the directory it starts in.

  advisor-conformance run --impl mypkg.advisor_adapter -x
  advisor-conformance run --impl 'cmd:node harness.js' --rule-report rules.json
"""
PASSES_EXTRA = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl(
        parser,
        "implementation to test: 'package.module[:object]' naming a Python adapter, "
        "'cmd:COMMAND LINE' starting a harness, or 'reference'; default: "
        "$ADVISOR_CONFORMANCE_IMPL, else the reference",
        default=None,
    )


def run(args: argparse.Namespace, extra: list[str]) -> int:
    # A fresh interpreter, so pytest imports (and assertion-rewrites) the suite itself.
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args(args.impl, ["--rule-summary", *extra])])
