"""The pytest plugin: inert unless asked, loads the target, selects by rule, stable IDs, xdist, snapshots."""

from __future__ import annotations

import os
import shlex
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
        "    raise AssertionError('the ci profile was registered')\n"
    )
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
    """The report header names the suite's catalogue version and the implementation under test, its version,
    language and target; an implementation checked against another catalogue is told so."""
    from advisor_conformance.catalogue import load_catalogue

    run = run_pytest("--impl=tests.fakes.renamed", "--co", cwd=elsewhere)
    header = next(line for line in run.stdout.splitlines() if "implementation under test" in line)
    assert all(
        part in header
        for part in (load_catalogue().version, "acme-advisor 0.1.0 (python)", "--impl=tests.fakes.renamed")
    ), header
    assert "000000000000" not in run.stdout
    old = run_pytest("--impl=tests.fakes.renamed:OldCatalogue", "--co", cwd=elsewhere)
    assert any(
        "000000000000" in line and load_catalogue().version not in line
        for line in old.stdout.splitlines()
        if line.startswith("advisor-conformance")
    ), old.stdout[:2000]


@pytest.mark.parametrize(
    "target, message",
    [
        ("no_such_module_x", "no_such_module_x"),
        ("tests.fakes.renamed:missing", "missing"),
        ("not a target", "not a target"),
    ],
    ids=["missing-module", "missing-object", "malformed"],
)
def test_bad_targets_are_usage_errors(elsewhere, target, message):
    """An --impl target that cannot be loaded stops the run with a usage error naming the target's faulty part."""
    run = run_pytest(f"--impl={target}", "--co", cwd=elsewhere)
    assert run.returncode == 4 and message in run.stderr, run.stdout + run.stderr


@pytest.mark.parametrize(
    "line, named",
    [
        ("conformance_harness_timeout = ten", "conformance_harness_timeout"),
    ],
)
def test_a_bad_setting_stops_the_run_naming_it_and_its_file(elsewhere, line, named):
    """A setting of the ini file that is no value of its kind (here a timeout that is no number, which was an internal
    error; tests/suite/test_settings.py feeds every setting's loader hostile values) stops the run before any test
    with a usage error naming the setting and the file."""
    (elsewhere / "pytest.ini").write_text(f"[pytest]\nconformance_impl = reference\n{line}\n")
    run = run_pytest("--co", "-q", cwd=elsewhere)
    assert run.returncode == 4 and "INTERNALERROR" not in run.stdout + run.stderr, run.stdout[-2000:] + run.stderr
    assert named in run.stderr and "pytest.ini" in run.stderr, run.stderr


def test_marker_expression_selects_one_rules_tests():
    """`-m 'rule(id="...")'` selects exactly the tests that carry that rule."""
    run = run_pytest(SUITE, "--co", "-q", "-m", 'rule(id="elision.marker-format")')
    collected = run.report["collected"]
    selected = set(collected["elision.marker-format"])
    assert len(selected) >= 3, run.stdout
    every = {nodeid for nodeids in collected.values() for nodeid in nodeids}
    assert every == selected, f"tests without the rule were selected: {every - selected}"


def test_marker_expression_selects_one_areas_tests():
    """`-m 'rule(area="...")'` selects exactly the tests of that area's rules, and `rule(level="should")` those of
    should rules."""
    from advisor_conformance.catalogue import load_catalogue

    catalogue = load_catalogue()
    run = run_pytest(SUITE, "--co", "-q", "-m", 'rule(area="elision")')
    assert run.returncode == 0, run.stderr[-2000:]
    collected = run.report["collected"]
    every = {nodeid for nodeids in collected.values() for nodeid in nodeids}
    elision = {nodeid for rule, nodeids in collected.items() if catalogue[rule].area == "elision" for nodeid in nodeids}
    assert elision and every == elision, sorted(every - elision)[:5]
    should = run_pytest(SUITE, "--co", "-q", "-m", 'rule(level="should")')
    rules_of: dict[str, set[str]] = {}
    for rule, nodeids in should.report["collected"].items():
        for nodeid in nodeids:
            rules_of.setdefault(nodeid, set()).add(rule)
    assert rules_of and all(any(catalogue[rule].level == "should" for rule in rules) for rules in rules_of.values())


