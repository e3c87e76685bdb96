"""Broken implementations of the wire rules: encodings, streaming and Anthropic breakpoints.
Each is the reference with one encoding step or one HTTP client behaviour done wrong."""

from __future__ import annotations

import json

from reference import _anthropic
from reference._http import HttpProvider, StreamRequired
from reference._provider import ProviderError
from reference._wire import HttpRequest
from reference.adapter import ReferenceAdapter

from . import breaks


class AnthropicBodyRewrite(ReferenceAdapter):
    """The reference whose encode operation passes every Anthropic body through :meth:`rewrite`."""

    def encode_request(self, kind, request):
        encoded = super().encode_request(kind, request)
        if kind != "anthropic":
            return encoded
        body = json.loads(json.dumps(encoded.body))
        self.rewrite(body, request)
        return HttpRequest(encoded.method, encoded.path, dict(encoded.headers), body)

    def rewrite(self, body, request):
        raise NotImplementedError


def all_blocks(body):
    return [*body.get("system", []), *(block for message in body["messages"] for block in message["content"])]


@breaks("breakpoints.spacing", "advisor breakpoints every 16 blocks instead of 15")
class BreakpointSpacing16(AnthropicBodyRewrite):
    def rewrite(self, body, request):
        if request.advisor_cache_profile:
            for block in all_blocks(body):
                block.pop("cache_control", None)
            _anthropic.assign_advisor_breakpoints(body.get("system", []), body["messages"], spacing=16)


@breaks("breakpoints.final-unmarked", "the final message gets a breakpoint too")
class FinalMessageMarked(AnthropicBodyRewrite):
    def rewrite(self, body, request):
        if request.advisor_cache_profile and body["messages"]:
            body["messages"][-1]["content"][-1]["cache_control"] = _anthropic.advisor_cache_control()


@breaks("breakpoints.advisor-ttl", "advisor breakpoints keep the default five-minute TTL")
class FiveMinuteAdvisorTTL(AnthropicBodyRewrite):
    def rewrite(self, body, request):
        for block in all_blocks(body):
            if "cache_control" in block:
                block["cache_control"] = {"type": "ephemeral"}


@breaks("wire.anthropic-no-key", "the cache key travels to Anthropic as metadata.user_id")
class CacheKeySentToAnthropic(AnthropicBodyRewrite):
    def rewrite(self, body, request):
        if request.prompt_cache_key:
            body["metadata"] = {"user_id": request.prompt_cache_key}


@breaks("streaming.no-other-retry", "every HTTP 400 on a plain call is retried as a stream, not only stream-required ones")
class RetryOnEvery400(ReferenceAdapter):
    class http_provider_class(HttpProvider):
        def _raise_for_status(self, status, body, *, stream):
            if status == 400 and not stream:
                raise StreamRequired(f"HTTP 400: {body[:100]}", status=status)
            super()._raise_for_status(status, body, stream=stream)


@breaks("streaming.stream-required-retry", "a stream-required error is treated like any other error: no retry")
class NoStreamRequiredRetry(ReferenceAdapter):
    class http_provider_class(HttpProvider):
        def complete(self, request):
            if request.stream or request.reasoning is not None:
                return self._stream(request)
            try:
                return self._plain(request)
            except StreamRequired as exc:
                raise ProviderError(str(exc), status=exc.status) from None
