"""The Anthropic Messages wire: encoding, cache breakpoints, and decoding answers and streams.

Encoding: system messages become a list of text blocks (blank ones skipped);
every other flattened message is one text block; a message with no text is
left out (the origin drops empty assistant messages; the API rejects empty
text blocks, so the reference leaves out empty user messages too). The cache
key is never sent: Anthropic relies on breakpoints.

Breakpoints, advisor profile (``cache_control = {"type": "ephemeral", "ttl":
"1h"}``): the last system block; then, walking backward over the content
blocks of every message except the final one, from distance 0 at the last
block of the second-to-last message, every block whose distance is a multiple
of 15, while the request holds fewer than 4 marks. The final message is never
marked. Default profile (no TTL): the last system block, the final message,
and the second-to-last user message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest
from ._text import trim_space
from ._wire import HttpRequest, StreamState, Usage, WireFormat, integer, json_headers, stream_payload

ANTHROPIC_VERSION = "2023-06-01"
PATH = "/v1/messages"  # rule: wire.endpoints
ADVISOR_TTL = "1h"  # rule: breakpoints.advisor-ttl
#: 15 blocks, under the 20-block look-back of a cache read (rules: breakpoints.spacing, breakpoints.cache-reuse).
BREAKPOINT_SPACING = 15
MAX_BREAKPOINTS = 4  # rule: breakpoints.max-four
#: Thinking budgets for the neutral reasoning effort (the reference's choice).
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


# Every advisor-profile breakpoint (rule: breakpoints.advisor-ttl).
def advisor_cache_control() -> dict[str, str]:
    return {"type": "ephemeral", "ttl": ADVISOR_TTL}


# Other profiles: no TTL, so never one hour (rule: breakpoints.default-profile).
def default_cache_control() -> dict[str, str]:
    return {"type": "ephemeral"}


def _block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def assign_advisor_breakpoints(
    system: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    spacing: int = BREAKPOINT_SPACING,
    max_marks: int = MAX_BREAKPOINTS,
) -> None:
    """Mark the last system block, then every ``spacing`` blocks back through all messages but the final one,
    while the request holds fewer than ``max_marks`` marks (rule: breakpoints.cache-efficiency: each later call
    reads the prefix an earlier one wrote)."""
    marks = 0
    if system:
        # rule: breakpoints.system-marked; a 1h marker first, so no 1h marker follows a 5m one
        # (rule: breakpoints.wire-validity).
        system[-1]["cache_control"] = advisor_cache_control()
        marks += 1
    distance = 0
    for message in reversed(messages[:-1]):  # rules: breakpoints.final-unmarked, breakpoints.spacing
        for block in reversed(message["content"]):
            if marks >= max_marks:  # rule: breakpoints.max-four
                return
            # Never on an empty text block (rules: breakpoints.spacing, breakpoints.wire-validity).
            if distance % spacing == 0 and block.get("text"):
                block["cache_control"] = advisor_cache_control()
                marks += 1
            distance += 1


def assign_default_breakpoints(system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    """The origin's default profile: last system block, final message, second-to-last user message.

    rule: breakpoints.default-placement
    """
    if system:
        system[-1]["cache_control"] = default_cache_control()
    if not messages:
        return
    messages[-1]["content"][-1]["cache_control"] = default_cache_control()
    users = [index for index, message in enumerate(messages) if message["role"] == "user"]
    if len(users) >= 2:
        messages[users[-2]]["content"][-1]["cache_control"] = default_cache_control()


def thinking(effort: str | None, max_tokens: int) -> dict[str, Any] | None:
    """The thinking parameter for a reasoning effort: a budget below max_tokens, at least 1024 tokens.

    rule: wire.reasoning
    """
    if effort is None:
        return None
    budget = min(THINKING_BUDGETS.get(effort, THINKING_BUDGETS["medium"]), max_tokens - 1)
    if budget < 1024:
        return None
    return {"type": "enabled", "budget_tokens": budget}


def encode(request: ProviderRequest, stream: bool) -> HttpRequest:
    # rule: wire.anthropic-system-blocks
    system = [_block(m.content) for m in request.messages if m.role == "system" and trim_space(m.content)]
    # One text block each, none empty (rules: wire.anthropic-messages, wire.anthropic-nonempty).
    messages = [
        {"role": m.role, "content": [_block(m.content)]}
        for m in request.messages
        if m.role != "system" and m.content != ""
    ]
    if request.advisor_cache_profile:
        assign_advisor_breakpoints(system, messages)
    else:  # rule: breakpoints.default-profile
        assign_default_breakpoints(system, messages)
    # No cache key: Anthropic relies on breakpoints (rule: wire.anthropic-no-key); only MessageCreateParams
    # fields are written (rule: wire.typed-params).
    body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens, "messages": messages}
    if system:
        body["system"] = system
    budget = thinking(request.reasoning, request.max_tokens)
    if budget is not None:
        body["thinking"] = budget
    if stream:
        body["stream"] = True
    headers = {**json_headers(stream), "anthropic-version": ANTHROPIC_VERSION}  # rule: wire.anthropic-version
    return HttpRequest("POST", PATH, headers, body)


def finish_reason(stop_reason: Any) -> str:
    """The neutral finish reason: ``length`` for max_tokens, ``stop`` for an ended turn."""
    if stop_reason == "max_tokens":  # rule: handler.token-limit-note
        return "length"
    if stop_reason in (None, "end_turn", "stop_sequence"):
        return "stop"
    return str(stop_reason)


def _usage(into: Usage, raw: Any) -> None:
    if not isinstance(raw, Mapping):
        return
    if "input_tokens" in raw:
        into.input_tokens = integer(raw["input_tokens"])
    if "output_tokens" in raw:
        into.output_tokens = integer(raw["output_tokens"])
    if "cache_read_input_tokens" in raw:
        into.cache_read_tokens = integer(raw["cache_read_input_tokens"])
    if "cache_creation_input_tokens" in raw:
        into.cache_creation_tokens = integer(raw["cache_creation_input_tokens"])


def decode(payload: Any) -> ProviderAnswer:
    """A non-streaming Messages response."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("content"), list):
        raise ProviderError("the Anthropic response has no content list")
    text = "".join(
        block.get("text", "")
        for block in payload["content"]
        if isinstance(block, Mapping) and block.get("type") == "text"
    )
    usage = Usage()
    _usage(usage, payload.get("usage"))
    return ProviderAnswer(text, finish_reason(payload.get("stop_reason")), usage.to_json())


