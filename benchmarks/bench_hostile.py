"""Benchmark: the reference HTTP client against hostile provider answers: peak memory, and the deadline.

Goals:

* memory: each hostile answer (a 200 MB error body, a 1 MB gzip body that expands to 1 GiB, a 300 MB event
  stream without a newline, a 200 MB answer, a 300 MB streamed answer, and a 16 MB answer of millions of empty
  objects that Python would take 400 MB to decode) fails with a provider error while the call's peak memory (the
  growth of the process's peak resident set, and the peak of its traced allocations) stays under 100 MB,
  measured like a normal 1 MB answer and a normal 1 MB stream in the same run (the baselines, which must
  succeed). Each case runs in a fresh subprocess, so one case's peak cannot hide another's; the hostile bodies
  are generated a piece at a time (an in-process httpx MockTransport, no socket), so only the client's own
  memory is measured.
* deadline: a server on 127.0.0.1 that trickles one byte a second (in the body, or in the status line) holds a
  call with a 2 s timeout for at most the deadline + 10%.
* the suite's side, the loopback provider of black-box runs (issue 37): an implementation that sends it a 128 MiB
  request body (announced by its Content-Length, or chunked), a body of 1.4 million empty objects, or 40 requests of
  4 MiB in one test costs the suite's process at most twice the peak memory of one request body at the limit
  (8 MiB, received and decoded whole: the baseline, in the same run), and is answered 413 (or, past what a test
  keeps, answered and not kept). Each case runs in a fresh server process, the sender in this one; before the
  bound, the 128 MiB body cost the suite's process about 590 MB.

    python benchmarks/bench_hostile.py      # prints the figures, exits 1 if a goal is missed
"""

from __future__ import annotations

import gc
import json
import resource
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator

import httpx
from _common import Goals, goal_verdict

from advisor_reference import ProviderError, ProviderRequest
from advisor_reference._http import HttpProvider
from tests.support.provider_requests import provider_request  # the repository's root is on the path: see _common

MB = 1_000_000
MiB = 1024 * 1024
MEMORY_GOAL_MB = 100.0
DEADLINE_S = 2.0
DEADLINE_GOAL = 1.10  # wall time at most the deadline + 10%
SSE = {"content-type": "text/event-stream"}


