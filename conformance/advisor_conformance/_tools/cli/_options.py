"""Options that several subcommands share: the implementation a command runs and how long its harness may take.

Every command that takes ``--impl`` resolves the implementation as a pytest run does: ``--impl``, else
``$ADVISOR_CONFORMANCE_IMPL``, else ``conformance_impl`` in the configuration file nearest the current directory
(``pyproject.toml``'s ``[tool.pytest.ini_options]``, ``pytest.ini``, ``tox.ini``, ``setup.cfg``), else the
reference; and it says which it used, and from where, in the first line of its stderr (:func:`announce`).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The longest a harness may be given for one operation (as the pytest option's): a day.
HARNESS_TIMEOUT_MAX = 86400.0


def add_impl(parser: argparse.ArgumentParser, help: str, default: Any = None, **how: Any) -> None:
    """``--impl TARGET``: the implementation the command runs (``how``: more of argparse's options, for a command
    that takes several). Unset, it is resolved as a pytest run resolves it (:func:`resolve`)."""
    parser.add_argument("--impl", default=default, metavar="TARGET", help=help, **how)


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects a number of seconds, such as 60, not {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= HARNESS_TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(f"expects a number of seconds above 0 and at most {HARNESS_TIMEOUT_MAX:g}")
    return value


def add_harness_timeout(parser: argparse.ArgumentParser, default: float) -> None:
    """``--harness-timeout SECONDS``: how long a harness may take over one operation."""
    parser.add_argument(
        "--harness-timeout",
        type=seconds,
        default=default,
        metavar="SECONDS",
        help=f"seconds a harness may take over one operation (default {default:g}; at most a day)",
    )


@dataclass(frozen=True)
class Named:
    """The implementation a command runs, where it was named, and the folder it is loaded from (a configuration
    file's folder for a target the file names, as its paths resolve from there; else the current directory)."""

    target: str
    origin: str
    directory: str
    source: str


def resolve(flag: str | None, directory: Path | None = None) -> Named:
    """The implementation a command runs: ``flag``, else the environment variable, else the nearest configuration
    file's ``conformance_impl``, else the reference; a ``TargetError`` when that file's value is no string."""
    from _advisor_conformance_pytestplugin import ENVIRONMENT_VARIABLE, resolve_target

    from ..._contract.implementation import TargetError

    here = Path.cwd() if directory is None else directory
    try:
        found = resolve_target(flag, here)
    except ValueError as exc:
        raise TargetError(str(exc)) from None
    if found is None:
        return Named(
            "reference",
            "the default: the reference (no --impl, $ADVISOR_CONFORMANCE_IMPL or conformance_impl names another)",
            str(here),
            "default",
        )
    if found.source in ("flag", "environment"):
        origin = f"--impl={found.value}" if found.source == "flag" else f"{ENVIRONMENT_VARIABLE}={found.value}"
        configured = _configured(here)  # running another than the project names is never silent
        if configured is not None and configured.value != found.value:
            origin += f"; {os.path.relpath(str(configured.file), here)} names {configured.value}, not run here"
        return Named(found.value, origin, str(here), found.source)
    assert found.file is not None
    shown = os.path.relpath(found.file, here)
    return Named(found.value, f"conformance_impl = {found.value} ({shown})", str(found.file.parent), "ini")


def _configured(directory: Path) -> Any:
    """What the nearest configuration file names (its ``Setting``), or None (none, or no string)."""
    from _advisor_conformance_pytestplugin import resolve_target

    try:
        return resolve_target(None, directory, environ={})
    except ValueError:
        return None


def announce(prog: str, implementation: Any, named: Named) -> None:
    """The command's first line on stderr (its stdout is what it makes: a request, figures, the protocol): the
    implementation it runs and where it was named."""
    d = implementation.description
    print(
        f"{prog}: implementation: {d.get('name')} {d.get('version')} ({d.get('language')}), from {named.origin}",
        file=sys.stderr,
        flush=True,
    )
