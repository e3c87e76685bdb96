"""Deliberately faulty harnesses for the suite's reliability tests: the reference's harness with one fault.

    python tests/fakes/faulty_harness.py <fault> <after> <flag file> [<size>]

The fault strikes once, on the ``after``-th operation after ``start``, unless
the flag file exists (it is written when the fault strikes, as JSON: the
fault, the seq of the request it struck, and the pid of the process that must
not outlive the harness; so a restarted harness behaves):

- ``crash`` exits with code 3; ``stderr-exit`` writes a message to stderr and
  exits with code 1; ``hang`` never answers; ``garbage`` prints a line that is
  not JSON; ``wrong-seq`` echoes another seq; ``protocol`` answers ``start``
  as protocol version 2;
- ``stop-reading`` answers, then never reads stdin again;
- ``grandchild`` starts a grandchild that sleeps for a minute (its pid is the
  one in the flag file), then hangs;
- ``huge-stderr`` writes 200 lines of 5 KB on stderr, then a line of ``size``
  bytes (default 8 MiB), then ``last words``, and exits with code 3;
- ``huge-answer-line`` answers with a ``failure`` line of about ``size`` bytes
  whose message begins with ``HUGE-ANSWER``; ``many-values`` answers with a
  ``shape`` result of ``size`` empty messages (``{}``, three bytes each);
- ``duplicate-answer`` writes its answer twice in one write (one system call);
  ``late-duplicate`` writes it again 0.3 s after the first;
- ``close-stdout`` closes its stdout and hangs;
- ``exit-leaving-child`` starts a child that sleeps for a minute holding the
  harness's stdout and stderr open (its pid is the one in the flag file),
  writes a line on stderr and exits with code 5.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from advisor_reference.adapter import ReferenceAdapter


def _answer(seq: object, result: object) -> str:
    return json.dumps({"seq": seq, "result": result})


def main() -> int:
    fault, after, flag = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 8 << 20
    if flag.exists():
        fault = "none"
    adapter = ReferenceAdapter()
    count = 0
    for line in sys.stdin:
        request = json.loads(line)
        seq, op, params = request["seq"], request["op"], request.get("params", {})
        if op == "start":
            result = adapter.describe({})
            if fault == "protocol":
                result["protocol"] = 2
        elif op == "stop":
            print(_answer(seq, {}), flush=True)
            return 0
        else:
            count += 1
            result = getattr(adapter, op)(params)
            if count == after and fault != "none":
                code = strike(fault, seq, result, flag, size)
                if code is not None:
                    return code
                continue
        print(_answer(seq, result), flush=True)
    return 0


def strike(fault: str, seq: object, result: object, flag: Path, size: int) -> int | None:
    """Commit the fault on the request ``seq`` (whose right answer is ``result``): the exit code, or None to go on."""
    mark = {"fault": fault, "seq": seq, "pid": os.getpid()}
    if fault in ("grandchild", "exit-leaving-child"):  # the child inherits stdin, stdout and stderr
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        mark["pid"] = child.pid
    flag.write_text(json.dumps(mark))
    if fault == "crash":
        print("faulty harness: crashing now", file=sys.stderr, flush=True)
        return 3
    if fault in ("hang", "grandchild"):
        time.sleep(3600)
    if fault == "garbage":
        print("Traceback (most recent call last): oops, not JSON", flush=True)
    elif fault == "wrong-seq":
        print(json.dumps({"seq": f"{seq}-other", "result": {}}), flush=True)
    elif fault == "stderr-exit":
        print("faulty harness: out of memory, giving up", file=sys.stderr, flush=True)
        return 1
    elif fault == "stop-reading":
        print(_answer(seq, result), flush=True)
        time.sleep(3600)  # never reads stdin again
    elif fault == "huge-stderr":
        for number in range(200):
            sys.stderr.write(f"faulty harness: line {number} " + "y" * 5000 + "\n")
        sys.stderr.write("faulty harness: a long line " + "x" * size + "\n")
        sys.stderr.write("faulty harness: last words\n")
        sys.stderr.flush()
        return 3
    elif fault == "huge-answer-line":
        print(json.dumps({"seq": seq, "failure": {"message": "HUGE-ANSWER " + "z" * size}}), flush=True)
    elif fault == "many-values":
        print(_answer(seq, {"messages": [{}] * size}), flush=True)
    elif fault == "duplicate-answer":
        sys.stdout.flush()
        os.write(1, (_answer(seq, result) + "\n" + _answer(seq, result) + "\n").encode())  # one write, both lines
    elif fault == "late-duplicate":
        print(_answer(seq, result), flush=True)
        threading.Timer(0.3, lambda: print(_answer(seq, result), flush=True)).start()
    elif fault == "exit-leaving-child":
        print("faulty harness: exiting, my child keeps my stdout", file=sys.stderr, flush=True)
        return 5
    elif fault == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
    return None


if __name__ == "__main__":
    sys.exit(main())
