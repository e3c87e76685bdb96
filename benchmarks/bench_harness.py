"""Benchmark: shaping operations per second through `advisor-conformance harness`, and against in process.

Goal (issue 6): at least 2,000 shaping operations per second through the
harness (JSON lines over a pipe to `advisor-conformance harness`), with the
ratio to the in-process adapter reported from the same run. Both paths use the
suite's own transports (the harness answer is also checked against the
harness message schema, as in a test run); the operation is a realistic
shape call: a 12-message snapshot with tool calls, a question and one file.

    python benchmarks/bench_harness.py      # prints the figures, exits 1 if the goal is missed
"""

from __future__ import annotations

import shutil
import sys
import time

from advisor_conformance._transport import InProcessTransport
from advisor_conformance._transport import SubprocessTransport
from advisor_reference.adapter import ReferenceAdapter

CALLS = 5000
PARAMS = {
    "transcript": [
        {"role": "system", "content": "You are a coding agent."},
        *[message for i in range(5) for message in (
            {"role": "assistant", "content": f"Step {i}: reading.",
             "tool_calls": [{"id": f"c{i}", "name": "read", "arguments": {"path": f"src/mod{i}.py", "limit": 200}}]},
            {"role": "tool", "name": "read", "tool_call_id": f"c{i}", "content": f"def f{i}():\n    return {i}\n"},
        )],
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "adv", "name": "advisor", "arguments": {"question": "Is the plan sound?"}}]},
    ],
    "question": "Is the plan sound?",
    "files": [{"path": "src/mod0.py", "content": "def f0():\n    return 0\n"}],
}


def rate(call, calls: int = CALLS) -> float:
    for _ in range(100):  # warm up
        call("shape", PARAMS)
    start = time.perf_counter()
    for _ in range(calls):
        call("shape", PARAMS)
    return calls / (time.perf_counter() - start)


def main() -> int:
    command = shutil.which("advisor-conformance")
    if command is None:
        print("advisor-conformance is not on PATH (pip install -e .)")
        return 1
    in_process = InProcessTransport(ReferenceAdapter(), "reference")
    harness = SubprocessTransport(f"{command} harness", timeout=30)
    harness.start()
    try:
        best_in, best_over = 0.0, 0.0
        for _ in range(3):  # interleaved rounds, best of each
            best_in = max(best_in, rate(in_process.call))
            best_over = max(best_over, rate(harness.call))
    finally:
        harness.close()
    print(f"shape through the harness: {best_over:,.0f} ops/s (goal: at least 2,000)")
    print(f"shape in process:          {best_in:,.0f} ops/s; the harness runs at {best_over / best_in:.2f}x of it")
    ok = best_over >= 2000
    print("goals met" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
