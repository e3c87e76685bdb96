"""`advisor-conformance cache-sim`: the command against the reference, a broken implementation, and advisor-js; its
profiles, assumptions and what-if placements; and docs/cache-efficiency.md against what it prints."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ..support.runner import ROOT, clean_env

SESSIONS = ("bugfix-small", "review-dense")


def cache_sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "advisor_conformance", "cache-sim", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(),
    )


def test_table_for_the_reference():
    """The table has a row per session and a total, with input, read and written tokens, cost, optimum and share."""
    run = cache_sim(*SESSIONS)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("advisor-conformance cache-sim: reference ") and "provider anthropic" in lines[0]
    header = next(line for line in lines if line.startswith("session"))
    for column in (
        "calls",
        "input tok",
        "read tok",
        "written tok",
        "cost",
        "spec",
        "optimum",
        "optimum is",
        "share",
        "missed tok",
        "unread writes",
    ):
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
        assert row["optimum"]["exact"] is True and row["optimum"]["label"] == "exact"
        assert row["spec_settings"]["share_of_saving"] == 1.0 and row["unstable_prefix_count"] == 0
    assert data["profile"]["name"] == "anthropic" and data["profile"]["facts"]["max_breakpoints"]["value"] == 4
    assert all(f["source"] in data["profile"]["sources"] and f["says"] for f in data["profile"]["facts"].values())
    assert data["assumptions"] == {"refresh": "read-entry", "automatic_slot": "counts"}
    assert data["placement"]["name"] == "implementation" and not data["placement"]["what_if"]


def test_the_page_shows_what_the_command_prints():
    """The first table of docs/cache-efficiency.md is, line for line, what `cache-sim` prints for the reference."""
    run = cache_sim()
    assert run.returncode == 0, run.stderr
    page = (ROOT / "docs" / "cache-efficiency.md").read_text(encoding="utf-8")
    block = page.split("```text\n", 1)[1].split("```", 1)[0]
    assert block == run.stdout


def test_a_what_if_placement_and_an_assumption_are_recorded_and_marked():
    """--placement bridge is reported as a what-if, not conformant to the spec, and --assume refresh=prefix is the
    assumption recorded; the bridge reads at least what the spec's placement reads."""
    spec = json.loads(cache_sim("interactive-steady", "--json").stdout)
    run = cache_sim("interactive-steady", "--json", "--placement", "bridge", "--assume", "refresh=prefix")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["placement"]["what_if"] is True and data["placement"]["conformant_to_spec"] is False
    assert data["assumptions"]["refresh"] == "prefix" and data["rules"]["refresh"] == "prefix"
    assert data["profile"]["assumptions"]["refresh"]["used"] == "prefix"
    assert data["total"]["read_tokens"] > spec["total"]["read_tokens"] and data["total"]["missed_tokens"] == 0
    text = cache_sim("bugfix-small", "--placement", "bridge").stdout
    assert "what-if" in text.lower() and "not conformant" in text


def test_the_gpt_5_6_profile_labels_its_optimum_and_charges_writes():
    """Under the GPT-5.6 profile the reference's requests write their implicit breakpoints at 1.25 and the JSON names
    the profile and labels each session's optimum."""
    run = cache_sim("bugfix-small", "--provider", "openai", "--provider-profile", "openai-gpt-5-6", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["profile"]["name"] == "openai-gpt-5-6" and data["rules"]["write_price"] == {"30m": 1.25, "12h": 1.25}
    row = data["sessions"][0]
    assert row["optimum"]["label"] in ("exact", "lower bound") and row["written_tokens"] > 0
    assert row["optimum"]["cost"] < row["cost"]


def test_openai_reference_reaches_the_optimum_and_a_fresh_key_per_call_does_not():
    """On OpenAI the reference's stable key reaches the optimum; a fresh key per call reads nothing."""
    good = json.loads(cache_sim("bugfix-small", "--provider", "openai", "--json").stdout)
    assert good["total"]["share_of_optimum_saving"] == 1.0
    run = cache_sim(
        "bugfix-small", "--provider", "openai", "--json", "--impl", "advisor_conformance._broken.cache:FreshKeyPerCall"
    )
    assert run.returncode == 0, run.stderr
    bad = json.loads(run.stdout)
    assert bad["total"]["read_tokens"] == 0 and bad["total"]["share_of_optimum_saving"] == 0.0


@pytest.mark.parametrize(
    "args, message",
    [
        (["no-such-session"], "no session 'no-such-session'"),
        (["--impl", "no_such_module"], "cannot import"),
        (["--assume", "refresh=always"], "refresh"),
        (["--assume", "colour=blue"], "colour"),
        (["--assume", "refresh"], "NAME=VALUE"),
        (["--provider-profile", "nope"], "nope"),
        (["--provider", "openai", "--provider-profile", "anthropic"], "anthropic"),
        (["--provider", "openai", "--placement", "bridge"], "bridge"),
        (["--cached-price", "2"], "--cached-price"),
    ],
)
def test_bad_arguments_exit_2(args, message):
    """An unknown session, implementation, profile, assumption or choice, a profile or placement for other bodies,
    or a price out of range exits 2 and names it."""
    run = cache_sim(*args)
    assert run.returncode == 2 and message in run.stderr


def test_list_profiles_prints_every_fact_with_its_source():
    """--list-profiles prints the built-in profiles as JSON, every fact with its source and sentence."""
    run = cache_sim("--list-profiles")
    assert run.returncode == 0, run.stderr
    profiles = json.loads(run.stdout)
    assert set(profiles) == {"anthropic", "openai", "openai-gpt-5-6"}
    assert all(
        fact["says"] and fact["source"] in p["sources"] for p in profiles.values() for fact in p["facts"].values()
    )


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
