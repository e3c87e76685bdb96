"""The harness side of the protocol for a Python adapter: ``advisor-conformance harness``.

:func:`serve` reads requests as JSON lines from stdin and writes one answer
line per request to stdout, until ``stop`` or the end of input
(``HARNESS.md`` has the protocol).
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from ._protocol import OPERATIONS, PROTOCOL_VERSION


def serve(adapter: Any, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> int:
    """Answer harness requests with a Python adapter until ``stop`` or the end of input."""
    started = False
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            seq, op, params = request["seq"], request["op"], request.get("params", {})
        except (ValueError, KeyError, TypeError) as exc:
            print(f"advisor-conformance harness: unreadable request ({exc}): {line[:200]!r}", file=sys.stderr)
            continue
        answer: dict[str, Any] = {"seq": seq}
        try:
            if op == "start":
                if params.get("protocol") != PROTOCOL_VERSION:
                    raise ValueError(f"protocol {params.get('protocol')!r} is not supported; this harness speaks "
                                     f"{PROTOCOL_VERSION}")
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
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
        if op == "stop":
            return 0
    return 0