@pytest.mark.parametrize(
    "expression, named",
    [
        ('rule(id="elision.marker-formt")', "elision.marker-format"),
        ('rule(area="elison")', "elision"),
        ('rule(aera="elision")', "area"),
    ],
    ids=["rule", "area", "keyword"],
)
def test_marker_expression_naming_nothing_of_the_catalogue_is_a_usage_error(expression, named):
    """A rule(...) selection with an unknown rule ID, area or keyword stops the run with the closest name."""
    run = run_pytest("--co", "-q", "-m", expression)
    assert run.returncode == 4 and named in run.stderr.split("did you mean", 1)[-1], run.stderr[-2000:]


def test_collect_only_at_the_root_works_under_xdist():
    """`pytest --co` over two workers at the repository root (filterwarnings = error) collects and exits 0."""
    run = run_pytest("--co", "-q", "-n", "2")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert len(run.report["collected"]) > 100


def test_collection_ids_are_unique_and_stable():
    """Collecting the suite twice gives the same, duplicate-free node IDs (the IDs users write in xfails files)."""
    first = [line for line in run_pytest(SUITE, "--co", "-q").stdout.splitlines() if "::" in line]
    second = [line for line in run_pytest(SUITE, "--co", "-q").stdout.splitlines() if "::" in line]
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
    run = run_pytest(
        "--impl=tests.fakes.renamed",
        "--impl-snapshots=golden/requests",
        "--snapshot-update",
        "-k",
        "test_rendered_request_matches_snapshot",
        "-q",
        cwd=elsewhere,
    )
    assert run.returncode == 0, run.stdout
    assert (elsewhere / "golden" / "requests" / "test_snapshots.ambr").is_file()
    assert not (elsewhere / "snapshots").exists()


def test_reference_snapshots_are_read_from_the_suite(elsewhere):
    """The reference is checked against the snapshots shipped with the suite, from any directory."""
    run = run_pytest("--impl=reference", "-k", "test_rendered_request_matches_snapshot", "-q", cwd=elsewhere)
    assert run.returncode == 0, run.stdout
    assert "passed" in run.stdout and not (elsewhere / "snapshots").exists()
    assert Path(ROOT / "snapshots" / "reference" / "test_snapshots.ambr").is_file()


def test_missing_snapshot_says_how_to_record_it(elsewhere):
    """A transcript with no recorded snapshot is "not recorded" with the option that records it, not a changed
    request; it does not stop -x (every snapshot is reported) and the run still fails; the banner says no rule
    failed only when none did."""
    select = ["-k", "test_rendered_request_matches_snapshot", "-q"]
    run = run_pytest("--impl=tests.fakes.renamed", "-x", *select, cwd=elsewhere)
    assert run.returncode == 1, run.stdout[-2000:]
    failures = [test for test in run.report["tests"] if test["outcome"] == "not recorded"]
    assert len(failures) == len(run.report["tests"]) > 1, run.report["tests"]
    assert all("--snapshot-update" in test["message"] for test in failures), failures[:2]
    assert "snapshots to review (no rule failed" in run.stdout, run.stdout[-2000:]
    both = run_pytest(
        "--impl=advisor_conformance._broken.shaping:MarkerOffByOne",
        "-k",
        "test_rendered_request_matches_snapshot or test_marker_reports_the_true_length",
        "-q",
        cwd=elsewhere,
    )
    assert both.returncode == 1 and "failed" in both.outcomes().values(), both.stdout[-2000:]
    banner = next(line for line in both.stdout.splitlines() if "snapshots to review" in line)
    assert "no rule failed" not in banner, banner