def stream_event(state: StreamState, event: str, data: str) -> None:
    """Feed one server-sent event of a Messages stream into ``state`` (rule: streaming.anthropic-events)."""
    if event == "ping":
        return
    payload = stream_payload(data, "the Anthropic stream sent an event that is not JSON")
    if payload is None:
        return
    kind = event if event and event != "message" else payload.get("type", "")
    if kind == "content_block_delta":  # by far the most frequent event
        delta = payload.get("delta")
        if type(delta) is dict and delta.get("type") == "text_delta":
            state.add_text(str(delta.get("text", "")))
    elif kind == "error":
        error = payload.get("error")
        message = error.get("message", data[:200]) if type(error) is dict else data[:200]
        raise ProviderError(f"the Anthropic stream reported an error: {message}")
    elif kind == "message_start":
        message = payload.get("message")
        if type(message) is dict:
            _usage(state.usage, message.get("usage"))
    elif kind == "message_delta":
        delta = payload.get("delta")
        if type(delta) is dict and "stop_reason" in delta:
            state.finish_reason = finish_reason(delta["stop_reason"])
        _usage(state.usage, payload.get("usage"))
    elif kind == "message_stop":  # the final event (rule: streaming.final-event-required)
        state.done = True


WIRE = WireFormat("anthropic", encode, decode, stream_event)
