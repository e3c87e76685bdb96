"""From a rule to everything that concerns it: the code that implements it, its tests, vectors and snapshots.

The reference marks the code that implements a rule with a tag in a comment
or docstring, ``rule: elision.marker-format`` (several IDs separated by
commas). :func:`implementation_sites` reads the reference's source files for
those tags without importing it (the suite stays independent of the
reference); ``advisor-conformance where`` and the catalogue tests use them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .._paths import pytest_args

#: ``rule: a.b`` or ``rules: a.b, c.d`` in a comment or docstring.
TAG = re.compile(r"\brules?: ([a-z][a-z0-9]*\.[a-z0-9-]+(?:(?:, | and | / )[a-z][a-z0-9]*\.[a-z0-9-]+)*)")
_SEPARATOR = re.compile(r", | and | / ")


@dataclass(frozen=True)
class Site:
    """A place in the reference's source that implements a rule."""

    path: str  # relative to the directory holding the package: advisor_reference/_elision.py
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def reference_dir() -> Path | None:
    """The directory of the installed ``advisor_reference`` package, found without importing it."""
    spec = importlib.util.find_spec("advisor_reference")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def tags_in(text: str) -> list[tuple[int, str, list[str]]]:
    """``(line number, line, rule IDs)`` for each tagged line of a source text."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        ids = [rule_id for match in TAG.finditer(line) for rule_id in _SEPARATOR.split(match[1])]
        if ids:
            out.append((number, line.strip(), ids))
    return out


@cache
def implementation_sites() -> dict[str, list[Site]]:
    """Rule ID → the tagged places of the reference that implement it."""
    sites: dict[str, list[Site]] = defaultdict(list)
    root = reference_dir()
    if root is None:
        return {}
    for path in sorted(root.glob("*.py")):
        for number, line, ids in tags_in(path.read_text(encoding="utf-8")):
            for rule_id in ids:
                sites[rule_id].append(Site(f"{root.name}/{path.name}", number, line))
    return dict(sites)


#: The longest a collection-only run of the suite may take (it takes seconds).
COLLECT_TIMEOUT_S = 600


def collect_rule_tests() -> dict[str, list[str]]:
    """Rule ID → node IDs of the collected tests that carry it (a collection-only run of the suite)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "collect.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            *pytest_args("reference", ["--collect-only", "-q", f"--rule-report={report}"]),
        ]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTEST_ADDOPTS", None)
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, cwd=tmp, env=env, timeout=COLLECT_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"collecting the suite took more than {COLLECT_TIMEOUT_S} s") from None
        if result.returncode != 0 or not report.exists():
            raise RuntimeError(
                f"collecting the suite failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return json.loads(report.read_text(encoding="utf-8"))["collected"]


def vectors_of(rule_id: str) -> list[str]:
    """The golden vectors (``file/case``) that name the rule."""
    from ..vectors import load_all

    return [case.key for case in load_all() if rule_id in case.rules]


def snapshots_of(tests: list[str]) -> list[str]:
    """The recorded transcripts whose snapshot tests are among ``tests``."""
    return [
        nodeid.split("[", 1)[1].rstrip("]") for nodeid in tests if "test_rendered_request_matches_snapshot[" in nodeid
    ]
