"""The provider boundary: a provider-neutral request, the answer, and a scripted provider."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._errors import AdvisorInputError, reject_unknown_keys
from ._transcript import RenderedMessage

_REQUEST_KEYS = frozenset(
    {
        "call",
        "model",
        "messages",
        "tools",
        "max_tokens",
        "reasoning",
        "stream",
        "prompt_cache_key",
        "transport_session",
        "parent_session",
        "advisor_cache_profile",
    }
)


@dataclass(frozen=True)
class ProviderRequest:
    """What the handler asks of a provider: no tools, ever (rule: request.no-tools)."""

    model: str
    messages: tuple[RenderedMessage, ...]
    max_tokens: int
    reasoning: str | None
    stream: bool
    prompt_cache_key: str
    transport_session: str | None
    parent_session: str | None
    advisor_cache_profile: bool = True  # rule: transport.advisor-profile
    tools: tuple[Mapping[str, Any], ...] = ()  # rule: request.no-tools

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [message.to_json() for message in self.messages],
            "tools": list(self.tools),
            "max_tokens": self.max_tokens,
            "reasoning": self.reasoning,
            "stream": self.stream,
            "prompt_cache_key": self.prompt_cache_key,
            "transport_session": self.transport_session,
            "parent_session": self.parent_session,
            "advisor_cache_profile": self.advisor_cache_profile,
        }


def provider_request_from_json(raw: Any, at: str = "request") -> ProviderRequest:
    """A neutral request from its JSON form (``call`` is ignored, ``tools`` must be empty)."""
    if not isinstance(raw, Mapping):
        raise AdvisorInputError("must be an object", at=at)
    reject_unknown_keys(raw, _REQUEST_KEYS, at)

    def field_(key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in raw:
            if default is ...:
                raise AdvisorInputError("is required", at=f"{at}.{key}")
            return default
        value = raw[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise AdvisorInputError("has the wrong type", at=f"{at}.{key}")
        return value

    messages = []
    for index, message in enumerate(field_("messages", list)):
        where = f"{at}.messages[{index}]"
        if not isinstance(message, Mapping) or set(message) != {"role", "content"}:
            raise AdvisorInputError("must be an object with exactly role and content", at=where)
        if message["role"] not in ("system", "user", "assistant") or not isinstance(message["content"], str):
            raise AdvisorInputError("role must be system, user or assistant and content a string", at=where)
        messages.append(RenderedMessage(message["role"], message["content"]))
    if field_("tools", list, []):  # rule: request.no-tools
        raise AdvisorInputError("an advisor request carries no tools", at=f"{at}.tools")
    return ProviderRequest(
        model=field_("model", str),
        messages=tuple(messages),
        max_tokens=field_("max_tokens", int),
        reasoning=field_("reasoning", (str, type(None)), None),
        stream=field_("stream", bool, False),
        prompt_cache_key=field_("prompt_cache_key", str, ""),
        transport_session=field_("transport_session", (str, type(None)), None),
        parent_session=field_("parent_session", (str, type(None)), None),
        advisor_cache_profile=field_("advisor_cache_profile", bool, True),
    )


@dataclass(frozen=True)
class ProviderAnswer:
    """The advisor model's answer: its text and why it stopped (``stop``, ``length``, ...)."""

    text: str
    finish_reason: str = "stop"
    usage: Mapping[str, int] = field(default_factory=dict)


class ProviderError(Exception):
    """The provider call failed (HTTP error, broken stream, timeout)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Provider(Protocol):
    def complete(self, request: ProviderRequest) -> ProviderAnswer: ...


#: A scripted reply waits at most a minute: a scenario's delays only need to order concurrent calls.
MAX_DELAY_MS = 60_000


@dataclass
class ScriptedReply:
    """One scripted provider reply: an answer, or a failure; optionally after a delay."""

    text: str = ""
    finish_reason: str = "stop"
    error: str | None = None
    status: int | None = None
    delay_s: float = 0.0


class ScriptedProvider:
    """An in-memory provider that answers from a script and records every request, thread-safely."""

    def __init__(self, replies: Sequence[ScriptedReply] = ()) -> None:
        self._replies = list(replies)
        self._lock = threading.Lock()
        self.requests: list[ProviderRequest] = []

    def complete(self, request: ProviderRequest) -> ProviderAnswer:
        with self._lock:
            self.requests.append(request)
            reply = self._replies.pop(0) if self._replies else None
        if reply is None:
            raise ProviderError("the scripted provider has no reply left for this request")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.error is not None:
            raise ProviderError(reply.error, status=reply.status)
        return ProviderAnswer(reply.text, reply.finish_reason)
