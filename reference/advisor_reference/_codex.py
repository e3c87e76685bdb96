"""Codex: the OpenAI Responses API on the ChatGPT backend.

System messages become ``instructions`` (trimmed, joined by blank lines);
every other message one input item (user text as an ``input_text`` part,
assistant text as plain content, the form the API's typed parameters accept
for history without stored output ids); messages with no text are left out. A non-empty
cache key goes in the body as ``prompt_cache_key`` and in the ``session-id``
and ``thread-id`` headers, which keep the calls on one backend (affinity);
a key that is not a visible-ASCII token (one holding a space, CR, LF, another
control character or non-ASCII) stays in the body but never goes into a
header, where it could split the request or be refused by the HTTP library:
the reference's choice, the call then goes out without affinity.
The backend answers ``400 {"detail": "Stream must be set to true"}`` to a
non-streaming call: the client's stream-required retry handles it. A stream
ends with ``response.completed`` (or ``response.incomplete``); without it the
stream is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._text import trim_space
from ._wire import HttpRequest, StreamState, WireFormat, is_header_token, json_headers, stream_payload, usage_of

PATH = "/responses"  # rule: wire.endpoints


def encode(request: ProviderRequest, stream: bool) -> HttpRequest:
    # System messages become the instructions, every other message with text one item (rule: wire.codex-instructions).
    instructions = [trim_space(m.content) for m in request.messages if m.role == "system" and trim_space(m.content)]
    items: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "system" or message.content == "":
            continue
        if message.role == "assistant":
            # Easy-input form: an output_text part would also need the id and status of a stored output item.
            items.append({"type": "message", "role": "assistant", "content": message.content})
        else:
            items.append(
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": message.content}]}
            )
    # Only ResponseCreateParams fields are written (rule: wire.typed-params).
    body: dict[str, Any] = {
        "model": request.model,
        "input": items,
        "max_output_tokens": request.max_tokens,
        "store": False,
    }
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    if stream:
        body["stream"] = True
    if request.reasoning is not None:  # rule: wire.reasoning
        body["reasoning"] = {"effort": request.reasoning}
    headers = json_headers(stream)
    if request.prompt_cache_key:  # body and affinity headers (rule: wire.codex-affinity)
        body["prompt_cache_key"] = request.prompt_cache_key
        if is_header_token(request.prompt_cache_key):  # never a header value that could split the request
            headers["session-id"] = request.prompt_cache_key
            headers["thread-id"] = request.prompt_cache_key
    return HttpRequest("POST", PATH, headers, body)


_USAGE_KEYS = ("input_tokens", "output_tokens", "input_tokens_details")


def _finish(payload: Mapping[str, Any]) -> str:
    if payload.get("status") == "incomplete":
        details = payload.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        # rule: handler.token-limit-note
        return "length" if reason == "max_output_tokens" else str(reason or "incomplete")
    return "stop"


def decode(payload: Any) -> ProviderAnswer:
    """A non-streaming Responses answer."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("output"), list):
        raise ProviderError("the Responses answer has no output list")
    text = []
    for item in payload["output"]:
        if isinstance(item, Mapping) and item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, Mapping) and part.get("type") in ("output_text", "text"):
                    text.append(str(part.get("text", "")))
    return ProviderAnswer("".join(text), _finish(payload), usage_of(payload.get("usage"), *_USAGE_KEYS).to_json())


def stream_event(state: StreamState, event: str, data: str) -> None:
    """Feed one event of a Responses stream into ``state``."""
    payload = stream_payload(data, "the Responses stream sent an event that is not JSON")
    if payload is None:
        return
    kind = payload.get("type") or (event if event != "message" else "")
    if kind in ("error", "response.failed"):
        response = payload.get("response")
        error = payload.get("error") or (response.get("error") if isinstance(response, Mapping) else None) or {}
        message = error.get("message") if isinstance(error, Mapping) else error
        raise ProviderError(f"the Responses stream reported an error: {message or data[:200]}")
    if kind == "response.output_text.delta":
        state.add_text(str(payload.get("delta", "")))
    elif kind in ("response.completed", "response.incomplete"):  # rule: streaming.final-event-required
        raw_response = payload.get("response")
        response = raw_response if isinstance(raw_response, Mapping) else {}
        state.finish_reason = _finish(response)
        state.usage = usage_of(response.get("usage"), *_USAGE_KEYS)
        state.done = True


WIRE = WireFormat("codex", encode, decode, stream_event)
