"""A new user's first hour, from the built wheel in an empty directory: `init`, the fast loop, a first run whose
failures name rules, snapshots, an xfails file, `shape` on a shipped transcript (with the project's adapter by
default), a harness skeleton, a harness serving a package of the directory, one area's tests, failures at 80
columns, the install's pins, workers, `where` and a rerun exactly as it prints it, and `--version`.

The wheel is installed into a fresh virtual environment with only its declared dependencies
(``tests/support/wheelenv.py``); every command runs as a user of that environment would, with its ``bin``
first on ``PATH`` (an activated virtual environment) and an empty directory as the working directory.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from advisor_conformance._paths import fixtures_dir
from advisor_conformance.catalogue import load_catalogue
from advisor_reference.adapter import adapter as reference_adapter

from ..support.runner import ROOT, clean_env
from ..support.wheelenv import build_wheel, make_env

#: The rules a failure message starts with: `[rule.a, rule.b] what happened` (after the exception's name).
RULES_PREFIX = re.compile(r"^(?:[\w.]+: )?\[([a-z0-9., -]+)\]")
#: A quick selection of the suite with failures and passes for a skeleton.
FIRST_RUN = ["-k", "test_question or test_request"]


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """The bin directory of a fresh virtual environment holding the wheel and only its declared dependencies."""
    base = tmp_path_factory.mktemp("new-user")
    return make_env(build_wheel(ROOT, base / "dist"), base / "venv").parent


def user(venv: Path, cwd: Path, *command: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command as the user types it in an activated environment (`python`, `advisor-conformance`)."""
    return user_with(venv, cwd, {}, *command, timeout=timeout)


