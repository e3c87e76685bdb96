"""Run pytest in a subprocess and read the suite's JSON rule report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


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


def run_pytest(*args: str, cwd: Path = ROOT, python: str = sys.executable, timeout: float = 900) -> Run:
    """``python -m pytest ARGS --rule-report=<tmp>`` in ``cwd``; the report is None when none was written."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTEST_ADDOPTS", None)
        env.pop("PYTEST_XDIST_WORKER", None)
        result = subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", f"--rule-report={report}", *args],
            cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
        )
        data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
    return Run(result.returncode, result.stdout, result.stderr, data)
