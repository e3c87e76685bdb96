"""Broken implementations of the wire rules: encodings, streaming and Anthropic breakpoints.
Each is the reference with one encoding step or one HTTP client behaviour done wrong."""

from __future__ import annotations

import copy
import dataclasses
import json

from advisor_reference import ProviderError, RenderedMessage, trim_space
from advisor_reference import wire as reference_wire
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import WIRES, HttpProvider, HttpRequest, StreamRequired, WireFormat

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


class AdvisorTailMarked(AnthropicBodyRewrite):
    """The reference whose advisor-profile bodies have the tail (the blocks of every message but the last) unmarked
    (:meth:`unmark`) and then marked at the :meth:`positions` of its own counting."""

    def rewrite(self, body, request):
        if not request.advisor_cache_profile:
            return
        tail = [block for message in body["messages"][:-1] for block in message["content"]]
        self.unmark(body, tail)
        for position in self.positions(len(tail), body.get("system", [])):
            tail[position]["cache_control"] = reference_wire.advisor_cache_control()

    def unmark(self, body, tail):
        for block in tail:
            block.pop("cache_control", None)

    def positions(self, size, system):
        raise NotImplementedError


@breaks("breakpoints.spacing")
class BreakpointSpacing16(AnthropicBodyRewrite):
    """advisor breakpoints every 16 blocks instead of 15"""

    def rewrite(self, body, request):
        if request.advisor_cache_profile:
            for block in all_blocks(body):
                block.pop("cache_control", None)
            reference_wire.assign_advisor_breakpoints(body.get("system", []), body["messages"], spacing=16)


@breaks("breakpoints.final-unmarked")
class FinalMessageMarked(AnthropicBodyRewrite):
    """the final message gets a breakpoint too"""

    def rewrite(self, body, request):
        if request.advisor_cache_profile and body["messages"]:
            body["messages"][-1]["content"][-1]["cache_control"] = reference_wire.advisor_cache_control()


@breaks("breakpoints.advisor-ttl")
class FiveMinuteAdvisorTTL(AnthropicBodyRewrite):
    """advisor breakpoints keep the default five-minute TTL"""

    def rewrite(self, body, request):
        for block in all_blocks(body):
            if "cache_control" in block:
                block["cache_control"] = {"type": "ephemeral"}


@breaks("wire.anthropic-no-key")
class CacheKeySentToAnthropic(AnthropicBodyRewrite):
    """the cache key travels to Anthropic as metadata.user_id"""

    def rewrite(self, body, request):
        if request.prompt_cache_key:
            body["metadata"] = {"user_id": request.prompt_cache_key}


@breaks("streaming.no-other-retry")
class RetryOnEvery400(HttpProvider):
    """every HTTP 400 on a plain call is retried as a stream, not only stream-required ones"""

    def raise_for_status(self, status, body, *, stream):
        if status == 400 and not stream:
            raise StreamRequired(f"HTTP 400: {body[:100]}", status=status)
        super().raise_for_status(status, body, stream=stream)


@breaks("streaming.failure-no-credentials")
class CredentialsRedactedByPatternOnly(HttpProvider):
    """errors are redacted by pattern only (Bearer values, key fields, URL user info): a key the provider quotes in
    prose stays in the message"""

    def __init__(self, kind, base_url, **options):
        super().__init__(kind, base_url, **options)
        self.secrets = ()  # the call's own key and URL credentials are not searched for


@breaks("streaming.stream-required-retry")
class NoStreamRequiredRetry(HttpProvider):
    """a stream-required error is treated like any other error: no retry"""

    def complete(self, request):
        if request.stream or request.reasoning is not None:
            return self.complete_stream(request)
        try:
            return self.complete_plain(request)
        except StreamRequired as exc:
            raise ProviderError(str(exc), status=exc.status) from None


# ---------------------------------------------------------------- provider encodings


def wire_variant(wire: WireFormat) -> type[ReferenceAdapter]:
    """A reference adapter whose ``wire.kind`` provider uses ``wire``: in the encode operation and in HTTP calls
    alike, as one implementation's encoder would serve both."""

    class WireVariant(ReferenceAdapter):
        def encode_request(self, kind, request):
            if kind == wire.kind:
                return wire.encode(request, request.stream)
            return super().encode_request(kind, request)

        class http_provider_class(HttpProvider):
            def __init__(self, kind, base_url, **options):
                super().__init__(kind, base_url, **options)
                if kind == wire.kind:
                    self.wire = wire

    return WireVariant