def user_with(
    venv: Path, cwd: Path, variables: dict[str, str], *command: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """A command as the user types it in an activated environment, with some environment variables set."""
    env = {
        **clean_env(),
        "PATH": f"{venv}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv.parent),
        **variables,
    }
    env.pop("ADVISOR_CONFORMANCE_IMPL", None)
    return subprocess.run(
        [str(venv / command[0]), *command[1:]], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def suite(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return user(venv, cwd, "python", "-m", "pytest", "-q", *args)


def shown(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-3000:]}"


def failed_rules(report: dict) -> dict[str, list[str]]:
    """Each failed test's node ID and the rules its message starts with."""
    found = {}
    for test in report["tests"]:
        if test["outcome"] == "failed":
            match = RULES_PREFIX.match(test.get("message", ""))
            found[test["nodeid"]] = [rule.strip() for rule in match[1].split(",")] if match else []
    return found


def sole_rule(report: dict, failures: dict[str, list[str]]) -> str:
    """A rule that every failed test carrying it was blamed on alone (listing it covers all its failures)."""
    carried = {test["nodeid"]: test["rules"] for test in report["tests"]}
    for rules in failures.values():
        if len(rules) == 1 and all(blamed == rules for node, blamed in failures.items() if rules[0] in carried[node]):
            return rules[0]
    raise AssertionError(f"no failure is blamed on one rule alone: {failures}")


@pytest.mark.slow
def test_python_adapter_skeleton_from_first_run_to_snapshots_and_xfails(venv, tmp_path, progress):
    """The skeleton of `init --python` runs at once: its failures name catalogue rules, its snapshots are recorded and
    then match, a stale xfails entry is a usage error naming it, and `shape` prints a shipped transcript's request."""
    catalogue = load_catalogue()
    progress("new user: init --python myadvisor")
    init = user(venv, tmp_path, "advisor-conformance", "init", "--python", "myadvisor")
    assert init.returncode == 0, shown(init)
    assert (tmp_path / "myadvisor" / "advisor_adapter.py").is_file()
    assert "myadvisor.advisor_adapter" in (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert "python3 -m pytest -x --quick" in init.stdout

    progress("new user: the fast loop init prints, from a subfolder of the project")
    (tmp_path / "docs").mkdir()
    loop = user(venv, tmp_path / "docs", "python3", "-m", "pytest", "-x", "--quick", "-q", "--rule-report=../q.json")
    assert loop.returncode == 1 and "myadvisor" in loop.stdout.splitlines()[0], shown(loop)
    quick = json.loads((tmp_path / "q.json").read_text(encoding="utf-8"))
    assert [test["outcome"] for test in quick["tests"]].count("failed") == 1, shown(loop)

    progress("new user: the first run against the skeleton")
    first = suite(venv, tmp_path, "--impl=myadvisor.advisor_adapter", "--rule-report=r.json", *FIRST_RUN)
    assert first.returncode == 1, shown(first)
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    failures = failed_rules(report)
    assert failures, shown(first)
    assert all(rules and set(rules) <= set(catalogue.rules) for rules in failures.values()), failures
    assert any(test["outcome"] == "passed" for test in report["tests"])

    rule = next(iter(failures.values()))[0]
    where = user(venv, tmp_path, "advisor-conformance", "where", rule)
    assert where.returncode == 0 and rule in where.stdout, shown(where)

    progress("new user: recording snapshots")
    snapshots = ["--impl=myadvisor.advisor_adapter", "-k", "test_rendered_request_matches_snapshot"]
    record = suite(venv, tmp_path, *snapshots, "--snapshot-update")
    assert record.returncode == 0, shown(record)
    recorded = "".join(path.read_text(encoding="utf-8") for path in (tmp_path / "snapshots" / "myadvisor").glob("*"))
    for transcript in (fixtures_dir() / "transcripts").glob("*.json"):
        assert transcript.stem in recorded, f"no snapshot of {transcript.stem}"
    again = suite(venv, tmp_path, *snapshots)
    assert again.returncode == 0, shown(again)

    progress("new user: an xfails file")
    # A rule whose failures in the first run were blamed on it alone: listing it makes them expected failures.
    expected = sole_rule(report, failures)
    (tmp_path / "xfails.txt").write_text(f"{expected}  # not yet\nquestion/test_question.py::test_no_such_test\n")
    stale = suite(venv, tmp_path, "--impl=myadvisor.advisor_adapter", "--xfails-file=xfails.txt", *FIRST_RUN)
    assert stale.returncode == 4, shown(stale)
    output = stale.stdout + stale.stderr
    assert "test_no_such_test" in output and expected not in output, shown(stale)
    (tmp_path / "xfails.txt").write_text(f"{expected}  # not yet\n")
    listed = suite(
        venv,
        tmp_path,
        "--impl=myadvisor.advisor_adapter",
        "--xfails-file=xfails.txt",
        "--rule-report=x.json",
        "-m",
        f'rule(id="{expected}")',
        *FIRST_RUN,
    )
    assert listed.returncode == 0, shown(listed)
    outcomes = {test["outcome"] for test in json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["tests"]}
    assert "xfailed" in outcomes and "failed" not in outcomes, outcomes

    progress("new user: shape on a shipped transcript")
    shape = user(venv, tmp_path, "advisor-conformance", "shape", "django_webhooks_partial_reads", "--impl", "reference")
    assert shape.returncode == 0, shown(shape)
    assert reference_adapter.describe()["strings"]["system_prompt"] in shape.stdout
    # without --impl: the adapter the project's pyproject.toml names, as the first line (on stderr, beside JSON) says
    mine = user(venv, tmp_path, "advisor-conformance", "shape", "django_webhooks_partial_reads", "--json")
    assert mine.returncode == 0 and "myadvisor.advisor_adapter (pyproject.toml)" in mine.stderr, shown(mine)
    declared = user(
        venv, tmp_path, "python", "-c", "from myadvisor.advisor_adapter import STRINGS; print(STRINGS['system_prompt'])"
    ).stdout.strip()
    assert json.loads(mine.stdout)["messages"][0] == {"role": "system", "content": declared}


@pytest.mark.slow
def test_harness_skeleton_fails_clearly(venv, tmp_path, progress):
    """The harness of `init --harness` runs under the suite at once: the run fails on a test naming a rule, no crash."""
    progress("new user: init --harness and a run that stops at the first failure")
    init = user(venv, tmp_path, "advisor-conformance", "init", "--harness")
    assert init.returncode == 0, shown(init)
    (command,) = re.findall(r"--impl='cmd:([^']+)'", init.stdout)[:1]
    run = suite(venv, tmp_path, f"--impl=cmd:{command}", "-x", "--rule-report=h.json")
    assert run.returncode == 1, shown(run)
    report = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    failures = failed_rules(report)
    assert len(failures) == 1, shown(run)
    (rules,) = failures.values()
    assert rules and set(rules) <= set(load_catalogue().rules), failures


def init_python(venv: Path, cwd: Path) -> None:
    init = user(venv, cwd, "advisor-conformance", "init", "--python", "myadvisor")
    assert init.returncode == 0, shown(init)


@pytest.mark.slow
def test_a_harness_serving_a_package_of_the_current_directory_runs_one_area(venv, tmp_path, progress):
    """`--impl='cmd:advisor-conformance harness --impl myadvisor.advisor_adapter'` imports the package from the
    directory the suite runs in, and `-m 'rule(area="question")'` runs that area's tests alone."""
    init_python(venv, tmp_path)
    progress("new user: the skeleton served by advisor-conformance harness, one area")
    run = suite(
        venv,
        tmp_path,
        "--impl=cmd:advisor-conformance harness --impl myadvisor.advisor_adapter",
        "-m",
        'rule(area="question")',
        "--rule-report=h.json",
    )
    assert run.returncode in (0, 1), shown(run)
    report = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    assert report["implementation"]["name"] == "myadvisor"
    ran = [test for test in report["tests"] if test["outcome"] != "skipped"]
    assert ran and all(any(rule.startswith("question.") for rule in test["rules"]) for test in report["tests"]), ran


@pytest.mark.slow
def test_failures_read_well_at_80_columns(venv, tmp_path, progress):
    """At 80 columns each short-summary line starts with catalogue rules and the start of the message; a departure
    names the code points where the texts part, in slices framed by no character of the data; hypothesis's failing
    explicit examples are bounded; an unknown rule in -m is a usage error naming the closest rule."""
    init_python(venv, tmp_path)
    progress("new user: a failing run at 80 columns")
    env_columns = {"COLUMNS": "80", "CI": ""}
    run = user_with(
        venv,
        tmp_path,
        env_columns,
        "python",
        "-m",
        "pytest",
        "-q",
        "-ra",
        "--impl=myadvisor.advisor_adapter",
        "-m",
        'rule(id="question.cap") or rule(id="elision.marker-format")',
    )
    assert run.returncode == 1, shown(run)
    rules = set(load_catalogue().rules)
    summary = [line[:80] for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    assert summary, shown(run)
    for line in summary:
        match = re.match(r"FAILED \[([a-z0-9., -]+)\] (\S.{10})", line)
        assert match and {rule.strip() for rule in match[1].split(",")} <= rules, line
    assert re.search(r"departs at character \d+ \(expected U\+2026 HORIZONTAL ELLIPSIS, got U\+[0-9A-F]{4}", run.stdout)
    assert re.search(r"expected\[\d+:\d+\] '", run.stdout) and not re.search(r"(expected|got) …'", run.stdout)
    blocks = [part.split("\n\n", 1)[0].splitlines() for part in run.stdout.split("explicit example:")[1:]]
    assert blocks and all(len(block) <= 14 and max(map(len, block)) <= 300 for block in blocks), blocks[:1]

    unknown = suite(venv, tmp_path, "--impl=myadvisor.advisor_adapter", "-m", 'rule(id="elision.marker-formt")')
    assert unknown.returncode == 4 and "elision.marker-format" in unknown.stderr, shown(unknown)


@pytest.mark.slow
def test_install_pins_workers_rerunnable_tests_and_versions(venv, tmp_path, progress):
    """`constraints` prints the installed release's pins (those of the environment's libraries), `-n 2` works from the
    wheel, a test `where` lists reruns from any directory by its ID, `where` shows no site-packages path, and
    `--version` names the catalogue and the protocol."""
    pins = user(venv, tmp_path, "advisor-conformance", "constraints")
    assert pins.returncode == 0, shown(pins)
    pinned = dict(line.split("==", 1) for line in pins.stdout.splitlines() if line and not line.startswith("#"))
    installed = user(venv, tmp_path, "python", "-c", "import importlib.metadata as m; print(m.version('hypothesis'))")
    assert pinned["hypothesis"] == installed.stdout.strip() and "pytest" in pinned, pins.stdout[:500]

    version = user(venv, tmp_path, "advisor-conformance", "--version")
    assert load_catalogue().version in version.stdout and "protocol" in version.stdout, shown(version)

    progress("new user: where, and a rerun of one of its tests exactly as printed, beside an xfails file")
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    where = user_with(venv, tmp_path, cache, "advisor-conformance", "where", "elision.marker-format")
    assert where.returncode == 0 and "site-packages" not in where.stdout, shown(where)
    listed = [line.strip() for line in where.stdout.split("tests (", 1)[1].splitlines()[1:] if "::" in line]
    (tmp_path / "xfails.txt").write_text(
        "question.cap\nquestion/test_question.py::test_surrounding_white_space_is_trimmed\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\nconformance_xfails_file = xfails.txt\n")
    rerun = user(venv, tmp_path, *shlex.split(listed[0]), "-q", "--rule-report=w.json")
    assert rerun.returncode == 0, shown(rerun)
    again = user_with(venv, tmp_path, cache, "advisor-conformance", "where", "elision.marker-format")
    assert again.stdout == where.stdout, "a lookup from the cache differs from the collection's"
    tests = json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["tests"]
    assert len(tests) == 1 and tests[0]["outcome"] == "passed", tests

    progress("new user: one rule over two workers")
    spread = suite(venv, tmp_path, "--impl=reference", "-n", "2", "-m", 'rule(id="elision.marker-format")')
    assert spread.returncode == 0 and "passed" in spread.stdout, shown(spread)
