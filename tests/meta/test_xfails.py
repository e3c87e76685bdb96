"""Expected failures (--xfails-file): listed rules and tests may fail, other failures still show, and the list cannot
rot."""

from __future__ import annotations

import os

import pytest

from ..support.runner import ROOT, SUITE, run_pytest

BROKEN = "--impl=advisor_conformance._broken.shaping:MarkerOffByOne"  # breaks elision.marker-format only
SELECT = [f"{SUITE}/elision/test_elision.py", "-q"]
NODE = "elision/test_elision.py::test_marker_reports_the_true_length[1001]"


def _run(tmp_path, text, *args):
    (tmp_path / "xfails.txt").write_text(text)
    # the deterministic tests alone (no drawn example): enough for what a run does with its failures, and quick
    return run_pytest(
        *SELECT, f"--xfails-file={tmp_path / 'xfails.txt'}", "--hypothesis-profile=advisor-conformance-explicit", *args
    )


def _outcomes(run, rule=None):
    """Each test's outcome by its node ID inside the suite (``area/test_x.py::name``)."""
    return {_inside_suite(t["nodeid"]): t["outcome"] for t in run.report["tests"] if rule is None or rule in t["rules"]}


def _inside_suite(nodeid):
    path, _, rest = nodeid.partition("::")
    return f"{path.rpartition('tests/')[2]}::{rest}"


def test_listed_rule_is_expected_to_fail(tmp_path):
    """A rule listed in the xfails file turns its failing tests into expected failures, with the comment as reason."""
    run = _run(
        tmp_path,
        "# differences we know of\nelision.marker-format  # we count a NUL\n",
        BROKEN,
        "-rx",
        "-m",
        'rule(id="elision.marker-format")',
    )
    assert run.returncode == 0, run.stdout[-3000:]
    outcomes = _outcomes(run, "elision.marker-format")
    # (a property test with no explicit example is skipped under the explicit profile; none passes or fails)
    assert "xfailed" in outcomes.values() and set(outcomes.values()) <= {"xfailed", "skipped"}, outcomes
    assert "we count a NUL" in run.stdout
    assert {row["id"]: row["outcome"] for row in run.report["rules"]}["elision.marker-format"] == "xfailed"


def test_rule_entry_lets_the_rules_passing_tests_pass(tmp_path):
    """A rule entry whose rule fails in some tests only: those are expected failures, the others simply pass."""
    run = _run(tmp_path, "elision.marker-format\n", BROKEN)
    assert run.returncode == 0, run.stdout[-3000:]
    outcomes = _outcomes(run)
    assert "xfailed" in outcomes.values() and "passed" in outcomes.values(), outcomes
    assert "failed" not in outcomes.values(), outcomes


def test_rule_entry_covers_its_failures_in_tests_of_other_rules(tmp_path):
    """A failure blamed on a listed rule is expected in a test about another rule too (here: a wrong marker in a
    test of the UTF-8 cut)."""
    run = _run(tmp_path, "elision.marker-format\n", BROKEN, "-k", "test_cut_splits_characters")
    assert run.returncode == 0, run.stdout[-3000:]
    outcomes = _outcomes(run)
    assert outcomes and set(outcomes.values()) == {"xfailed"}, outcomes
    assert not any("elision.marker-format" in t["rules"] for t in run.report["tests"])


def test_failure_of_an_unlisted_rule_still_fails(tmp_path):
    """A rule entry covers failures attributed to that rule only: a test failing for another rule still fails."""
    run = _run(
        tmp_path,
        "elision.threshold  # listed, but this implementation breaks the marker\n",
        BROKEN,
        "-m",
        'rule(id="elision.marker-format") or rule(id="elision.threshold")',
    )
    assert run.returncode == 1, run.stdout[-3000:]
    failed = [t for t in run.failed_tests() if "elision.marker-format" in t["rules"]]
    assert failed, _outcomes(run)


def test_listed_node_id_covers_one_test(tmp_path):
    """A node ID entry marks exactly that test; the rule's other tests still fail."""
    run = _run(tmp_path, f"{NODE}\n", BROKEN, "-m", 'rule(id="elision.marker-format")')
    by_node = _outcomes(run)
    assert by_node[NODE] == "xfailed"
    assert by_node["elision/test_elision.py::test_marker_reports_the_true_length[4096]"] == "failed"


def test_node_id_as_printed_from_an_installed_suite_is_accepted(tmp_path):
    """A node ID as pytest prints it from wherever the suite lives (a site-packages path) names the same test."""
    printed = f"/usr/lib/python3/site-packages/advisor_conformance/tests/{NODE}"
    run = _run(tmp_path, f"{printed}\n", BROKEN, "-m", 'rule(id="elision.marker-format")')
    assert run.returncode == 1 and _outcomes(run)[NODE] == "xfailed", run.stdout[-2000:] + run.stderr[-2000:]


def test_overlapping_entries_all_count(tmp_path):
    """A node ID and its rule both listed: neither entry is reported as matching no test."""
    run = _run(tmp_path, f"elision.marker-format\n{NODE}\n", BROKEN)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert _outcomes(run)[NODE] == "xfailed"


