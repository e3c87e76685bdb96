"""`advisor-conformance cache-sim`: the command against the reference, a broken implementation, and advisor-js."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ..support.runner import ROOT, clean_env

SESSIONS = ("bugfix-small", "review-dense")


def cache_sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "advisor_conformance", "cache-sim", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=clean_env())


def test_table_for_the_reference():
    """The table has a row per session and a total, with input, read and written tokens, cost, optimum and share."""
    run = cache_sim(*SESSIONS)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("advisor-conformance cache-sim: reference ") and "provider anthropic" in lines[0]
    header = next(line for line in lines if line.startswith("session"))
    for column in ("calls", "input tok", "read tok", "written tok", "cost", "spec", "optimum", "share", "missed tok",
                   "unread writes"):
        assert column in header
    rows = {line.split()[0]: line.split() for line in lines if line.split() and line.split()[0] in (*SESSIONS, "total")}
    assert set(rows) == {*SESSIONS, "total"}
    assert rows["bugfix-small"][1] == "4" and rows["total"][1] == "18"


def test_json_for_the_reference_matches_the_simulation():
    """--json gives every session's figures and the total; the total is the sum of the sessions."""
    run = cache_sim(*SESSIONS, "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["implementation"]["name"] == "reference" and data["provider"] == "anthropic"
    assert data["rules"]["lookback"] == 20 and data["rules"]["min_tokens"] == 1024
    sessions = {row["session"]: row for row in data["sessions"]}
    assert set(sessions) == set(SESSIONS)
    for key in ("input_tokens", "read_tokens", "written_tokens", "missed_tokens", "unread_written_tokens"):
        assert data["total"][key] == sum(row[key] for row in sessions.values())
    for row in sessions.values():
        assert row["optimum"]["cost"] <= row["cost"] and row["rejected_requests"] == 0
        assert row["optimum"]["exact"] is True
        assert row["spec_settings"]["share_of_saving"] == 1.0 and row["unstable_prefix_count"] == 0


def test_openai_reference_reaches_the_optimum_and_a_fresh_key_per_call_does_not():
    """On OpenAI the reference's stable key reaches the optimum; a fresh key per call reads nothing."""
    good = json.loads(cache_sim("bugfix-small", "--provider", "openai", "--json").stdout)
    assert good["total"]["share_of_optimum_saving"] == 1.0
    run = cache_sim("bugfix-small", "--provider", "openai", "--json", "--impl",
                    "tests.fakes.broken.cache:FreshKeyPerCall")
    assert run.returncode == 0, run.stderr
    bad = json.loads(run.stdout)
    assert bad["total"]["read_tokens"] == 0 and bad["total"]["share_of_optimum_saving"] == 0.0


@pytest.mark.parametrize("args, message", [(["no-such-session"], "no session 'no-such-session'"),
                                           (["--impl", "no_such_module"], "cannot import")])
def test_bad_arguments_exit_2(args, message):
    """An unknown session or implementation exits 2 and says which."""
    run = cache_sim(*args)
    assert run.returncode == 2 and message in run.stderr


def test_advisor_js_matches_the_reference():
    """advisor-js, through its harness, gets the reference's figures within 1% (its wording differs a little)."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    js = cache_sim("bugfix-small", "--json", "--impl", "cmd:node examples/advisor-js/harness.js")
    assert js.returncode == 0, js.stderr
    ref = json.loads(cache_sim("bugfix-small", "--json").stdout)["total"]
    total = json.loads(js.stdout)["total"]
    assert total["calls"] == ref["calls"] == 4
    for key in ("input_tokens", "read_tokens", "cost"):
        assert abs(total[key] - ref[key]) <= 0.01 * ref[key], key
