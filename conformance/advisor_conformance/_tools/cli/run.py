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
The implementation is --impl, else $ADVISOR_CONFORMANCE_IMPL, else conformance_impl of the configuration file
nearest the directory the run starts in (pyproject.toml's [tool.pytest.ini_options], pytest.ini, tox.ini,
setup.cfg), else the reference; the run's first line says which, and from where. The suite's settings of that
file (conformance_xfails_file, conformance_snapshots, conformance_strict_should, conformance_harness_timeout) apply
too, their paths relative to the file's folder; its other pytest settings (addopts, plugins, filterwarnings) do not.
Every other option goes to pytest: -k EXPR, -x, --quick, -n 4 (pytest-xdist),
--rule-report FILE, --xfails-file FILE, --impl-snapshots DIR, --snapshot-update, --hypothesis-profile NAME.

  advisor-conformance run --impl mypkg.advisor_adapter -x
  advisor-conformance run --impl 'cmd:node harness.js' --rule-report rules.json
"""
PASSES_EXTRA = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl(
        parser,
        "implementation to test: 'package.module[:object]' naming a Python adapter, "
        "'cmd:COMMAND LINE' starting a harness, or 'reference'; default: "
        "$ADVISOR_CONFORMANCE_IMPL, else conformance_impl of the nearest configuration file, else the reference",
        default=None,
    )


def run(args: argparse.Namespace, extra: list[str]) -> int:
    # A fresh interpreter, so pytest imports (and assertion-rewrites) the suite itself.
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args(args.impl, ["--rule-summary", *extra])])