def test_ini_key_alone_runs_the_suite_beside_the_projects_tests(elsewhere):
    """`conformance_impl` in the ini file and a plain `pytest` run the project's tests and the suite; naming a file
    runs that file alone."""
    (elsewhere / "test_own.py").write_text("def test_own():\n    assert True\n")
    (elsewhere / "pytest.ini").write_text("[pytest]\nconformance_impl = reference\n")
    both = run_pytest("-v", "-k", "test_own or test_marker_reports_the_true_length", cwd=elsewhere)
    assert both.returncode == 0, both.stdout[-2000:] + both.stderr[-2000:]
    assert "test_own.py::test_own PASSED" in both.stdout and both.outcomes(), both.stdout[-2000:]
    own = run_pytest("-v", "test_own.py", cwd=elsewhere)
    assert own.returncode == 0 and "test_own.py::test_own PASSED" in own.stdout and not own.outcomes(), own.stdout[
        -2000:
    ]
    assert "conformance_impl = reference" in own.stdout.split("test_own PASSED", 1)[1], (
        "the run did not say that the implementation was not tested"
    )


def test_environment_variable_names_the_implementation(elsewhere, monkeypatch):
    """ADVISOR_CONFORMANCE_IMPL works as --impl does: it loads the target and runs the suite, it wins over the ini key,
    and the header and a load error name the variable, not a flag the user did not pass."""
    monkeypatch.setenv("ADVISOR_CONFORMANCE_IMPL", "tests.fakes.renamed")
    (elsewhere / "pytest.ini").write_text("[pytest]\nconformance_impl = reference\n")
    run = run_pytest("-k", "test_marker_reports_the_true_length", cwd=elsewhere)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert run.report["implementation"]["name"] == "acme-advisor" and run.outcomes()
    header = next(line for line in run.stdout.splitlines() if "implementation under test" in line)
    assert "ADVISOR_CONFORMANCE_IMPL=tests.fakes.renamed" in header and "--impl" not in header, header
    monkeypatch.setenv("ADVISOR_CONFORMANCE_IMPL", "tests.fakes.renamd")
    typo = run_pytest("--co", "-q", cwd=elsewhere)
    assert typo.returncode == 4 and "ADVISOR_CONFORMANCE_IMPL=tests.fakes.renamd" in typo.stderr, typo.stderr
    assert "--impl" not in typo.stderr, typo.stderr


@pytest.mark.parametrize(
    "target, named",
    [
        ("tests.fakes.partial:ToolWithoutScenario", ["tool", "scenario"]),
        ("tests.fakes.partial:MisspelledArea", ["tols"]),
    ],
    ids=["missing-operation", "unknown-area"],
)
def test_declared_area_without_its_operations_stops_the_run_first(elsewhere, target, named):
    """An area whose operations the implementation does not answer (or an unknown area) is one usage error before
    any test runs."""
    run = run_pytest(f"--impl={target}", "-q", "-k", "test_marker_reports_the_true_length", cwd=elsewhere)
    assert run.returncode == 4 and run.report is None, run.stdout[-2000:] + run.stderr[-2000:]
    assert all(word in run.stderr for word in named), run.stderr[-2000:]


