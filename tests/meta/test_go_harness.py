"""The Go harness skeleton of `init --harness --language go`: built with the standard library, run under the suite.

It needs a Go toolchain (Debian's golang-go): without one the test is skipped, and fails when the environment
variable ``CI`` is set (``.ci/run`` installs golang-go first). The build runs offline, with its cache and module
directories under the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from advisor_conformance._contract.protocol import AREA_OPERATIONS
from advisor_conformance._tools.cli.init import ANSWERED
from advisor_conformance.catalogue import load_catalogue

from ..support.runner import clean_env, run_pytest

#: The rules a failure message starts with: `[rule.a, rule.b] what happened`.
RULES_PREFIX = re.compile(r"^\[([a-z0-9., -]+)\]")


def go_toolchain() -> str:
    go = shutil.which("go")
    if go is None:
        reason = "no Go toolchain (go) on PATH"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, so the Go skeleton must be built (.ci/run installs golang-go)")
        pytest.skip(reason)
    return go


@pytest.mark.slow
def test_go_skeleton_builds_and_runs_under_the_suite(tmp_path, progress):
    """`init --harness --language go` writes a program that `go build` compiles offline, that refuses another protocol
    and an unknown operation and exits after stop, and that the suite runs at once: it declares the areas of `shape`,
    its tests pass or fail naming catalogue rules (or, for snapshots, how to record
    them), the other areas are skipped, and nothing errors."""
    go = go_toolchain()
    init = subprocess.run(
        [sys.executable, "-m", "advisor_conformance", "init", "--harness", "--language", "go", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert init.returncode == 0, init.stderr
    (build,) = [line.strip() for line in init.stdout.splitlines() if line.strip().startswith("go build")]
    (target,) = re.findall(r"--impl='(cmd:[^']+)' -x", init.stdout)

    progress("go skeleton: go build")
    env = {
        **clean_env(),
        "GOCACHE": str(tmp_path / "gocache"),
        "GOPATH": str(tmp_path / "gopath"),
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "",
        "GOTELEMETRY": "off",
        "CGO_ENABLED": "0",
    }
    built = subprocess.run([go, *build.split()[1:]], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    harness = tmp_path / "advisor-harness"
    requests = [
        {"seq": "a", "op": "start", "params": {"protocol": 2}},
        {"seq": 7, "op": "frobnicate"},
        {"seq": 8, "op": "stop", "params": {}},
    ]
    session = subprocess.run(
        [str(harness)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in session.stdout.splitlines()]
    assert session.returncode == 0 and [answer["seq"] for answer in answers] == ["a", 7, 8], session
    assert "failure" in answers[0] and "failure" in answers[1] and answers[2]["result"] == {}, answers

    progress("go skeleton: the suite's deterministic examples through the harness")
    run = run_pytest(
        f"--impl={target}",
        "-q",
        "--hypothesis-profile=advisor-conformance-explicit",
        cwd=tmp_path,
        progress=progress,
        label="go skeleton",
    )
    assert run.returncode == 1 and run.report is not None, run.stdout[-3000:] + run.stderr[-2000:]
    final = run.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ failed, \d+ passed, \d+ skipped", final) and "error" not in final, final
    shape_areas = {area for area, operations in AREA_OPERATIONS.items() if set(operations) <= ANSWERED}
    assert run.report["implementation"]["language"] == "go"
    assert set(run.report["implementation"]["areas"]) == shape_areas
    catalogue = load_catalogue()
    tests = run.report["tests"]
    for test in tests:
        areas = {rule.split(".")[0] for rule in test["rules"]}
        if test["outcome"] == "skipped":  # an area not declared, or an operation the skeleton does not answer
            assert test.get("message"), test
            continue
        assert areas <= shape_areas, test
        if test["outcome"] == "failed" and "--snapshot-update" not in test["message"]:  # a snapshot to record, else:
            named = RULES_PREFIX.match(test.get("message", ""))
            assert named and {rule.strip() for rule in named[1].split(",")} <= set(catalogue.rules), test
    assert any(test["outcome"] == "passed" for test in tests)
    assert any(test["outcome"] == "failed" for test in tests)
