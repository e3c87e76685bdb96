"""The harness protocol: the reference over a subprocess gives the in-process outcomes, and faulty harnesses are
reported on the test they hit while the run goes on and nothing hangs past the timeout."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from advisor_conformance import ContractError
from advisor_conformance._contract.protocol import AREA_OPERATIONS, CAPABILITIES, PROVIDERS
from advisor_conformance._contract.transport import SubprocessTransport

from ..support.matrix import read_outcomes, run_matrix_session
from ..support.runner import ROOT, SUITE, run_pytest

FAULTY = f"cmd:{sys.executable} tests/fakes/faulty_harness.py"
# A handful of quick tests from several areas, in a fixed order.
SELECTION = [
    f"{SUITE}/elision/test_elision.py",
    "-k",
    "strings_up_to or strings_over or marker_reports",
    "-p",
    "no:randomly",
]
# Before any test the suite sends one probe per operation the declared areas need (the reference declares them all),
# one per capability they offer, and two per declared provider (an encode for it, a call over HTTP to it).
PROBES = len({op for ops in AREA_OPERATIONS.values() for op in ops}) + len(CAPABILITIES) + 2 * len(PROVIDERS)


@pytest.mark.slow
def test_reference_through_the_harness_matches_in_process(tmp_path, progress):
    """Every test has the same outcome through `advisor-conformance harness` as in process (one session, both)."""
    matrix = [
        {"id": "in-process", "target": "reference", "rules": None},
        {"id": "harness", "target": "cmd:advisor-conformance harness", "rules": None},
    ]
    run = run_matrix_session(
        matrix,
        tmp_path / "outcomes.jsonl",
        SUITE,
        "-n",
        "2",
        progress=progress,
        label="the suite in process and through the harness",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    by_entry: dict[str, dict[str, str]] = {"in-process": {}, "harness": {}}
    for entry, records in read_outcomes(tmp_path / "outcomes.jsonl").items():
        for record in records:
            test = record["nodeid"].replace(f"[{entry}-", "[").replace(f"-{entry}]", "]")
            by_entry[entry][test.replace(f"[{entry}]", "")] = record["outcome"]
    assert len(by_entry["in-process"]) > 400
    assert by_entry["in-process"] == by_entry["harness"]


@pytest.mark.parametrize(
    "fault, shown",
    [
        ("crash", ["3", "faulty harness: crashing now"]),
        ("garbage", ["oops, not JSON"]),
        ("wrong-seq", ["-other"]),
        ("stderr-exit", ["1", "out of memory, giving up"]),
        ("duplicate-answer", ["{seq}"]),
        ("close-stdout", ["stdout"]),
    ],
    ids=["crash", "not-json", "wrong-seq", "stderr-and-exit", "duplicate-answer", "closed-stdout"],
)
def test_faulty_harness_fails_one_test_and_the_run_goes_on(tmp_path, fault, shown):
    """A harness fault fails the test it hit with a message that shows what happened (the exit code, the harness's
    stderr, the line it wrote, the seq it echoed, never an exit code it did not have); later tests still run."""
    flag = tmp_path / "struck"
    run = run_pytest(*SELECTION, f"--impl={FAULTY} {fault} {PROBES + 3} {flag}", "-q", "--harness-timeout=5")
    assert run.report is not None, run.stdout + run.stderr
    outcomes = [test["outcome"] for test in run.report["tests"]]
    failed = run.failed_tests()
    assert len(failed) == 1, f"expected exactly the third test to fail: {outcomes}\n{run.stdout[-2000:]}"
    shown = [part.format(seq=json.loads(flag.read_text())["seq"]) for part in shown]
    assert all(part in failed[0]["message"] for part in shown), failed[0]["message"]
    assert not re.search(r"code -9\b|signal 9\b", failed[0]["message"]), failed[0]["message"]  # the suite's own kill
    assert outcomes.count("passed") == len(outcomes) - 1, "the run did not go on after the fault"


def test_hanging_harness_is_stopped_after_the_timeout(tmp_path):
    """A harness that never answers fails that test after the timeout and is restarted for the next ones."""
    started = time.monotonic()
    run = run_pytest(
        *SELECTION, f"--impl={FAULTY} hang {PROBES + 2} {tmp_path / 'struck'}", "-q", "--harness-timeout=2"
    )
    elapsed = time.monotonic() - started
    failed = run.failed_tests()
    assert len(failed) == 1 and "hang" in failed[0]["message"], run.stdout[-2000:]  # the harness's command named
    assert [t["outcome"] for t in run.report["tests"]].count("passed") == len(run.report["tests"]) - 1
    assert elapsed < 60, f"the run took {elapsed:.0f} s"


def test_unknown_protocol_version_stops_the_run_clearly(tmp_path):
    """A harness that answers start with another protocol version is refused before any test, saying why."""
    run = run_pytest(*SELECTION, f"--impl={FAULTY} protocol 1 {tmp_path / 'struck'}", "-q")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "protocol" in run.stderr and "2" in run.stderr, run.stderr  # the field, and the version it answered


def test_missing_harness_command_is_a_usage_error():
    """A cmd: target whose program does not exist stops the run with a usage error."""
    run = run_pytest(*SELECTION, "--impl=cmd:no-such-harness-program --flag", "-q")
    assert run.returncode == 4 and "no-such-harness-program" in run.stderr, run.stderr


def test_transport_replays_start_after_a_crash(tmp_path):
    """After the harness dies, the next operation restarts it and replays start first."""
    transport = SubprocessTransport(
        f"{sys.executable} tests/fakes/faulty_harness.py crash 2 {tmp_path / 'struck'}", timeout=10, cwd=str(ROOT)
    )
    try:
        first = transport.start()
        assert "messages" in transport.call("shape", {"transcript": []})
        with pytest.raises(ContractError):
            transport.call("shape", {"transcript": []})
        assert "messages" in transport.call("shape", {"transcript": []})
        assert transport.restarts == 1 and transport.description == first
    finally:
        transport.close()


def test_advisor_js_harness_delivers_every_answer_before_it_exits():
    """advisor-js answers every request of a long stream ending in stop through a pipe read only after a pause,
    and exits with code 0."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    count = 40  # answers of about 20 KB each: far more than a pipe holds
    lines = [json.dumps({"seq": 1, "op": "start", "params": {"protocol": 1}})]
    lines += [
        json.dumps(
            {
                "seq": seq,
                "op": "shape",
                "params": {"transcript": [{"role": "user", "content": f"{seq} " + "x" * 20_000}]},
            }
        )
        for seq in range(2, count)
    ]
    lines.append(json.dumps({"seq": count, "op": "stop", "params": {}}))
    with tempfile.TemporaryFile() as requests:
        requests.write(("\n".join(lines) + "\n").encode())
        requests.seek(0)
        process = subprocess.Popen(
            ["node", "examples/advisor-js/harness.js"],
            stdin=requests,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        try:
            process.wait(2)  # nothing is read yet: a harness that exits now loses what the pipe did not take
        except subprocess.TimeoutExpired:
            pass
        out, _ = process.communicate(timeout=30)
    answers = []
    for line in out.decode("utf-8", "replace").split("\n"):
        try:
            answers.append(json.loads(line)["seq"])
        except ValueError:
            pass
    assert answers == list(range(1, count + 1)), f"{len(answers)} answers to {count} requests"
    assert process.returncode == 0
