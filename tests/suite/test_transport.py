"""The suite's side of the harness protocol against hostile harnesses, and the Python harness side against hostile
requests and answers: every fault fails one operation with the harness's own data, nothing hangs or grows without
bound, no process is left, and the next operation gets a fresh harness."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import ContractError
from advisor_conformance._contract import transport as _transport
from advisor_conformance._contract.harness import serve
from advisor_conformance._contract.protocol import message_errors
from advisor_conformance._contract.transport import SubprocessTransport
from advisor_reference.adapter import ReferenceAdapter

from ..support.runner import ROOT

FAULTY = [sys.executable, "tests/fakes/faulty_harness.py"]
SHAPE = {"transcript": []}
#: How a failure would report the suite's own kill as the harness's end (it must not).
KILLED = re.compile(r"code -9\b|signal 9\b")
BIG = {"transcript": [{"role": "user", "content": "x" * (1 << 20)}]}  # far over a pipe's buffer


def faulty(
    fault: str, after: int, flag: Path, *extra: object, timeout: float = 20.0, wrap: str = "", **options: Any
) -> SubprocessTransport:
    """The faulty harness with ``fault`` on the ``after``-th operation, optionally behind ``sh -c``; the timeout leaves
    a harness room to start on a busy machine (a test that needs a short one sets it with :func:`within`)."""
    command = shlex.join([*FAULTY, fault, str(after), str(flag), *map(str, extra)])
    if wrap:
        command = shlex.join(["sh", "-c", f"{command}; exit 7"])  # sh stays the parent: no exec of the last command
    return SubprocessTransport(command, timeout=timeout, cwd=str(ROOT), **options)


@contextlib.contextmanager
def within(transport: SubprocessTransport, seconds: float) -> Iterator[None]:
    """The transport's timeout is ``seconds`` for what runs inside (not for the harness's start or restart)."""
    before, transport.timeout = transport.timeout, seconds
    try:
        yield
    finally:
        transport.timeout = before


def running(pid: int) -> bool:
    """Whether the process ``pid`` still runs (a zombie no longer runs)."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def struck_pid(flag: Path) -> int:
    return json.loads(flag.read_text())["pid"]


