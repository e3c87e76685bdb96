"""The two transports of the one protocol: in process to a Python adapter, JSON lines to a harness process.

:class:`InProcessTransport` calls a Python adapter object's methods, passing
params and answers through a JSON round trip both ways, so an adapter sees and
returns exactly what a harness would.

:class:`SubprocessTransport` is the suite's side of the harness protocol
(``docs/harness.md``): one request per line on the harness's stdin, one answer
per line on its stdout::

    → {"seq": 1, "op": "start", "params": {"protocol": 1}}
    ← {"seq": 1, "result": {"name": ..., "version": ..., "language": ..., "protocol": 1,
                            "areas": [...], "strings": {...}, "options": {...}}}
    → {"seq": 2, "op": "shape", "params": {...}}
    ← {"seq": 2, "result": {"messages": [...]}}
    → {"seq": 3, "op": "stop", "params": {}}
    ← {"seq": 3, "result": {}}

``seq`` is opaque: the answer echoes it unchanged. An answer is either
``{"seq", "result"}`` (the operation's answer, which may be the spec error
``{"error": {...}}``) or ``{"seq", "failure": {"message"}}`` when the harness
could not answer at all. It starts the harness once, restarts a harness that
died and replays ``start``, and attaches the harness's stderr to every failure.

Against a hostile harness nothing hangs and nothing grows without bound, and no
thread or process is started per request: one thread polls the harness's
non-blocking pipes (``selectors``) and its exit (a pidfd where the system has
one), writing the request and reading the answer under one deadline. The
harness's exit is seen when it happens, even while a child it started holds
its stdout open. The harness runs in its own process group, which is ended
whole (``sh -c`` and ``npm run`` leave no children); an answer line is read in
chunks up to :data:`MAX_LINE` bytes, holding at most :data:`MAX_ANSWER_VALUES` JSON values
(or :data:`VALUES_PER_REQUEST_VALUE` times the request's, counted before it is decoded), and the stderr tail is
bounded in lines, bytes and line length. A line the harness writes besides the one answer fails
the operation during which it is seen, and every run of the process has its
own pipes and buffers, so nothing an old run wrote (a late answer after a
timeout) reaches the next operation. POSIX only: the pipes are polled.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .._bounded import cap_lines, excerpt, json_values
from .protocol import PROTOCOL_VERSION, Adapter, ContractError, message_errors

DEFAULT_TIMEOUT = 60.0
#: The stderr tail attached to failures: at most this many lines, this many bytes, each line cut at this length.
STDERR_LINES = 40
STDERR_BYTES = 8 * 1024
STDERR_LINE_CHARS = 1000
#: The longest answer line read from a harness; past it the harness is stopped.
MAX_LINE = 32 * 1024 * 1024
#: The most JSON values an answer line holds (counted before it is decoded): a decoded value costs some 70 bytes, so
#: a 32 MiB line of ``{},{},...`` would decode to 850 MB; a million values is about 70 MB. An answer is of the size of
#: its request (a scenario answer repeats each call's snapshot once in its request), so a larger request allows
#: VALUES_PER_REQUEST_VALUE times its own values.
MAX_ANSWER_VALUES = 1_000_000
VALUES_PER_REQUEST_VALUE = 8
#: Lines shorter than this cannot hold values enough to matter, and are not counted.
_COUNT_FROM = 64 * 1024
#: How much of an offending line a failure shows.
SHOWN_BYTES = 300
#: How long a harness that closed its stdout (or stdin) has to exit by itself before the suite stops it.
EXIT_GRACE = 1.0
#: Where the system has no pidfd (a descriptor that becomes readable when a process exits), how often a wait
#: looks whether the harness has exited.
EXIT_POLL = 0.05
_CHUNK = 1 << 16
#: The most one look at a pipe takes in without waiting (a child of the harness may write on and on).
_DRAIN_CHUNKS = 64


class Transport(Protocol):
    """Carries one operation to an implementation and its answer back."""

    def call(self, op: str, params: Mapping[str, Any]) -> Any: ...

    def close(self) -> None: ...


def _json_round_trip(value: Any, what: str) -> Any:
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ContractError(f"{what} is not JSON: {exc}") from None


class InProcessTransport:
    """Calls a Python adapter object's methods, with a JSON round trip on both sides."""

    def __init__(self, adapter: Adapter, label: str) -> None:
        """``adapter`` may leave operations out (only ``describe`` is required): a call of one is answered
        ``unsupported_op``."""
        self.adapter = adapter
        self.label = label

    def call(self, op: str, params: Mapping[str, Any], *, check_mutation: bool = False) -> Any:
        method = getattr(self.adapter, op, None)
        if method is None:
            return {"error": {"code": "unsupported_op", "message": f"{self.label} has no {op!r} operation"}}
        text = json.dumps(params, allow_nan=False)
        sent = json.loads(text)
        try:
            answer = method(sent)
        except Exception as exc:  # the adapter crashed: report it, do not hide it
            detail = cap_lines("".join(traceback.format_exception(exc)).rstrip(), lines=40)
            raise ContractError(f"{self.label}.{op} raised instead of answering:\n{detail}") from None
        if check_mutation and json.dumps(sent, allow_nan=False) != text:
            raise ContractError(f"{self.label}.{op} mutated its params")
        return _json_round_trip(answer, f"the answer of {self.label}.{op}")

    def close(self) -> None:
        pass


