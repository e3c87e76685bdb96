"""Benchmark: work proportional to input, and bounded where it shows a summary.

Each case runs at a size (1x) and at eight times it (8x) in the same run, and so does a baseline that does simple,
linear work on the same input (``json.dumps`` of it, ``json.loads`` of its text for ``shape``, which builds objects
as shape does, bare system calls): a busy, cache-starved machine makes even a plain loop over 8x the data cost more
than 8x, and the baseline shows how much.

* linear (goal: 8x costs at most LINEAR_GOAL times 1x, or at most RELATIVE_GOAL times the baseline's growth; a
  quadratic loop grows 64x, eight times its baseline): the suite's schema check of an answer whose one bad item
  comes last (every item validated); ``uniqueItems`` over distinct objects (jsonschema's compares every pair;
  its baseline is a set of the items' JSON texts, which meets the same cache misses a set of many objects meets);
  the reference's path walk over ".." components, 10,000 and 80,000 (also against the same number of bare
  ``openat`` calls, the least a walk can do: at most WALK_GOAL times); ``shape`` of a transcript of many messages,
  of eight files of large content, and of tool-call arguments of many long strings.
* bounded (goal: 8x costs at most BOUNDED_GOAL times 1x): the summary of an answer of 500,000 and 4,000,000 bad
  items (``{"messages": [0, 0, ...]}``) as ``Implementation.call`` makes it once the transport has the answer;
  and the 4,000,000-item one in absolute terms: under SUMMARY_SECONDS and SUMMARY_MB of traced memory, shown
  beside ``json.loads`` of its answer line (what reading the answer costs anyway) in the same run.
* a path of 320,000 components given to the reference's policy: refused at once (longer than the 4096 bytes a
  path may have), under PATH_SECONDS, shown beside opening a short path in the same run.

Times are the best of a few runs, the sizes interleaved, so a busy moment slows both sides, with the cyclic garbage
collector paused during each run (as timeit does): a full collection scans the whole live heap, so the collector
alone made shape's growth over 80,000 messages 9.9x to 14.7x, against 7.9x paused (and json.dumps, which makes few
objects, 7.5x), a cost of CPython's collector that said nothing of the work measured. A quadratic loop still
grows 64x.

    python benchmarks/bench_linear.py      # prints the figures, exits 1 if a goal is missed
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import os
import shutil
import sys
import tempfile
import tracemalloc
from collections.abc import Callable

import jsonschema
from _common import Goals, best, goal_verdict, linear, pair

from advisor_conformance._bounded import bounded_validator
from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.protocol import ContractError
from advisor_reference import FileRefused, PathPolicy
from advisor_reference._workspace import _Walk
from advisor_reference.adapter import ReferenceAdapter

BOUNDED_GOAL = 2.0  # 8x the input, at most 2x the time: the work does not grow with it
WALK_GOAL = 4.0  # the walk, at most 4x the bare system calls it makes
SUMMARY_SECONDS, SUMMARY_MB = 1.0, 50.0
PATH_SECONDS = 0.5


class _Answered:
    """A transport that has already read its answer (a buggy harness's), so only the suite's check is measured."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def call(self, op: str, params: object, **kwargs: object) -> object:
        return self.answer

    def close(self) -> None:
        pass


def summarise(answer: object) -> Callable[[], object]:
    implementation = Implementation("bench", _Answered(answer), {"name": "bench"})  # type: ignore[arg-type]

    def run() -> object:
        try:
            implementation.call("shape", {"transcript": []})
        except ContractError as error:
            return str(error)
        raise AssertionError("the bad answer was accepted")

    return run


def bad_items(count: int) -> Callable[[], object]:
    return summarise({"messages": [0] * count})


def bad_last(count: int) -> Callable[[], object]:
    return summarise({"messages": [{"role": "user", "content": "x"}] * count + [0]})


def distinct_objects(count: int) -> Callable[[], object]:
    validator = bounded_validator(jsonschema.Draft202012Validator)({"uniqueItems": True})
    items = [{"n": i} for i in range(count)]
    return lambda: validator.is_valid(items) or sys.exit("distinct objects were called equal")


def texts_in_a_set(count: int) -> Callable[[], object]:
    """The baseline of uniqueItems: the plain linear way to tell whether JSON values repeat (a set of their texts)."""
    items = [{"n": i} for i in range(count)]
    return lambda: len({json.dumps(item, sort_keys=True) for item in items}) == count or sys.exit("a repeat")


def dumped(make_input: Callable[[int], object]) -> Callable[[int], Callable[[], object]]:
    """The baseline of a case: ``json.dumps`` of an input of the same size."""

    def make(size: int) -> Callable[[], object]:
        value = make_input(size)
        return lambda: json.dumps(value)

    return make


def loaded(make_input: Callable[[int], object]) -> Callable[[int], Callable[[], object]]:
    """The baseline of a ``shape`` case: ``json.loads`` of the input's JSON text, which builds an object for each
    message and a string for each text, as shape does; the fresh memory that takes grows faster than 8x on a busy
    machine (10x to 21x here at 80,000 messages), for both alike, where ``json.dumps`` makes one string."""

    def make(size: int) -> Callable[[], object]:
        text = json.dumps(make_input(size))
        return lambda: json.loads(text)

    return make


WORK = tempfile.mkdtemp(prefix="bench-linear-")
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
with open(os.path.join(WORK, "f"), "w") as handle:
    handle.write("x")
POLICY = PathPolicy(WORK)


def walk(components: int) -> Callable[[], object]:
    path = WORK + "/" + "../" * components + WORK.lstrip("/") + "/f"

    def run() -> object:
        walker = _Walk()
        try:
            return POLICY._walk(walker, path, "raw", "input.files[0]")  # the walk itself, past the length limit
        finally:
            walker.close()

    return run


def bare_openat(components: int) -> Callable[[], object]:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

    def run() -> object:
        fd = os.open("/", flags)
        try:
            for _ in range(components):
                os.close(os.open("..", flags, dir_fd=fd))
        finally:
            os.close(fd)
        return None

    return run


ADAPTER = ReferenceAdapter()


def shape_of(transcript: list, files: list | None = None) -> Callable[[], object]:
    params = {"transcript": transcript, **({"files": files} if files else {})}

    def run() -> object:
        answer = ADAPTER.shape(params)
        assert "messages" in answer, answer
        return answer

    return run


def transcript_of(count: int) -> list:
    return [{"role": ("user", "assistant")[i % 2], "content": f"message {i}"} for i in range(count)] + [
        {"role": "user", "content": "advise"}
    ]


def files_of(kib: int) -> list:
    content = ("a line of a source file\n" * (kib * 1024 // 24 + 1))[: kib * 1024]
    return [{"path": f"src/f{i}.txt", "content": content} for i in range(8)]


def arguments_of(count: int) -> list:
    call = {"id": "c1", "name": "edit", "arguments": {"edits": [{"text": "y" * 1500, "n": i} for i in range(count)]}}
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "name": "edit", "tool_call_id": "c1", "content": "done"},
        {"role": "user", "content": "advise"},
    ]


def messages(count: int) -> Callable[[], object]:
    return shape_of(transcript_of(count))


def files(kib: int) -> Callable[[], object]:
    return shape_of([{"role": "user", "content": "advise"}], files_of(kib))


def arguments(count: int) -> Callable[[], object]:
    return shape_of(arguments_of(count))


def report(name: str, one: float, eight: float, goal: float, what: str) -> tuple[bool, str]:
    ratio = eight / one
    met = ratio <= goal
    return met, (
        f"{name}: 1x {one * 1000:.1f} ms, 8x {eight * 1000:.1f} ms, ratio {ratio:.2f}x "
        f"({goal_verdict(met)}: {what}, at most {goal:g}x)"
    )


def main() -> int:
    goals = Goals()
    # -- the summary of a bad answer, bounded ---------------------------------------------------------------
    one, eight = pair(bad_items, 500_000)
    goals.check(*report("summary of a bad answer of 500,000 / 4,000,000 items", one, eight, BOUNDED_GOAL, "bounded"))
    answer = {"messages": [0] * 4_000_000}
    line = json.dumps(answer)
    parse = best(functools.partial(json.loads, line))
    run = summarise(answer)
    seconds = best(run)
    gc.collect()
    tracemalloc.start()
    run()
    traced = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    met = seconds < SUMMARY_SECONDS and traced < SUMMARY_MB
    goals.check(
        met,
        f"summary of a 4,000,000-item bad answer: {seconds * 1000:.1f} ms, {traced:.2f} MB traced; json.loads of "
        f"its {len(line) / 1e6:.0f} MB line in the same run: {parse * 1000:.1f} ms "
        f"({goal_verdict(met)}: under {SUMMARY_SECONDS:g} s and {SUMMARY_MB:g} MB)",
    )
    del answer, line, run
    # -- linear work ------------------------------------------------------------------------------------------
    goals.check(
        *linear(
            "schema check of an answer whose bad item is last, 1,000 / 8,000 messages",
            bad_last,
            dumped(lambda n: {"messages": [{"role": "user", "content": "x"}] * n + [0]}),
            1_000,
        )
    )
    # sizes past the caches at 1x already: 2,000 small objects fit in them, 16,000 do not
    goals.check(*linear("uniqueItems of 16,000 / 128,000 distinct objects", distinct_objects, texts_in_a_set, 16_000))
    goals.check(*linear("path walk of 10,000 / 80,000 components", walk, bare_openat, 10_000))
    eight, bare = best(walk(80_000)), best(bare_openat(80_000))
    met = eight / bare <= WALK_GOAL
    goals.check(
        met,
        f"path walk of 80,000 components: {eight * 1000:.0f} ms; the same number of bare openat calls in the same "
        f"run: {bare * 1000:.0f} ms, ratio {eight / bare:.2f}x ({goal_verdict(met)}: at most {WALK_GOAL:g}x)",
    )
    goals.check(*linear("shape of 10,000 / 80,000 messages", messages, loaded(transcript_of), 10_000))
    goals.check(*linear("shape of 8 files of 128 KiB / 1 MiB content", files, loaded(files_of), 128))
    goals.check(
        *linear("shape of tool-call arguments of 500 / 4,000 long strings", arguments, loaded(arguments_of), 500)
    )
    # -- a path of 320,000 components through the policy --------------------------------------------------------
    raw = "../" * 320_000 + "f"

    def refuse() -> object:
        try:
            POLICY.open(raw, "input.files[0]")
        except FileRefused as error:
            return error
        raise AssertionError("a 960 KB path was opened")

    def open_short() -> object:
        os.close(POLICY.open("f", "input.files[0]"))
        return None

    refused, short = best(refuse), best(open_short)
    met = refused < PATH_SECONDS
    goals.check(
        met,
        f"a path of 320,000 components given to the policy: refused in {refused * 1e6:.0f} us; opening a short path "
        f"in the same run: {short * 1e6:.0f} us ({goal_verdict(met)}: under {PATH_SECONDS:g} s)",
    )
    return goals.verdict()


if __name__ == "__main__":
    sys.exit(main())
