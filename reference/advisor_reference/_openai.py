"""OpenAI-compatible chat completions: encoding, and decoding answers and ``data:`` chunk streams.

The body carries the cache key as ``prompt_cache_key``, the reasoning effort
as ``reasoning_effort``, and for a stream ``stream_options.include_usage`` so
that usage arrives in the stream's last chunk. A stream ends with
``data: [DONE]``; without it the stream is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._wire import HttpRequest, StreamState, WireFormat, json_headers, stream_payload, usage_of

PATH = "/chat/completions"  # rule: wire.endpoints


def encode(request: ProviderRequest, stream: bool) -> HttpRequest:
    # Only CompletionCreateParams fields are written (rule: wire.typed-params).
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "max_tokens": request.max_tokens,
    }
    if request.prompt_cache_key:  # rule: wire.openai-cache-key
        body["prompt_cache_key"] = request.prompt_cache_key
    if request.reasoning is not None:  # rule: wire.reasoning
        body["reasoning_effort"] = request.reasoning
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}  # rule: wire.openai-stream-usage
    return HttpRequest("POST", PATH, json_headers(stream), body)


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "prompt_tokens_details")


def _first_choice(payload: Any) -> dict[str, Any] | None:
    """The first choice of a decoded answer or chunk (JSON objects decode as dicts)."""
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def decode(payload: Any) -> ProviderAnswer:
    """A non-streaming chat completion."""
    choice = _first_choice(payload)
    if choice is None:
        raise ProviderError("the chat completion has no choices")
    raw_message = choice.get("message")
    message = raw_message if isinstance(raw_message, Mapping) else {}
    text = message.get("content") or ""
    reason = choice.get("finish_reason") or "stop"
    return ProviderAnswer(str(text), str(reason), usage_of(payload.get("usage"), *_USAGE_KEYS).to_json())


def stream_event(state: StreamState, event: str, data: str) -> None:
    """Feed one ``data:`` chunk of a chat-completion stream into ``state``.

    ``[DONE]`` ends the stream; a chunk with an ``error`` is a failure; the
    first choice's delta content is the answer's next piece and its
    ``finish_reason`` why it stopped, whatever the order of the keys and
    whichever chunk carries it; ``usage`` arrives in the last chunk. rule: streaming.openai-chunks
    """
    # rules: streaming.openai-chunks, streaming.final-event-required
    if data.startswith("[DONE]") and data.strip() == "[DONE]":
        state.done = True
        return
    payload = stream_payload(data, "the chat stream sent a chunk that is not JSON")
    if payload is None:
        return
    if "error" in payload:
        error = payload["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise ProviderError(f"the chat stream reported an error: {message}")
    # A stream has thousands of chunks: the first choice is looked up here as _first_choice does (decoded JSON
    # objects and arrays are exactly dicts and lists).
    choices = payload.get("choices")
    if type(choices) is list and choices and type(choices[0]) is dict:
        choice = choices[0]
        delta = choice.get("delta")
        if type(delta) is dict:
            content = delta.get("content")
            if type(content) is str:
                state.add_text(content)
        reason = choice.get("finish_reason")
        if reason:
            state.finish_reason = str(reason)
    usage = payload.get("usage")
    if type(usage) is dict:
        state.usage = usage_of(usage, *_USAGE_KEYS)


WIRE = WireFormat("openai", encode, decode, stream_event)