class _StderrTail:
    """The last lines of a harness's stderr, bounded in lines, in bytes and in the length of each line.

    A line is cut at ``width`` characters as it arrives (so a gigabyte line without a newline costs ``width``
    characters), with a note of its full size.
    """

    def __init__(self, lines: int = STDERR_LINES, size: int = STDERR_BYTES, width: int = STDERR_LINE_CHARS) -> None:
        self._limit, self._size_limit, self._width = lines, size, width
        self._lines: deque[str] = deque()
        self._size = 0
        self._partial = bytearray()
        self._partial_size = 0

    def feed(self, data: bytes) -> None:
        start = 0
        while True:
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            room = self._width * 4 - len(self._partial)  # up to 4 UTF-8 bytes a character
            if room > 0:
                self._partial += piece[:room]
            self._partial_size += len(piece)
            if end < 0:
                return
            self._finish()
            start = end + 1

    def end(self) -> None:
        """The end of the stream: a last line without a newline is a line too."""
        if self._partial_size:
            self._finish()

    def _render(self) -> str:
        text = self._partial.decode("utf-8", "replace").rstrip("\r")
        if self._partial_size > len(self._partial) or len(text) > self._width:
            text = f"{text[: self._width]}… ({self._partial_size} bytes in all)"
        return text

    def _finish(self) -> None:
        line = self._render()
        self._partial.clear()
        self._partial_size = 0
        self._lines.append(line)
        self._size += len(line.encode("utf-8"))
        while len(self._lines) > 1 and (len(self._lines) > self._limit or self._size > self._size_limit):
            self._size -= len(self._lines.popleft().encode("utf-8"))

    def lines(self) -> list[str]:
        return [*self._lines, self._render()] if self._partial_size else list(self._lines)