def failure_of(call: Callable[[], Any], within: float = 10.0) -> ContractError:
    """The ContractError ``call`` raises, which must come within ``within`` seconds (never a hang)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    assert outcome, f"the operation did not end within {within} s"
    assert isinstance(outcome[0], ContractError), outcome[0]
    return outcome[0]


def close(transport: SubprocessTransport, flag: Path) -> None:
    if flag.exists() and running(struck_pid(flag)):
        os.kill(struck_pid(flag), signal.SIGKILL)
    transport.close()


def test_a_harness_that_stops_reading_fails_the_operation_within_the_timeout(tmp_path):
    """A harness that stops reading stdin fails the operation whose request it leaves unread, within the timeout;
    it is ended and the next operation gets a fresh harness."""
    flag = tmp_path / "struck"
    transport = faulty("stop-reading", 1, flag)
    try:
        transport.start()
        assert "messages" in transport.call("shape", SHAPE)  # answered, then it stops reading
        started = time.monotonic()
        with within(transport, 1.5):
            failure_of(lambda: transport.call("shape", BIG))
        assert time.monotonic() - started < 5
        assert gone(struck_pid(flag))
        assert "messages" in transport.call("shape", SHAPE)
        assert transport.restarts == 1
    finally:
        close(transport, flag)


@pytest.mark.parametrize("fault, wrap", [("grandchild", ""), ("hang", "sh -c")], ids=["grandchild", "behind-sh"])
def test_a_timeout_ends_every_process_of_the_harness(tmp_path, fault, wrap):
    """After a timeout no process of the harness is left: neither a grandchild it started nor the harness behind
    `sh -c`; the next operation gets a fresh harness."""
    flag = tmp_path / "struck"
    transport = faulty(fault, 1, flag, wrap=wrap)
    try:
        transport.start()
        with within(transport, 1.0):
            failure_of(lambda: transport.call("shape", SHAPE))
        assert gone(struck_pid(flag)), "a process of the timed-out harness is still running"
        assert "messages" in transport.call("shape", SHAPE)
    finally:
        close(transport, flag)


def test_the_stderr_tail_is_bounded_in_bytes(tmp_path):
    """A harness that floods stderr before it crashes is reported in a bounded message that still shows its exit code,
    its last words and the start of its longest line."""
    flag = tmp_path / "struck"
    transport = faulty("huge-stderr", 1, flag, 8 << 20)
    try:
        transport.start()
        message = str(failure_of(lambda: transport.call("shape", SHAPE)))
        assert len(message) < 16_000, len(message)
        assert "last words" in message and "a long line" in message and "3" in message, message
        assert max(map(len, message.split("\n"))) < 1_200
        assert "messages" in transport.call("shape", SHAPE)
    finally:
        close(transport, flag)


@pytest.mark.parametrize("size, restarts", [(4 << 20, 1), (256 << 10, 0)], ids=["over-the-bound", "under-the-bound"])
def test_a_huge_answer_line_gives_a_bounded_failure(tmp_path, size, restarts):
    """An answer line of megabytes fails its operation with a bounded message showing the line's first bytes (a line
    over the bound also stops the harness), and the next operation is answered."""
    flag = tmp_path / "struck"
    transport = faulty("huge-answer-line", 1, flag, size, max_line=1 << 20)
    try:
        transport.start()
        message = str(failure_of(lambda: transport.call("shape", SHAPE)))
        assert "HUGE-ANSWER" in message and len(message) < 5_000, message[:5_000]
        assert "messages" in transport.call("shape", SHAPE)
        assert transport.restarts == restarts
    finally:
        close(transport, flag)


@pytest.mark.parametrize(
    "size, fails", [(1_200_000, True), (400_000, False)], ids=["over-the-bound", "under-the-bound"]
)
def test_an_answer_line_of_too_many_json_values_is_refused_undecoded(tmp_path, size, fails):
    """An answer line of 1.2 million empty objects (3.6 MB, under the line bound, but 85 MB once decoded; counted as
    2.4 million by their braces and commas) fails its operation before it is decoded, with a bounded message naming
    the bound; 400,000 are an answer (its schema then judges it)."""
    flag = tmp_path / "struck"
    transport = faulty("many-values", 1, flag, size)
    try:
        transport.start()
        if fails:
            message = str(failure_of(lambda: transport.call("shape", SHAPE)))
            assert str(_transport.MAX_ANSWER_VALUES) in message and len(message) < 5_000, message[:5_000]
        else:
            assert len(transport.call("shape", SHAPE)["messages"]) == size
        assert "messages" in transport.call("shape", SHAPE)
    finally:
        close(transport, flag)


@pytest.mark.parametrize(
    "fault, pause, failing",
    [("duplicate-answer", 0, 2), ("late-duplicate", 1.0, 3)],
    ids=["in-one-write", "after-a-pause"],
)
def test_a_duplicate_answer_fails_one_operation_and_the_next_gets_its_own(tmp_path, fault, pause, failing):
    """A second answer to a request fails the operation during which it arrives (the one answered twice when both come
    at once), showing the duplicated seq; every other operation gets its own answer."""
    flag = tmp_path / "struck"
    transport = faulty(fault, 2, flag)
    outcomes = []
    try:
        transport.start()
        for number in range(1, 5):
            try:
                outcomes.append("messages" in transport.call("shape", {"transcript": [], "question": str(number)}))
            except ContractError as exc:
                outcomes.append(str(exc))
            if number == 2:
                time.sleep(pause)  # the late duplicate arrives before the next request is sent
    finally:
        close(transport, flag)
    assert [isinstance(o, str) for o in outcomes] == [n == failing for n in range(1, 5)], outcomes
    assert str(json.loads(flag.read_text())["seq"]) in outcomes[failing - 1]
    assert [o for o in outcomes if not isinstance(o, str)] == [True] * 3


@pytest.mark.parametrize(
    "fault, shown", [("close-stdout", "stdout"), ("crash", "code 3")], ids=["closed-stdout", "exit-code"]
)
def test_a_failure_tells_an_exit_from_a_closed_stdout(tmp_path, fault, shown):
    """A harness that exits is reported with its own exit code, one that closes its stdout and lives on is not
    reported with the code of the suite's kill, and no process of it is left."""
    flag = tmp_path / "struck"
    transport = faulty(fault, 1, flag)
    try:
        transport.start()
        message = str(failure_of(lambda: transport.call("shape", SHAPE)))
        assert shown in message and not KILLED.search(message), message
        assert gone(struck_pid(flag))
        assert "messages" in transport.call("shape", SHAPE)
    finally:
        close(transport, flag)


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polled"])
def test_a_harness_that_exits_is_seen_at_once_whatever_its_children_hold(tmp_path, monkeypatch, pidfd):
    """A harness that exits while a child it started holds its stdout open is reported at once (not at the timeout)
    as an exit with its own code and its stderr; the child is ended and the next operation gets a fresh harness,
    whether the exit is seen through a pidfd or by polling the process."""
    if not pidfd:
        monkeypatch.setattr(_transport, "_pidfd", lambda pid: None)
    flag = tmp_path / "struck"
    transport = faulty("exit-leaving-child", 1, flag, timeout=30.0)
    try:
        transport.start()
        started = time.monotonic()
        message = str(failure_of(lambda: transport.call("shape", SHAPE), within=30.0))
        assert time.monotonic() - started < 10, "the exit was not seen before a third of the timeout"
        assert "code 5" in message and "my child keeps my stdout" in message and not KILLED.search(message), message
        assert gone(struck_pid(flag))
        assert "messages" in transport.call("shape", SHAPE)
        assert transport.restarts == 1
    finally:
        close(transport, flag)


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    _containers,
    max_leaves=8,
)
_FAILURE = st.dictionaries(st.sampled_from(["message", "code", "detail"]), _JSON, max_size=3) | _JSON
_ANSWER = st.dictionaries(st.sampled_from(["seq", "result", "failure", "error", "Seq"]), _JSON, max_size=4).flatmap(
    lambda base: st.just(base) | _FAILURE.map(lambda failure: {**base, "failure": failure})
)


