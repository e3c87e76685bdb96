"""advisor_reference._http against hostile servers (in process with httpx's MockTransport, or a raw socket on
127.0.0.1): the whole-call deadline, bounded bodies, events and decompression, and answers no decoder survives."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import zlib
from contextlib import contextmanager

import httpx
import pytest
import respx
from hypothesis import example, given, settings
from hypothesis import strategies as st

from advisor_reference import ProviderError
from advisor_reference._http import (
    MAX_BODY_BYTES,
    MAX_ERROR_BODY_BYTES,
    MAX_EVENT_BYTES,
    HttpProvider,
    bound_by_deadlines,
)
from advisor_reference.adapter import ReferenceAdapter

from ..support.provider_requests import provider_request

MiB = 1024 * 1024
SSE = {"content-type": "text/event-stream"}
ANTHROPIC_OK = b'{"content":[{"type":"text","text":"fine"}],"stop_reason":"end_turn"}'


def _provider(handler, kind="anthropic", timeout=5.0):
    return HttpProvider(
        kind, "https://provider.test", timeout=timeout, client=httpx.Client(transport=httpx.MockTransport(handler))
    )


class Source:
    """A body served piece by piece (never whole in memory), counting what the client took."""

    def __init__(self, piece: bytes, count: int, *, head: bytes = b"", tail: bytes = b"", pause: float = 0.0):
        self.piece, self.count, self.head, self.tail, self.pause = piece, count, head, tail, pause
        self.sent = 0

    def __iter__(self):
        for chunk in (self.head, *([self.piece] * self.count), self.tail):
            if self.pause:
                time.sleep(self.pause)
            self.sent += len(chunk)
            yield chunk


def _failure(provider, stream=False):
    with pytest.raises(ProviderError) as info:
        provider.complete(provider_request(stream=stream))
    return info.value


# -- the deadline ----------------------------------------------------------------------------------------------------


@contextmanager
def _trickling_server(*, in_headers: bool, interval: float):
    """A server on 127.0.0.1 that sends its answer (or its status line) one byte every ``interval`` seconds."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    stop = threading.Event()

    def serve():
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n"
            if not in_headers:
                connection.sendall(head)
            for byte in head if in_headers else b" " * 100:
                if stop.wait(interval):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()
        thread.join(5)


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "status-line"])
def test_a_server_that_trickles_is_cut_at_the_deadline(in_headers):
    """A server sending a byte every 0.4 s, within every read timeout, is cut when the 0.5 s call deadline passes."""
    with _trickling_server(in_headers=in_headers, interval=0.4) as url:
        provider = HttpProvider("anthropic", url, timeout=0.5)
        start = time.monotonic()
        error = _failure(provider)
        elapsed = time.monotonic() - start
        provider.close()
    assert 0.45 <= elapsed < 0.75, elapsed
    assert "deadline" in str(error).lower() and error.status is None


def test_the_deadline_reaches_the_sockets_of_a_client_the_provider_makes():
    """A provider's own client waits on its sockets only until the deadline; a given client is left as it is."""
    provider = HttpProvider("openai", "https://provider.test")
    assert bound_by_deadlines(provider.client) is False  # already bound when the provider made it
    assert bound_by_deadlines(httpx.Client()) is True
    assert bound_by_deadlines(httpx.Client(transport=httpx.MockTransport(lambda request: None))) is False
    provider.close()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_an_in_process_trickle_is_cut_at_the_deadline(stream):
    """A body that keeps coming in small pieces fails once the call's deadline passes, streaming or not."""
    piece = b'data: {"type":"ping"}\n\n' if stream else b" "
    source = Source(piece, 400, pause=0.01)
    provider = _provider(lambda request: httpx.Response(200, headers=SSE, content=source), timeout=0.3)
    start = time.monotonic()
    error = _failure(provider, stream)
    assert time.monotonic() - start < 1.5 and source.sent < 400 * len(piece)
    assert "deadline" in str(error).lower()


