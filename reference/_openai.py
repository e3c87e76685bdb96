"""OpenAI-compatible chat completions: encoding, and decoding answers and ``data:`` chunk streams.

The body carries the cache key as ``prompt_cache_key``, the reasoning effort
as ``reasoning_effort``, and for a stream ``stream_options.include_usage`` so
that usage arrives in the stream's last chunk. A stream ends with
``data: [DONE]``; without it the stream is an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._wire import HttpRequest, StreamState, Usage, WireFormat, event_json, integer, json_headers
from ._wire import scan_json as _scan
from json.decoder import scanstring as _scan_string

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


# JSON tokens that open or close no structure: white space, numbers, literals, commas, colons, whole strings.
_FLAT = r'(?:[^{}\[\]"]|"(?:[^"\\]|\\.)*")*?'
# From the chunk's start to the first choice's delta: "choices" is a top-level key (nothing opens before it), and
# the delta is a key of its first element (group 1: the keys before it, with flat values).
_HEAD = re.compile(rf'\{{{_FLAT}"choices"\s*:\s*\[\s*\{{({_FLAT})"delta"\s*:')
# From the end of the delta's value to the first choice's finish reason (its value follows) or to its end.
_TAIL = re.compile(rf'{_FLAT}(?:"finish_reason"\s*:\s*|\}})')


def stream_event(state: StreamState, event: str, data: str) -> None:
    """Feed one ``data:`` chunk of a chat-completion stream into ``state``.

    Most chunks carry one delta in their first choice, and the chunks of a
    stream repeat the same frame around it: those are read without parsing the
    whole chunk. The fast path checks, with ``_HEAD``, that the first
    ``"delta":`` is a key of the first choice (nothing but flat tokens before
    it, no finish reason ahead of it), with ``_TAIL`` where that choice's
    finish reason stands after it, and that the rest of the chunk has no error
    and no usage object; each check is remembered in ``state`` for the chunks
    that repeat that piece byte for byte. Any other chunk (an error, usage, the
    end, a structure before the delta, another key order) takes the full
    parse, which decides every case the fast path leaves. The fast path takes
    a chunk for well-formed JSON and does not check what follows the finish
    reason beyond that (duplicate keys aside, it reads what the full parse reads).
    """
    head = state.known_head
    if head and data.startswith(head):
        start = len(head)
    else:
        start = data.find('"delta":') + 8
        match = _HEAD.match(data, 0, start) if start > 8 else None
        if match is None or match.end() != start or '"finish_reason"' in match.group(1) or '"error":' in data[:start]:
            return _full_chunk(state, data)
        state.known_head = data[:start]
    try:
        if data.startswith('{"content":"', start):  # the usual delta: its text, read without making a dict
            content, end = _scan_string(data, start + 12)
            if data[end] != "}":
                return _full_chunk(state, data)
            end += 1
        else:
            delta, end = _scan(data, start)
            if type(delta) is not dict:
                return _full_chunk(state, data)
            content = delta.get("content")
        tail = state.known_tail
        if not (tail and data.startswith(tail, end)):
            match = _TAIL.match(data, end)
            if match is None:
                return _full_chunk(state, data)
            tail = state.known_tail = match.group()
        at = end + len(tail)
        if tail[-1] == "}":
            reason = None
        elif data.startswith("null", at):
            reason, at = None, at + 4
        else:
            reason, at = _scan(data, at)
    except (StopIteration, ValueError, IndexError):
        return _full_chunk(state, data)
    rest = data[at:]
    if rest != state.known_rest:
        if '"error":' in rest or '"usage":{' in rest:  # after the first choice: an error or usage needs the full parse
            return _full_chunk(state, data)
        state.known_rest = rest
    if content and type(content) is str:
        state.text.append(content)
    if reason:
        state.finish_reason = str(reason)
    return None


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
