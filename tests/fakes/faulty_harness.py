"""Deliberately faulty harnesses for the suite's reliability tests: the reference's harness with one fault.

    python tests/fakes/faulty_harness.py <fault> <after> <flag file>

The fault strikes once, on the ``after``-th operation after ``start``, unless
the flag file exists (it is written when the fault strikes, so a restarted
harness behaves):
``crash`` exits with code 3; ``hang`` never answers; ``garbage`` prints a line
that is not JSON; ``wrong-seq`` echoes another seq; ``stderr-exit`` writes a
message to stderr and exits with code 1; ``protocol`` answers ``start`` as
protocol version 2.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from advisor_reference.adapter import ReferenceAdapter


def main() -> int:
    fault, after, flag = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
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
            print(json.dumps({"seq": seq, "result": {}}), flush=True)
            return 0
        else:
            count += 1
            if count == after and fault != "none":
                flag.write_text(fault)
                if fault == "crash":
                    print("faulty harness: crashing now", file=sys.stderr, flush=True)
                    return 3
                if fault == "hang":
                    time.sleep(3600)
                if fault == "garbage":
                    print("Traceback (most recent call last): oops, not JSON", flush=True)
                    continue
                if fault == "wrong-seq":
                    print(json.dumps({"seq": f"{seq}-other", "result": {}}), flush=True)
                    continue
                if fault == "stderr-exit":
                    print("faulty harness: out of memory, giving up", file=sys.stderr, flush=True)
                    return 1
            result = getattr(adapter, op)(params)
        print(json.dumps({"seq": seq, "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
