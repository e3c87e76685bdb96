"""The provider wire, common parts: the encoded HTTP request and the provider kinds.

An encoder turns a provider-neutral :class:`~reference.ProviderRequest` into
an :class:`HttpRequest` (method, path relative to the provider's base URL,
headers without credentials, JSON body). Credentials are added by the HTTP
client, so an encoded request can be shown, logged and compared safely.
"""

from __future__ import annotations

import json
import json.scanner
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
    #: The start and the middle of earlier chunks that a decoder's fast path has checked (see ``_openai``).
    known_head: str = ""
    known_tail: str = ""
    known_rest: str = ""

    def answer(self, provider: str) -> ProviderAnswer:
        if not self.done:
            raise ProviderError(f"the {provider} stream ended before its final event")
        return ProviderAnswer("".join(self.text), self.finish_reason or "stop", self.usage.to_json())


#: The C JSON scanner: ``scan_json(text, index)`` gives the value starting exactly at ``index`` and its end.
scan_json = json.scanner.make_scanner(json.JSONDecoder())


def event_json(data: str) -> Any:
    """The JSON value of one stream event's data (the C scanner directly: streams have thousands of events)."""
    try:
        value, end = scan_json(data, 0)
    except StopIteration:
        return json.loads(data)  # leading white space, or not JSON: json.loads says which
    if end != len(data) and data[end:].strip():
        return json.loads(data)  # raises, naming the extra data
    return value


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
