"""The loopback provider of black-box runs against a hostile implementation: a request body over the limit (announced,
chunked, or of too many JSON values) is answered 413 without being kept, headers and request lines are bounded,
requests past those a test keeps are counted, and each overrun is told, bounded, to the test that caused it."""

from __future__ import annotations

import json
import socket

import httpx
import pytest
from werkzeug import Response

from advisor_conformance._contract.loopback import (
    MAX_KEPT_BYTES,
    MAX_KEPT_REQUESTS,
    MAX_REQUEST_BYTES,
    MAX_REQUEST_VALUES,
    LocalServer,
    LoopbackOverrun,
    Reply,
    loopback,
    take_overrun,
)


@pytest.fixture(scope="module")
def provider():
    with loopback() as running:
        yield running


def _exchange(port: int, head: bytes, body_pieces=(), read=True) -> bytes:
    """Send a raw request (its head, then its body piece by piece, stopping if the server closes) and read the
    answer's first bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(head)
        try:
            for piece in body_pieces:
                connection.sendall(piece)
        except OSError:  # the server answered and closed: the rest is not wanted
            pass
        if not read:
            return b""
        try:
            return connection.recv(65536)
        except OSError:
            return b""


def _post_head(length: int | None, extra: bytes = b"") -> bytes:
    framing = b"transfer-encoding: chunked\r\n" if length is None else b"content-length: %d\r\n" % length
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        + framing
        + (extra + b"\r\n")
    )


def _chunks(total: int, size: int = 1 << 20):
    piece = b"%x\r\n%s\r\n" % (size, b"x" * size)
    for _ in range(total // size):
        yield piece
    yield b"0\r\n\r\n"


def test_a_body_announced_over_the_limit_is_refused_unread(provider):
    """A Content-Length of 128 MiB is answered 413 before a byte of the body is sent; nothing is kept, and the
    overrun names the size and the limit."""
    provider.expect(Reply.json({"ok": True}))
    answer = _exchange(provider.server.port, _post_head(128 << 20))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
    assert provider.received == [] and provider.script  # the scripted reply is still there
    what = take_overrun(provider.server, "the test")
    assert what is not None and str(128 << 20) in what and str(MAX_REQUEST_BYTES) in what and len(what) < 1000
    assert take_overrun(provider.server, "the next test") is None  # told once


def test_a_chunked_body_over_the_limit_is_refused_once_it_passes_it(provider):
    """A chunked body is read up to the limit and then refused with 413, the rest read and dropped."""
    provider.expect()
    answer = _exchange(provider.server.port, _post_head(None), _chunks(MAX_REQUEST_BYTES + (2 << 20)))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
    what = take_overrun(provider.server, "the test")
    assert provider.received == [] and what is not None and "chunked" in what


def test_a_body_of_too_many_json_values_is_refused_undecoded(provider):
    """A body under the byte limit that holds more JSON values than the limit is refused without being decoded."""
    provider.expect()
    body = b"[" + b"{}," * MAX_REQUEST_VALUES + b"{}]"
    answer = _exchange(provider.server.port, _post_head(len(body)), [body])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
    what = take_overrun(provider.server, "the test")
    assert provider.received == [] and what is not None and str(MAX_REQUEST_VALUES) in what


def test_a_body_within_the_bounds_is_received_whole(provider):
    """A 1 MiB request body, chunked or not, is received and decoded whole: the bounds leave room for any request."""
    text = "y" * (1 << 20)
    for chunked in (False, True):
        provider.expect(Reply.json({"ok": True}))
        with httpx.Client() as client:
            content = (
                (part for part in [json.dumps({"text": text}).encode()]) if chunked else json.dumps({"text": text})
            )
            answer = client.post(provider.base_url + "/v1/messages", content=content)
        assert answer.status_code == 200 and provider.received[0].body == {"text": text}
        assert take_overrun(provider.server, "the test") is None


@pytest.mark.parametrize(
    "extra, status",
    [(b"".join(b"x-h%d: v\r\n" % n for n in range(200)), b"431"), (b"x-long: " + b"v" * 70_000 + b"\r\n", b"431")],
    ids=["200-headers", "a-70-kb-header"],
)
def test_headers_past_the_http_servers_bounds_are_refused(provider, extra, status):
    """More than 100 headers, or a header line over 64 KiB, is refused by the HTTP server before the provider sees
    the request."""
    provider.expect(Reply.json({"ok": True}))
    answer = _exchange(provider.server.port, _post_head(2, extra), [b"{}"])
    assert answer.startswith(b"HTTP/1.0 " + status) or answer.startswith(b"HTTP/1.1 " + status), answer[:100]
    assert provider.received == []


@pytest.mark.parametrize(
    "count, body, kept",
    [(MAX_KEPT_REQUESTS + 5, "{}", MAX_KEPT_REQUESTS), (5, '"' + "z" * (MAX_KEPT_BYTES // 4 - 16) + '"', 4)],
    ids=["more-requests-than-kept", "more-bytes-than-kept"],
)
def test_requests_past_those_a_test_keeps_are_counted_and_told(provider, count, body, kept):
    """A test's requests past MAX_KEPT_REQUESTS, or past MAX_KEPT_BYTES in all, are answered and counted but not kept;
    the overrun says so."""
    provider.expect()
    with httpx.Client() as client:
        statuses = {client.post(provider.base_url + "/v1/messages", content=body).status_code for _ in range(count)}
    assert statuses == {599} and len(provider.received) == kept and provider.count == count
    what = take_overrun(provider.server, "the test")
    assert what is not None and str(MAX_KEPT_REQUESTS) in what and len(what) < 2000


def test_a_local_server_fails_the_test_that_overran_it():
    """A test's own local server (an answer the scripted provider cannot give) raises the overrun when it stops."""

    class Server(LocalServer):
        def handle(self, request):
            return Response("{}", content_type="application/json")

    with pytest.raises(LoopbackOverrun, match=str(MAX_REQUEST_BYTES)):
        with Server().running() as server:
            _exchange(server.server.port, _post_head(MAX_REQUEST_BYTES + 1))
