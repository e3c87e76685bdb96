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
could not answer at all. It starts the harness once, times out an operation
that does not answer, restarts a harness that died and replays ``start``, and
attaches the harness's stderr to every failure.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import threading
import traceback
from collections import deque
from collections.abc import Mapping
from typing import IO, Any, Protocol

from ._bounded import cap_lines
from ._protocol import PROTOCOL_VERSION, ContractError, message_errors

STDERR_LINES = 40
DEFAULT_TIMEOUT = 60.0


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


class SubprocessTransport:
    """Carries operations to a harness process over JSON lines."""

    def __init__(self, command: str, *, timeout: float = DEFAULT_TIMEOUT, cwd: str | None = None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("the harness command is empty")
        self.timeout = timeout
        self.cwd = cwd
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.description: dict[str, Any] | None = None
        self.seq = 0
        self.restarts = 0

    # -- process -----------------------------------------------------------------------------

    def _launch(self) -> None:
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                encoding="utf-8", errors="replace", bufsize=1, cwd=self.cwd,
            )
        except OSError as exc:
            raise ContractError(f"cannot start the harness {self.command!r}: {exc}") from None
        self.lines = queue.Queue()
        self.stderr.clear()  # a new process: its own stderr
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    @staticmethod
    def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
        with stream:
            for line in stream:
                lines.put(line)
        lines.put(None)  # end of output: the harness exited

    def _drain(self, stream: IO[str]) -> None:
        with stream:
            for line in stream:
                self.stderr.append(line.rstrip("\n"))

    def _alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _kill(self) -> None:
        """Stop the harness (if it still runs) and close our end of its stdin; the readers close the rest."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass

    def _stderr_tail(self) -> str:
        if not self.stderr:
            return ""
        return "\n  harness stderr (last lines):\n    " + "\n    ".join(self.stderr)

    def _fail(self, what: str) -> ContractError:
        return ContractError(f"harness {self.command!r}: {what}{self._stderr_tail()}")

    # -- one exchange -------------------------------------------------------------------------

    def _exchange(self, op: str, params: Mapping[str, Any]) -> Any:
        assert self.process is not None and self.process.stdin is not None
        self.seq += 1
        seq = self.seq
        line = json.dumps({"seq": seq, "op": op, "params": params}, ensure_ascii=False, allow_nan=False)
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._kill()
            raise self._fail(f"exited (code {self.process.returncode}) before it could read the {op!r} request") from None
        try:
            answer_line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            self._kill()
            raise self._fail(f"did not answer {op!r} within {self.timeout:g} s (the harness was stopped)") from None
        if answer_line is None:
            self._kill()
            raise self._fail(f"exited (code {self.process.returncode}) while answering {op!r}")
        try:
            answer = json.loads(answer_line)
        except ValueError:
            self._kill()
            raise self._fail(f"answered {op!r} with a line that is not JSON: {answer_line[:300]!r}") from None
        problems = message_errors("answer", answer)
        if problems:
            self._kill()
            raise self._fail(f"answered {op!r} outside the harness protocol: " + "; ".join(problems[:5])
                             + f"\n  answer: {answer_line[:300]}")
        if answer["seq"] != seq:
            self._kill()
            raise self._fail(f"answered seq {answer['seq']!r} to the {op!r} request of seq {seq!r}")
        if "failure" in answer:
            raise self._fail(f"could not answer {op!r}: {answer['failure'].get('message', '')}")
        return answer["result"]

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
            if self.process is not None:
                self.restarts += 1
            self.start()
            if op == "describe":
                return self.description
        return self._exchange(op, params)

    def close(self) -> None:
        if self._alive():
            try:
                self._exchange("stop", {})
                self.process.wait(5)  # type: ignore[union-attr]
            except (ContractError, subprocess.TimeoutExpired):
                pass
        self._kill()
