"""The harness side of the protocol for a Python adapter: ``advisor-conformance harness``.

:func:`serve` reads requests as JSON lines from stdin and writes one answer
line per request to stdout, until ``stop`` or the end of input
(``docs/harness.md`` has the protocol). One bad request never ends it: a request it
cannot decode (not JSON, nested too deep) gets a ``failure`` answer when its
``seq`` can be read (else a line on stderr), and an answer that cannot be
written as UTF-8 JSON (a lone surrogate, a NaN, nesting too deep) becomes a
``failure`` answer that names the problem.
"""

from __future__ import annotations

import json
import re
import sys
from typing import IO, Any

from .protocol import OPERATIONS, PROTOCOL_VERSION, Adapter

_SEQ_FIRST = re.compile(r'\s*\{\s*"seq"\s*:\s*')
_UNREADABLE = object()


def serve(adapter: Adapter, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer harness requests with a Python adapter until ``stop`` or the end of input."""
    if stdin is None:
        stdin = _utf8(sys.stdin, "replace")
    if stdout is None:
        stdout = _utf8(sys.stdout, "strict")
    started = False
    for line in stdin:
        if not line.strip():
            continue
        request, problem = _decode(line)
        if request is None:
            seq = _readable_seq(line)
            if seq is _UNREADABLE:
                print(f"advisor-conformance harness: unreadable request ({problem}): {line[:200]!r}", file=sys.stderr)
                continue
            if not _write(stdout, {"seq": seq, "failure": {"message": f"unreadable request: {problem}"}}):
                return 1
            continue
        seq, op, params = request["seq"], request["op"], request.get("params", {})
        answer: dict[str, Any] = {"seq": seq}
        try:
            if not isinstance(params, dict):
                raise ValueError(f"params is not an object: {type(params).__name__}")
            if op == "start":
                if params.get("protocol") != PROTOCOL_VERSION:
                    raise ValueError(
                        f"protocol {params.get('protocol')!r} is not supported; this harness speaks {PROTOCOL_VERSION}"
                    )
                started = True
                answer["result"] = adapter.describe({})
            elif op == "stop":
                answer["result"] = {}
            elif not started:
                raise ValueError("the first request must be start")
            elif op not in OPERATIONS:
                raise ValueError(f"no such operation: {op}")
            else:
                method = getattr(adapter, op, None)
                if method is None:
                    answer["result"] = {"error": {"code": "unsupported_op", "message": f"no {op!r} operation"}}
                else:
                    answer["result"] = method(params)
        except Exception as exc:  # noqa: BLE001 - the harness reports, the suite decides
            message = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            answer = {"seq": seq, "failure": {"message": message}}
        if not _write(stdout, answer):
            return 1
        if op == "stop":
            return 0
    return 0


def _utf8(stream: IO[str], errors: str) -> IO[str]:
    """The process's own stdin or stdout as UTF-8 (whatever the locale), with these decoding or encoding errors."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(encoding="utf-8", errors=errors)
        except (ValueError, OSError):  # already read from, or not reconfigurable: used as it is
            pass
    return stream


def _decode(line: str) -> tuple[dict[str, Any] | None, str]:
    """The request on ``line``, or None and why it cannot be decoded."""
    try:
        request = json.loads(line)
    except RecursionError:
        return None, "nested too deep to decode"
    except ValueError as exc:
        return None, f"not JSON: {exc}"
    if not isinstance(request, dict):
        return None, f"not a JSON object: {type(request).__name__}"
    missing = [key for key in ("seq", "op") if key not in request]
    if missing:
        return None, f"no {' or '.join(missing)}"
    return request, ""


def _readable_seq(line: str) -> Any:
    """The ``seq`` of a request that cannot be decoded as a whole, when it comes first; else ``_UNREADABLE``."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        request = None
    if isinstance(request, dict):
        return request.get("seq", _UNREADABLE)
    match = _SEQ_FIRST.match(line)
    if match is None:
        return _UNREADABLE
    try:
        seq, _ = json.JSONDecoder().raw_decode(line, match.end())
    except (ValueError, RecursionError):
        return _UNREADABLE
    return seq


def _write(stdout: IO[str], answer: dict[str, Any]) -> bool:
    """Write one answer line; an answer that cannot be written as UTF-8 JSON is replaced by a failure naming why.
    False when stdout is closed (the suite has gone)."""
    text = _encode(answer)
    try:
        try:
            stdout.write(text + "\n")
        except UnicodeEncodeError:  # a stream that is not UTF-8: the same JSON, escaped to ASCII
            stdout.write(json.dumps(json.loads(text)) + "\n")
        stdout.flush()
    except (BrokenPipeError, ValueError):  # the suite closed our stdout: nobody is listening
        return False
    return True


def _encode(answer: dict[str, Any]) -> str:
    try:
        text = json.dumps(answer, ensure_ascii=False, allow_nan=False)
    except RecursionError:
        problem = "it is nested too deep to encode"
    except (TypeError, ValueError) as exc:
        problem = str(exc)
    else:
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError as exc:
            problem = f"it holds a lone surrogate, U+{ord(exc.object[exc.start]):04X}, which UTF-8 cannot encode"
    message = f"the answer cannot be written as JSON: {problem}"
    try:  # escaped to ASCII: the seq is echoed unchanged even if it holds a lone surrogate itself
        return json.dumps({"seq": answer["seq"], "failure": {"message": message}}, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return json.dumps({"seq": None, "failure": {"message": message}})
