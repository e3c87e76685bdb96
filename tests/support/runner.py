"""Run pytest in a subprocess and read the suite's JSON rule report; show progress of long runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: The conformance suite in this checkout, as a path pytest takes.
SUITE = "conformance/advisor_conformance/tests"
_PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    def failed_tests(self) -> list[dict[str, Any]]:
        return [test for test in (self.report or {}).get("tests", []) if test["outcome"] == "failed"]

    def outcomes(self) -> dict[str, str]:
        return {test["nodeid"]: test["outcome"] for test in (self.report or {}).get("tests", [])}


def clean_env() -> dict[str, str]:
    """The environment of a nested pytest run: no options or xdist state inherited from this one; bytecode cached as
    Python does by default (each nested run would otherwise compile and assertion-rewrite every module again)."""
    env = dict(os.environ)
    for name in (
        "PYTHONDONTWRITEBYTECODE",
        "PYTEST_ADDOPTS",
        "PYTEST_XDIST_WORKER",
        "PYTEST_XDIST_WORKER_COUNT",
        "PYTEST_CURRENT_TEST",
    ):
        env.pop(name, None)
    return env


def run_pytest(
    *args: str,
    cwd: Path = ROOT,
    python: str = sys.executable,
    timeout: float = 900,
    progress: Callable[[str], None] | None = None,
    label: str = "",
) -> Run:
    """``python -m pytest ARGS --rule-report=<tmp>`` in ``cwd``; the report is None when none was written.

    With ``progress``, the run's percentage lines are passed on as they come (``label: 40%``).
    """
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        # one process unless the run asks for workers (this repository's addopts spread a plain run over the cores)
        workers = [] if "-n" in args or cwd != ROOT else ["-n", "0"]
        command = [python, "-m", "pytest", "-p", "no:cacheprovider", f"--rule-report={report}", *workers, *args]
        stdout, stderr, code = _run(command, cwd, timeout, progress, label or "pytest")
        data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
    return Run(code, stdout, stderr, data)


def _run(
    command: list[str], cwd: Path, timeout: float, progress: Callable[[str], None] | None, label: str
) -> tuple[str, str, int]:
    if progress is None:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=clean_env())
        return result.stdout, result.stderr, result.returncode
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        lines, shown = [], -1
        with subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.PIPE, stderr=errors, text=True, env=clean_env()
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                match = _PERCENT.search(line)
                if match and int(match[1]) // 10 != shown:
                    shown = int(match[1]) // 10
                    progress(f"{label}: {match[1]}%")
                if time.monotonic() > deadline:
                    process.kill()
                    break
            code = process.wait(max(1.0, deadline - time.monotonic()))
        errors.seek(0)
        return "".join(lines), errors.read(), code
