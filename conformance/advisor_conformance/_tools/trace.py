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
#: The largest cached collection read back (the suite's collection is a few hundred kilobytes).
_CACHE_MAX_BYTES = 16 << 20


def collect_rule_tests(*, cache: bool = False) -> dict[str, list[str]]:
    """Rule ID → node IDs of the collected tests that carry it (a collection-only run of the suite).

    With ``cache``, the answer is kept in the user's cache folder (``$XDG_CACHE_HOME/advisor-conformance``, else
    ``~/.cache/advisor-conformance``) under a fingerprint of the installed suite (its version, its test files, golden
    vectors and catalogue, by size and modification time), and read back while the fingerprint holds: a lookup
    then takes a fraction of a second instead of a collection's seconds. A cache that cannot be read or written is
    left aside."""
    path = _cache_path() if cache else None
    if path is not None:
        found = _read_cache(path)
        if found is not None:
            return found
    collected = _collect_rule_tests()
    if path is not None:
        _write_cache(path, collected)
    return collected


def _collect_rule_tests() -> dict[str, list[str]]:
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


def fingerprint() -> str:
    """What the suite's collection depends on: its version, Python's and pytest's, and every test file, golden vector
    and the catalogue by path, size and modification time."""
    import hashlib
    import importlib.metadata

    from .. import __version__
    from .._paths import RULES_FILE, TESTS_DIR, fixtures_dir

    digest = hashlib.sha256(f"{__version__} {sys.version} {importlib.metadata.version('pytest')}".encode())
    for root in (TESTS_DIR, fixtures_dir() / "vectors", RULES_FILE):
        for file in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if file.suffix in (".py", ".json", ".toml") and file.is_file():
                stat = file.stat()
                digest.update(f"{file.relative_to(root.parent)} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:24]


def _cache_path() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "advisor-conformance" / f"rule-tests-{fingerprint()}.json"


def _read_cache(path: Path) -> dict[str, list[str]] | None:
    """The cached collection, or None when there is none or it is not one."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read(_CACHE_MAX_BYTES + 1))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and all(
        isinstance(key, str) and isinstance(ids, list) and all(isinstance(i, str) for i in ids)
        for key, ids in data.items()
    ):
        return data
    return None


def _write_cache(path: Path, collected: dict[str, list[str]]) -> None:
    """Keep the collection (written whole or not at all), and drop the caches of other fingerprints."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as tmp:
            json.dump(collected, tmp)
        os.replace(tmp.name, path)
        for old in path.parent.glob("rule-tests-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        return


def vectors_of(rule_id: str) -> list[str]:
    """The golden vectors (``file/case``) that name the rule."""
    from ..vectors import load_all

    return [case.key for case in load_all() if rule_id in case.rules]


def snapshots_of(tests: list[str]) -> list[str]:
    """The recorded transcripts whose snapshot tests are among ``tests``."""
    return [
        nodeid.split("[", 1)[1].rstrip("]") for nodeid in tests if "test_rendered_request_matches_snapshot[" in nodeid
    ]
