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
from ._wire import HttpRequest, StreamState, Usage, WireFormat, event_json, integer, json_headers
from ._wire import scan_json as _scan

PATH = "/chat/completions"


def encode(request: ProviderRequest, stream: bool) -> HttpRequest:
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "max_tokens": request.max_tokens,
    }
    if request.prompt_cache_key:
        body["prompt_cache_key"] = request.prompt_cache_key
    if request.reasoning is not None:
        body["reasoning_effort"] = request.reasoning
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return HttpRequest("POST", PATH, json_headers(stream), body)


def _usage(raw: Any) -> Usage:
    usage = Usage()
    if isinstance(raw, Mapping):
        usage.input_tokens = integer(raw.get("prompt_tokens"))
        usage.output_tokens = integer(raw.get("completion_tokens"))
        details = raw.get("prompt_tokens_details")
        if isinstance(details, Mapping):
            usage.cache_read_tokens = integer(details.get("cached_tokens"))
    return usage


def _first_choice(payload: Any) -> Mapping[str, Any] | None:
    choices = payload.get("choices") if isinstance(payload, Mapping) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0]
    return None


def decode(payload: Any) -> ProviderAnswer:
    """A non-streaming chat completion."""
    choice = _first_choice(payload)
    if choice is None:
        raise ProviderError("the chat completion has no choices")
    message = choice.get("message") if isinstance(choice.get("message"), Mapping) else {}
    text = message.get("content") or ""
    reason = choice.get("finish_reason") or "stop"
    return ProviderAnswer(str(text), str(reason), _usage(payload.get("usage")).to_json())


def stream_event(state: StreamState, event: str, data: str) -> None:
    """Feed one ``data:`` chunk of a chat-completion stream into ``state``.

    Most chunks carry one delta: those are read without parsing the whole
    chunk. A quote inside a JSON string is always escaped, so ``"delta":``
    and ``"finish_reason":`` can only be keys, and their values are scanned
    where they stand. Any other chunk (an error, usage, the end, JSON with
    white space after a key) takes the full parse, which decides every case
    the fast path leaves.
    """
    start = data.find('"delta":')
    if start > 0 and data[0] == "{" and '"error":' not in data and '"usage":{' not in data:
        try:
            delta, end = _scan(data, start + 8)
            finish_at = data.find('"finish_reason":', end) + 16
            reason = None if finish_at < 16 or data.startswith("null", finish_at) else _scan(data, finish_at)[0]
        except (StopIteration, ValueError):
            pass
        else:
            if type(delta) is dict:
                content = delta.get("content")
                if content and type(content) is str:
                    state.text.append(content)
                if reason:
                    state.finish_reason = str(reason)
                return
    _full_chunk(state, data)


def _full_chunk(state: StreamState, data: str) -> None:
    if not data:
        return
    if data.strip() == "[DONE]":
        state.done = True
        return
    try:
        payload = event_json(data)
    except ValueError:
        raise ProviderError(f"the chat stream sent a chunk that is not JSON: {data[:200]!r}") from None
    if type(payload) is not dict:
        return
    if "error" in payload:
        error = payload["error"]
        message = error.get("message") if type(error) is dict else error
        raise ProviderError(f"the chat stream reported an error: {message}")
    choice = _first_choice(payload)
    if choice is not None:
        delta = choice.get("delta")
        if type(delta) is dict and type(delta.get("content")) is str and delta["content"]:
            state.text.append(delta["content"])
        if choice.get("finish_reason"):
            state.finish_reason = str(choice["finish_reason"])
    if type(payload.get("usage")) is dict:
        state.usage = _usage(payload["usage"])


WIRE = WireFormat("openai", encode, decode, stream_event)
