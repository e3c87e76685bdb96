"""Reading encoded provider requests: Anthropic breakpoints, the 400 rules, and the official SDKs' types."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._contract.implementation import Implementation
from .checks import answer_of, refusal

LOOKBACK = 20  # a cache read looks back at most this many blocks from a breakpoint
SPACING = 15
MAX_MARKS = 4


@dataclass(frozen=True)
class Mark:
    """One ``cache_control`` marker: where it sits and what it says."""

    where: str  # "system" or "messages"
    index: int  # system block index, or the message's tail-block position
    message: int  # message index (-1 for system)
    ttl: str | None
    text: str


def blocks(body: Mapping[str, Any]) -> Iterator[tuple[str, int, int, Mapping[str, Any]]]:
    """Every content block in wire order: (``system`` | ``messages``, position, message index, block)."""
    system = body.get("system")
    for index, block in enumerate(system if isinstance(system, list) else []):
        yield "system", index, -1, block
    position = 0
    for message_index, message in enumerate(body.get("messages") or []):
        for block in message.get("content") or []:
            yield "messages", position, message_index, block
            position += 1


def marks(body: Mapping[str, Any]) -> list[Mark]:
    """The cache markers of an Anthropic body, in wire order (tools, system, messages)."""
    out = []
    for where, position, message, block in blocks(body):
        control = block.get("cache_control")
        if control is not None:
            out.append(Mark(where, position, message, control.get("ttl"), str(block.get("text", ""))))
    return out


def anthropic_400_problems(body: Mapping[str, Any]) -> list[str]:
    """What the Anthropic API would answer 400 to: more than 4 markers, a marker on an empty text block or a
    thinking block, an empty text block at all, a 1h marker after a 5m one (no ttl counts as 5m), a non-list
    system."""
    problems = []
    found = marks(body)
    if len(found) > MAX_MARKS:
        problems.append(f"{len(found)} cache_control markers (at most {MAX_MARKS})")
    seen_short = False
    for mark in found:
        ttl = mark.ttl or "5m"
        if ttl == "1h" and seen_short:
            problems.append(f"a 1h marker at {mark.where}[{mark.index}] follows a 5m marker")
        if ttl == "5m":
            seen_short = True
    for where, position, _, block in blocks(body):
        if block.get("type") == "text" and not block.get("text"):
            problems.append(
                f"an empty text block at {where}[{position}]"
                + (" carries a cache_control marker" if "cache_control" in block else "")
            )
        if block.get("type") in ("thinking", "redacted_thinking") and "cache_control" in block:
            problems.append(f"a cache_control marker on a thinking block at {where}[{position}]")
    if "system" in body and not isinstance(body["system"], list):
        problems.append("system is not a list of text blocks")
    return problems


def expected_advisor_positions(tail_blocks: int, system_blocks: int) -> list[int]:
    """Where the advisor profile marks the tail (blocks of every message but the final one), by position.

    Distance d counts back from the tail's last block (d = 0); every d that is
    a multiple of 15 is marked, while the request holds fewer than 4 marks
    (the system block, when there is one, takes the first).
    """
    budget = MAX_MARKS - (1 if system_blocks else 0)
    positions: list[int] = []
    for distance in range(0, tail_blocks, SPACING):
        if len(positions) == budget:
            break
        positions.append(tail_blocks - 1 - distance)
    return positions


def encode(impl: Implementation, provider: str, request: Mapping[str, Any], rules: str | list[str]) -> dict[str, Any]:
    """Encode a neutral request; an error answer fails naming ``rules``."""
    __tracebackhide__ = True
    answer = answer_of(impl, "encode", {"provider": provider, "request": request}, rules)
    if "error" in answer:
        raise refusal(rules, f"encode for {provider} answered an error", input=request, actual=answer["error"])
    return answer


def neutral_request(messages: list[dict[str, str]], **fields: Any) -> dict[str, Any]:
    """A provider-neutral request around ``messages``, with advisor defaults."""
    request = {
        "model": "advisor-model",
        "messages": messages,
        "tools": [],
        "max_tokens": 4096,
        "reasoning": None,
        "stream": False,
        "prompt_cache_key": "0123456789abcdef0123456789abcdef",
        "transport_session": "s-advisor",
        "parent_session": "s",
        "advisor_cache_profile": True,
    }
    request.update(fields)
    return request


def sdk_problems(provider: str, body: Mapping[str, Any]) -> list[str] | None:
    """Problems the official SDK's typed request parameters find in ``body``; None when the SDK is missing.

    The SDK's TypedDict becomes a JSON Schema (through pydantic) in which
    every object forbids unknown keys, so a misspelt field is reported too.
    """
    validator = _sdk_validator(provider)
    if validator is None:
        return None
    body = {key: value for key, value in body.items() if key not in ("stream", "stream_options")}
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:200]}"
        for error in list(validator.iter_errors(json.loads(json.dumps(body))))[:10]
    ]


@cache
def _sdk_validator(provider: str) -> Any:
    params: Any  # one SDK's request parameters: only the provider's SDK need be installed
    try:
        import jsonschema
        import pydantic

        if provider == "anthropic":
            from anthropic.types.message_create_params import (
                MessageCreateParamsNonStreaming as params,
            )
        elif provider == "openai":
            from openai.types.chat.completion_create_params import (
                CompletionCreateParamsNonStreaming as params,
            )
        else:
            from openai.types.responses.response_create_params import (
                ResponseCreateParamsNonStreaming as params,
            )
    except ImportError:
        return None
    schema = pydantic.TypeAdapter(params).json_schema()
    _close_objects(schema)
    return jsonschema.Draft202012Validator(schema)


def _close_objects(schema: Any) -> None:
    if isinstance(schema, dict):
        if "properties" in schema:  # response models in unions allow extras; a request must not need them
            schema["additionalProperties"] = False
        for value in schema.values():
            _close_objects(value)
    elif isinstance(schema, list):
        for value in schema:
            _close_objects(value)
