"""The provider wire, common parts: the encoded HTTP request and the provider kinds.

An encoder turns a provider-neutral :class:`~reference.ProviderRequest` into
an :class:`HttpRequest` (method, path relative to the provider's base URL,
headers without credentials, JSON body). Credentials are added by the HTTP
client, so an encoded request can be shown, logged and compared safely.

Hostile answers are bounded here too: a stream's answer text holds at most
:data:`MAX_ANSWER_CHARS` characters, event data nested too deep for the JSON
decoder or holding more than :data:`MAX_JSON_VALUES` values is a
:class:`ProviderError`, and :func:`is_header_token` says which values may go
into a header.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ._provider import ProviderAnswer, ProviderError, ProviderRequest

PROVIDER_KINDS = ("anthropic", "openai", "codex")

#: The most characters a streamed answer gathers: 16 Mi, the size cap of a non-streaming answer body
#: (``_http.MAX_BODY_BYTES``), so both kinds of call bound an answer alike. An advisor note is a few KB;
#: even a 128k-token answer is about 512 KB of text.
MAX_ANSWER_CHARS = 16 * 1024 * 1024
#: Text pieces are joined every this many, so a stream of one-character deltas costs about a byte a
#: character instead of a string object (some 50 bytes) each.
_JOIN_EVERY = 1024
_HEADER_TOKEN = re.compile(r"[\x21-\x7e]+")
#: A JSON answer or event is decoded only if it holds at most this many values (counted by the commas, braces
#: and brackets that separate and open them, strings included, so the count errs high). Python spends 50 to 100
#: bytes on each decoded value, 25 times the 3 bytes of ``{},``: a 16 MiB body of them would take 400 MB. No
#: answer comes near half a million (a 1 MB note of prose has some 70 000 commas); the values cost at most
#: some 40 MB.
MAX_JSON_VALUES = 500_000
#: Shorter texts cannot hold enough values to matter, and are not counted (most events are a few hundred bytes).
_COUNT_FROM = 64 * 1024


def too_many_json_values(data: str | bytes) -> bool:
    """Whether a JSON text may hold more than MAX_JSON_VALUES values (see there)."""
    if len(data) < _COUNT_FROM:
        return False
    if isinstance(data, bytes):
        return data.count(b",") + data.count(b"{") + data.count(b"[") > MAX_JSON_VALUES
    return data.count(",") + data.count("{") + data.count("[") > MAX_JSON_VALUES


def is_header_token(value: str) -> bool:
    """Whether ``value`` is a non-empty run of visible ASCII: no space, CR, LF, control character or non-ASCII.

    Only such values go into a header the reference builds from caller data (a cache key): anything else
    could split the header (CR/LF), be refused by the HTTP library (non-ASCII) or be rewritten by a proxy.
    """
    return _HEADER_TOKEN.fullmatch(value) is not None


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
        return asdict(self)


@dataclass(slots=True)  # thousands of events a stream: its attributes are read and written for each
class StreamState:
    """What a stream decoder has gathered so far; ``done`` once the final event arrived."""

    text: list[str] = field(default_factory=list)
    finish_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    done: bool = False
    #: The pieces already joined (every _JOIN_EVERY pieces), and the characters gathered in all.
    joined: list[str] = field(default_factory=list, repr=False)
    size: int = 0

    def add_text(self, piece: str) -> None:
        """Gather the next piece of the answer; past MAX_ANSWER_CHARS characters the stream is an error."""
        self.size += len(piece)
        if self.size > MAX_ANSWER_CHARS:
            raise ProviderError(f"the streamed answer is longer than {MAX_ANSWER_CHARS} characters")
        text = self.text
        text.append(piece)
        if len(text) >= _JOIN_EVERY:
            self.joined.append("".join(text))
            text.clear()

    def answer(self, provider: str) -> ProviderAnswer:
        if not self.done:  # rule: streaming.final-event-required
            raise ProviderError(f"the {provider} stream ended before its final event")
        return ProviderAnswer(
            "".join(self.joined) + "".join(self.text), self.finish_reason or "stop", self.usage.to_json()
        )


_DECODER = json.JSONDecoder()
_SCAN = _DECODER.scan_once  # type: ignore[attr-defined]  # set in JSONDecoder.__init__; typeshed omits it


def stream_payload(data: str, what: str) -> dict[str, Any] | None:
    """The JSON object of one stream event's data; None for an empty event or one that is not an object.

    Data that is not one JSON value, that nests too deep for the decoder, or that holds more than
    MAX_JSON_VALUES values, is a :class:`ProviderError` that shows its start (``what`` says which stream).
    A stream has thousands of events, so the decoder's ``raw_decode`` reads each one directly;
    ``json.loads`` takes the rare event with white space before its value.
    """
    if not data:
        return None
    if len(data) >= _COUNT_FROM and too_many_json_values(data):
        raise ProviderError(f"a stream event holds more than {MAX_JSON_VALUES} JSON values: {data[:200]!r}")
    try:
        try:
            payload, end = _SCAN(data, 0)  # what raw_decode does, without its frame
        except (StopIteration, ValueError):
            payload, end = json.loads(data), len(data)
        if end != len(data) and not data[end:].isspace():
            raise ValueError("extra data after the JSON value")
    except (ValueError, RecursionError):  # a broken stream says so (rule: streaming.failure-report)
        raise ProviderError(f"{what}: {data[:200]!r}") from None
    return payload if type(payload) is dict else None  # a decoded JSON object is exactly a dict


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