class _Run:
    """One run of a harness process: the process (alone in its process group), our non-blocking ends of its pipes,
    what its stdout gave (complete lines, the head of a line over the bound, the end), its stderr tail, and whether
    it has exited.

    Everything happens on the caller's thread: :meth:`write` and :meth:`next_event` wait on one selector for the
    harness's stdout, its stderr, its exit (a pidfd) and, while a request is unwritten, its stdin. Each run has its
    own pipes and buffers, so whatever an old run writes after it was given up (a late answer to a request that timed
    out) never reaches the next run's operations.
    """

    def __init__(self, argv: list[str], cwd: str | None, max_line: int) -> None:
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=cwd,
            start_new_session=True,
        )
        streams = (self.popen.stdin, self.popen.stdout, self.popen.stderr)
        self._stdin, self._stdout, self._stderr = (stream.fileno() for stream in streams)  # type: ignore[union-attr]
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self.max_line = max_line
        self.lines: deque[bytes] = deque()  # complete lines not yet taken
        self.partial = bytearray()  # the line being read
        self.overflow: bytes | None = None  # the head of a line over the bound (stdout is no longer read)
        self.stdout_ended = False
        self.exited = False
        self.tail = _StderrTail()
        self.group_ended = False
        self.closed = False
        self.pidfd = _pidfd(self.popen.pid)
        self.selector = selectors.DefaultSelector()
        self._watched: set[int] = set()
        self._watch(self._stdout, selectors.EVENT_READ, self._read_stdout)
        self._watch(self._stderr, selectors.EVENT_READ, self._read_stderr)
        if self.pidfd is not None:
            self._watch(self.pidfd, selectors.EVENT_READ, self._seen_exit)

    # -- the selector --------------------------------------------------------------------------

    def _watch(self, fd: int, events: int, take: Callable[[], bool]) -> None:
        self.selector.register(fd, events, take)
        self._watched.add(fd)

    def _forget(self, fd: int) -> None:
        if fd in self._watched:
            self._watched.discard(fd)
            self.selector.unregister(fd)

    def _wait(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the harness to write, read or exit, and take in what it did."""
        if self.pidfd is None:
            timeout = min(timeout, EXIT_POLL)
        for key, _ in self.selector.select(max(timeout, 0.0)):
            key.data()
        if self.pidfd is None and not self.exited and self.popen.poll() is not None:
            self.exited = True

    def _drain(self, read: Callable[[], bool], *, to_a_line: bool = False) -> bool:
        """Take in what a pipe holds now, without waiting (a bounded amount; with ``to_a_line``, no more once a line
        of stdout is complete); whether anything came."""
        came = False
        for _ in range(_DRAIN_CHUNKS):
            if (to_a_line and (self.lines or self.overflow is not None)) or not read():
                break
            came = True
        return came

    # -- what the harness does -----------------------------------------------------------------

    def _read(self, fd: int) -> bytes | None:
        """One chunk of a watched pipe: None when nothing is there now, b"" at its end."""
        if fd not in self._watched:
            return None
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            return None
        except OSError:  # a read that fails ends the stream too
            return b""

    def _read_stdout(self) -> bool:
        chunk = self._read(self._stdout)
        if not chunk:
            if chunk is not None:
                self.stdout_ended = True
                self._forget(self._stdout)
            return False
        start = 0
        while True:  # complete lines go to self.lines; a line over the bound stops the reading
            end = chunk.find(b"\n", start)
            self.partial += chunk[start:] if end < 0 else chunk[start:end]
            if len(self.partial) > self.max_line:  # the exchange stops the harness
                self.overflow = bytes(self.partial[:SHOWN_BYTES])
                self.partial = bytearray()
                self._forget(self._stdout)
                return True
            if end < 0:
                return True
            self.lines.append(bytes(self.partial))
            self.partial.clear()
            start = end + 1

    def _read_stderr(self) -> bool:
        chunk = self._read(self._stderr)
        if not chunk:
            if chunk is not None:
                self.tail.end()
                self._forget(self._stderr)
            return False
        self.tail.feed(chunk)
        return True

    def _seen_exit(self) -> bool:
        self.exited = True
        self._forget(self.pidfd)  # type: ignore[arg-type]
        return False

    # -- one exchange ----------------------------------------------------------------------------

    def pending(self, *, look: bool = True) -> tuple[str, Any] | None:
        """What the harness wrote on stdout and nobody asked for: a line or a line over the bound (it stays where it
        is), else None. ``look``: first take in what the pipe holds now, without waiting."""
        if look:
            self._drain(self._read_stdout, to_a_line=True)
        if self.lines:
            return "line", self.lines[0]
        if self.overflow is not None:
            return "overflow", self.overflow
        return None

    def write(self, data: bytes, deadline: float) -> str:
        """Write one request by the deadline: ``written``; ``closed`` (its stdin is closed); ``ended`` (the harness
        exited, ended its stdout or wrote a line over the bound first: :meth:`next_event` tells which); ``timeout``."""
        view = memoryview(data)
        waiting = False
        try:
            while True:
                try:
                    view = view[os.write(self._stdin, view) :]
                except BlockingIOError:
                    pass
                except OSError:  # a broken pipe: nobody reads its stdin any more
                    return "closed"
                if not view:
                    return "written"
                if self.exited or self.stdout_ended or self.overflow is not None:
                    return "ended"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return "timeout"
                if not waiting:
                    self._watch(self._stdin, selectors.EVENT_WRITE, lambda: False)
                    waiting = True
                self._wait(remaining)
        finally:
            if waiting:
                self._forget(self._stdin)

    def next_event(self, deadline: float) -> tuple[str, Any] | None:
        """What the harness's stdout gives next, waiting until the deadline: ``line``, ``overflow`` (the head of a line
        over the bound), ``eof``, or ``exit`` (the harness exited and its stdout is still open: something it started
        holds the pipe); None at the deadline."""
        while True:
            if self.lines:
                return "line", self.lines.popleft()
            if self.overflow is not None:
                return "overflow", self.overflow
            if self.stdout_ended:
                return "eof", None
            if self.exited:
                if self._drain(self._read_stdout, to_a_line=True):  # what it wrote before it exited comes first
                    continue
                return "exit", None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._wait(remaining)

    # -- the process ---------------------------------------------------------------------------

    def alive(self) -> bool:
        return self.popen.poll() is None

    def exit_code(self, grace: float) -> int | None:
        """The harness's exit code if it exits by itself within ``grace`` seconds, else None."""
        try:
            return self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End the harness's process group (the harness and whatever it started), take in the last of its stderr and
        close our ends of its pipes."""
        if not self.group_ended:  # once: a pid nobody waits for any more could be reused
            _end_group(self.popen)
            self.group_ended = True
        try:
            self.popen.wait(5)
        except subprocess.TimeoutExpired:
            pass
        if self.closed:
            return
        self._drain(self._read_stderr)
        self.closed = True
        self._watched.clear()
        self.selector.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def tail_lines(self) -> list[str]:
        self._drain(self._read_stderr)  # its last words, without waiting
        return self.tail.lines()


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when the process ``pid`` exits (Linux 5.3 and later), else None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _end_group(popen: subprocess.Popen[bytes]) -> None:
    """Kill the process group of ``popen`` (its own: it was started in a new session), or the process alone."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
        return
    except (ProcessLookupError, PermissionError):
        pass
    if popen.poll() is None:
        try:
            popen.kill()
        except OSError:
            pass