def test_the_stream_required_retry_gets_what_is_left_of_the_deadline():
    """The streaming retry after a stream-required error is given only what is left of the call's deadline."""
    timeouts = []

    def answer(request):
        timeouts.append(request.extensions["timeout"]["read"])
        if len(timeouts) == 1:
            time.sleep(0.3)
            return httpx.Response(400, json={"detail": "Stream must be set to true"})
        return httpx.Response(200, headers=SSE, content=b"event: message_stop\ndata: {}\n\n")

    assert _provider(answer, timeout=1.0).complete(provider_request()).text == ""
    assert timeouts[0] <= 1.0 and timeouts[1] <= 0.71


def test_no_retry_is_sent_once_the_deadline_has_passed():
    """A stream-required error that arrives after the deadline fails the call without a second request."""
    calls = []

    def answer(request):
        calls.append(request)
        time.sleep(0.25)
        return httpx.Response(400, json={"detail": "Stream must be set to true"})

    error = _failure(_provider(answer, timeout=0.2))
    assert len(calls) == 1 and "deadline" in str(error).lower()


# -- bounded reads ---------------------------------------------------------------------------------------------------


def test_an_answer_body_over_the_cap_is_a_provider_error_read_no_further():
    """A plain answer larger than MAX_BODY_BYTES fails, and the client stops reading just past the cap."""
    source = Source(b" " * MiB, 200)
    error = _failure(_provider(lambda request: httpx.Response(200, content=source)))
    assert error.status is None and source.sent <= MAX_BODY_BYTES + 2 * MiB


def test_an_answer_body_at_the_cap_is_read_whole():
    """A plain answer of exactly MAX_BODY_BYTES is decoded."""
    padding = b" " * (MAX_BODY_BYTES - len(ANTHROPIC_OK))
    answer = _provider(lambda request: httpx.Response(200, content=Source(padding, 1, tail=ANTHROPIC_OK)))
    assert answer.complete(provider_request()).text == "fine"


def test_an_answer_of_too_many_json_values_is_refused_before_decoding():
    """A plain answer within the size cap but of millions of tiny JSON values (each 25 times its size once decoded)
    fails as a provider error."""
    source = Source(b"{}," * 100_000, 20, head=b'{"content":[', tail=b"{}]}")
    assert _failure(_provider(lambda request: httpx.Response(200, content=source))).status is None


def test_an_error_body_is_read_only_up_to_its_cap():
    """A huge error body gives its status and excerpt after reading at most MAX_ERROR_BODY_BYTES of it."""
    source = Source(b"overloaded " * 100_000, 200)
    error = _failure(_provider(lambda request: httpx.Response(503, content=source)))
    assert error.status == 503 and "overloaded" in str(error)
    assert source.sent <= MAX_ERROR_BODY_BYTES + 2 * MiB


def _gzip(data: bytes, times: int, wbits: int = zlib.MAX_WBITS | 16, head: bytes = b"") -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(head) + b"".join(packer.compress(data) for _ in range(times)) + packer.flush()


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compression_bomb_stops_at_the_body_cap(encoding):
    """A small compressed answer (valid JSON) that expands past MAX_BODY_BYTES fails instead of being expanded."""
    bomb = _gzip(
        b" " * MiB,
        MAX_BODY_BYTES // MiB + 1,
        zlib.MAX_WBITS | 16 if encoding == "gzip" else zlib.MAX_WBITS,
        head=ANTHROPIC_OK,
    )
    error = _failure(
        _provider(lambda request: httpx.Response(200, headers={"content-encoding": encoding}, content=iter([bomb])))
    )
    assert error.status is None and len(bomb) < MiB


@pytest.mark.parametrize(
    "encoding, wbits",
    [("gzip", zlib.MAX_WBITS | 16), ("deflate", zlib.MAX_WBITS), ("deflate", -zlib.MAX_WBITS), ("identity", None)],
    ids=["gzip", "zlib-deflate", "raw-deflate", "identity"],
)
def test_compressed_answers_are_decoded(encoding, wbits):
    """A gzip, deflate (with or without its zlib header) or identity answer decodes to the answer."""
    body = ANTHROPIC_OK if wbits is None else _gzip(ANTHROPIC_OK, 1, wbits)
    provider = _provider(
        lambda request: httpx.Response(200, headers={"content-encoding": encoding}, content=iter([body[:7], body[7:]]))
    )
    assert provider.complete(provider_request()).text == "fine"


