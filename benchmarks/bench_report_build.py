"""Benchmark: building the HTML report (``advisor-conformance report``) is linear in rules, areas and runs.

Each case builds the page at a size (1x) and at eight times it (8x) in the same run, and so does a baseline that
does simple, linear work on the same input: ``json.dumps`` of the runs' reports, which visits every rule and test
as the build does. The reports are made up, as ``--rule-report`` writes them: a third of the rules failing with a
message, the others passing, each rule with one test; rules the installed catalogue lacks are shown by the areas
their reports give.

* rules in one area: 1,000 / 8,000 rules in one area, two runs compared;
* rules each in an area of its own: 1,000 / 8,000 rules and areas, two runs compared (the build grouped the rules by
  scanning every rule for each area: 20,000 rules in their own areas took 48 s against 5 s in one area);
* runs: 4 / 32 runs of 500 rules in 50 areas, compared with the first.

Goals: 8x the input costs at most LINEAR_GOAL (12) times 1x, or at most RELATIVE_GOAL (1.5) times the baseline's
growth (a quadratic build grows 64x); and at 8x, rules each in an area of its own cost at most AREAS_GOAL times
rules in one area (the same rules; the areas only group them). Times are CPU times, the best of two runs with the
cyclic garbage collector paused (as bench_linear's).

    python benchmarks/bench_report_build.py      # prints the figures, exits 1 if a goal is missed
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable

from _common import Goals, best, goal_verdict, linear

from advisor_conformance._tools.report import Run, build_page, parse_run

AREAS_GOAL = 2.0
REPEATS = 2
CPU = time.process_time  # the build is all in this thread: other work on a shared machine slows neither side


def report(rules: int, areas: int, seed: int = 0) -> dict:
    """A format-1 rule report of ``rules`` rules spread over ``areas`` areas, every third one failing."""
    rows, tests = [], []
    for i in range(rules):
        area = f"area{i % areas}"
        rule_id = f"{area}.rule-{i}"
        failed = (i + seed) % 3 == 0
        outcome = "failed" if failed else "passed"
        rows.append(
            {
                "id": rule_id,
                "area": area,
                "level": "must",
                "tag": "SPEC",
                "outcome": outcome,
                "tests": 1,
                "passed": int(not failed),
                "failed": int(failed),
            }
        )
        test = {"nodeid": f"tests/{area}/test_x.py::test_{i}", "rules": [rule_id], "outcome": outcome}
        if failed:
            test["message"] = f"[{rule_id}] the text departs at character {i}: 'expected' != 'found'"
        tests.append(test)
    return {
        "format": 1,
        "implementation": {"name": f"impl-{seed}", "version": "1.0"},
        "run": {"target": "cmd:x", "arguments": [], "started": "2026-01-01T00:00:00+00:00", "duration_s": 1.0},
        "rules": rows,
        "tests": tests,
    }


@functools.cache  # made once for the build, its baseline and the last comparison
def runs_of(rules: int, areas: int, count: int) -> list[Run]:
    return [parse_run(report(rules, areas, seed), f"run{seed}.json") for seed in range(count)]


def built(runs: list[Run]) -> Callable[[], object]:
    return lambda: build_page(runs, compare=True)


def dumped(runs: list[Run]) -> Callable[[], object]:
    return lambda: [json.dumps(run.data) for run in runs]


def one_area(size: int) -> list[Run]:
    return runs_of(size, 1, 2)


def own_areas(size: int) -> list[Run]:
    return runs_of(size, size, 2)


def many_runs(size: int) -> list[Run]:
    return runs_of(500, 50, size)


def main() -> int:
    goals = Goals()
    for name, make, size in (
        ("rules in one area, 1,000 / 8,000 rules, 2 runs", one_area, 1_000),
        ("rules each in an area of its own, 1,000 / 8,000 rules and areas, 2 runs", own_areas, 1_000),
        ("runs, 4 / 32 runs of 500 rules in 50 areas", many_runs, 4),
    ):
        goals.check(
            *linear(name, lambda n, make=make: built(make(n)), lambda n, make=make: dumped(make(n)), size, REPEATS, CPU)
        )
    one, own = best(built(one_area(8_000)), REPEATS, CPU), best(built(own_areas(8_000)), REPEATS, CPU)
    met = own / one <= AREAS_GOAL
    goals.check(
        met,
        f"8,000 rules each in an area of its own: {own * 1000:.0f} ms; the same rules in one area: {one * 1000:.0f} ms, "
        f"ratio {own / one:.2f}x ({goal_verdict(met)}: at most {AREAS_GOAL:g}x)",
    )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