def test_entry_matching_no_test_is_an_error(tmp_path):
    """An entry that matches no collected test stops the run, naming the line."""
    run = _run(tmp_path, "elision.threshold\nelision.no-such-rule  # renamed long ago\n", "--impl=reference")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "xfails.txt:2: elision.no-such-rule" in run.stderr


def test_listed_rule_that_no_longer_fails_fails_the_run(tmp_path):
    """A rule entry whose tests ran and none failed is stale: the run fails, naming the entry."""
    run = _run(tmp_path, "elision.threshold  # stale: it was fixed\n", "--impl=reference")
    assert run.returncode == 1, run.stdout[-2000:]
    assert "xfails.txt:1: elision.threshold" in run.stdout


def test_listed_node_that_passes_fails_the_run(tmp_path):
    """A node ID entry whose test passes is an unexpected pass, and the run fails."""
    run = _run(tmp_path, f"{NODE}  # stale\n", "--impl=reference")
    assert run.returncode == 1, run.stdout[-2000:]
    assert _outcomes(run)[NODE] == "failed"


def test_ini_xfails_file_does_not_break_a_run_of_other_tests(tmp_path):
    """With the xfails file in the ini, a run of the project's own tests (none of the suite) is unaffected."""
    (tmp_path / "xfails.txt").write_text("elision.marker-format\n")
    (tmp_path / "test_own.py").write_text("def test_own():\n    assert True\n")
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nconformance_impl = reference\nconformance_xfails_file = xfails.txt\n"
    )
    run = run_pytest("test_own.py", "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_check_entry_expects_its_tests_failure_on_its_rule(tmp_path):
    """A test and a rule on one line (a check) expects that test's failure on that rule; a check naming another rule
    leaves the failure a failure."""
    other = NODE.replace("[1001]", "[4096]")  # fails on elision.marker-format too
    run = _run(
        tmp_path,
        f"{NODE} elision.marker-format  # one check\n{other} elision.threshold  # the wrong rule\n",
        BROKEN,
        "-m",
        'rule(id="elision.marker-format")',
    )
    outcomes = _outcomes(run)
    assert outcomes[NODE] == "xfailed" and outcomes[other] == "failed", run.stdout[-2000:] + run.stderr[-2000:]


@pytest.fixture
def importable(monkeypatch):
    """The repository importable from any directory (for the broken implementations of tests/fakes)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


def test_a_run_of_one_test_leaves_the_other_entries_alone(tmp_path, importable):
    """A run of one test, as `where` prints it (--pyargs), is not stopped by entries of tests and rules it does not
    run; a whole-suite run stops at an entry whose test the suite does not have."""
    (tmp_path / "xfails.txt").write_text(
        "question.cap\nquestion/test_question.py::test_surrounding_white_space_is_trimmed\nelision.marker-format\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\nconformance_xfails_file = xfails.txt\n")
    one = "advisor_conformance.tests.elision.test_elision::test_marker_reports_the_true_length[1001]"
    run = run_pytest(BROKEN, "-q", "--pyargs", one, cwd=tmp_path)
    assert run.returncode == 0 and set(run.outcomes().values()) == {"xfailed"}, run.stdout[-2000:] + run.stderr
    (tmp_path / "xfails.txt").write_text("question/test_question.py::test_renamed_long_ago\n")
    whole = run_pytest("--impl=reference", "-q", "--co", cwd=tmp_path)
    assert whole.returncode == 4 and "test_renamed_long_ago" in whole.stderr, whole.stdout[-2000:] + whole.stderr


def test_a_stale_rule_entry_fails_a_run_under_xdist(tmp_path):
    """A rule entry whose tests all pass fails the run when it is spread over workers too."""
    run = _run(tmp_path, "elision.threshold  # stale\n", "--impl=reference", "-n", "2")
    assert run.returncode == 1 and "xfails.txt:1: elision.threshold" in run.stdout, run.stdout[-2000:]


def test_the_ini_files_paths_resolve_from_its_folder(tmp_path, importable):
    """Run from a subfolder, the xfails file the ini file names is read from the ini file's folder."""
    (tmp_path / "xfails.txt").write_text("elision.marker-format\n")
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\nconformance_impl = {BROKEN.split('=', 1)[1]}\nconformance_xfails_file = xfails.txt\n"
    )
    (tmp_path / "sub").mkdir()
    run = run_pytest("-q", "--quick", "-m", 'rule(id="elision.marker-format")', cwd=tmp_path / "sub")
    outcomes = set(run.outcomes().values())
    assert run.returncode == 0 and "xfailed" in outcomes and "failed" not in outcomes, run.stdout[-2000:] + run.stderr


def test_an_xfails_file_in_latin_1_is_a_usage_error(tmp_path):
    """An xfails file that is not UTF-8 stops the run before any test, naming the setting and the file."""
    (tmp_path / "xfails.txt").write_bytes("elision.marker-format  # café\n".encode("latin-1"))
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nconformance_impl = reference\nconformance_xfails_file = xfails.txt\n"
    )
    run = run_pytest("-q", "--co", cwd=tmp_path)
    assert run.returncode == 4 and "INTERNALERROR" not in run.stdout + run.stderr, run.stdout[-2000:] + run.stderr
    assert "conformance_xfails_file" in run.stderr and "pytest.ini" in run.stderr, run.stderr