@pytest.mark.parametrize("encoding", ["br", "zstd", "gzip, gzip", "compress"])
def test_an_encoding_not_asked_for_is_a_provider_error(encoding):
    """An answer in a content-encoding the client did not ask for (only gzip and deflate) fails, naming it."""
    seen = []

    def answer(request):
        seen.append(request.headers["accept-encoding"])
        return httpx.Response(200, headers={"content-encoding": encoding}, content=iter([b"xx"]))

    assert encoding in str(_failure(_provider(answer)))
    assert seen == ["gzip, deflate"]


def test_a_corrupt_compressed_body_is_a_provider_error():
    """A gzip body that does not decompress is a provider error."""
    assert (
        _failure(
            _provider(
                lambda request: httpx.Response(
                    200, headers={"content-encoding": "gzip"}, content=iter([b"\x1f\x8bnot gzip"])
                )
            )
        ).status
        is None
    )


@pytest.mark.parametrize(
    "piece, head",
    [(b"x" * MiB, b"data: "), (b"data: x\n" * (MiB // 8), b"")],
    ids=["line-without-end", "event-without-end"],
)
def test_an_event_over_the_cap_is_a_provider_error_read_no_further(piece, head):
    """A stream line that never ends, or an event of endless data lines, fails once it passes MAX_EVENT_BYTES."""
    source = Source(piece, 300, head=head)
    _failure(_provider(lambda request: httpx.Response(200, headers=SSE, content=source)), stream=True)
    assert source.sent <= MAX_EVENT_BYTES + 2 * MiB


def test_a_stream_larger_than_the_event_cap_in_small_events_is_read_whole():
    """Many events that together pass MAX_EVENT_BYTES, each small, make the answer."""
    text = "x" * 1000
    chunk = ("data: " + json.dumps({"choices": [{"delta": {"content": text}}]}) + "\n\n").encode() * 100
    source = Source(chunk, (MAX_EVENT_BYTES // len(chunk)) * 2, tail=b"data: [DONE]\n\n")
    answer = _provider(lambda request: httpx.Response(200, headers=SSE, content=source), "openai").complete(
        provider_request(stream=True)
    )
    assert len(answer.text) == 100_000 * source.count


# -- answers no decoder survives -------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_json_nested_too_deep_is_a_provider_error(stream):
    """An answer or an event whose JSON nests deeper than the decoder goes fails as a provider error."""
    deep = b"[" * 200_000
    body = b"data: " + deep + b"\n\n" if stream else deep
    provider = _provider(
        lambda request: httpx.Response(200, headers=SSE if stream else {}, content=iter([body])), "openai"
    )
    assert _failure(provider, stream).status is None


@pytest.mark.parametrize(
    "base_url",
    ["ftp://provider.test/v1", "provider.test/v1", "https:///v1", "http://h:port"],
    ids=["ftp", "no-scheme", "no-host", "bad-port"],
)
def test_a_base_url_that_is_not_http_cannot_make_a_provider(base_url):
    """A base URL that is not http or https with a host is refused when the provider is made."""
    with pytest.raises(ValueError):
        HttpProvider("openai", base_url)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), 3601])
def test_a_timeout_that_is_not_a_positive_bounded_number_is_refused(timeout):
    """A provider's timeout must be a positive number of seconds, at most an hour."""
    with pytest.raises(ValueError):
        HttpProvider("openai", "https://provider.test", timeout=timeout)


@pytest.mark.parametrize(
    "exc",
    [
        httpx.UnsupportedProtocol("ftp"),
        httpx.LocalProtocolError("bad header"),
        httpx.ProxyError("proxy down"),
        httpx.DecodingError("bad body"),
    ],
    ids=["protocol", "local-protocol", "proxy", "decoding"],
)
def test_any_failure_of_the_exchange_is_a_provider_error(exc):
    """A transport failure outside the usual ones is still a provider error naming the provider, not a crash."""

    def fail(request):
        raise exc

    assert "anthropic" in str(_failure(_provider(fail)))


# -- header values ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "api_key", ["sk-ok\r\nx-evil: 1", "sk-\u00e9t\u00e9", "sk\x00"], ids=["crlf", "non-ascii", "nul"]
)
def test_an_api_key_that_is_no_header_value_is_never_sent(api_key):
    """An API key holding CR/LF, a control character or non-ASCII fails the call naming no secret, sending
    nothing."""
    sent = []
    provider = HttpProvider(
        "openai",
        "https://provider.test",
        api_key=api_key,
        client=httpx.Client(transport=httpx.MockTransport(sent.append)),
    )
    error = _failure(provider)
    assert sent == [] and "authorization" in str(error) and api_key not in str(error)


@given(
    key=st.text(max_size=20),
    api_key=st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=20),
)
@example(key="k\r\nx-injected: 1", api_key="sk")
@example(key="caf\u00e9", api_key="")
@settings(max_examples=50)
def test_every_header_the_client_sends_is_printable_ascii(key, api_key):
    """Whatever the cache key, every header value a Codex call puts on the wire is printable ASCII."""
    sent = []

    def answer(request):
        sent.append(request)
        return httpx.Response(200, json={"output": []})

    request = provider_request(prompt_cache_key=key)
    HttpProvider(
        "codex", "https://provider.test", api_key=api_key, client=httpx.Client(transport=httpx.MockTransport(answer))
    ).complete(request)
    (wire,) = sent
    assert all(re.fullmatch(rb"[\x20-\x7e]*", value) for _, value in wire.headers.raw)


