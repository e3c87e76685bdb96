"""Benchmark: what the pytest entry point costs a pytest run that does not ask for the suite.

pytest loads ``_advisor_conformance_pytestplugin`` in every run of an environment where the suite is
installed. Goal: it adds under 20 ms to such a run, and imports nothing but itself. The goal is checked on
the first measurement below (a few milliseconds, measured to a tenth); the whole-run difference is shown
with its noise (the spread between two series of the same run without the plugin), which on a busy
machine is larger than what the plugin costs.

Two measurements, each in fresh interpreters, best of several rounds, interleaved:
* the entry module's import and its option registration, after pytest itself is imported, against
  the same for hypothesis's own entry module (``_hypothesis_pytestplugin``, the model it follows);
* a whole ``pytest --collect-only`` of a one-test directory with the plugin against the same run with
  ``-p no:advisor_conformance``: the difference is what the plugin adds.

    python benchmarks/bench_plugin_import.py      # prints the figures, exits 1 if a goal is missed
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Goals

GOAL_MS = 20.0
ROUNDS = 7  # of the entry module's import (a few milliseconds each)
RUN_ROUNDS = 3  # of the whole pytest runs (figures only, about a second each)

_PROBE = """
import json, sys, time
import pytest
from _pytest.config.argparsing import Parser
parser = Parser()
before = set(sys.modules)
start = time.perf_counter()
module = __import__(sys.argv[1])
module.pytest_addoption(parser)
elapsed = time.perf_counter() - start
print(json.dumps({"ms": elapsed * 1000, "new": sorted(set(sys.modules) - before)}))
"""


def probe(module: str) -> dict:
    result = subprocess.run([sys.executable, "-c", _PROBE, module], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def pytest_run(where: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *extra],
        cwd=where,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def main() -> int:
    ours = theirs = float("inf")
    imported: list[str] = []
    for _ in range(ROUNDS):
        found = probe("_advisor_conformance_pytestplugin")
        ours, imported = min(ours, found["ms"]), found["new"]
        theirs = min(theirs, probe("_hypothesis_pytestplugin")["ms"])
    goals = Goals()
    goals.check(
        ours < GOAL_MS and imported == ["_advisor_conformance_pytestplugin"],
        f"entry module: import and options {ours:.2f} ms; hypothesis's entry module {theirs:.2f} ms "
        f"(ratio {ours / theirs:.2f}x); modules it imported: {imported}",
    )
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "test_one.py").write_text("def test_one():\n    assert True\n")
        with_plugin = without = again = float("inf")
        for _ in range(RUN_ROUNDS):
            with_plugin = min(with_plugin, pytest_run(Path(tmp)))
            without = min(without, pytest_run(Path(tmp), "-p", "no:advisor_conformance"))
            again = min(again, pytest_run(Path(tmp), "-p", "no:advisor_conformance"))
    added, noise = (with_plugin - without) * 1000, abs(again - without) * 1000
    print(
        f"pytest --collect-only of one test: {with_plugin * 1000:.0f} ms with the plugin, {without * 1000:.0f} ms "
        f"without; added {added:.1f} ms, noise {noise:.1f} ms (two series without it), "
        f"ratio {with_plugin / without:.3f}x"
    )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
