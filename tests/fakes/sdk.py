"""The reference on the official SDKs: its shaping and runtime, with the ``anthropic`` and ``openai`` Python SDK
clients making the HTTP calls and reading the answers and the event streams with their own parsers.

It gives the wire and streaming areas a widely used reader that nobody here wrote: ``tests/meta/test_sdk.py`` runs
those areas against it (``--impl=tests.fakes.sdk``), and docs/measured.md records the outcome and classifies every
difference (the SDK departs from the wire's standard or documents, or the suite is stricter than they are).

What it keeps of the reference: the shaping, the runtime (budget, sessions, keys), the encoders (each encoded body is
passed to the SDK's create method as its keyword arguments, the encoded headers as extra headers, so the request is
the reference's) and the reading of the answer (each object the SDK parsed is handed back, as JSON, to the reference's
decoder or stream reader, which gathers the text, the finish reason and the final event). What the SDKs do: the HTTP
exchange (on httpx2), the JSON of plain answers, the event-stream parsing (``SSEDecoder``), the typing of each event,
the HTTP errors (``APIStatusError`` with the response), timeouts and connection errors. Their retries are off
(``max_retries=0``: the stream-required retry is the reference's, and no other error is retried). The one thing the
OpenAI SDK hides is the chat stream's end marker (it stops at ``data: [DONE]`` and never yields it): the client's SSE
decoder (``_make_sse_decoder``, the SDKs' hook for another decoder) is the SDK's own, observed to see whether it came.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from typing import Any

import anthropic
import httpx2
import openai
from openai._streaming import SSEDecoder as OpenAISSEDecoder

from advisor_reference import ProviderError
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import HttpProvider, StreamRequired, StreamState, is_stream_required

#: The SDKs require a key; a call without one sends this (shorter than any credential the suite looks for).
NO_KEY = "sk-none"
#: What the error of a stream says when the OpenAI SDK read an event without data as JSON (see :meth:`_failure`).
EVENT_WITHOUT_DATA = "the SDK's decoder dispatched an event without data"


class _ObservedDecoder(OpenAISSEDecoder):
    """The OpenAI SDK's own SSE decoder, noting whether the chat stream's end marker came."""

    def __init__(self) -> None:
        super().__init__()
        self.ended = False

    def decode(self, line: str) -> Any:
        event = super().decode(line)
        if event is not None and event.data.startswith("[DONE]") and event.data.strip() == "[DONE]":
            self.ended = True
        return event


class OpenAI(openai.OpenAI):
    """The OpenAI client whose streams decode with an observed decoder: the latest of each thread's streams."""

    streams = threading.local()

    def _make_sse_decoder(self) -> Any:
        self.streams.decoder = _ObservedDecoder()
        return self.streams.decoder


@functools.cache
def _warm_up() -> None:
    """Build the SDKs' answer and event types once a process: the first object of each builds its pydantic schema,
    a second or more, which would otherwise be spent inside the first call's deadline."""
    from anthropic._models import construct_type as anthropic_type
    from anthropic.types import Message, RawMessageStreamEvent
    from openai._models import construct_type as openai_type
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response, ResponseStreamEvent

    anthropic_type(type_=RawMessageStreamEvent, value={"type": "message_start", "message": {"id": "msg"}})
    anthropic_type(type_=Message, value={"id": "msg"})
    for kind, value in ((ChatCompletionChunk, {"id": "c"}), (ChatCompletion, {"id": "c"}), (Response, {"id": "r"})):
        openai_type(type_=kind, value=value)
    openai_type(type_=ResponseStreamEvent, value={"type": "response.created", "response": {"id": "r"}})


def _json(model: Any) -> str:
    """An object the SDK parsed, as JSON again (the fields it holds, as sent)."""
    return json.dumps(model.to_dict(mode="json", exclude_unset=True), ensure_ascii=False)


