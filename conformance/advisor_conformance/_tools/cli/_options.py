"""Options that several subcommands share: the implementation a command runs and how long its harness may take."""

from __future__ import annotations

import argparse
from typing import Any


def add_impl(parser: argparse.ArgumentParser, help: str, default: Any = "reference", **how: Any) -> None:
    """``--impl TARGET``: the implementation the command runs (``how``: more of argparse's options, for a command
    that takes several)."""
    parser.add_argument("--impl", default=default, metavar="TARGET", help=help, **how)


def add_harness_timeout(parser: argparse.ArgumentParser, default: float) -> None:
    """``--harness-timeout SECONDS``: how long a harness may take over one operation."""
    parser.add_argument(
        "--harness-timeout",
        type=float,
        default=default,
        metavar="SECONDS",
        help=f"seconds a harness may take over one operation (default {default:g})",
    )
