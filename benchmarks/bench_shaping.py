"""Benchmark: shaping a large transcript against a plain json.dumps of it, in the same run.

Goals (issue 2):
  * shaping a transcript of 5,000 messages and about 20 MB, with large tool
    arguments, costs at most 3x ``json.dumps`` of the same transcript;
  * it grows linearly: at ten times the transcript, shape's growth is at most
    1.25x json.dumps's growth in the same run. The raw growth is printed too:
    at 230 MB it holds the machine's own cost of fresh memory (json.dumps, linear
    by construction, grows 11x to 17x here, shape 10.7x to 13x; at 2,500 and
    25,000 messages shape grows 10.1x), which a quadratic step in shaping would
    dwarf.

Shaping is the reference's whole ``shape`` operation on JSON-shaped input:
validating the transcript, flattening it (eliding every argument string),
and building the request. Each figure is the CPU time of the best of several
interleaved repeats, so a busy machine slows both sides rather than deciding
the ratio.

    python benchmarks/bench_shaping.py            # prints the table, exits 1 if a goal is missed
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from typing import Any

from _common import Goals, timed

from advisor_reference.adapter import adapter

KB = 1024


def build_transcript(messages: int) -> list[dict[str, Any]]:
    """A coding session: user turns, tool calls with large arguments, tool results; every string distinct."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent." * 20}]
    i = 0
    while len(out) < messages:
        body = f"// file {i}\n" + ("fn step() { let x = compute(); log(x); }\n" * 250)  # ~10 KB
        out.append({"role": "user", "content": f"turn {i}: please continue with the refactor " * 4})
        out.append(
            {
                "role": "assistant",
                "content": f"Writing module {i}.",
                "reasoning_content": f"I should write module {i} " * 10,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "name": "mutate",
                        "arguments": {
                            "operations": [
                                {"type": "write", "path": f"src/mod_{i}.rs", "content": body},
                                {
                                    "type": "edit",
                                    "path": "src/lib.rs",
                                    "old": f"mod m{i};",
                                    "new": f"mod mod_{i};",
                                    "context": {"lines": [i, i + 1, i + 2], "note": body[: 2 * KB]},
                                },
                            ],
                            "dry_run": False,
                        },
                    }
                ],
            }
        )
        out.append(
            {
                "role": "tool",
                "name": "mutate",
                "tool_call_id": f"call_{i}",
                "content": f"wrote src/mod_{i}.rs ({len(body)} bytes)\n" + "ok\n" * 60,
            }
        )
        i += 1
    return out[:messages]


def cpu_time(run: Callable[[], Any]) -> float:
    """CPU time of one run, with the cyclic GC paused (as timeit does); CPU time, so that other work on a shared
    machine slows neither side."""
    return timed(run, gc_paused=True)


def measure(sizes: list[int], repeats: int) -> list[dict[str, float]]:
    """Best-of-``repeats`` times of json.dumps and shape for each size, the sizes interleaved in every round."""
    cases = []
    for messages in sizes:
        transcript = build_transcript(messages)
        params = {"transcript": transcript, "question": "Is the refactor on track?"}
        answer = adapter.shape(params)
        assert "messages" in answer, answer
        cases.append(
            {
                "messages": messages,
                "megabytes": len(json.dumps(transcript)) / 1e6,
                "transcript": transcript,
                "params": params,
                "json_dumps_s": float("inf"),
                "shape_s": float("inf"),
            }
        )
    for _ in range(repeats):
        for case in cases:
            case["json_dumps_s"] = min(
                case["json_dumps_s"], cpu_time(functools.partial(json.dumps, case["transcript"]))
            )
            case["shape_s"] = min(case["shape_s"], cpu_time(functools.partial(adapter.shape, case["params"])))
    return [{key: value for key, value in case.items() if key not in ("transcript", "params")} for case in cases]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    small, large = measure([args.messages, args.messages * 10], args.repeats)
    ratio = small["shape_s"] / small["json_dumps_s"]
    growth, dumps_growth = large["shape_s"] / small["shape_s"], large["json_dumps_s"] / small["json_dumps_s"]

    print(f"{'transcript':>24}  {'json.dumps':>11}  {'shape':>9}  {'shape/dumps':>11}")
    for row in (small, large):
        print(
            f"{row['messages']:>8} msgs {row['megabytes']:>8.1f} MB  {row['json_dumps_s']:>10.3f}s  "
            f"{row['shape_s']:>8.3f}s  {row['shape_s'] / row['json_dumps_s']:>10.2f}x"
        )
    goals = Goals()
    goals.check(ratio <= 3, f"shape / json.dumps at {args.messages} messages: {ratio:.2f}x (goal: at most 3x)")
    goals.check(
        growth / dumps_growth <= 1.25,
        f"at 10x the transcript: shape takes {growth:.2f}x the time, json.dumps {dumps_growth:.2f}x; shape's growth "
        f"against json.dumps's: {growth / dumps_growth:.2f}x (goal: at most 1.25x)",
    )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