# -- credentials in errors -------------------------------------------------------------------------------------------

KEY = "sk-live-9f8e7d6c5b4a3210"
URL = "https://alice:pa55w0rd@provider.test/v1?key=qs-s3cr3t-t0ken"
SECRETS = (KEY, "pa55w0rd", "qs-s3cr3t-t0ken")


def _leaks(text):
    """The secrets, or prefixes of at least 6 characters of them, that ``text`` shows."""
    return [secret[:size] for secret in SECRETS for size in range(6, len(secret) + 1) if secret[:size] in text]


@pytest.mark.parametrize(
    "status, body, stream",
    [
        (401, json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}."}}), False),
        (400, f"echo: authorization: Bearer {KEY}; x-api-key: {KEY}", False),
        (500, "x" * 290 + KEY, False),
        (403, f"denied for {URL}", True),
        (200, f'event: error\ndata: {{"type":"error","error":{{"message":"bad key {KEY}"}}}}\n\n', True),
        (200, f"data: {'y' * 190}{KEY}\n\n", True),
    ],
    ids=[
        "echoed-key",
        "echoed-headers",
        "key-cut-by-the-excerpt",
        "echoed-url",
        "stream-error-event",
        "key-cut-in-an-event-quote",
    ],
)
def test_error_messages_never_show_credentials(status, body, stream):
    """An error whose body or event echoes the API key or the base URL's user info and query shows none of them."""
    headers = SSE if stream and status == 200 else {}
    provider = HttpProvider(
        "anthropic",
        URL,
        api_key=KEY,
        client=httpx.Client(
            transport=httpx.MockTransport(
                lambda request: httpx.Response(status, headers=headers, content=body.encode())
            )
        ),
    )
    error = _failure(provider, stream)
    assert _leaks(str(error)) == [] and (error.status == status or status == 200)


@pytest.mark.parametrize(
    "exc", [httpx.ConnectError(f"refused at {URL}"), httpx.ReadTimeout("slow")], ids=["refused", "timeout"]
)
def test_a_transport_failure_names_the_host_without_credentials(exc):
    """A refused connection or a timeout names the provider's host but not the base URL's user info or query."""

    def fail(request):
        raise exc

    provider = HttpProvider("openai", URL, api_key=KEY, client=httpx.Client(transport=httpx.MockTransport(fail)))
    message = str(_failure(provider))
    assert "provider.test" in message and _leaks(message) == []


def test_a_scenario_answer_shows_no_credential():
    """A black-box scenario whose provider echoes the key answers a provider_error that holds no credential."""
    echo = httpx.Response(401, text=f"bad key {KEY} for {URL}")
    params = {
        "runtime": {"http_provider": {"kind": "openai", "base_url": URL, "api_key": KEY, "timeout_ms": 2000}},
        "steps": [{"call": {"input": {}, "snapshot": [{"role": "user", "content": "go"}]}}],
    }
    with respx.mock() as mock:
        mock.route(host="provider.test").mock(return_value=echo)
        out = ReferenceAdapter().scenario(params)
    assert out["calls"][0]["error"]["code"] == "provider_error"
    assert _leaks(json.dumps(out)) == []
