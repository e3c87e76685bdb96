"""Where the suite's data lives, in a source checkout and in an installed wheel.

The fixtures and the reference's snapshots sit at the top of the repository
(two levels above this package, ``conformance/advisor_conformance/``); the
wheel carries them under ``advisor_conformance/_data/`` (see
``pyproject.toml``), so the suite finds them from any working directory.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
TESTS_DIR = PACKAGE_DIR / "tests"
SCHEMA_DIR = PACKAGE_DIR / "schema"
RULES_FILE = PACKAGE_DIR / "rules.toml"
#: The pytest configuration of a run of the installed suite (``advisor-conformance run``, ``rules --json``).
RUN_INI = PACKAGE_DIR / "pytest-run.ini"


def pytest_args(target: str | None, extra: list[str]) -> list[str]:
    """The pytest arguments that run the installed suite against ``target`` (None: the environment variable, else the
    reference, from the run's own ini file), isolated from the local config."""
    named = [] if target is None else [f"--impl={target}"]
    return [str(TESTS_DIR), *named, "-c", str(RUN_INI), f"--rootdir={PACKAGE_DIR}", *extra]


def _data_dir(name: str) -> Path:
    for candidate in (PACKAGE_DIR / "_data" / name, PACKAGE_DIR.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the suite's {name!r} directory is missing next to {PACKAGE_DIR}")


def fixtures_dir() -> Path:
    """The language-agnostic fixtures: ``vectors/`` and ``transcripts/``."""
    return _data_dir("fixtures")


def reference_snapshots_dir() -> Path:
    """The recorded snapshots of the reference implementation."""
    return _data_dir("snapshots") / "reference"


def constraints_file() -> Path:
    """The pinned versions this release was tested with (``constraints.txt``; in the wheel, under ``_data/``)."""
    for candidate in (PACKAGE_DIR / "_data" / "constraints.txt", PACKAGE_DIR.parent.parent / "constraints.txt"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"the suite's constraints.txt is missing next to {PACKAGE_DIR}")
