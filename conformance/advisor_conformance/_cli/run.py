"""``advisor-conformance run``: the suite against an implementation, ending with the outcome of every rule."""

from __future__ import annotations

import argparse
import subprocess
import sys

from .._paths import PACKAGE_DIR, TESTS_DIR

NAME = "run"
ORDER = 10
HELP = "run the conformance suite and print the outcome of every rule"
DESCRIPTION = """\
Run the conformance suite against an implementation (the reference by default) and end with the outcome of
every rule of the catalogue. Every other option goes to pytest: -k EXPR, -x, -n 4 (pytest-xdist),
--rule-report FILE, --xfails-file FILE, --impl-snapshots DIR, --snapshot-update, --hypothesis-profile NAME.
The run does not read the pytest configuration of the directory it starts in.

  advisor-conformance run --impl mypkg.advisor_adapter -x
  advisor-conformance run --impl 'cmd:node harness.js' --rule-report rules.json
"""
PASSES_EXTRA = True
RUN_INI = PACKAGE_DIR / "pytest-run.ini"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", default="reference", metavar="TARGET",
                        help="implementation to test: 'reference' (the default), 'package.module[:object]' naming a "
                             "Python adapter, or 'cmd:COMMAND LINE' starting a harness")


def pytest_args(target: str, extra: list[str]) -> list[str]:
    """The pytest arguments that run the installed suite against ``target``, isolated from the local config."""
    return [str(TESTS_DIR), f"--impl={target}", "-c", str(RUN_INI), f"--rootdir={PACKAGE_DIR}", *extra]


def run(args: argparse.Namespace, extra: list[str]) -> int:
    # A fresh interpreter, so pytest imports (and assertion-rewrites) the suite itself.
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args(args.impl, ["--rule-summary", *extra])])
