"""The two transports of the one protocol: in process to a Python adapter, JSON lines to a harness process.

:class:`InProcessTransport` calls a Python adapter object's methods, passing
params and answers through a JSON round trip both ways, so an adapter sees and
returns exactly what a harness would.

:class:`SubprocessTransport` is the suite's side of the harness protocol
(``HARNESS.md``): one request per line on the harness's stdin, one answer
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

Against a hostile harness nothing hangs and nothing grows without bound: the
request is written from a writer thread and the whole exchange (writing the
request, reading the answer) has the timeout; the harness runs in its own
process group, which is ended whole (``sh -c`` and ``npm run`` leave no
children); an answer line is read in chunks up to :data:`MAX_LINE` bytes and
the stderr tail is bounded in lines, bytes and line length. A line the harness
writes besides the one answer fails the operation during which it arrives,
and every run of the process has its own queue of lines, so nothing an old run
wrote (a late answer after a timeout) reaches the next operation.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from ._bounded import cap_lines, excerpt
from ._protocol import PROTOCOL_VERSION, ContractError, message_errors

DEFAULT_TIMEOUT = 60.0
#: The stderr tail attached to failures: at most this many lines, this many bytes, each line cut at this length.
STDERR_LINES = 40
STDERR_BYTES = 8 * 1024
STDERR_LINE_CHARS = 1000
#: The longest answer line read from a harness; past it the harness is stopped.
MAX_LINE = 32 * 1024 * 1024
#: How much of an offending line a failure shows.
SHOWN_BYTES = 300


def _chunks(stream: Any) -> Iterator[bytes]:
    """A pipe's chunks as they come, to its end (a read that fails ends it too)."""
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except (OSError, ValueError):
            return
        if not chunk:
            return
        yield chunk
#: How long a harness that closed its stdout (or stdin) has to exit by itself before the suite stops it.
EXIT_GRACE = 1.0
_CHUNK = 1 << 16


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

    def __init__(self, adapter: Any, label: str) -> None:
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
        self._lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        with self._lock:
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
        with self._lock:
            if self._partial_size:
                self._finish()

    def _render(self) -> str:
        text = self._partial.decode("utf-8", "replace").rstrip("\r")
        if self._partial_size > len(self._partial) or len(text) > self._width:
            text = f"{text[:self._width]}… ({self._partial_size} bytes in all)"
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
        with self._lock:
            return [*self._lines, self._render()] if self._partial_size else list(self._lines)


class _Run:
    """One run of a harness process: the process (alone in its process group), the events its stdout gives (lines,
    a line over the bound, the end), its stderr tail, and the threads that read them.

    Each run has its own event queue, so whatever an old run writes after it was given up (a late answer to a
    request that timed out) never reaches the next run's operations.
    """

    def __init__(self, argv: list[str], cwd: str | None, max_line: int) -> None:
        group = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      bufsize=0, cwd=cwd, **group)
        self.max_line = max_line
        self.events: queue.Queue[list[tuple[str, Any]]] = queue.Queue()
        self.backlog: deque[tuple[str, Any]] = deque()
        self.tail = _StderrTail()
        self.group_ended = False
        self.stdout_reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.stdout_reader.start()
        self.stderr_reader.start()

    # -- the readers ---------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        """Put the stdout's lines on the queue, one batch a read (lines that come in one read arrive together)."""
        stream = self.popen.stdout
        assert stream is not None
        partial = bytearray()
        try:
            for chunk in _chunks(stream):
                batch: list[tuple[str, Any]] = []
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    partial += chunk[start:] if end < 0 else chunk[start:end]
                    if len(partial) > self.max_line:  # stop reading: the harness is stopped by the exchange
                        batch.append(("overflow", bytes(partial[:SHOWN_BYTES])))
                        self.events.put(batch)
                        return
                    if end < 0:
                        break
                    batch.append(("line", bytes(partial)))
                    partial.clear()
                    start = end + 1
                if batch:
                    self.events.put(batch)
            self.events.put([("eof", None)])
        finally:
            stream.close()

    def _read_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        try:
            for chunk in _chunks(stream):
                self.tail.feed(chunk)
        finally:
            self.tail.end()
            stream.close()

    # -- the process ---------------------------------------------------------------------------

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        """End the harness's process group (the harness and whatever it started); close our end of its stdin."""
        if not self.group_ended:  # once: a pid nobody waits for any more could be reused
            _end_group(self.popen)
            self.group_ended = True
        try:
            self.popen.wait(5)
        except subprocess.TimeoutExpired:
            pass
        if self.popen.stdin is not None:
            try:
                self.popen.stdin.close()
            except OSError:
                pass

    def exit_code(self, grace: float) -> int | None:
        """The harness's exit code if it exits by itself within ``grace`` seconds, else None."""
        try:
            return self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            return None

    def write(self, data: bytes, timeout: float) -> str:
        """Write one request from a writer thread: ``written``, ``closed`` (its stdin is closed) or ``timeout``."""
        done = threading.Event()
        outcome = ["timeout"]

        def run() -> None:
            stdin = self.popen.stdin
            assert stdin is not None
            try:
                view = memoryview(data)
                while view:
                    view = view[stdin.write(view) or 0:]
                outcome[0] = "written"
            except (OSError, ValueError):
                outcome[0] = "closed"
            done.set()

        threading.Thread(target=run, daemon=True).start()
        done.wait(max(timeout, 0.0))
        return outcome[0]

    # -- the events ------------------------------------------------------------------------------

    def pending(self) -> list[tuple[str, Any]]:
        """Every event that has arrived so far, without waiting (they stay in the backlog)."""
        while True:
            try:
                self.backlog.extend(self.events.get_nowait())
            except queue.Empty:
                return list(self.backlog)

    def next_event(self, timeout: float) -> tuple[str, Any] | None:
        """The next stdout event, waiting up to ``timeout`` seconds; None when none came."""
        if not self.backlog:
            try:
                self.backlog.extend(self.events.get(timeout=max(timeout, 0.0)))
            except queue.Empty:
                return None
        return self.backlog.popleft()

    def tail_lines(self) -> list[str]:
        if not self.alive():
            self.stderr_reader.join(0.5)  # the last words of a harness that ended
        return self.tail.lines()


