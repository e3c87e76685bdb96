"""The HTTP provider: sends an encoded request with httpx and reads the answer or the event stream.

* Without reasoning the call is one non-streaming request; with reasoning it
  is a stream, and only a stream.
* A non-streaming call that fails with a stream-required error (HTTP 400
  whose body, lower-cased, holds ``stream`` and ``must`` or ``required``) is
  retried exactly once as a stream. No other error is retried.
* Event streams are read as the event-stream format says, the way httpx-sse
  reads them (but for a leading byte-order mark, which the format drops and
  httpx-sse keeps); a stream that ends before its final event is an error.
* Every failure is a :class:`ProviderError` that says what happened: the
  status and an excerpt of the body, a body that is not JSON, a refused
  connection, a passed deadline.

Against a hostile or broken server:

* ``timeout`` is a deadline for the whole call: connecting, sending, every
  read, and the stream-required retry, which gets what is left of it. On a
  client the provider makes itself, every socket operation waits at most until
  the deadline (:class:`_DeadlineBackend`), so a server that trickles a byte a
  second cannot hold the call open; bodies and streams are also checked
  against the deadline between reads.
* Reads are bounded (the sizes below, after decompression; the client decodes
  gzip and deflate itself, a bounded piece at a time, and asks for nothing
  else); JSON that nests too deep for the decoder is a provider error, not a
  crash, and JSON of more than ``_wire.MAX_JSON_VALUES`` values is refused
  before it is decoded (decoded, each value costs 25 times its bytes).
* No credential reaches an error message: every message goes through
  :func:`~._redact.redact` with the API key, the base URL's user info and
  query string, and the proxy's user info; the base URL is shown without them.
* The client takes its proxy and certificates from the environment when the
  first call needs it (:mod:`._environment`): a setting it cannot use
  (``ALL_PROXY=socks5://...`` without socksio, ``HTTPS_PROXY=ftp://...``, a
  stale ``SSL_CERT_FILE``) fails that call as a provider error naming the
  variable, never its value, and a failure to connect through a proxy names
  the proxy's variable too.
* A header value that is not printable ASCII (an API key with CR/LF) is never
  sent; the call fails naming the header, not the value.
* Text is decoded in the charset the answer declares; a charset Python knows
  but cannot decode with (``undefined``, ``idna``, ``base64``) is read as
  UTF-8 in an error message, and is a provider error on an event stream, as
  is a stream that does not decode in its own charset. Whatever the status
  line, headers and body, a call ends in an answer or a provider error.
"""

from __future__ import annotations

import codecs
import contextvars
import itertools
import json
import math
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpcore
import httpx

from . import _anthropic, _codex, _openai
from ._environment import ClientEnvironment, client_environment
from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._redact import display_url, redact, url_secrets
from ._wire import MAX_JSON_VALUES, HttpRequest, StreamState, WireFormat, too_many_json_values

_T = TypeVar("_T")  # what a call sent by HttpProvider.send answers

WIRES: dict[str, WireFormat] = {wire.kind: wire for wire in (_anthropic.WIRE, _openai.WIRE, _codex.WIRE)}
EXCERPT = 300
#: A non-streaming answer body, decompressed, holds at most this many bytes: an advisor note is a few KB and
#: even a 128k-token answer with its thinking is well under 2 MB of JSON, so 16 MiB is generous while a hostile
#: body (or a gzip bomb) stops here instead of filling memory.
MAX_BODY_BYTES = 16 * 1024 * 1024
#: Of an error body only this much is read: the message shows an excerpt of 300 characters and the
#: stream-required test looks at a short JSON error, so 64 KiB is plenty.
MAX_ERROR_BODY_BYTES = 64 * 1024
#: A server-sent event (with the comments and blank lines before it, and so any single line) holds at most this
#: many bytes: a Responses ``response.completed`` event repeats the whole answer, so this leaves room for the
#: longest answer a large max_tokens allows, escaped, while a line that never ends stops here.
MAX_EVENT_BYTES = 4 * 1024 * 1024
#: Bodies are decompressed and handed on this many bytes at a time, so no single step can expand a small
#: compressed chunk into a huge one.
READ_PIECE = 64 * 1024
#: The longest deadline a provider takes: one hour.
MAX_TIMEOUT_MS = 3_600_000
MAX_TIMEOUT_S = MAX_TIMEOUT_MS / 1000
#: The encodings the client asks for, and decodes itself; anything else is refused.
ACCEPT_ENCODING = "gzip, deflate"
_HEADER_VALUE = re.compile(r"[\x20-\x7e\t]*")
#: A connection failure of TLS: the ssl module's reasons (``[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify ...``).
_TLS_FAILURE = re.compile(r"(?i)\bssl\b|certificate")

