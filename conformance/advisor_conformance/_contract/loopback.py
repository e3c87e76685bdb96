"""A loopback HTTP provider for black-box runs: scripted answers on 127.0.0.1, every request recorded.

An implementation under test is pointed at ``base_url`` (the scenario's
``runtime.http_provider``) and makes real HTTP calls; the suite scripts what
the "provider" answers (JSON, event streams, errors, delays) and reads back
exactly what arrived on the wire. Built on pytest-httpserver's server.
"""

from __future__ import annotations

import json
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from .._paths import fixtures_dir


def recorded_answer(name: str) -> str:
    """A recorded provider answer from ``fixtures/http`` (an event stream or a JSON body)."""
    return (fixtures_dir() / "http" / name).read_text(encoding="utf-8")


def expected_answers() -> dict[str, Any]:
    """What each recorded answer decodes to (``fixtures/http/expected.json``)."""
    return json.loads(recorded_answer("expected.json"))


@dataclass
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    body: str = ""
    content_type: str = "application/json"
    delay_s: float = 0.0
    #: An event stream whose framing is the test's own: the provider's ``deliver`` hook cuts it into reads but
    #: writes it in no other framing.
    framed: bool = False

    @classmethod
    def json(cls, payload: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(payload), "application/json")

    @classmethod
    def events(cls, text: str, *, framed: bool = False) -> Reply:
        return cls(200, text, "text/event-stream", framed=framed)

    @classmethod
    def recorded(cls, name: str) -> Reply:
        text = recorded_answer(name)
        return cls.events(text) if name.endswith(".sse") else cls(200, text, "application/json")


@dataclass
class Received:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "headers": self.headers, "body": self.body}


@dataclass
class LoopbackProvider:
    """Answers requests in order from a script; an unscripted request gets a 599 and is recorded too.

    ``deliver``, when set, makes the reads of every event stream it serves (``text/event-stream``): the body is sent
    as those pieces, each a chunk of its own (chunked transfer coding), so an HTTP client hands them on one read
    each, however it buffers the socket.
    """

    server: HTTPServer
    script: list[Reply] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    deliver: Callable[[Reply], list[bytes]] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def expect(self, *replies: Reply) -> LoopbackProvider:
        with self.lock:
            self.script = list(replies)
            self.received = []
        return self

    def handle(self, request: Request) -> Response:
        raw = request.get_data(as_text=True)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        with self.lock:
            self.received.append(
                Received(request.method, request.path, {k.lower(): v for k, v in request.headers.items()}, body)
            )
            reply = self.script.pop(0) if self.script else Reply(599, '{"error": "unscripted request"}')
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if self.deliver is not None and reply.content_type.partition(";")[0].strip() == "text/event-stream":
            connection = request.environ.get("werkzeug.socket")
            if connection is not None:  # each read sent at once, not held back until the last one is acknowledged
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return Response(iter(self.deliver(reply)), status=reply.status, content_type=reply.content_type)
        return Response(reply.body, status=reply.status, content_type=reply.content_type)


@contextmanager
def loopback() -> Iterator[LoopbackProvider]:
    """A running loopback provider on 127.0.0.1 (threaded, so a slow answer blocks no other request)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    provider = LoopbackProvider(server)
    server.expect_request(re.compile(".*")).respond_with_handler(provider.handle)  # every path and method
    try:
        yield provider
    finally:
        server.clear()
        server.stop()


class LocalServer:
    """A server on 127.0.0.1 that hands every request, whatever its path and method, to :meth:`handle`: for the
    answers the scripted loopback provider cannot give (no Content-Type header, a content coding chosen from the
    request, ...)."""

    def __init__(self) -> None:
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)

    def handle(self, request: Request) -> Response:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @contextmanager
    def running(self) -> Iterator[LocalServer]:
        self.server.start()
        self.server.expect_request(re.compile(".*")).respond_with_handler(self.handle)
        try:
            yield self
        finally:
            self.server.clear()
            self.server.stop()


class _RawHandler(socketserver.BaseRequestHandler):
    server: _RawTCPServer

    def handle(self) -> None:
        self.request.settimeout(RawServer.IO_TIMEOUT_S)
        try:
            _read_request(self.request)
            self.request.sendall(self.server.owner.reply)
        except OSError:  # the client gave up first: nothing to answer
            pass


class _RawTCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False  # server_close() waits for no handler: each is bounded by IO_TIMEOUT_S anyway
    timeout = 0.05  # handle_request() gives up after this long without a connection, so the loop sees a stop

    def __init__(self, owner: RawServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _RawHandler)


def _read_request(connection: socket.socket, limit: int = 1 << 20) -> None:
    """Read one request whole (its head, then the Content-Length bytes of its body), so that closing the connection
    after the answer never resets it under a client still writing."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        chunk = connection.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
    left = min(int(match.group(1)), limit) - len(body) if match else 0
    while left > 0:
        chunk = connection.recv(min(left, 65536))
        if not chunk:
            return
        left -= len(chunk)


class RawServer:
    """A server on 127.0.0.1 that reads each request and answers it with the bytes of ``reply`` exactly as they are,
    then closes the connection: for status lines, headers and framing that no HTTP library would write (a broken or
    hostile provider). Every connection gets the current ``reply``."""

    IO_TIMEOUT_S = 10.0

    def __init__(self, reply: bytes = b"") -> None:
        self.reply = reply
        self._server = _RawTCPServer(self)
        self._stop = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            self._server.handle_request()  # one connection, or none within the server's timeout

    @contextmanager
    def running(self) -> Iterator[RawServer]:
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join(self.IO_TIMEOUT_S)
            self._server.server_close()


def refused_url() -> str:
    """A loopback URL on which nothing listens (a connection there is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
