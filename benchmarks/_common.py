"""What the benchmarks share: timing a run the same way on both sides of a ratio, and saying whether goals were met.

Every benchmark runs as a script (``python3 benchmarks/bench_x.py``, which is how benchmarks/run_all.py and CI run
them), so its own folder is first on the import path and this module is imported as ``_common``. Importing it puts
the repository's root next on the path, so that a benchmark can share the tests' support modules (``tests.support``:
the request the reference's HTTP tests send, the browser the report's browser test drives). Each benchmark
chooses its clock: CPU time (the default) where the work is all in its own thread, so other work on a shared
machine slows neither side of a ratio; wall time where a subprocess, a socket or a browser takes part.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))


def timed_run(
    run: Callable[[], T],
    *,
    clock: Callable[[], float] = time.process_time,
    collect: bool = True,
    gc_paused: bool = False,
) -> tuple[float, T]:
    """The time of one call of ``run`` by ``clock``, and what it returned: after a full garbage collection unless
    ``collect`` is false, with the cyclic collector off during the call when ``gc_paused`` is true (as timeit does)."""
    if collect:
        gc.collect()
    paused = gc_paused and gc.isenabled()
    if paused:
        gc.disable()
    try:
        start = clock()
        result = run()
        return clock() - start, result
    finally:
        if paused:
            gc.enable()


def timed(
    run: Callable[[], object],
    *,
    clock: Callable[[], float] = time.process_time,
    collect: bool = True,
    gc_paused: bool = False,
) -> float:
    """The time of one call of ``run``, timed as :func:`timed_run` says."""
    return timed_run(run, clock=clock, collect=collect, gc_paused=gc_paused)[0]


def best_of(
    repeats: int,
    run: Callable[[], T],
    *,
    clock: Callable[[], float] = time.process_time,
    collect: bool = True,
    gc_paused: bool = False,
) -> tuple[float, T]:
    """The least time of ``repeats`` calls of ``run`` (each timed as :func:`timed_run` says), and what the last one
    returned."""
    best = float("inf")
    for _ in range(repeats):
        seconds, result = timed_run(run, clock=clock, collect=collect, gc_paused=gc_paused)
        best = min(best, seconds)
    return best, result


def goal_verdict(met: bool) -> str:
    """How a line of figures says whether its goal was met."""
    return "goal met" if met else "GOAL MISSED"


class Goals:
    """A benchmark's goals: each line of figures that states a goal is printed as it comes, and the verdict, last,
    says whether every goal was met; its exit code (1 for a missed goal) is what benchmarks/run_all.py reads."""

    def __init__(self) -> None:
        self.met = True

    def check(self, met: bool, *lines: str) -> bool:
        """Print ``lines``, the figures of one goal, and count the goal met or missed; returns ``met``."""
        for line in lines:
            print(line)
        self.met = self.met and met
        return met

    def verdict(self) -> int:
        """Print whether every goal was met; the benchmark's exit code: 0 when they were, 1 when one was missed."""
        print("goals met" if self.met else "GOAL MISSED")
        return 0 if self.met else 1


# -- growth: a case at 1x and at 8x, against a baseline's growth over the same sizes ----------------------------------

LINEAR_GOAL = 12.0  # 8x the input, at most 12x the time: linear, with room for caches and noise (quadratic: 64x)
RELATIVE_GOAL = 1.5  # or: 8x the input, at most 1.5 times the baseline's growth
REPEATS = 3


def best(run: Callable[[], object], repeats: int = REPEATS, clock: Callable[[], float] = time.perf_counter) -> float:
    """The best time of ``repeats`` runs by ``clock`` (wall time unless told), after one garbage collection, with the
    cyclic collector paused during them (as timeit does)."""
    gc.collect()
    return best_of(repeats, run, clock=clock, collect=False, gc_paused=True)[0]


def pair(
    make: Callable[[int], Callable[[], object]],
    size: int,
    repeats: int = REPEATS,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """The best times of ``make(size)`` and ``make(8 * size)``, interleaved."""
    small, large = make(size), make(8 * size)
    small(), large()  # warm up
    one = eight = float("inf")
    for _ in range(repeats):
        one = min(one, best(small, 1, clock))
        eight = min(eight, best(large, 1, clock))
    return one, eight


def linear(
    name: str,
    make: Callable[[int], Callable[[], object]],
    baseline: Callable[[int], Callable[[], object]],
    size: int,
    repeats: int = REPEATS,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[bool, str]:
    """Whether ``make`` grows linearly from ``size`` to 8x: at most LINEAR_GOAL, or RELATIVE_GOAL times the growth
    of ``baseline`` over the same sizes in the same run (each timed by ``clock``)."""
    one, eight = pair(make, size, repeats, clock)
    base_one, base_eight = pair(baseline, size, repeats, clock)
    growth, base_growth = eight / one, base_eight / base_one
    met = growth <= LINEAR_GOAL or growth <= RELATIVE_GOAL * base_growth
    return met, (
        f"{name}: 1x {one * 1000:.1f} ms, 8x {eight * 1000:.1f} ms, ratio {growth:.2f}x; baseline "
        f"{base_one * 1000:.1f} / {base_eight * 1000:.1f} ms, ratio {base_growth:.2f}x ({goal_verdict(met)}: at most "
        f"{LINEAR_GOAL:g}x, or {RELATIVE_GOAL:g} times the baseline's ratio)"
    )
