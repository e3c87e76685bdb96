"""`advisor-conformance diff`: exit codes and output through a subprocess, and the reference against advisor-js."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ..support.runner import ROOT, clean_env

ADVISOR_JS = "cmd:node examples/advisor-js/harness.js"
SEEDED = "advisor_conformance._broken.final:QuestionSingleNewline"  # the question followed by one newline


def diff(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "advisor_conformance", "diff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=clean_env(),
    )


def test_the_reference_against_itself_exits_0_with_every_operation_clean():
    """The reference against itself exits 0, and --json reports every operation run in full without a divergence."""
    run = diff("--impl", "reference", "--impl", "reference", "--examples", "10", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["diverged"] is False and data["seed"] == 0 and data["examples"] == 10
    assert [(op["op"], op["inputs"], op["divergence"]) for op in data["operations"]] == [
        ("shape", 10, None),
        ("encode", 10, None),
        ("scenario", 10, None),
    ]
    assert data["a"]["name"] == data["b"]["name"] == "reference"


def test_a_seeded_divergence_exits_1_and_names_the_path_and_the_shrunk_input():
    """Against the reference with a one-newline question block, diff exits 1 and prints the differing path, the
    shrunk one-character question and both answers there."""
    run = diff("--impl", "reference", "--impl", SEEDED, "--op", "shape", "--examples", "50")
    assert run.returncode == 1, run.stderr
    assert "answer.messages[1].content" in run.stdout
    assert '"question": "0"' in run.stdout
    assert '"0\\n\\n{{guidance_request}}"' in run.stdout and '"0\\n{{guidance_request}}"' in run.stdout


def test_a_seeded_divergence_as_json():
    """With --json the divergence is data: the operation, the shrunk input, and each path with both answers."""
    run = diff("--impl", "reference", "--impl", SEEDED, "--op", "shape", "--examples", "50", "--json")
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert data["diverged"] is True and [op["op"] for op in data["operations"]] == ["shape"]
    found = data["operations"][0]["divergence"]
    assert found["op"] == "shape" and len(found["input"]["question"]) == 1
    assert [(d["path"], d["a"], d["b"]) for d in found["differences"]] == [
        ("answer.messages[1].content", "0\n\n{{guidance_request}}", "0\n{{guidance_request}}")
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["--impl", "reference"],
        ["--impl", "reference", "--impl", "reference", "--impl", "reference"],
        ["--impl", "reference", "--impl", "no_such_package.adapter"],
        ["--impl", "reference", "--impl", "reference", "--op", "tool_definition"],
        ["--impl", "reference", "--impl", "reference", "--examples", "0"],
        [],
    ],
    ids=["one-impl", "three-impls", "unloadable-target", "unknown-op", "no-examples", "no-impl"],
)
def test_usage_errors_exit_2(args):
    """Anything but two loadable targets, known operations and a positive budget exits 2 and says why on stderr."""
    run = diff(*args)
    assert run.returncode == 2
    assert run.stderr.strip() and not run.stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="advisor-js needs node")
def test_the_reference_and_advisor_js_do_not_diverge():
    """The reference and advisor-js answer 100 drawn inputs of each operation alike, modulo what is open."""
    run = diff("--impl", "reference", "--impl", ADVISOR_JS, "--examples", "100", "--json", timeout=900)
    assert run.stdout, run.stderr
    data = json.loads(run.stdout)
    found = [op["divergence"] for op in data["operations"] if op["divergence"] is not None]
    assert run.returncode == 0 and not found, json.dumps(found, indent=1)[:4000]
    assert [op["inputs"] for op in data["operations"]] == [100, 100, 100]