def _exited(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"was killed by signal {-code} ({name}), not by the suite"
    return f"exited by itself (code {code})"


class SubprocessTransport:
    """Carries operations to a harness process over JSON lines."""

    def __init__(
        self, command: str, *, timeout: float = DEFAULT_TIMEOUT, cwd: str | None = None, max_line: int = MAX_LINE
    ) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("the harness command is empty")
        self.timeout = timeout
        self.cwd = cwd
        self.max_line = max_line
        self.run: _Run | None = None
        self.description: dict[str, Any] | None = None
        self.seq = 0
        self.restarts = 0
        self._answered: tuple[Any, str] | None = None  # the seq and op of the last answered request

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        return self.run.popen if self.run is not None else None

    # -- process -----------------------------------------------------------------------------

    def _launch(self) -> None:
        try:
            self.run = _Run(self.argv, self.cwd, self.max_line)
        except OSError as exc:
            raise ContractError(f"cannot start the harness {self.command!r}: {exc}") from None
        self._answered = None

    def _alive(self) -> bool:
        return self.run is not None and self.run.alive()

    def _kill(self) -> None:
        """Stop the harness and everything it started (its process group), and close our end of its stdin."""
        if self.run is not None:
            self.run.stop()

    def _stderr_tail(self, run: _Run | None = None) -> str:
        run = run or self.run
        lines = run.tail_lines() if run is not None else []
        if not lines:
            return ""
        return "\n  harness stderr (last lines):\n    " + "\n    ".join(lines)

    def _fail(self, what: str, run: _Run | None = None) -> ContractError:
        return ContractError(f"harness {self.command!r}: {what}{self._stderr_tail(run)}")

    def _ended(self, run: _Run, what: str, stream: str) -> ContractError:
        """The harness closed ``stream`` (its stdout, or its stdin): it exited, or it is stopped now."""
        code = run.exit_code(EXIT_GRACE)
        if code is None:
            run.stop()
            return self._fail(f"closed its {stream} {what} and did not exit; the suite stopped it", run)
        run.stop()  # whatever it started goes with it
        return self._fail(f"{_exited(code)} {what}", run)

    def _fault(self, run: _Run, what: str) -> ContractError:
        """A protocol fault: the harness is stopped, and restarted for the next operation."""
        run.stop()
        return self._fail(what, run)

    # -- one exchange -------------------------------------------------------------------------

    @staticmethod
    def _encode(message: Mapping[str, Any]) -> bytes:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False)
        try:
            return text.encode("utf-8") + b"\n"
        except UnicodeEncodeError:  # a lone surrogate: the escaped form is valid JSON, as in process
            return json.dumps(message, allow_nan=False).encode("ascii") + b"\n"

    def _unsolicited(self, run: _Run, op: str, seq: Any) -> ContractError | None:
        """A line the harness wrote after its last answer, before this request: the protocol fault of this operation."""
        event = run.pending()
        if event is None:
            return None
        after = (
            f"after its answer to {self._answered[1]!r} (seq {excerpt(self._answered[0], 80)})"
            if self._answered
            else "before any request"
        )
        return self._fault(
            run,
            f"wrote on stdout {after}, unasked, so the {op!r} request of seq {seq} was not sent: {self._shown(*event)}",
        )

    def _shown(self, kind: str, value: bytes) -> str:
        return _line_excerpt(value) if kind == "line" else f"a line over {self.max_line} bytes: {_line_excerpt(value)}"

    def _exchange(self, op: str, params: Mapping[str, Any]) -> Any:
        run = self.run
        assert run is not None
        self.seq += 1
        seq = self.seq
        data = self._encode({"seq": seq, "op": op, "params": params})
        deadline = time.monotonic() + self.timeout
        problem = self._unsolicited(run, op, seq)
        if problem is not None:
            raise problem
        written = run.write(data, deadline)
        if written == "timeout":
            raise self._fault(
                run,
                f"did not read the {op!r} request ({len(data)} bytes) within {self.timeout:g} s "
                "(the harness was stopped)",
            )
        if written == "closed":
            raise self._ended(run, f"before it read the {op!r} request", "stdin")
        event = run.next_event(deadline)
        if event is None:
            raise self._fault(run, f"did not answer {op!r} within {self.timeout:g} s (the harness was stopped)")
        kind, value = event
        if kind in ("eof", "exit"):  # exit: it ended while something it started holds its stdout
            when = f"while answering {op!r}" if written == "written" else f"before it read the {op!r} request"
            raise self._ended(run, when, "stdout")
        if kind == "overflow":
            raise self._fault(
                run,
                f"answered {op!r} with a line longer than {self.max_line} bytes (the harness was "
                f"stopped); it begins: {_line_excerpt(value)}",
            )
        if len(value) >= _COUNT_FROM:
            allowed = max(MAX_ANSWER_VALUES, VALUES_PER_REQUEST_VALUE * json_values(data))
            if json_values(value) > allowed:
                raise self._fault(
                    run,
                    f"answered {op!r} with a line of {len(value)} bytes holding more than {allowed} JSON values "
                    f"(counted before it is decoded: a decoded value costs some 70 bytes; the harness was stopped); "
                    f"it begins: {_line_excerpt(value)}",
                )
        answer = self._decode(run, op, value)
        if answer["seq"] != seq:
            if self._answered is not None and answer["seq"] == self._answered[0]:
                raise self._fault(
                    run,
                    f"answered seq {excerpt(answer['seq'], 80)} again (a second answer to its "
                    f"{self._answered[1]!r} request) while the {op!r} request of seq {seq} waited",
                )
            raise self._fault(run, f"answered seq {excerpt(answer['seq'], 80)} to the {op!r} request of seq {seq}")
        self._answered = (seq, op)
        extra = run.pending(look=False)  # a second line that came with the answer
        if extra is not None:
            raise self._fault(
                run, f"wrote more than one answer to the {op!r} request of seq {seq}; the next: {self._shown(*extra)}"
            )
        if "failure" in answer:
            message = answer["failure"].get("message", "")
            raise self._fail(f"could not answer {op!r}: {cap_lines(str(message), lines=20)}", run)
        return answer["result"]

    def _decode(self, run: _Run, op: str, line: bytes) -> dict[str, Any]:
        try:
            answer = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            raise self._fault(run, f"answered {op!r} with a line that is not JSON: {_line_excerpt(line)}") from None
        problems = _answer_errors(answer)
        if problems:
            raise self._fault(
                run,
                f"answered {op!r} outside the harness protocol: "
                + "; ".join(problems[:5])
                + f"\n  answer: {_line_excerpt(line)}",
            )
        return answer

    def start(self) -> dict[str, Any]:
        """Launch the harness and exchange ``start``; the answer is its description."""
        self._launch()
        description = self._exchange("start", {"protocol": PROTOCOL_VERSION})
        problems = message_errors("start_result", description)
        if problems:
            self._kill()
            raise self._fail("answered start outside the protocol: " + "; ".join(problems[:5]))
        if self.description is not None and description != self.description:
            raise self._fail("described itself differently after a restart")
        self.description = description
        return description

    def call(self, op: str, params: Mapping[str, Any], **_: Any) -> Any:
        """One operation; a dead harness is restarted (and ``start`` replayed) first."""
        if op == "describe" and self.description is not None and self._alive():
            return self.description
        if not self._alive():
            if self.run is not None:
                self._kill()  # whatever the dead harness left running
                self.restarts += 1
            self.start()
            if op == "describe":
                return self.description
        return self._exchange(op, params)

    def close(self) -> None:
        """Send ``stop`` to a live harness and let it exit; then end its process group, whatever is left of it."""
        if self._alive():
            try:
                self._exchange("stop", {})
                self.run.popen.wait(min(self.timeout, 5.0))  # type: ignore[union-attr]
            except (ContractError, subprocess.TimeoutExpired):
                pass
        self._kill()


def _answer_errors(answer: Any) -> list[str]:
    """How ``answer`` breaks the harness schema's ``answer`` (empty when it keeps it).

    An answer of the two shapes the schema allows, ``{"seq", "result"}`` or ``{"seq", "failure": {"message": str,
    ...}}``, is valid whatever the rest holds, so it is accepted here without the schema validator (which costs more
    than the rest of an exchange); anything else is judged by the schema itself. So the two never disagree: this
    only says yes where the schema does (tests/suite/test_transport.py checks it on arbitrary answers).
    """
    if type(answer) is dict and len(answer) == 2 and "seq" in answer:
        if "result" in answer:
            return []
        failure = answer.get("failure")
        if type(failure) is dict and type(failure.get("message")) is str:
            return []
    return message_errors("answer", answer)


def _line_excerpt(line: bytes) -> str:
    """The first bytes of a line the harness wrote, and its size when it is longer."""
    head = repr(line[:SHOWN_BYTES].decode("utf-8", "replace"))
    return head if len(line) <= SHOWN_BYTES else f"{head}… ({len(line)} bytes in all)"