#: The deadline (a time.monotonic() value) of the call running in this thread.
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("advisor_http_deadline", default=None)


def encode(kind: str, request: ProviderRequest, stream: bool | None = None) -> HttpRequest:
    """Encode a neutral request for a provider kind (``anthropic``, ``openai``, ``codex``)."""
    if kind not in WIRES:
        raise ValueError(f"unknown provider kind {kind!r}; expected one of {', '.join(WIRES)}")
    return WIRES[kind].encode(request, request.stream if stream is None else stream)


def is_stream_required(status: int, body: str) -> bool:
    """The origin's test for a stream-required error (rule: streaming.stream-required-detection)."""
    text = body.lower()
    return status == 400 and "stream" in text and ("must" in text or "required" in text)


def base_url_problem(base_url: str) -> str | None:
    """Why ``base_url`` cannot be a provider's base URL (it must be http or https with a host), or None."""
    try:
        parts = urlsplit(base_url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        return "is not a URL"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "must be an http or https URL with a host"
    return None


class StreamRequired(ProviderError):
    """The provider only answers streaming calls."""


class DeadlinePassed(ProviderError):
    """The call's deadline passed before the answer was complete."""


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


# -- the deadline, down to each socket operation ----------------------------------------------------------------------


def _until_deadline(timeout: float | None, expired: type[Exception]) -> float | None:
    """The timeout of one socket operation: at most what is left of this thread's call deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every read and write waits at most until the call's deadline."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _until_deadline(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _until_deadline(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, _until_deadline(timeout, httpcore.ConnectTimeout))
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend with every connection bounded by the call's deadline."""

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(
            self._backend.connect_tcp(
                host, port, _until_deadline(timeout, httpcore.ConnectTimeout), local_address, socket_options
            )
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:  # pragma: no cover - no UDS use
        return _DeadlineStream(
            self._backend.connect_unix_socket(path, _until_deadline(timeout, httpcore.ConnectTimeout), socket_options)
        )

    def sleep(self, seconds: float) -> None:  # pragma: no cover - httpcore sleeps only between connect retries
        self._backend.sleep(seconds)


def bound_by_deadlines(client: httpx.Client) -> bool:
    """Put the deadline backend under every connection pool of ``client``; whether there was one to wrap.

    httpx builds its pools itself (its transports take no network backend), so this reaches the pool of each
    transport; a transport without one (a MockTransport) keeps only the between-reads checks.
    """
    wrapped = False
    for transport in (client._transport, *client._mounts.values()):  # private attributes: see above
        pool: Any = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend) and not isinstance(backend, _DeadlineBackend):
            pool._network_backend = _DeadlineBackend(backend)
            wrapped = True
    return wrapped


# -- bounded reading --------------------------------------------------------------------------------------------------


class _Decoder:
    """The content-encoding of a body, undone a bounded piece at a time (identity, gzip or deflate)."""

    def __init__(self, headers: httpx.Headers, kind: str) -> None:
        encodings = [value.strip().lower() for value in headers.get_list("content-encoding", split_commas=True)]
        encodings = [value for value in encodings if value not in ("", "identity")]
        self._zlib: Any = None
        self._deflate = False  # still unsure whether a deflate body has its zlib header
        if len(encodings) > 1 or (encodings and encodings[0] not in ("gzip", "x-gzip", "deflate")):
            raise ProviderError(
                f"{kind} answered with content-encoding {', '.join(encodings)}, which the client did not ask for"
            )
        if encodings:
            self._deflate = encodings[0] == "deflate"
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS if self._deflate else zlib.MAX_WBITS | 16)
        self._kind = kind

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of the next raw chunk, in pieces of at most READ_PIECE bytes."""
        if self._zlib is None:
            for start in range(0, len(data), READ_PIECE):
                yield data[start : start + READ_PIECE] if len(data) > READ_PIECE else data
            return
        while not self._zlib.eof:  # bytes after the end of the compressed stream are ignored, as httpx does
            try:
                out = self._zlib.decompress(data, READ_PIECE)
            except zlib.error as exc:
                if self._deflate:  # a deflate body without its zlib header, as httpx also accepts
                    self._zlib, self._deflate = zlib.decompressobj(-zlib.MAX_WBITS), False
                    continue
                raise ProviderError(f"{self._kind} sent a compressed body that does not decompress: {exc}") from None
            self._deflate = False
            data = self._zlib.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < READ_PIECE:  # all input used, and nothing more is pending in zlib
                return


def _decoded(response: httpx.Response, deadline: float, kind: str) -> Iterator[bytes]:
    """The decoded body in pieces of at most READ_PIECE bytes; a passed deadline is a DeadlinePassed."""
    try:  # a response already read (in memory, from an in-process transport) holds its decoded content
        chunks: Iterator[bytes] = iter((response.content,))
        decoder = _Decoder(httpx.Headers(), kind)
    except httpx.ResponseNotRead:
        chunks, decoder = response.iter_raw(), _Decoder(response.headers, kind)
    for chunk in chunks:
        if time.monotonic() >= deadline:
            raise DeadlinePassed(f"{kind} did not finish its answer before the deadline")
        yield from decoder.pieces(chunk)


def _read(response: httpx.Response, deadline: float, kind: str, limit: int, *, cut: bool) -> bytes:
    """The decoded body up to ``limit`` bytes: cut there (``cut``) or a provider error past it."""
    parts, size = [], 0
    for piece in _decoded(response, deadline, kind):
        size += len(piece)
        if size > limit:
            if cut:
                parts.append(piece[: len(piece) - (size - limit)])
                break
            raise ProviderError(f"{kind} answered with a body larger than {limit} bytes")
        parts.append(piece)
    return b"".join(parts)


def text_encoding(response: httpx.Response) -> str | None:
    """The codec a provider's text is decoded with: the charset its Content-Type declares; UTF-8 without one or for a
    name Python does not know (as httpx reads it); None for a codec Python knows that decodes no text with
    replacement (``undefined`` and ``idna`` raise whatever the bytes, ``base64`` and ``rot13`` are no text
    encodings)."""
    try:
        charset = response.charset_encoding
    except ValueError:  # a Content-Type header the email parser cannot read
        charset = None
    if charset is None:
        return "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        return "utf-8"
    try:
        b"a".decode(charset, "replace")  # LookupError: no text encoding; UnicodeError: no replacing
    except (LookupError, UnicodeError):  # (not b"": an empty input is decoded without looking the codec up)
        return None
    return charset


def _text(response: httpx.Response, data: bytes) -> str:
    """A body's text for an error message: decoded with its charset, or as UTF-8 when that charset cannot decode it
    (a codec may still fail on the bytes themselves: ``punycode`` on non-ASCII, ``utf-16`` on an odd length)."""
    try:
        return data.decode(text_encoding(response) or "utf-8", "replace")
    except UnicodeError:
        return data.decode("utf-8", "replace")


def _events(response: httpx.Response, deadline: float, kind: str) -> Iterator[tuple[str, str]]:
    """The server-sent events of a stream as ``(event name, data)``, each (with what precedes it) at most
    MAX_EVENT_BYTES.

    The text is the response's, decoded by httpx as its charset says, read over the bounded, decoded pieces; the
    bytes since the last event are counted as they pass, which bounds both a line without an end and an event of
    endless ``data:`` lines. A byte-order mark opening the stream is dropped (httpx-sse keeps it in the first field's
    name). Lines end at CR LF, CR or LF, and each is read as the event-stream format says, as
    httpx-sse reads it (tests/reference/test_http_events.py holds the two equal on any stream): a blank line ends an
    event, which is dispatched when it has a name, data, an id or a retry (the id is kept for the events after
    it); a line starting with a colon is a comment; a field's value is what follows its first colon, less one
    space; ``data`` lines are joined with LF; an unnamed event is ``message``.
    """
    content_type = response.headers.get("content-type", "")
    if "text/event-stream" not in content_type.partition(";")[0]:
        raise ProviderError(f"{kind} did not answer with an event stream: its Content-Type is {content_type!r}")
    pending = 0

    def pieces() -> Iterator[bytes]:
        nonlocal pending
        for piece in _decoded(response, deadline, kind):
            pending += len(piece)
            if pending > MAX_EVENT_BYTES:
                raise ProviderError(f"{kind} sent an event or a line longer than {MAX_EVENT_BYTES} bytes")
            yield piece

    # An event stream is UTF-8 whatever its charset parameter says (HTML, "Interpreting an event stream"): the media
    # type goes on, the parameters do not (rule: streaming.openai-chunks, streaming.anthropic-events).
    media_type = content_type.partition(";")[0].strip()
    bounded = httpx.Response(
        response.status_code, headers={"content-type": media_type}, content=pieces(), default_encoding="utf-8"
    )
    data: list[str] = []
    name, last_id, retry = "", "", None  # the event being read (and data above)
    head: list[str] = []  # the start of a line whose end has not come yet
    cr = False  # the text so far ends with CR: if the next begins with LF, the two end one line
    opening = True  # no text yet: a byte-order mark that opens the stream is dropped
    for text in itertools.chain(bounded.iter_text(), [None]):
        if text is None:  # the end: a last line without its end is a line too
            if not head and not cr:
                break
            lines = ["".join(head)]
        else:
            if opening and text:  # rule: streaming.openai-chunks (one leading U+FEFF is ignored)
                text, opening = text.removeprefix("\ufeff"), False
            if cr:
                text = "\r" + text
            cr = text.endswith("\r")
            if cr:
                text = text[:-1]
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            if len(lines) == 1:
                if text:
                    head.append(text)
                continue
            if head:
                lines[0] = "".join(head) + lines[0]
            rest = lines.pop()
            head = [rest] if rest else []
        events = []
        for line in lines:
            if not line:  # the end of an event
                if data or name or last_id or retry is not None:
                    events.append((name or "message", "\n".join(data)))
                    name, data, retry = "", [], None
                continue
            if line.startswith("data:"):  # most lines: what the partition below makes of them, without it
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
                continue
            if line[0] == ":":  # a comment
                continue
            field, _, value = line.partition(":")
            if value[:1] == " ":
                value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
            elif field == "id":
                if "\0" not in value:
                    last_id = value
            elif field == "retry":
                try:
                    retry = int(value)
                except ValueError:
                    pass
        if events:  # those of this text, at once
            pending = 0
            yield from events


class HttpProvider:
    """A provider reached over HTTP: Anthropic Messages, OpenAI chat completions or Codex Responses.

    Its steps are public methods, the places a variant overrides: :meth:`complete`, :meth:`complete_plain`,
    :meth:`complete_stream`, :meth:`open_response`, :meth:`read_error_body`, :meth:`raise_for_status` and
    :meth:`send`. The rest (headers, reading the body, redaction) is private.
    """

    def __init__(
        self, kind: str, base_url: str, *, api_key: str = "", timeout: float = 60.0, client: httpx.Client | None = None
    ) -> None:
        if kind not in WIRES:
            raise ValueError(f"unknown provider kind {kind!r}")
        problem = base_url_problem(base_url)
        if problem:
            raise ValueError(f"base_url {problem}: {display_url(base_url)!r}")
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT_S):
            raise ValueError(f"timeout must be a positive number of seconds, at most {MAX_TIMEOUT_S:g}")
        self.wire = WIRES[kind]
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = float(timeout)
        self.secrets = tuple(part for part in (api_key, *url_secrets(base_url)) if part)
        self.environment = ClientEnvironment()  # what the provider's own client took from the environment
        self._client = client
        self._client_lock = threading.Lock()

    @property
    def client(self) -> httpx.Client:
        """The HTTP client: the one given, else the provider's own, made on first use with the proxy and the
        certificates of the environment (a setting it cannot use is a ProviderError naming the variable)."""
        with self._client_lock:  # concurrent calls share one client
            if self._client is None:
                environment = client_environment(self.base_url)
                client = environment.client(self.timeout)
                bound_by_deadlines(client)
                self.environment = environment
                self.secrets = (*self.secrets, *(part for part in environment.secrets if part))
                self._client = client
            return self._client

    def close(self) -> None:
        with self._client_lock:
            if self._client is not None:
                self._client.close()

    def _headers(self, encoded: HttpRequest) -> dict[str, str]:
        headers = {**encoded.headers, "accept-encoding": ACCEPT_ENCODING}
        if self.api_key:
            if self.wire.kind == "anthropic":
                headers["x-api-key"] = self.api_key
            else:
                headers["authorization"] = f"Bearer {self.api_key}"
        for name, value in headers.items():
            if not _HEADER_VALUE.fullmatch(value):  # never CR, LF, other controls or non-ASCII on the wire
                raise ProviderError(
                    f"the {name} header of the {self.wire.kind} request would not be printable "
                    f"ASCII, so the request is not sent"
                )
        return headers

    def complete(self, request: ProviderRequest) -> ProviderAnswer:
        """One advisor call: streaming when reasoning is set; otherwise plain, with the stream-required retry.

        The whole call, the retry included, has ``timeout`` seconds.
        """
        deadline = time.monotonic() + self.timeout
        if request.stream or request.reasoning is not None:  # rule: streaming.reasoning-streams
            return self.complete_stream(request, deadline)
        try:
            return self.complete_plain(request, deadline)  # rule: streaming.non-streaming-default
        except StreamRequired:  # only this error (rules: streaming.stream-required-retry, streaming.no-other-retry)
            return self.complete_stream(request, deadline)  # with what is left of the deadline

    # -- the two kinds of call ---------------------------------------------------------

    def open_response(self, encoded: HttpRequest, deadline: float) -> Any:
        """The streamed HTTP response to ``encoded`` (a context manager), given what is left of the deadline."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed(f"the deadline of the {self.wire.kind} call passed before the request was sent")
        return self.client.stream(
            "POST",
            self.base_url + encoded.path,
            json=encoded.body,
            headers=self._headers(encoded),
            timeout=httpx.Timeout(left),
        )

    def read_error_body(self, response: httpx.Response, deadline: float) -> str:
        """The text of an error response's body, read up to its cap within the deadline."""
        return _text(response, _read(response, deadline, self.wire.kind, MAX_ERROR_BODY_BYTES, cut=True))

    def complete_plain(self, request: ProviderRequest, deadline: float | None = None) -> ProviderAnswer:
        """One unstreamed call: the encoded request, its JSON answer decoded."""
        deadline = time.monotonic() + self.timeout if deadline is None else deadline
        encoded = self.wire.encode(request, False)

        def call() -> ProviderAnswer:
            with self.open_response(encoded, deadline) as response:
                if response.status_code >= 400:
                    self.raise_for_status(response.status_code, self.read_error_body(response, deadline), stream=False)
                body = _read(response, deadline, self.wire.kind, MAX_BODY_BYTES, cut=False)
            if too_many_json_values(body):
                raise ProviderError(f"{self.wire.kind} answered with a body of more than {MAX_JSON_VALUES} JSON values")
            try:
                payload = json.loads(body)
            except (ValueError, RecursionError):  # rule: streaming.failure-report
                raise ProviderError(
                    f"{self.wire.kind} answered HTTP {response.status_code} with a body that is not JSON: "
                    f"{_excerpt(redact(_text(response, body[:MAX_ERROR_BODY_BYTES]), self.secrets))!r}"
                ) from None
            return self.wire.decode(payload)

        return self.send(call, deadline)

    def complete_stream(self, request: ProviderRequest, deadline: float | None = None) -> ProviderAnswer:
        """One streamed call: the encoded request, its server-sent events fed to the wire's stream reader."""
        deadline = time.monotonic() + self.timeout if deadline is None else deadline
        encoded = self.wire.encode(request, True)
        state = StreamState()
        feed = self.wire.stream_event

        def call() -> ProviderAnswer:
            with self.open_response(encoded, deadline) as response:
                if response.status_code >= 400:
                    self.raise_for_status(response.status_code, self.read_error_body(response, deadline), stream=True)
                for name, data in _events(response, deadline, self.wire.kind):
                    feed(state, name, data)  # "message" when the event has no name
                    if state.done:
                        break
            return state.answer(self.wire.kind)

        return self.send(call, deadline)

    # -- errors ---------------------------------------------------------------------------

    def raise_for_status(self, status: int, body: str, *, stream: bool) -> None:
        """Nothing below HTTP 400; else :class:`StreamRequired` (a plain call's retry) or :class:`ProviderError`."""
        if status < 400:
            return
        # The status and an excerpt of the body (rule: streaming.failure-report), credentials removed first
        # (rule: streaming.failure-no-credentials).
        message = f"{self.wire.kind} answered HTTP {status}: {_excerpt(redact(body, self.secrets)) or '(empty body)'}"
        # Only a plain call retries, so a stream is tried once (rule: streaming.stream-required-retry).
        if not stream and is_stream_required(status, body):
            raise StreamRequired(message, status=status)
        raise ProviderError(message, status=status)

    def _redacted(self, error: ProviderError) -> ProviderError:
        """``error`` with every credential removed from its message (the same error when it holds none).

        rule: streaming.failure-no-credentials
        """
        message = str(error)
        clean = redact(message, self.secrets)
        if clean == message:
            return error
        try:
            return type(error)(clean, status=error.status)
        except TypeError:  # a subclass with another signature
            return ProviderError(clean, status=error.status)

    def _through(self, failure: str) -> str:
        """What a failed connection went through that the environment set: the proxy; the certificates, when the
        ``failure`` is one of TLS (a certificate that does not verify)."""
        environment = self.environment
        via = [f"through the proxy set by {environment.proxy_variable}"] if environment.proxy_variable else []
        if environment.certificates_variable and _TLS_FAILURE.search(failure):
            via.append(f"trusting the certificates of {environment.certificates_variable}")
        return f" ({', '.join(via)})" if via else ""

    def send(self, call: Callable[[], _T], deadline: float | None = None) -> _T:
        """``call()`` under the deadline; a timeout, a refused connection or a broken stream becomes a
        :class:`ProviderError` that says what happened, with no credential in its message."""
        where = display_url(self.base_url)
        kind = self.wire.kind
        token = _DEADLINE.set(deadline)
        # Timeouts, refused connections and broken streams say what happened (rule: streaming.failure-report).
        try:
            return call()
        except ProviderError as exc:
            error: ProviderError = exc
        except httpx.TimeoutException as exc:
            error = DeadlinePassed(
                f"{kind} did not answer within the deadline of {self.timeout * 1000:g} ms "
                f"({type(exc).__name__}) at {where}"
            )
        except httpx.ConnectError as exc:
            error = ProviderError(f"cannot connect to {kind} at {where}{self._through(str(exc))}: {exc}")
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            error = ProviderError(f"the connection to {kind} broke: {exc}")
        except UnicodeEncodeError:  # the request's JSON holds a lone surrogate (a model name, a cache key)
            error = ProviderError(f"the {kind} request holds text that is not valid Unicode, so it is not sent")
        except UnicodeError as exc:  # its text does not decode in its own charset (utf-16 without a byte-order mark)
            error = ProviderError(f"{kind} sent text that does not decode in its declared charset: {exc}")
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:  # any other failure of the exchange
            error = ProviderError(f"the request to {kind} at {where} failed ({type(exc).__name__}): {exc}")
        finally:
            _DEADLINE.reset(token)
        raise self._redacted(error) from None
