"""The provider wire, common parts: the encoded HTTP request and the provider kinds.

An encoder turns a provider-neutral :class:`~reference.ProviderRequest` into
an :class:`HttpRequest` (method, path relative to the provider's base URL,
headers without credentials, JSON body). Credentials are added by the HTTP
client, so an encoded request can be shown, logged and compared safely.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest

PROVIDER_KINDS = ("anthropic", "openai", "codex")


@dataclass(frozen=True)
class HttpRequest:
    """An encoded provider request: ``POST base_url + path`` with these headers and JSON body."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "headers": dict(self.headers), "body": self.body}


@dataclass
class Usage:
    """Token counts a provider reports, cache reads and writes included."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_creation_tokens": self.cache_creation_tokens,
        }


@dataclass
class StreamState:
    """What a stream decoder has gathered so far; ``done`` once the final event arrived."""

    text: list[str] = field(default_factory=list)
    finish_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    done: bool = False

    def answer(self, provider: str) -> ProviderAnswer:
        if not self.done:  # rule: streaming.final-event-required
            raise ProviderError(f"the {provider} stream ended before its final event")
        return ProviderAnswer("".join(self.text), self.finish_reason or "stop", self.usage.to_json())


_DECODER = json.JSONDecoder()


def stream_payload(data: str, what: str) -> dict[str, Any] | None:
    """The JSON object of one stream event's data; None for an empty event or one that is not an object.

    Data that is not one JSON value is a :class:`ProviderError` that shows its start (``what`` says which
    stream). A stream has thousands of events, so the decoder's ``raw_decode`` reads each one directly;
    ``json.loads`` takes the rare event with white space before its value.
    """
    if not data:
        return None
    try:
        try:
            payload, end = _DECODER.raw_decode(data)
        except ValueError:
            payload, end = json.loads(data), len(data)
        if end != len(data) and not data[end:].isspace():
            raise ValueError("extra data after the JSON value")
    except ValueError:  # a broken stream says so (rule: streaming.failure-report)
        raise ProviderError(f"{what}: {data[:200]!r}") from None
    return payload if isinstance(payload, dict) else None


def usage_of(raw: Any, input_key: str, output_key: str, details_key: str) -> Usage:
    """Token counts from a usage object of an OpenAI-style API (chat completions or Responses)."""
    usage = Usage()
    if isinstance(raw, Mapping):
        usage.input_tokens = integer(raw.get(input_key))
        usage.output_tokens = integer(raw.get(output_key))
        details = raw.get(details_key)
        if isinstance(details, Mapping):
            usage.cache_read_tokens = integer(details.get("cached_tokens"))
    return usage


def json_headers(stream: bool) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if stream:
        headers["accept"] = "text/event-stream"
    return headers


def integer(value: Any) -> int:
    """A token count from a response: integers only, anything else counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass(frozen=True)
class WireFormat:
    """One provider's encoder and decoders."""

    kind: str
    encode: Callable[[ProviderRequest, bool], HttpRequest]
    decode: Callable[[Any], ProviderAnswer]
    stream_event: Callable[[StreamState, str, str], None]