def rewritten(wire: WireFormat, rewrite) -> WireFormat:
    """``wire`` whose encoder passes each request through ``rewrite(body, headers, request, stream)``, which may
    change the body and the headers in place and may return a new path."""

    def encode(request, stream):
        encoded = wire.encode(request, stream)
        body, headers = copy.deepcopy(dict(encoded.body)), dict(encoded.headers)
        path = rewrite(body, headers, request, stream) or encoded.path
        return HttpRequest(encoded.method, path, headers, body)

    return dataclasses.replace(wire, encode=encode)


def preprocessed(wire: WireFormat, messages) -> WireFormat:
    """``wire`` whose encoder first replaces the request's messages with ``messages(request.messages)``."""

    def encode(request, stream):
        return wire.encode(dataclasses.replace(request, messages=tuple(messages(request.messages))), stream)

    return dataclasses.replace(wire, encode=encode)


def _named_after(adapter, function):
    return type(
        function.__name__,
        (adapter,),
        {"__module__": function.__module__, "__qualname__": function.__qualname__, "__doc__": function.__doc__},
    )


def rewrites(kind):
    """A decorator: the function ``rewrite(body, headers, request, stream)`` becomes the reference adapter whose
    ``kind`` wire passes each encoded request through it (:func:`rewritten`), under the function's name and docstring."""
    return lambda rewrite: _named_after(wire_variant(rewritten(WIRES[kind], rewrite)), rewrite)


def preprocesses(kind):
    """A decorator: the function ``messages(messages)`` becomes the reference adapter whose ``kind`` wire encodes the
    messages it returns instead of the request's (:func:`preprocessed`), under the function's name and docstring."""
    return lambda messages: _named_after(wire_variant(preprocessed(WIRES[kind], messages)), messages)


@breaks("wire.codex-affinity")
@rewrites("codex")
def CodexAffinityUnderscores(body, headers, request, stream):
    """the Codex affinity headers are spelt session_id and thread_id, with underscores (which proxies drop), instead of
    session-id and thread-id"""
    for name in ("session-id", "thread-id"):
        if name in headers:
            headers[name.replace("-", "_")] = headers.pop(name)


@breaks("wire.openai-cache-key")
@rewrites("openai")
def OpenAICacheKeyAsUser(body, headers, request, stream):
    """chat completions carry the cache key in the older `user` field instead of prompt_cache_key"""
    if "prompt_cache_key" in body:
        body["user"] = body.pop("prompt_cache_key")


def _forgets(kind, place, key):
    """The reference whose ``kind`` wire leaves ``key`` out of the ``place`` (body or headers) of what it sends."""

    def rewrite(body, headers, request, stream):
        {"body": body, "headers": headers}[place].pop(key, None)

    return wire_variant(rewritten(WIRES[kind], rewrite))


@breaks("wire.openai-stream-usage")
class OpenAIStreamWithoutUsage(_forgets("openai", "body", "stream_options")):
    """a streaming chat request sets stream but forgets stream_options.include_usage, so the stream carries no usage"""


@breaks("wire.anthropic-system-blocks")
@preprocesses("anthropic")
def AnthropicSystemMerged(messages):
    """all system messages are merged into one system text block, joined by blank lines, instead of one block each"""
    system = [m.content for m in messages if m.role == "system" and trim_space(m.content)]
    rest = [m for m in messages if m.role != "system"]
    return ([RenderedMessage("system", "\n\n".join(system))] if system else []) + rest


@breaks("wire.anthropic-messages")
@preprocesses("anthropic")
def AnthropicMessagesTrimmed(messages):
    """the text of every message is trimmed, and messages blank after trimming are left out like blank system messages"""
    return [m if m.role == "system" else RenderedMessage(m.role, trim_space(m.content)) for m in messages]


@breaks("wire.endpoints")
@rewrites("openai")
def OpenAIPathWithV1(body, headers, request, stream):
    """chat completions go to /v1/chat/completions although the base URL already ends in /v1"""
    return "/v1/chat/completions"


@breaks("wire.anthropic-version")
class AnthropicWithoutVersion(_forgets("anthropic", "headers", "anthropic-version")):
    """the anthropic-version header is left out, as if the HTTP client added it"""