def _end_group(popen: subprocess.Popen[bytes]) -> None:
    """Kill the process group of ``popen`` (its own: it was started in a new session), or the process alone."""
    if os.name == "posix":
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

    def __init__(self, command: str, *, timeout: float = DEFAULT_TIMEOUT, cwd: str | None = None,
                 max_line: int = MAX_LINE) -> None:
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
        for kind, value in run.pending():
            if kind == "eof":
                return None
            after = (f"after its answer to {self._answered[1]!r} (seq {excerpt(self._answered[0], 80)})"
                     if self._answered else "before any request")
            return self._fault(run, f"wrote on stdout {after}, unasked, so the {op!r} request of seq {seq} was not "
                                    f"sent: {self._shown(kind, value)}")
        return None

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
        written = run.write(data, self.timeout)
        if written == "timeout":
            raise self._fault(run, f"did not read the {op!r} request ({len(data)} bytes) within {self.timeout:g} s "
                                   "(the harness was stopped)")
        if written == "closed":
            raise self._ended(run, f"before it read the {op!r} request", "stdin")
        event = run.next_event(deadline - time.monotonic())
        if event is None:
            raise self._fault(run, f"did not answer {op!r} within {self.timeout:g} s (the harness was stopped)")
        kind, value = event
        if kind == "eof":
            raise self._ended(run, f"while answering {op!r}", "stdout")
        if kind == "overflow":
            raise self._fault(run, f"answered {op!r} with a line longer than {self.max_line} bytes (the harness was "
                                   f"stopped); it begins: {_line_excerpt(value)}")
        answer = self._decode(run, op, value)
        if answer["seq"] != seq:
            if self._answered is not None and answer["seq"] == self._answered[0]:
                raise self._fault(run, f"answered seq {excerpt(answer['seq'], 80)} again (a second answer to its "
                                       f"{self._answered[1]!r} request) while the {op!r} request of seq {seq} waited")
            raise self._fault(run, f"answered seq {excerpt(answer['seq'], 80)} to the {op!r} request of seq {seq}")
        self._answered = (seq, op)
        extra = [event for event in run.pending() if event[0] != "eof"]
        if extra:
            raise self._fault(run, f"wrote more than one answer to the {op!r} request of seq {seq}; the next: "
                                   f"{self._shown(*extra[0])}")
        if "failure" in answer:
            message = answer["failure"].get("message", "")
            raise self._fail(f"could not answer {op!r}: {cap_lines(str(message), lines=20)}", run)
        return answer["result"]

    def _decode(self, run: _Run, op: str, line: bytes) -> dict[str, Any]:
        try:
            answer = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            raise self._fault(run, f"answered {op!r} with a line that is not JSON: {_line_excerpt(line)}") from None
        problems = message_errors("answer", answer)
        if problems:
            raise self._fault(run, f"answered {op!r} outside the harness protocol: " + "; ".join(problems[:5])
                                   + f"\n  answer: {_line_excerpt(line)}")
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


def _line_excerpt(line: bytes) -> str:
    """The first bytes of a line the harness wrote, and its size when it is longer."""
    head = repr(line[:SHOWN_BYTES].decode("utf-8", "replace"))
    return head if len(line) <= SHOWN_BYTES else f"{head}… ({len(line)} bytes in all)"
