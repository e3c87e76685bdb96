"""Expected failures (--xfails-file): listed rules and tests may fail, and the list cannot rot."""

from __future__ import annotations

from ..support.runner import SUITE, run_pytest

BROKEN = "--impl=tests.fakes.broken.shaping:MarkerOffByOne"  # breaks elision.marker-format only
SELECT = [f"{SUITE}/test_elision.py", "-q"]


def test_listed_rule_is_expected_to_fail(tmp_path):
    """A rule listed in the xfails file turns its failing tests into expected failures, with the comment as reason."""
    (tmp_path / "xfails.txt").write_text("# differences we know of\nelision.marker-format  # we count a NUL\n")
    run = run_pytest(*SELECT, BROKEN, f"--xfails-file={tmp_path / 'xfails.txt'}", "-rx", "-m",
                     'rule(id="elision.marker-format")')
    assert run.returncode == 0, run.stdout[-3000:]
    outcomes = {t["nodeid"]: t["outcome"] for t in run.report["tests"] if "elision.marker-format" in t["rules"]}
    assert outcomes and set(outcomes.values()) == {"xfailed"}, outcomes
    assert "we count a NUL" in run.stdout


def test_listed_node_id_covers_one_test(tmp_path):
    """A node ID entry marks exactly that test; the rule's other tests still fail."""
    node = "test_elision.py::test_marker_reports_the_true_length[1001]"
    (tmp_path / "xfails.txt").write_text(f"{node}\n")
    run = run_pytest(*SELECT, BROKEN, f"--xfails-file={tmp_path / 'xfails.txt'}", "-m",
                     'rule(id="elision.marker-format")')
    by_node = {t["nodeid"].split("/")[-1]: t["outcome"] for t in run.report["tests"]}
    assert by_node[node] == "xfailed"
    assert by_node["test_elision.py::test_marker_reports_the_true_length[4096]"] == "failed"


def test_entry_matching_no_test_is_an_error(tmp_path):
    """An entry that matches no collected test stops the run, naming the line."""
    (tmp_path / "xfails.txt").write_text("elision.threshold\nelision.no-such-rule  # renamed long ago\n")
    run = run_pytest(*SELECT, "--impl=reference", f"--xfails-file={tmp_path / 'xfails.txt'}")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "xfails.txt:2: elision.no-such-rule" in run.stderr and "match no test" in run.stderr


def test_listed_test_that_passes_fails_the_run(tmp_path):
    """A listed test that passes is an unexpected pass, and the run fails."""
    (tmp_path / "xfails.txt").write_text("elision.threshold  # stale: it was fixed\n")
    run = run_pytest(*SELECT, "--impl=reference", f"--xfails-file={tmp_path / 'xfails.txt'}")
    assert run.returncode == 1, run.stdout[-2000:]
    assert "XPASS(strict)" in run.stdout
