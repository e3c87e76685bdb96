"""A loopback HTTP provider for black-box runs: scripted answers on 127.0.0.1, every request recorded.

An implementation under test is pointed at ``base_url`` (the scenario's
``runtime.http_provider``) and makes real HTTP calls; the suite scripts what
the "provider" answers (JSON, event streams, errors, delays) and reads back
exactly what arrived on the wire. Built on pytest-httpserver's server.

What an implementation sends is bounded, so no implementation can make the
suite's process grow without bound (:class:`BoundedServer`):

* a request body of more than :data:`MAX_REQUEST_BYTES`, or holding more than
  :data:`MAX_REQUEST_VALUES` JSON values (counted before it is decoded), is
  answered 413 without being kept: a body announced larger by its
  Content-Length is refused before a byte of it is read, and a chunked one as
  soon as it passes the bound (werkzeug then reads and drops the rest, ten
  megabytes at a time, so the client sees the answer);
* the request line and the headers are bounded by Python's HTTP server (a line
  of 64 KiB, 100 headers: 414 or 431 past them);
* a scripted provider keeps the first :data:`MAX_KEPT_REQUESTS` requests of a
  test (at most :data:`MAX_KEPT_BYTES` and :data:`MAX_KEPT_VALUES` in all) and
  counts the rest;
* pytest-httpserver's own log of every request (kept for the server's life) is
  not kept.

Each overrun is recorded, and the test during which it happened fails naming it
(:meth:`BoundedServer.overrun`: the conformance tests' ``lb`` fixture and
:meth:`LocalServer.running` raise :class:`LoopbackOverrun`).
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
from werkzeug.exceptions import RequestEntityTooLarge

from .._bounded import json_values
from .._paths import fixtures_dir

#: The largest request body the loopback takes. The largest request the spec's caps allow is far smaller: 96 KiB of
#: files, eight paths of at most 4 KiB and a 4000-byte question, all JSON-escaped (six bytes a byte at worst), are
#: under 1 MB; the snapshot is the suite's own input, and the largest any test sends over HTTP makes a body of about
#: 1 KB. 8 MiB leaves a margin of eight over the caps' worst case.
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: The most JSON values a request body may hold (counted before it is decoded, :func:`json_values`): a request is a
#: few dozen messages of a few values each; a decoded value costs some 70 bytes, so this keeps a decoded body under
#: about 20 MB.
MAX_REQUEST_VALUES = 250_000
#: The requests a scripted provider keeps in one test (with their headers and bodies); past them it only counts. The
#: suite's tests expect one or two (a call and its stream-required retry), a concurrent step at most 64. The bodies it
#: keeps in one test hold at most MAX_KEPT_BYTES and MAX_KEPT_VALUES in all (128 bodies at the limit would be 1 GiB).
MAX_KEPT_REQUESTS = 128
MAX_KEPT_BYTES = 2 * MAX_REQUEST_BYTES
MAX_KEPT_VALUES = 2 * MAX_REQUEST_VALUES
#: The overruns a server describes (the first ones; the rest are counted).
_SHOWN_OVERRUNS = 3


class LoopbackOverrun(AssertionError):
    """The implementation under test sent a loopback server more than it bounds (:class:`BoundedServer`)."""


class BoundedServer(HTTPServer):
    """pytest-httpserver's server with a bound on what it takes in (:data:`MAX_REQUEST_BYTES`,
    :data:`MAX_REQUEST_VALUES`) and no log of the requests; its overruns are recorded until :meth:`reset`."""

    def __init__(self) -> None:
        super().__init__(host="127.0.0.1", port=0, threaded=True)
        self._overruns: list[str] = []
        self._overrun_count = 0
        self._overrun_lock = threading.Lock()

    def record_overrun(self, what: str) -> None:
        with self._overrun_lock:
            self._overrun_count += 1
            if len(self._overruns) < _SHOWN_OVERRUNS:
                self._overruns.append(what)

    def reset(self) -> None:
        """Forget the overruns recorded so far (a new test starts)."""
        with self._overrun_lock:
            self._overruns, self._overrun_count = [], 0

    def overrun(self) -> str | None:
        """What the implementation sent past the bounds since the last :meth:`reset` (bounded), or None."""
        with self._overrun_lock:
            if not self._overrun_count:
                return None
            more = self._overrun_count - len(self._overruns)
            return "; ".join(self._overruns) + (f"; and {more} more" if more else "")

    def refused_body(self, request: Request) -> str | None:
        """Why the body of ``request`` is refused (it is then not kept), or None once it is read whole within the
        bounds."""
        length = request.content_length
        if length is not None and length > MAX_REQUEST_BYTES:  # refused before a byte of it is read
            return f"a request body of {length} bytes (its Content-Length), over the limit of {MAX_REQUEST_BYTES}"
        # A chunked body: werkzeug reads at most this much of it (one byte more than the limit, to tell a body at the
        # limit from a longer one, which it cuts there without a word).
        request.max_content_length = MAX_REQUEST_BYTES + 1
        chunked_over = f"a chunked request body of more than {MAX_REQUEST_BYTES} bytes, the limit"
        try:
            data = request.get_data()
        except RequestEntityTooLarge:
            return chunked_over
        if len(data) > MAX_REQUEST_BYTES:
            return chunked_over
        if len(data) > 64 * 1024 and json_values(data) > MAX_REQUEST_VALUES:
            return (
                f"a request body of {len(data)} bytes holding more than {MAX_REQUEST_VALUES} JSON values, the limit "
                "(counted before decoding)"
            )
        return None

    def application(self, request: Request) -> Response:
        """Refuse a body over the bounds (413), else dispatch the request; nothing is logged.

        The request and its WSGI environment refer to each other, so without help its body (up to the limit) would
        wait for the cyclic garbage collector, which counts objects, not bytes: 100 bodies of 4 MiB held 250 MB. The
        environment lets go of the request once it is answered, and the body goes with it.
        """
        try:
            refused = self.refused_body(request)
            if refused is not None:
                self.record_overrun(f"{request.method} {request.path[:100]}: {refused}, answered 413 and not kept")
                return Response(
                    json.dumps({"error": f"request body too large: {refused}"}),
                    status=413,
                    content_type="application/json",
                )
            return self.dispatch(request)
        finally:
            request.environ.pop("werkzeug.request", None)


def take_overrun(server: BoundedServer, during: str) -> str | None:
    """What the implementation sent ``server`` past its bounds during ``during``, as a failure says it (None when
    nothing); the server then starts afresh."""
    what = server.overrun()
    server.reset()
    if what is None:
        return None
    return (
        f"the implementation sent the suite's loopback provider more than it takes during {during}: {what}. The "
        "limits are far above any request the spec's caps allow; which rule this breaks the suite cannot tell, so "
        "the test's own rules are named"
    )


def raise_overrun(server: BoundedServer, during: str) -> None:
    """Raise :class:`LoopbackOverrun` if the implementation sent ``server`` more than it bounds (then reset)."""
    what = take_overrun(server, during)
    if what is not None:
        raise LoopbackOverrun(what)


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
    """Answers requests in order from a script; an unscripted request gets a 599 and is recorded too. The first
    requests since :meth:`expect` are kept in ``received`` (within MAX_KEPT_REQUESTS, MAX_KEPT_BYTES and
    MAX_KEPT_VALUES); the rest are counted (``count``) and recorded as an overrun of the server.

    ``deliver``, when set, makes the reads of every event stream it serves (``text/event-stream``): the body is sent
    as those pieces, each a chunk of its own (chunked transfer coding), so an HTTP client hands them on one read
    each, however it buffers the socket.
    """

    server: BoundedServer
    script: list[Reply] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    #: the reply sent to each request received, in the same order (a failing test shows both: :func:`wire_trace`)
    sent: list[Reply] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    count: int = 0
    kept_bytes: int = 0
    kept_values: int = 0
    deliver: Callable[[Reply], list[bytes]] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def expect(self, *replies: Reply) -> LoopbackProvider:
        with self.lock:
            self.script = list(replies)
            self.received = []
            self.count = self.kept_bytes = self.kept_values = 0
            self.sent = []
        self.server.reset()
        return self

    def handle(self, request: Request) -> Response:
        data = request.get_data()  # read within the bounds already (BoundedServer.application)
        values = json_values(data)
        with self.lock:
            self.count += 1
            keep = (
                len(self.received) < MAX_KEPT_REQUESTS
                and self.kept_bytes + len(data) <= MAX_KEPT_BYTES
                and self.kept_values + values <= MAX_KEPT_VALUES
            )
            if keep:
                self.kept_bytes += len(data)
                self.kept_values += values
            reply = self.script.pop(0) if self.script else Reply(599, '{"error": "unscripted request"}')
        if keep:
            raw = request.get_data(as_text=True)
            try:
                body = json.loads(raw) if raw else None
            except (ValueError, RecursionError):
                body = raw
            received = Received(request.method, request.path, {k.lower(): v for k, v in request.headers.items()}, body)
            with self.lock:
                self.received.append(received)
                self.sent.append(reply)
        else:
            self.server.record_overrun(
                f"request {self.count} of the test, past the {MAX_KEPT_REQUESTS} requests, {MAX_KEPT_BYTES} bytes "
                f"and {MAX_KEPT_VALUES} JSON values a test keeps (answered, not kept)"
            )
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if self.deliver is not None and reply.content_type.partition(";")[0].strip() == "text/event-stream":
            connection = request.environ.get("werkzeug.socket")
            if connection is not None:  # each read sent at once, not held back until the last one is acknowledged
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return Response(iter(self.deliver(reply)), status=reply.status, content_type=reply.content_type)
        return Response(reply.body, status=reply.status, content_type=reply.content_type)


#: Request headers whose values are credentials: a trace shows that they were sent, never their values.
CREDENTIAL_HEADERS = re.compile(r"authorization|api[-_]?key|cookie|token|secret|password", re.IGNORECASE)
#: The most exchanges a trace shows, and the most characters of each body.
TRACE_EXCHANGES = 6
TRACE_BODY = 1500


def wire_trace(provider: LoopbackProvider) -> str:
    """What the loopback provider saw during a test, for its failure: each request received (method, path, headers
    with credentials removed, body) and the reply sent to it (status, content type, body), bounded in number and
    size."""
    with provider.lock:
        exchanges = list(zip(provider.received, [*provider.sent, *[None] * len(provider.received)], strict=False))
    if not exchanges:
        return "the loopback provider received no request"
    lines = [f"the loopback provider received {len(exchanges)} request(s)"]
    for index, (request, reply) in enumerate(exchanges[:TRACE_EXCHANGES]):
        headers = {
            name: "<credential removed>" if CREDENTIAL_HEADERS.search(name) else value
            for name, value in sorted(request.headers.items())
        }
        body = request.body if isinstance(request.body, str) else json.dumps(request.body, ensure_ascii=False)
        lines.append(f"request {index + 1}: {request.method} {request.path}")
        lines.append(f"  headers: {_cut(json.dumps(headers, ensure_ascii=False))}")
        lines.append(f"  body: {_cut(body)}")
        if reply is not None:
            delay = f", after {reply.delay_s} s" if reply.delay_s else ""
            lines.append(f"reply {index + 1}: {reply.status} {reply.content_type}{delay}")
            lines.append(f"  body: {_cut(reply.body)}")
    if len(exchanges) > TRACE_EXCHANGES:
        lines.append(f"… and {len(exchanges) - TRACE_EXCHANGES} more exchange(s)")
    return "\n".join(lines)


def _cut(text: str) -> str:
    return text if len(text) <= TRACE_BODY else text[:TRACE_BODY] + f"… ({len(text)} characters)"


@contextmanager
def loopback() -> Iterator[LoopbackProvider]:
    """A running loopback provider on 127.0.0.1 (threaded, so a slow answer blocks no other request)."""
    server = BoundedServer()
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
        self.server = BoundedServer()

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
            raise_overrun(self.server, "the test")  # the test fails naming it, whatever else it saw


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