def test_failure_shows_its_rule_in_the_short_summary_and_how_to_rerun_it(elsewhere, monkeypatch):
    """At 80 columns, the short summary's line of a failure starts with the failing rule and the start of its
    message; hypothesis's account of the failing explicit example is bounded; a property test's failure gives the
    command that reproduces it (not hypothesis's decorator advice), and that command fails the same way."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("CI", raising=False)  # on CI pytest writes the whole message after the node ID instead
    target = "--impl=advisor_conformance._broken.shaping:MarkerOffByOne"
    run = run_pytest(target, "-q", "-rf", "-k", "test_elided_string_is_bounded_and_honest", cwd=elsewhere)
    assert run.returncode == 1, run.stdout[-2000:]
    summary = [line for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    message = run.failed_tests()[0]["message"].split("\n", 1)[0]
    assert summary and all(line[:80].startswith(f"FAILED {message[:40]}") for line in summary), summary
    assert message.startswith("[elision.marker-format]"), message
    example = run.stdout.split("explicit example:", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(example) <= 14 and all(len(line) <= 300 for line in example), example
    assert "reproduce_failure" not in run.stdout
    command = next(line for line in run.stdout.splitlines() if line.startswith("python3 -m pytest --impl="))
    words = shlex.split(command)  # run exactly as printed
    assert words[3] == target and "--pyargs" in words, command
    again = run_pytest(*words[3:], "-q", cwd=elsewhere)
    # (a test named by --pyargs from outside pytest's rootdir has a node ID without its path: compare the names)
    tail = lambda nodeids: [nodeid.rsplit("::", 1)[-1] for nodeid in nodeids]  # noqa: E731
    assert again.returncode == 1, again.stdout[-2000:]
    assert tail(t["nodeid"] for t in again.failed_tests()) == tail(t["nodeid"] for t in run.failed_tests())


def test_helper_frames_are_hidden_from_tracebacks(elsewhere):
    """A failure's traceback ends in the test, not in the suite's check helpers."""
    run = run_pytest(
        "--impl=advisor_conformance._broken.shaping:MarkerOffByOne",
        "-q",
        "-k",
        "test_marker_reports_the_true_length",
        cwd=elsewhere,
    )
    assert run.returncode == 1, run.stdout[-2000:]
    assert "elision/test_elision.py:" in run.stdout
    assert not any(f"{name}.py:" in run.stdout for name in ("checks", "shaping")), run.stdout[-3000:]


def test_junit_properties_are_json(elsewhere):
    """JUnit XML carries each test's rules (and a failure's rules) as JSON, and the suite's catalogue version, and none
    of hypothesis's base64 statistics of the suite's tests."""
    import json
    import xml.etree.ElementTree as ET

    xml = elsewhere / "junit.xml"
    run = run_pytest(
        "--impl=advisor_conformance._broken.shaping:MarkerOffByOne",
        "-q",
        f"--junitxml={xml}",
        "--hypothesis-profile=advisor-conformance-mutation",  # fewer drawn examples: statistics all the same
        "-k",
        "test_marker_reports_the_true_length or test_surrounding_white_space_is_trimmed",  # and a property test
        cwd=elsewhere,
    )
    assert run.returncode == 1, run.stdout[-2000:]
    assert any("test_surrounding_white_space_is_trimmed" in nodeid for nodeid in run.outcomes()), run.outcomes()
    assert "hypothesis-statistics" not in xml.read_text(encoding="utf-8")
    tree = ET.parse(xml)
    properties = {(prop.get("name"), prop.get("value")) for prop in tree.iter("property")}
    rules = {json.dumps(json.loads(value)) for name, value in properties if name in ("rules", "failed_rules")}
    assert rules == {'["elision.marker-format"]', '["question.trim"]'}, properties
    suite_properties = {
        prop.get("name"): prop.get("value")
        for suite in tree.iter("testsuite")
        for prop in suite.iter("property")
        if prop.get("name", "").startswith("advisor_conformance")
    }
    assert suite_properties.get("advisor_conformance_catalogue") == run.report["suite"]["catalogue"], suite_properties


@pytest.mark.slow
@pytest.mark.parametrize(
    "operations", ["shape", "scenario", "encode", "tool_definition,scenario", "encode,scenario", "scenario,shape"]
)
def test_each_areas_tests_need_only_the_operations_the_table_names(elsewhere, monkeypatch, operations):
    """An implementation with only some operations, declaring the areas they cover (AREA_OPERATIONS), passes every
    test of those areas: no test calls an operation its area does not name."""
    monkeypatch.setenv("ADVISOR_TEST_OPERATIONS", operations)
    run = run_pytest(
        "--impl=tests.fakes.partial:OperationsOnly",
        f"--impl-snapshots={ROOT / 'snapshots' / 'reference'}",
        "-q",
        cwd=elsewhere,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.report["counts"]["tests"].get("passed", 0) > 0