@breaks("wire.anthropic-nonempty")
@rewrites("anthropic")
def AnthropicEmptyUserBlocks(body, headers, request, stream):
    """only empty assistant messages are left out: an empty user message is sent as an empty text block"""
    # the messages rebuilt, dropping only empty assistant messages (as the origin does), then the breakpoints
    system = body.get("system", [])
    for block in system:
        block.pop("cache_control", None)
    body["messages"] = [
        {"role": m.role, "content": [{"type": "text", "text": m.content}]}
        for m in request.messages
        if m.role != "system" and not (m.role == "assistant" and m.content == "")
    ]
    if request.advisor_cache_profile:
        reference_wire.assign_advisor_breakpoints(system, body["messages"])
    else:
        reference_wire.assign_default_breakpoints(system, body["messages"])


@breaks("wire.reasoning")
@rewrites("anthropic")
def AnthropicThinkingOverMaxTokens(body, headers, request, stream):
    """the Anthropic thinking budget comes straight from the effort table and is not kept below max_tokens"""
    if "thinking" in body:
        budget = reference_wire.THINKING_BUDGETS.get(request.reasoning, reference_wire.THINKING_BUDGETS["medium"])
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}


@breaks("wire.codex-instructions")
@rewrites("codex")
def CodexSystemAsDeveloperItems(body, headers, request, stream):
    """Codex system messages are sent as developer input items in place, instead of as the instructions"""
    body.pop("instructions", None)
    items = iter(body["input"])
    body["input"] = [
        {"type": "message", "role": "developer", "content": m.content} if m.role == "system" else next(items)
        for m in request.messages
        if m.content != "" and (m.role != "system" or trim_space(m.content))
    ]


@breaks("wire.typed-params")
@rewrites("codex")
def CodexMaxTokens(body, headers, request, stream):
    """the Codex body carries max_tokens, copied from chat completions, which the Responses API does not know, instead
    of max_output_tokens"""
    body["max_tokens"] = body.pop("max_output_tokens")


# ---------------------------------------------------------------- the HTTP client and streams


@breaks("streaming.non-streaming-default")
class AlwaysStreams(HttpProvider):
    """every call streams, reasoning or not"""

    def complete(self, request):
        return self.complete_stream(request)


@breaks("streaming.reasoning-streams")
class ReasoningSentPlainFirst(HttpProvider):
    """every call starts as a plain request and streams only after a stream-required error, so a reasoning call is first
    sent unstreamed"""

    def complete(self, request):
        try:
            return self.complete_plain(request)
        except StreamRequired:
            return self.complete_stream(request)


class _StatusErrorReplaced(HttpProvider):
    """The reference's HTTP status check, but an error it raises is replaced by the one :meth:`replaced` makes of it
    (kept where that is None)."""

    def raise_for_status(self, status, body, *, stream):
        try:
            super().raise_for_status(status, body, stream=stream)
        except ProviderError as error:
            replacement = self.replaced(error, status, body)
            if replacement is None:
                raise
            raise replacement from None

    def replaced(self, error, status, body):
        raise NotImplementedError


@breaks("streaming.stream-required-detection")
class StreamRequiredMustOnly(_StatusErrorReplaced):
    """the stream-required test looks for `stream` and `must` only, missing bodies that say `required`"""

    def replaced(self, error, status, body):
        if isinstance(error, StreamRequired) and "must" not in body.lower():
            return ProviderError(str(error), status=error.status)
        return None


def _done_at_stop_reason(stream_event):
    """A stream reader that takes the event carrying the stop reason as the end: a chat chunk with a finish_reason,
    an Anthropic message_delta with a stop_reason."""

    def feed(state, event, data):
        stream_event(state, event, data)
        if '"finish_reason":"' in data.replace(" ", "") or '"stop_reason":"' in data.replace(" ", ""):
            state.done = True

    return feed


@breaks("streaming.final-event-required")
class StreamDoneAtStopReason(HttpProvider):
    """the chat and Anthropic stream loops stop at the event that carries the stop reason, after the last text delta,
    and never wait for data: [DONE] or message_stop"""

    def __init__(self, kind, base_url, **options):
        super().__init__(kind, base_url, **options)
        if kind in ("anthropic", "openai"):
            self.wire = dataclasses.replace(self.wire, stream_event=_done_at_stop_reason(self.wire.stream_event))


