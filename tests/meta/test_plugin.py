"""The pytest plugin: inert unless asked, loads the target, selects by rule, stable IDs, xdist, snapshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..support.runner import ROOT, SUITE, run_pytest


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """An empty directory outside the repository, with the repository importable (for the test adapters)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return tmp_path


def test_run_without_impl_imports_nothing_of_the_suite(elsewhere):
    """A run that does not ask for the suite imports no module of the suite or the reference, nor jsonschema,
    and registers none of the suite's hypothesis profiles."""
    (elsewhere / "test_probe.py").write_text(
        "import sys\n\n"
        "def test_probe():\n"
        "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "                    ('advisor_conformance', 'advisor_reference', 'jsonschema'))\n"
        "    assert loaded == [], loaded\n"
        "    from hypothesis import settings\n"
        "    try:\n"
        "        settings.get_profile('advisor-conformance-ci')\n"
        "    except Exception:\n"
        "        return\n"
        "    raise AssertionError('the ci profile was registered')\n")
    run = run_pytest("-q", "test_probe.py", cwd=elsewhere)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_plugin_is_inert_without_impl(elsewhere):
    """In a run that does not ask for the suite, the plugin adds no header, collects nothing and marks nothing."""
    (elsewhere / "test_mine.py").write_text("def test_mine():\n    assert True\n")
    run = run_pytest("-q", "--co", cwd=elsewhere)
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines()[0] == "test_mine.py::test_mine", run.stdout
    assert "advisor-conformance" not in run.stdout
    assert run.report is None, "the plugin wrote a report in a run that did not ask for the suite"


def test_impl_from_another_directory_collects_the_suite(elsewhere):
    """`pytest --impl=reference` in an unrelated directory collects the installed conformance suite."""
    run = run_pytest("--impl=reference", "--co", "-q", cwd=elsewhere)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(run.report["collected"]) > 40, "the suite's tests were not collected"
    assert "implementation under test: reference" in run.stdout or run.stdout.count("::test_") > 100


def test_report_header_names_the_implementation(elsewhere):
    """The report header names the implementation under test, its version, language and target."""
    run = run_pytest("--impl=tests.fakes.renamed", "--co", cwd=elsewhere)
    assert "advisor-conformance: implementation under test: acme-advisor 0.1.0 (python), " \
           "--impl=tests.fakes.renamed" in run.stdout, run.stdout[:2000]


@pytest.mark.parametrize("target, message", [
    ("no_such_module_x", "no_such_module_x"),
    ("tests.fakes.renamed:missing", "missing"),
    ("not a target", "not a target"),
], ids=["missing-module", "missing-object", "malformed"])
def test_bad_targets_are_usage_errors(elsewhere, target, message):
    """An --impl target that cannot be loaded stops the run with a usage error naming the target's faulty part."""
    run = run_pytest(f"--impl={target}", "--co", cwd=elsewhere)
    assert run.returncode == 4 and message in run.stderr, run.stdout + run.stderr


def test_marker_expression_selects_one_rules_tests():
    """`-m 'rule(id="...")'` selects exactly the tests that carry that rule."""
    run = run_pytest("--co", "-q", "-m", 'rule(id="elision.marker-format")')
    collected = run.report["collected"]
    selected = set(collected["elision.marker-format"])
    assert len(selected) >= 3, run.stdout
    every = {nodeid for nodeids in collected.values() for nodeid in nodeids}
    assert every == selected, f"tests without the rule were selected: {every - selected}"


def test_collection_ids_are_unique_and_stable():
    """Collecting twice gives the same, duplicate-free node IDs."""
    first = [line for line in run_pytest("--co", "-q").stdout.splitlines() if "::" in line]
    second = [line for line in run_pytest("--co", "-q").stdout.splitlines() if "::" in line]
    assert len(first) > 150
    assert len(first) == len(set(first)), "duplicate test IDs"
    assert first == second, "the collected test IDs changed between two collections"


@pytest.mark.slow
def test_same_outcomes_under_xdist():
    """The suite gives every test the same outcome whether it runs in one process or spread over two."""
    serial = run_pytest(SUITE, "-q")
    spread = run_pytest(SUITE, "-q", "-n", "2")
    assert serial.report and spread.report, serial.stdout + spread.stdout
    assert serial.outcomes() == spread.outcomes()
    assert serial.report["rules"] == spread.report["rules"]


def test_snapshots_of_another_implementation_go_to_its_own_directory(elsewhere):
    """Another implementation records its snapshots under snapshots/<name>/ where pytest runs, then is held to them."""
    select = ["-k", "test_rendered_request_matches_snapshot", "-q"]
    record = run_pytest("--impl=tests.fakes.renamed", "--snapshot-update", *select, cwd=elsewhere)
    assert record.returncode == 0, record.stdout
    recorded = elsewhere / "snapshots" / "acme-advisor" / "test_snapshots.ambr"
    assert recorded.is_file(), list(elsewhere.rglob("*"))
    again = run_pytest("--impl=tests.fakes.renamed", *select, cwd=elsewhere)
    assert again.returncode == 0, again.stdout
    changed = run_pytest("--impl=tests.fakes.renamed:Reworded", *select, cwd=elsewhere)
    assert changed.returncode == 1, changed.stdout
    assert "Tell the agent what to do next." in changed.stdout, "the failure shows no diff of the changed prompt"


def test_snapshot_directory_is_configurable(elsewhere):
    """--impl-snapshots puts an implementation's snapshots where the user says."""
    run = run_pytest("--impl=tests.fakes.renamed", "--impl-snapshots=golden/requests", "--snapshot-update",
                     "-k", "test_rendered_request_matches_snapshot", "-q", cwd=elsewhere)
    assert run.returncode == 0, run.stdout
    assert (elsewhere / "golden" / "requests" / "test_snapshots.ambr").is_file()
    assert not (elsewhere / "snapshots").exists()


def test_reference_snapshots_are_read_from_the_suite(elsewhere):
    """The reference is checked against the snapshots shipped with the suite, from any directory."""
    run = run_pytest("--impl=reference", "-k", "test_rendered_request_matches_snapshot", "-q", cwd=elsewhere)
    assert run.returncode == 0, run.stdout
    assert "passed" in run.stdout and not (elsewhere / "snapshots").exists()
    assert Path(ROOT / "snapshots" / "reference" / "test_snapshots.ambr").is_file()