class SdkProvider(HttpProvider):
    """A provider reached through its official SDK client; the reference's steps above it (the kind of call, the
    stream-required retry, the deadline, the redaction of credentials) stay as they are."""

    def __init__(self, kind: str, base_url: str, *, api_key: str = "", timeout: float = 60.0, client: Any = None):
        super().__init__(kind, base_url, api_key=api_key, timeout=timeout)
        self.client.close()  # the reference's httpx client: the SDK makes the calls
        _warm_up()  # before the call's deadline starts
        options = {"api_key": api_key or NO_KEY, "base_url": self.base_url, "max_retries": 0, "timeout": timeout}
        if kind == "anthropic":
            self.sdk: Any = anthropic.Anthropic(**options)
        else:
            self.sdk = OpenAI(**options)

    def close(self) -> None:
        self.sdk.close()

    def _create(self, body: dict[str, Any], headers: dict[str, str], deadline: float) -> Any:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProviderError(f"the deadline of the {self.wire.kind} call passed before the request was sent")
        options = {"extra_headers": headers, "timeout": httpx2.Timeout(left)}
        if self.wire.kind == "anthropic":
            return self.sdk.messages.create(**body, **options)
        if self.wire.kind == "openai":
            return self.sdk.chat.completions.create(**body, **options)
        return self.sdk.responses.create(**body, **options)

    def _failure(self, error: Exception, *, stream: bool) -> ProviderError:
        """An SDK exception as the reference's provider error (StreamRequired for a plain call's stream-required
        400)."""
        kind = self.wire.kind
        if isinstance(error, (anthropic.APIStatusError, openai.APIStatusError)) and error.status_code >= 400:
            try:
                body = error.response.text
            except (httpx2.HTTPError, UnicodeError, RuntimeError):
                body = str(error.body or "")
            try:
                self.raise_for_status(error.status_code, body, stream=stream)
            except ProviderError as failure:  # StreamRequired among them
                return failure
        if isinstance(error, (anthropic.APITimeoutError, openai.APITimeoutError)):
            return ProviderError(f"{kind} did not answer within the deadline of {self.timeout * 1000:g} ms")
        if isinstance(error, (anthropic.APIConnectionError, openai.APIConnectionError)):
            return ProviderError(f"cannot connect to {kind}, or the connection broke: {error}")
        if isinstance(error, json.JSONDecodeError) and error.doc == "" and stream:
            # The OpenAI SDK's SSEDecoder dispatches an event at every blank line once an id was seen, data or not
            # (the standard dispatches only an event with data), and its Stream reads each event's data as JSON.
            return ProviderError(
                f"{EVENT_WITHOUT_DATA} (a blank line after an id field) and read its empty data as JSON: {error}"
            )
        if isinstance(error, (anthropic.APIStatusError, openai.APIError, anthropic.APIError)):
            return ProviderError(f"the {kind} stream reported an error: {getattr(error, 'message', error)}")
        return ProviderError(f"{kind} answered with what its SDK could not read ({type(error).__name__}): {error}")

    def complete_plain(self, request: Any, deadline: float | None = None) -> Any:
        deadline = time.monotonic() + self.timeout if deadline is None else deadline
        encoded = self.wire.encode(request, False)

        def call() -> Any:
            try:
                answer = self._create(dict(encoded.body), dict(encoded.headers), deadline)
                if isinstance(answer, str):  # an answer the SDK did not parse as JSON comes back as its text
                    raise ProviderError(f"{self.wire.kind} answered with a body that is not JSON: {answer[:300]!r}")
                payload = json.loads(_json(answer))
            except ProviderError:
                raise
            except Exception as error:  # every SDK failure, whatever its class
                raise self._failure(error, stream=False) from None
            return self.wire.decode(payload)

        return self.send(call, deadline)

    def complete_stream(self, request: Any, deadline: float | None = None) -> Any:
        deadline = time.monotonic() + self.timeout if deadline is None else deadline
        encoded = self.wire.encode(request, True)
        state = StreamState()
        feed = self.wire.stream_event

        def call() -> Any:
            try:
                stream = self._create(dict(encoded.body), dict(encoded.headers), deadline)
                with stream:
                    for event in stream:
                        if time.monotonic() >= deadline:
                            raise ProviderError(f"{self.wire.kind} did not finish its stream before the deadline")
                        name = "message" if self.wire.kind == "openai" else str(getattr(event, "type", "message"))
                        feed(state, name, _json(event))
                        if state.done:
                            break
                if self.wire.kind == "openai" and not state.done and self.sdk.streams.decoder.ended:
                    feed(state, "message", "[DONE]")
            except (ProviderError, StreamRequired):
                raise
            except Exception as error:
                raise self._failure(error, stream=True) from None
            return state.answer(self.wire.kind)

        return self.send(call, deadline)


class SdkAdapter(ReferenceAdapter):
    """The reference adapter whose HTTP provider is :class:`SdkProvider`."""

    name = "reference-on-sdks"
    http_provider_class = SdkProvider


adapter = SdkAdapter()

__all__ = ["SdkAdapter", "SdkProvider", "adapter", "is_stream_required"]