@breaks("streaming.failure-report")
class HttpErrorWithoutBody(_StatusErrorReplaced):
    """an HTTP error is reported by its status alone, without the body that says why"""

    def replaced(self, error, status, body):
        return type(error)(f"{self.wire.kind} answered HTTP {status}", status=status)


def _skip_anthropic_errors(state, event, data):
    if event != "error":
        WIRES["anthropic"].stream_event(state, event, data)


@breaks("streaming.anthropic-events")
class AnthropicErrorEventIgnored(
    wire_variant(dataclasses.replace(WIRES["anthropic"], stream_event=_skip_anthropic_errors))
):
    """the Anthropic stream reader skips `error` events like pings, so an overloaded stream reads as a cut one"""


def _skip_chunks_without_choices(state, event, data):
    if data.strip() != "[DONE]" and '"choices"' not in data:
        return  # the usage chunk has choices: [], so only chunks without the key are skipped
    WIRES["openai"].stream_event(state, event, data)


@breaks("streaming.openai-chunks")
class ChatErrorChunkIgnored(
    wire_variant(dataclasses.replace(WIRES["openai"], stream_event=_skip_chunks_without_choices))
):
    """the chat stream reader skips chunks that carry no choices, so an error chunk is ignored and the stream reads as a
    cut one"""


# ---------------------------------------------------------------- more Anthropic breakpoints


def _clear_marks(body):
    for block in all_blocks(body):
        block.pop("cache_control", None)


@breaks("breakpoints.system-marked")
class FirstSystemBlockMarked(AnthropicBodyRewrite):
    """the advisor profile marks the first system block instead of the last"""

    def rewrite(self, body, request):
        system = body.get("system", [])
        if request.advisor_cache_profile and len(system) > 1:
            system[0]["cache_control"] = system[-1].pop("cache_control")


@breaks("breakpoints.max-four")
class SystemMarkNotCounted(AnthropicBodyRewrite):
    """the system block's marker is not counted against the budget, so a long tail gets a fifth marker"""

    def rewrite(self, body, request):
        if not request.advisor_cache_profile:
            return
        _clear_marks(body)
        system = body.get("system", [])
        budget = reference_wire.MAX_BREAKPOINTS + (1 if system else 0)
        reference_wire.assign_advisor_breakpoints(system, body["messages"], max_marks=budget)


@breaks("breakpoints.default-profile")
class OneHourEverywhere(AnthropicBodyRewrite):
    """the one-hour TTL is given to every request's markers, advisor or not"""

    def rewrite(self, body, request):
        for block in all_blocks(body):
            if "cache_control" in block:
                block["cache_control"] = reference_wire.advisor_cache_control()


@breaks("breakpoints.default-placement")
class DefaultMarksSecondToLastMessage(AnthropicBodyRewrite):
    """the default profile marks the second-to-last message, whatever its role, instead of the second-to-last user
    message"""

    def rewrite(self, body, request):
        if request.advisor_cache_profile or not body["messages"]:
            return
        for message in body["messages"]:
            message["content"][-1].pop("cache_control", None)
        body["messages"][-1]["content"][-1]["cache_control"] = reference_wire.default_cache_control()
        if len(body["messages"]) >= 2:
            body["messages"][-2]["content"][-1]["cache_control"] = reference_wire.default_cache_control()


@breaks("breakpoints.wire-validity", also=("breakpoints.advisor-ttl",))
class FiveMinuteSystemBeforeOneHour(AnthropicBodyRewrite):
    """the advisor profile keeps the default five-minute marker on the system block and puts one-hour markers after it,
    which the API refuses (a five-minute marker in an advisor request is also not the advisor TTL)"""

    def rewrite(self, body, request):
        system = body.get("system", [])
        if request.advisor_cache_profile and system and "cache_control" in system[-1]:
            system[-1]["cache_control"] = reference_wire.default_cache_control()


@breaks("breakpoints.cache-reuse", also=("breakpoints.spacing",))
class EvenlySpreadBreakpoints(AdvisorTailMarked):
    """the tail's three markers are spread evenly over it (at its end, two thirds and one third) instead of every 15
    blocks back, so after a long append no later marker is within reach (not every 15 blocks: the spacing too)"""

    def positions(self, size, system):
        budget = reference_wire.MAX_BREAKPOINTS - (1 if system else 0)
        return [
            index
            for index in sorted({size - 1 - (size * part) // budget for part in range(budget)})
            if 0 <= index < size
        ]
