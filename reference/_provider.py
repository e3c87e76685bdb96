"""The provider boundary: a provider-neutral request, the answer, and a scripted provider."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._transcript import RenderedMessage


@dataclass(frozen=True)
class ProviderRequest:
    """What the handler asks of a provider: no tools, ever."""

    model: str
    messages: tuple[RenderedMessage, ...]
    max_tokens: int
    reasoning: str | None
    stream: bool
    prompt_cache_key: str
    transport_session: str | None
    parent_session: str | None
    advisor_cache_profile: bool = True
    tools: tuple[Mapping[str, Any], ...] = ()

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
