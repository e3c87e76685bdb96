"""The skeletons `advisor-conformance init` writes (a Python adapter; harnesses in Python, Node.js and Go) run under
the suite out of the box and pass and fail the same rules: whichever language a user starts in, the first run
says the same things.

The Go skeleton is built offline with the standard library; Go and Node.js are needed (a test without one is
skipped naming it, and fails when ``CI`` is set: ``.ci/run`` installs golang-go).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from advisor_conformance._contract.protocol import AREA_OPERATIONS
from advisor_conformance._tools.cli.init import ANSWERED
from advisor_conformance.catalogue import load_catalogue

from ..support.runner import clean_env, run_pytest
from ..support.toolchains import go_env, toolchain

#: The rules a failure message starts with: `[rule.a, rule.b] what happened`.
RULES_PREFIX = re.compile(r"^\[([a-z0-9., -]+)\]")


def init(where: Path, *arguments: str) -> str:
    """`advisor-conformance init ARGUMENTS --dir WHERE`; its output."""
    result = subprocess.run(
        [sys.executable, "-m", "advisor_conformance", "init", *arguments, "--dir", str(where)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def skeletons(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """Every skeleton written into one folder (the Go one built): the folder and each skeleton's --impl target."""
    where = tmp_path_factory.mktemp("skeletons")
    go = toolchain("go", "Debian's golang-go")
    toolchain("node", "Node.js")
    init(where, "--python", "myadvisor")
    init(where, "--harness")
    init(where, "--harness", "--language", "node")
    printed = init(where, "--harness", "--language", "go")
    (build,) = [line.strip() for line in printed.splitlines() if line.strip().startswith("go build")]
    built = subprocess.run(
        [go, *build.split()[1:]], cwd=where, capture_output=True, text=True, env=go_env(where), timeout=600
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (go_target,) = re.findall(r"--impl='(cmd:[^']+)' -x", printed)
    return where, {
        "python-adapter": "myadvisor.advisor_adapter",
        "python-harness": "cmd:python3 advisor_harness.py",
        "node": "cmd:node advisor-harness.mjs",
        "go": go_target,
    }


@pytest.mark.slow
def test_go_skeleton_speaks_the_protocol(skeletons):
    """The built Go harness refuses another protocol and an unknown operation with a failure, and exits after stop."""
    where, _ = skeletons
    requests = [
        {"seq": "a", "op": "start", "params": {"protocol": 2}},
        {"seq": 7, "op": "frobnicate"},
        {"seq": 8, "op": "stop", "params": {}},
    ]
    session = subprocess.run(
        [str(where / "advisor-harness")],
        input="".join(json.dumps(r) + "\n" for r in requests),
        cwd=where,
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in session.stdout.splitlines()]
    assert session.returncode == 0 and [answer["seq"] for answer in answers] == ["a", 7, 8], session
    assert "failure" in answers[0] and "failure" in answers[1] and answers[2]["result"] == {}, answers


@pytest.mark.slow
def test_every_skeleton_passes_and_fails_the_same_rules(skeletons, progress):
    """Under the fast loop (`--quick`), each skeleton declares the areas of `shape`, its failures name catalogue rules
    (or a snapshot to record), the other areas' tests are skipped with a reason, nothing errors, and all four give
    every rule of the catalogue the same outcome."""
    where, targets = skeletons
    catalogue = load_catalogue()
    shape_areas = {area for area, operations in AREA_OPERATIONS.items() if set(operations) <= ANSWERED}
    outcomes = {}
    for name, target in targets.items():
        progress(f"skeleton {name}: the suite's deterministic tests")
        run = run_pytest(f"--impl={target}", "-q", "--quick", cwd=where, progress=progress, label=name)
        assert run.returncode == 1 and run.report is not None, run.stdout[-3000:] + run.stderr[-2000:]
        final = run.stdout.strip().splitlines()[-1]
        assert re.search(r"\d+ failed, \d+ passed, \d+ skipped", final) and "error" not in final, final
        assert set(run.report["implementation"]["areas"]) == shape_areas, name
        for test in run.report["tests"]:
            if test["outcome"] == "skipped":  # an area not declared, or an operation the skeleton does not answer
                assert test.get("message"), test
                continue
            assert {rule.split(".")[0] for rule in test["rules"]} <= shape_areas, test
            if test["outcome"] == "failed":
                named = RULES_PREFIX.match(test.get("message", ""))
                assert named and {rule.strip() for rule in named[1].split(",")} <= set(catalogue.rules), test
        outcomes[name] = {row["id"]: row["outcome"] for row in run.report["rules"]}
    assert {"passed", "failed"} <= set(outcomes["go"].values()), outcomes["go"]
    differing = {
        rule: {name: found[rule] for name, found in outcomes.items()}
        for rule in catalogue.rules
        if len({found[rule] for found in outcomes.values()}) > 1
    }
    assert differing == {}, differing
