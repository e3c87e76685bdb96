"""The HTTP provider: sends an encoded request with httpx and reads the answer or the event stream.

* Without reasoning the call is one non-streaming request; with reasoning it
  is a stream, and only a stream.
* A non-streaming call that fails with a stream-required error (HTTP 400
  whose body, lower-cased, holds ``stream`` and ``must`` or ``required``) is
  retried exactly once as a stream. No other error is retried.
* Event streams are read with httpx-sse; a stream that ends before its final
  event is an error.
* Every failure is a :class:`ProviderError` that says what happened: the
  status and an excerpt of the body, a body that is not JSON, a refused
  connection, a timeout.
"""

from __future__ import annotations

from typing import Any

import httpx
from httpx_sse import EventSource, SSEError

from . import _anthropic, _codex, _openai
from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._wire import HttpRequest, StreamState, WireFormat

WIRES: dict[str, WireFormat] = {wire.kind: wire for wire in (_anthropic.WIRE, _openai.WIRE, _codex.WIRE)}
EXCERPT = 300


def encode(kind: str, request: ProviderRequest, stream: bool | None = None) -> HttpRequest:
    """Encode a neutral request for a provider kind (``anthropic``, ``openai``, ``codex``)."""
    if kind not in WIRES:
        raise ValueError(f"unknown provider kind {kind!r}; expected one of {', '.join(WIRES)}")
    return WIRES[kind].encode(request, request.stream if stream is None else stream)


def is_stream_required(status: int, body: str) -> bool:
    """The origin's test for a stream-required error (rule: streaming.stream-required-detection)."""
    text = body.lower()
    return status == 400 and "stream" in text and ("must" in text or "required" in text)


class StreamRequired(ProviderError):
    """The provider only answers streaming calls."""


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


class HttpProvider:
    """A provider reached over HTTP: Anthropic Messages, OpenAI chat completions or Codex Responses."""

    def __init__(self, kind: str, base_url: str, *, api_key: str = "", timeout: float = 60.0,
                 client: httpx.Client | None = None) -> None:
        if kind not in WIRES:
            raise ValueError(f"unknown provider kind {kind!r}")
        self.wire = WIRES[kind]
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.client = client or httpx.Client(timeout=httpx.Timeout(timeout))

    def close(self) -> None:
        self.client.close()

    def _headers(self, encoded: HttpRequest) -> dict[str, str]:
        headers = dict(encoded.headers)
        if self.api_key:
            if self.wire.kind == "anthropic":
                headers["x-api-key"] = self.api_key
            else:
                headers["authorization"] = f"Bearer {self.api_key}"
        return headers

    def complete(self, request: ProviderRequest) -> ProviderAnswer:
        """One advisor call: streaming when reasoning is set; otherwise plain, with the stream-required retry."""
        if request.stream or request.reasoning is not None:  # rule: streaming.reasoning-streams
            return self._stream(request)
        try:
            return self._plain(request)  # rule: streaming.non-streaming-default
        except StreamRequired:  # only this error (rules: streaming.stream-required-retry, streaming.no-other-retry)
            return self._stream(request)

    # -- the two kinds of call ---------------------------------------------------------

    def _plain(self, request: ProviderRequest) -> ProviderAnswer:
        encoded = self.wire.encode(request, False)
        response = self._send(lambda: self.client.post(self.base_url + encoded.path, json=encoded.body,
                                                       headers=self._headers(encoded)))
        self._raise_for_status(response.status_code, response.text, stream=False)
        try:
            payload = response.json()
        except ValueError:  # rule: streaming.failure-report
            raise ProviderError(
                f"{self.wire.kind} answered HTTP {response.status_code} with a body that is not JSON: "
                f"{_excerpt(response.text)!r}"
            ) from None
        return self.wire.decode(payload)

    def _stream(self, request: ProviderRequest) -> ProviderAnswer:
        encoded = self.wire.encode(request, True)
        state = StreamState()
        feed = self.wire.stream_event

        def read() -> None:
            with self.client.stream("POST", self.base_url + encoded.path, json=encoded.body,
                                    headers=self._headers(encoded)) as response:
                if response.status_code >= 400:
                    self._raise_for_status(response.status_code, response.read().decode("utf-8", "replace"),
                                           stream=True)
                for event in EventSource(response).iter_sse():
                    feed(state, event.event, event.data)  # "message" when the event has no name
                    if state.done:
                        break

        self._send(read)
        return state.answer(self.wire.kind)

    # -- errors ---------------------------------------------------------------------------

    def _raise_for_status(self, status: int, body: str, *, stream: bool) -> None:
        if status < 400:
            return
        # The status and an excerpt of the body (rule: streaming.failure-report).
        message = f"{self.wire.kind} answered HTTP {status}: {_excerpt(body) or '(empty body)'}"
        # Only a plain call retries, so a stream is tried once (rule: streaming.stream-required-retry).
        if not stream and is_stream_required(status, body):
            raise StreamRequired(message, status=status)
        raise ProviderError(message, status=status)

    def _send(self, call: Any) -> Any:
        where = self.base_url
        # Timeouts, refused connections and broken streams say what happened (rule: streaming.failure-report).
        try:
            return call()
        except ProviderError:
            raise
        except httpx.TimeoutException as exc:
            raise ProviderError(f"{self.wire.kind} did not answer in time ({type(exc).__name__}) at {where}") from None
        except httpx.ConnectError as exc:
            raise ProviderError(f"cannot connect to {self.wire.kind} at {where}: {exc}") from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise ProviderError(f"the connection to {self.wire.kind} broke: {exc}") from None
        except SSEError as exc:
            raise ProviderError(f"{self.wire.kind} did not answer with an event stream: {exc}") from None