def pieces(total: int, piece: bytes, head: bytes = b"", tail: bytes = b"") -> Iterator[bytes]:
    """``head``, then ``piece`` repeated up to ``total`` bytes, then ``tail``: never more than a piece in memory."""
    yield head
    for _ in range(total // len(piece)):
        yield piece
    yield tail


def gzip_bomb(expanded: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    head = packer.compress(b'{"content":[{"type":"text","text":"fine"}]}')
    zeros = b" " * MiB
    return head + b"".join(packer.compress(zeros) for _ in range(expanded // MiB)) + packer.flush()


def anthropic_body(text_bytes: int) -> bytes:
    return json.dumps({"content": [{"type": "text", "text": "x" * text_bytes}], "stop_reason": "end_turn"}).encode()


def openai_stream(text_bytes: int) -> bytes:
    chunk = "data: " + json.dumps({"choices": [{"delta": {"content": "x" * 1000}}]}) + "\n\n"
    return (chunk * (text_bytes // 1000) + "data: [DONE]\n\n").encode()


# name -> (kind, streaming call, expect success, builder of the response)
CASES: dict[str, tuple[str, bool, bool, Callable[[], httpx.Response]]] = {
    "baseline: 1 MB answer": (
        "anthropic",
        False,
        True,
        lambda: httpx.Response(200, content=iter([anthropic_body(MB)])),
    ),
    "baseline: 1 MB streamed answer": (
        "openai",
        True,
        True,
        lambda: httpx.Response(200, headers=SSE, content=iter([openai_stream(MB)])),
    ),
    "200 MB error body": (
        "anthropic",
        False,
        False,
        lambda: httpx.Response(500, content=pieces(200 * MB, b"upstream error " * 65536)),
    ),
    "1 MB gzip body expanding to 1 GiB": (
        "anthropic",
        False,
        False,
        lambda: httpx.Response(200, headers={"content-encoding": "gzip"}, content=iter([gzip_bomb(1024 * MiB)])),
    ),
    "300 MB event stream without a newline": (
        "openai",
        True,
        False,
        lambda: httpx.Response(200, headers=SSE, content=pieces(300 * MB, b"x" * MiB, head=b"data: ")),
    ),
    "200 MB answer": (
        "anthropic",
        False,
        False,
        lambda: httpx.Response(
            200, content=pieces(200 * MB, b"x" * MiB, head=b'{"content":[{"type":"text","text":"', tail=b'"}]}')
        ),
    ),
    "300 MB streamed answer": (
        "openai",
        True,
        False,
        lambda: httpx.Response(
            200, headers=SSE, content=pieces(300 * MB, openai_stream(1000)[: -len("data: [DONE]\n\n")] * 64)
        ),
    ),
    "16 MB answer of 5.6 million empty objects": (
        "anthropic",
        False,
        False,
        lambda: httpx.Response(200, content=pieces(16 * MB, b"{}," * 65536, head=b'{"content":[', tail=b"{}]}")),
    ),
}


def request(stream: bool) -> ProviderRequest:
    return provider_request(max_tokens=16000, stream=stream)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_case(name: str) -> dict[str, object]:
    """One case, in this (fresh) process: the call's peak memory (the growth of the process's peak resident set,
    and the peak of Python's traced allocations in a second call), its time and its outcome."""
    kind, stream, _, build = CASES[name]
    for warm_kind, warm_stream, warm_build in (
        ("anthropic", False, lambda: anthropic_body(100)),
        ("openai", True, lambda: openai_stream(1000)),
    ):
        warm_body = warm_build()  # small answers warm up the imports and code paths of both kinds of call
        HttpProvider(
            warm_kind,
            "https://provider.test",
            client=httpx.Client(
                transport=httpx.MockTransport(
                    lambda _request, body=warm_body, streamed=warm_stream: httpx.Response(
                        200, headers=SSE if streamed else {}, content=iter([body])
                    )
                )
            ),
        ).complete(request(warm_stream))
    figures: dict[str, object] = {}
    for traced in (False, True):
        response = build()  # built before measuring: the bomb is compressed here, not in the client
        provider = HttpProvider(
            kind,
            "https://provider.test",
            timeout=600,
            client=httpx.Client(transport=httpx.MockTransport(lambda _request, answer=response: answer)),
        )
        gc.collect()
        before = peak_rss_mb()
        if traced:
            tracemalloc.start()
        start = time.perf_counter()
        try:
            answer = provider.complete(request(stream))
            figures.update(outcome=f"answer of {len(answer.text)} characters", ok=True)
        except ProviderError as error:
            figures.update(outcome=f"provider error: {str(error)[:70]}", ok=False)
        if traced:
            figures["traced_mb"] = tracemalloc.get_traced_memory()[1] / MB
            tracemalloc.stop()
        else:
            figures.update(rss_mb=peak_rss_mb() - before, seconds=time.perf_counter() - start)
        del response, provider
    return figures


def trickle(in_headers: bool) -> float:
    """Wall time of a call with a DEADLINE_S timeout to a server that sends one byte a second."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
            if not in_headers:
                connection.sendall(head)
            for byte in head if in_headers else b" " * 1000:
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return
                if stop.wait(1.0):
                    return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    provider = HttpProvider("anthropic", f"http://127.0.0.1:{listener.getsockname()[1]}", timeout=DEADLINE_S)
    start = time.monotonic()
    try:
        provider.complete(request(False))
    except ProviderError:
        pass
    elapsed = time.monotonic() - start
    stop.set()
    provider.close()
    listener.close()
    thread.join(5)
    return elapsed


# -- the suite's side: the loopback provider against an implementation that sends it too much -------------------------

LOOPBACK_GOAL = 2.0  # a hostile case's peak memory, at most this times the baseline's (a body at the limit)


def _post(port: int, head: bytes, pieces: Iterator[bytes]) -> bytes:
    """One raw request to 127.0.0.1:``port`` (its head, then its body piece by piece, stopping if the server closes),
    and the first bytes of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        try:
            connection.sendall(head)
            for piece in pieces:
                connection.sendall(piece)
        except OSError:  # the server answered and closed: the rest is not wanted
            pass
        try:
            return connection.recv(64)
        except OSError:
            return b""


def _head(length: int | None) -> bytes:
    framing = b"transfer-encoding: chunked\r\n" if length is None else b"content-length: %d\r\n" % length
    return b"POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" + framing + b"\r\n"


def _json_string(size: int) -> Iterator[bytes]:
    """A JSON string of ``size`` bytes in all, a MiB at a time."""
    yield b'"'
    for _ in range((size - 2) // MiB):
        yield b"x" * MiB
    yield b"x" * ((size - 2) % MiB) + b'"'


def _chunked(total: int) -> Iterator[bytes]:
    for _ in range(total // MiB):
        yield b"%x\r\n%s\r\n" % (MiB, b"x" * MiB)
    yield b"0\r\n\r\n"


def _send_loopback(name: str, port: int) -> bytes:
    """What the implementation sends in the loopback case ``name``; the status line of the (last) answer."""
    from advisor_conformance._contract.loopback import MAX_REQUEST_BYTES

    if name.startswith("baseline: a 1 KB"):
        body = json.dumps({"messages": [{"role": "user", "content": "x" * 1000}]}).encode()
        return _post(port, _head(len(body)), iter([body]))
    if name.startswith("baseline: a request body at the limit"):
        return _post(port, _head(MAX_REQUEST_BYTES), _json_string(MAX_REQUEST_BYTES))
    if name.startswith("128 MiB request body (Content-Length)"):
        return _post(port, _head(128 * MiB), _json_string(128 * MiB))
    if name.startswith("128 MiB chunked"):
        return _post(port, _head(None), _chunked(128 * MiB))
    if name.startswith("4 MiB request body"):
        body = b"[" + b"{}," * (4 * MiB // 3 - 1) + b"{}]"
        return _post(port, _head(len(body)), iter([body]))
    answer = b""
    for _ in range(40):  # 40 requests of 4 MiB
        answer = _post(port, _head(4 * MiB), _json_string(4 * MiB))
    return answer


LOOPBACK_CASES = {
    "baseline: a 1 KB request body": b"599",
    "baseline: a request body at the limit (8 MiB)": b"599",
    "128 MiB request body (Content-Length)": b"413",
    "128 MiB chunked request body": b"413",
    "4 MiB request body of 1.4 million empty objects": b"413",
    "40 requests of 4 MiB in one test": b"599",
}


def serve_loopback_case() -> None:
    """The server side of a loopback case, in this (fresh) process: print the port, then for each line on stdin
    (``rss`` or ``traced``), measure until the next line and print the peak."""
    from advisor_conformance._contract.loopback import loopback

    with loopback() as provider:
        print(provider.server.port, flush=True)
        for line in sys.stdin:
            if line.strip() == "end":
                break
            traced = line.strip() == "traced"
            provider.expect()
            gc.collect()
            before = peak_rss_mb()
            if traced:
                tracemalloc.start()
            print("ready", flush=True)
            sys.stdin.readline()  # the sender is done
            if traced:
                peak = tracemalloc.get_traced_memory()[1] / MB
                tracemalloc.stop()
            else:
                peak = peak_rss_mb() - before
            provider.expect()  # what the case left is dropped
            print(json.dumps({"peak_mb": peak}), flush=True)


def run_loopback_case(name: str) -> dict[str, object]:
    """The server's peak memory (resident growth, then traced allocations, each in a pass of its own) while this
    process sends the case's requests, and the status of the last answer."""
    server = subprocess.Popen(
        [sys.executable, __file__, "--loopback-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the server's log of each request
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    port = int(server.stdout.readline())
    figures: dict[str, object] = {}
    for mode in ("rss", "traced"):
        server.stdin.write(mode + "\n")
        server.stdin.flush()
        server.stdout.readline()  # ready
        start = time.perf_counter()
        status = _send_loopback(name, port)
        figures.setdefault("seconds", time.perf_counter() - start)
        server.stdin.write("done\n")
        server.stdin.flush()
        figures[mode] = json.loads(server.stdout.readline())["peak_mb"]
        figures["status"] = status[9:12].decode("ascii", "replace")
    server.stdin.write("end\n")
    server.stdin.close()
    server.wait(30)
    return figures


def main() -> int:
    goals = Goals()
    for name, (_, _, expect_ok, _) in CASES.items():
        result = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--case", name], check=True, capture_output=True, text=True
            ).stdout
        )
        peak = max(result["rss_mb"], result["traced_mb"])
        met = result["ok"] == expect_ok and peak < MEMORY_GOAL_MB
        goals.check(
            met,
            f"{name}: peak memory {peak:.1f} MB (resident +{result['rss_mb']:.1f} MB, traced "
            f"{result['traced_mb']:.1f} MB), {result['seconds']:.2f} s, {result['outcome']} "
            f"({goal_verdict(met)}: under {MEMORY_GOAL_MB:g} MB, {'an answer' if expect_ok else 'a provider error'})",
        )
    for in_headers in (False, True):
        elapsed = trickle(in_headers)
        goals.check(
            elapsed <= DEADLINE_S * DEADLINE_GOAL,
            f"a server trickling one byte a second in its {'status line' if in_headers else 'body'}: "
            f"{elapsed:.2f} s against a {DEADLINE_S:g} s deadline (goal: at most {DEADLINE_S * DEADLINE_GOAL:.2f} s)",
        )
    loopback = {name: run_loopback_case(name) for name in LOOPBACK_CASES}
    baseline = loopback["baseline: a request body at the limit (8 MiB)"]
    base_peak = max(float(baseline["rss"]), float(baseline["traced"]))  # type: ignore[arg-type]
    for name, figures in loopback.items():
        peak = max(float(figures["rss"]), float(figures["traced"]))  # type: ignore[arg-type]
        expected = LOOPBACK_CASES[name].decode()
        hostile = not name.startswith("baseline")
        met = figures["status"] == expected and (not hostile or peak <= LOOPBACK_GOAL * base_peak)
        goal = (
            f"at most {LOOPBACK_GOAL:g}x the body at the limit, answered {expected}"
            if hostile
            else f"answered {expected}"
        )
        goals.check(
            met,
            f"loopback, {name}: the suite's peak memory {peak:.1f} MB (resident +{figures['rss']:.1f} MB, traced "
            f"{figures['traced']:.1f} MB), {peak / base_peak:.2f}x the body at the limit, {figures['seconds']:.2f} s, "
            f"answered {figures['status']} ({goal_verdict(met)}: {goal})",
        )
    return goals.verdict()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--case"]:
        print(json.dumps(run_case(sys.argv[2])))
        sys.exit(0)
    if sys.argv[1:2] == ["--loopback-server"]:
        serve_loopback_case()
        sys.exit(0)
    sys.exit(main())
