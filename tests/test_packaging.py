"""The suite runs from an installed wheel, from any directory, with its fixtures and snapshots."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from ._runner import ROOT, run_pytest


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A virtual environment with the wheel built from this checkout (dependencies from the outer environment)."""
    base = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(base / "dist"), str(ROOT)], check=True, capture_output=True)
    (wheel,) = (base / "dist").glob("advisor_conformance-*.whl")
    env_dir = base / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True)
    return python, wheel


def test_wheel_carries_fixtures_and_snapshots(installed):
    """The wheel holds the packages, the rule catalogue, the schema, the fixtures and the reference's snapshots."""
    import zipfile

    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("reference/adapter.py", "conformance/rules.toml", "conformance/schema/protocol-v1.json",
                     "conformance/tests/test_elision.py", "conformance/_data/fixtures/vectors/elision.json",
                     "conformance/_data/snapshots/reference/test_snapshots.ambr"):
        assert expected in names, f"{expected} is missing from {wheel.name}"


def test_suite_runs_from_the_wheel_in_another_directory(installed, tmp_path):
    """`pytest --impl=reference` in an empty directory runs the installed suite, fixtures and snapshots included."""
    python, _ = installed
    where = subprocess.run([str(python), "-c", "import conformance; print(conformance.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert Path(where).is_relative_to(python.parent.parent), f"conformance was imported from {where}"
    run = run_pytest("--impl=reference", "-q", cwd=tmp_path, python=str(python))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    passed = [test for test in run.report["tests"] if test["outcome"] == "passed"]
    assert len(passed) > 200, f"only {len(passed)} tests passed"
    assert any("test_golden_vector" in test["nodeid"] for test in passed)
    assert any("test_rendered_request_matches_snapshot" in test["nodeid"] for test in passed)
    assert not (tmp_path / "snapshots").exists(), "the reference's snapshots were written where pytest ran"


def test_run_command_from_the_wheel(installed, tmp_path):
    """`advisor-conformance run` from the wheel ends with the per-rule summary and passes."""
    python, _ = installed
    result = subprocess.run([str(python.parent / "advisor-conformance"), "run", "-q"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "advisor-conformance: outcome per rule" in result.stdout
    assert "elision.marker-format" in result.stdout.split("outcome per rule")[1]