@given(_ANSWER | _JSON)
@example({"seq": 1, "result": None})
@example({"seq": None, "failure": {"message": "no", "code": 3}})
@example({"seq": 1, "failure": {"message": 3}})
@example({"seq": 1, "failure": {"message": "no"}, "result": {}})
@example({"seq": 1, "failure": "no"})
@example({"result": {}, "failure": {"message": "no"}})
@example({"seq": 1})
@example([{"seq": 1, "result": {}}])
def test_the_quick_answer_check_agrees_with_the_harness_schema(answer):
    """The transport's check of an answer envelope accepts exactly the answers the harness schema accepts."""
    assert (_transport._answer_errors(answer) == []) == (message_errors("answer", answer) == [])


# -- the Python harness side: serve ------------------------------------------------------------------------------------


def served(lines: list[str], adapter: Any = None) -> list[dict[str, Any]]:
    """The answers ``serve`` writes, through a strict UTF-8 stdout like a real one, to these request lines."""
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    assert serve(adapter or ReferenceAdapter(), io.StringIO("".join(line + "\n" for line in lines)), stdout) == 0
    return [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]


def request(seq: int, op: str, params: dict[str, Any]) -> str:
    return json.dumps({"seq": seq, "op": op, "params": params})


def test_serve_answers_requests_it_cannot_decode_and_goes_on(capsys):
    """A request nested too deep to decode, or not JSON, gets a failure answer with its seq when the seq can be read
    (a line on stderr when not), and the requests after it are answered."""
    deep = '{"seq": 2, "op": "shape", "params": {"transcript": ' + "[" * 5000 + "]" * 5000 + "}}"
    answers = served(
        [
            request(1, "start", {"protocol": 1}),
            deep,
            '{"seq": 3, "op": "shape", "params": {oops',
            "not JSON at all",
            request(4, "shape", SHAPE),
            request(5, "stop", {}),
        ]
    )
    assert [answer["seq"] for answer in answers] == [1, 2, 3, 4, 5]
    assert ["failure" in answer for answer in answers] == [False, True, True, False, False]
    assert "not JSON at all" in capsys.readouterr().err
    assert "messages" in answers[3]["result"]


class LoneSurrogate(ReferenceAdapter):
    """The reference, except that a question of "bad" gets an answer holding a lone surrogate."""

    def shape(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("question") == "bad":
            return {"messages": [{"role": "user", "content": "half a pair: \ud800"}]}
        return super().shape(params)


def test_serve_answers_a_failure_for_an_answer_it_cannot_encode():
    """An adapter answer holding a lone surrogate gets a failure answer naming the code point, and the next request
    is answered."""
    answers = served(
        [
            request(1, "start", {"protocol": 1}),
            request(2, "shape", {"transcript": [], "question": "bad"}),
            request(3, "shape", SHAPE),
            request(4, "stop", {}),
        ],
        LoneSurrogate(),
    )
    assert [answer["seq"] for answer in answers] == [1, 2, 3, 4]
    assert "d800" in answers[1]["failure"]["message"].lower()
    assert "messages" in answers[2]["result"]
