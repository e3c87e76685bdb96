"""Provider request encodings as they arrive over HTTP (clarifications §7-§8): the path under the base URL, the
headers, the stored cache key, usage and reasoning, on plain calls, streaming calls and the stream-required retry.

Black-box: the implementation makes real HTTP requests to a loopback provider on 127.0.0.1, and the suite reads
what arrived on the wire.
"""

from __future__ import annotations

import re

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, call, mentions, run, scenario

from ..common.providers import speaks

#: Every test of this module is a call over HTTP (black-box mode): the wire as it arrives.
pytestmark = pytest.mark.needs(operations=["scenario"], capabilities=["http"])

KEY = "5f0e7c1d2b3a49588776655443322110"
PROVIDERS = ["anthropic", "openai", "codex"]
JSON_ANSWER = {"anthropic": "anthropic-message.json", "openai": "openai-completion.json", "codex": "codex-response.json"}
STREAM_ANSWER = {"anthropic": "anthropic-stream.sse", "openai": "openai-stream.sse", "codex": "codex-stream.sse"}
STREAM_REQUIRED = '{"detail":"Stream must be set to true"}'
MODES = ["plain", "stream", "retry"]


def _streamed(received):
    return [isinstance(request.body, dict) and bool(request.body.get("stream")) for request in received]


def _exchange(impl, lb, provider, mode, rule, *, base_path="", reasoning=None):
    """One call over HTTP: ``plain`` (no reasoning, a JSON answer), ``stream`` (reasoning, an event stream) or
    ``retry`` (no reasoning, a stream-required 400 and then an event stream), the stored key in the store. Controls
    first: the requests made stream as the call kind requires (streaming.non-streaming-default,
    streaming.reasoning-streams, streaming.stream-required-retry), so a wrong kind of call is never blamed on ``rule``.
    Returns the answer, the scenario and the requests received."""
    reasoning = reasoning or ("low" if mode == "stream" else None)
    answers = {"plain": [Reply.recorded(JSON_ANSWER[provider])], "stream": [Reply.recorded(STREAM_ANSWER[provider])],
               "retry": [Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER[provider])]}[mode]
    lb.expect(*answers)
    runtime = {"http_provider": {"kind": provider, "base_url": lb.base_url + base_path, "timeout_ms": 5000},
               "reasoning": reasoning, "session_id": "sess-wire", "cache_key_store": {"advisor": KEY}}
    params = scenario([{"call": call(provider=[])}], runtime=runtime)
    answer = run(impl, params, rule)
    received = list(lb.received)
    check(bool(received), rule, "the call made no HTTP request", input=params, actual=answer.get("calls"))
    streamed = _streamed(received)
    first = "streaming.reasoning-streams" if reasoning else "streaming.non-streaming-default"
    check(streamed[0] == bool(reasoning), first, f"a call {'with' if reasoning else 'without'} reasoning sent its first "
          f"request {'streamed' if streamed[0] else 'unstreamed'}", input=params)
    if mode == "retry":
        check_equal(streamed, [False, True], "streaming.stream-required-retry", "the stream-required error was not "
                    "followed by exactly one streaming retry", input=params)
    return answer, params, received


def _key_control(answer, params):
    """Control: the call's neutral request holds the stored key (transport.cache-key-store), before the wire is
    judged by it."""
    keys = [request.get("prompt_cache_key") for request in answer.get("provider_requests", [])]
    check(keys[:1] == [KEY], "transport.cache-key-store", "the call's request does not carry the key of the store",
          input=params, expected=KEY, actual=keys)


@pytest.mark.rule(id="wire.endpoints")
@pytest.mark.parametrize("provider, base_path, path, reasoning", [
    ("anthropic", "", "/v1/messages", None),
    ("anthropic", "/proxy/", "/proxy/v1/messages", None),
    ("openai", "/v1", "/v1/chat/completions", None),
    ("openai", "/v1/", "/v1/chat/completions", None),
    ("openai", "/v1", "/v1/chat/completions", "high"),
    ("codex", "/backend-api/codex", "/backend-api/codex/responses", None),
    ("codex", "/backend-api/codex", "/backend-api/codex/responses", "high"),
], ids=["anthropic-root", "anthropic-prefix-trailing-slash", "openai-v1", "openai-v1-trailing-slash",
        "openai-v1-stream", "codex-backend", "codex-backend-stream"])
def test_requests_go_to_the_path_under_the_base_url(impl, lb, provider, base_path, path, reasoning):
    """A call is a POST of a JSON body to the provider's path appended to the base URL's own path (one slash between)."""
    mode = "stream" if reasoning else "plain"
    _, params, received = _exchange(impl, lb, provider, mode, "wire.endpoints", base_path=base_path,
                                    reasoning=reasoning)
    first = received[0]
    shown = {"scenario": params, "base_url": f"<loopback>{base_path}"}
    check_equal((first.method, first.path), ("POST", path), "wire.endpoints", "the request did not go to the "
                "provider's path under the base URL", input=shown)
    check(first.headers.get("content-type", "").split(";")[0].strip() == "application/json"
          and isinstance(first.body, dict), "wire.endpoints", "the request body is not JSON", input=shown,
          actual={"headers": first.headers, "body": first.body})


@pytest.mark.rule(id="wire.anthropic-version")
@pytest.mark.parametrize("mode", MODES)
@speaks("anthropic")
def test_anthropic_version_reaches_the_wire(impl, lb, mode):
    """Every Anthropic request on the wire, the stream-required retry included, carries an anthropic-version date."""
    _, params, received = _exchange(impl, lb, "anthropic", mode, "wire.anthropic-version")
    versions = [request.headers.get("anthropic-version", "") for request in received]
    check(all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", version) for version in versions), "wire.anthropic-version",
          "a request arrived without an anthropic-version header", input=params, actual=versions)


@pytest.mark.rule(id="wire.anthropic-no-key")
@pytest.mark.parametrize("mode", MODES)
@speaks("anthropic")
@pytest.mark.needs(areas=["transport"])  # the key of the cache-key store
def test_stored_key_never_reaches_anthropic(impl, lb, mode):
    """The cache key of the store appears in no Anthropic request on the wire, headers included, retry included."""
    answer, params, received = _exchange(impl, lb, "anthropic", mode, "wire.anthropic-no-key")
    _key_control(answer, params)
    leaked = [request.to_json() for request in received if mentions(request.to_json(), KEY)]
    check_equal(leaked, [], "wire.anthropic-no-key", "the cache key was sent to Anthropic", input=params)


@pytest.mark.rule(id="wire.openai-cache-key")
@pytest.mark.parametrize("mode", MODES)
@speaks("openai")
@pytest.mark.needs(areas=["transport"])  # the key of the cache-key store
def test_stored_key_reaches_the_chat_body(impl, lb, mode):
    """Every chat request on the wire, the stream-required retry included, carries the stored key as
    prompt_cache_key."""
    answer, params, received = _exchange(impl, lb, "openai", mode, "wire.openai-cache-key")
    _key_control(answer, params)
    keys = [request.body.get("prompt_cache_key") for request in received]
    check_equal(keys, [KEY] * len(received), "wire.openai-cache-key", "a chat request on the wire does not carry "
                "the key as prompt_cache_key", input=params)


@pytest.mark.rule(id="wire.codex-affinity")
@pytest.mark.parametrize("mode", MODES)
@speaks("codex")
@pytest.mark.needs(areas=["transport"])  # the key of the cache-key store
def test_stored_key_reaches_the_codex_wire(impl, lb, mode):
    """Every Codex request on the wire, the stream-required retry included, carries the stored key as
    prompt_cache_key and in the session-id and thread-id headers."""
    answer, params, received = _exchange(impl, lb, "codex", mode, "wire.codex-affinity")
    _key_control(answer, params)
    got = [(request.body.get("prompt_cache_key"), request.headers.get("session-id"), request.headers.get("thread-id"))
           for request in received]
    check_equal(got, [(KEY, KEY, KEY)] * len(received), "wire.codex-affinity", "a Codex request on the wire lacks the "
                "key in prompt_cache_key, session-id or thread-id", input=params)


@pytest.mark.rule(id="wire.openai-stream-usage")
@pytest.mark.parametrize("mode", ["stream", "retry"], ids=["reasoning", "retry"])
@speaks("openai")
def test_streamed_chat_calls_ask_for_usage(impl, lb, mode):
    """A chat request that streams, a reasoning call or the stream-required retry, asks for usage in the stream."""
    _, params, received = _exchange(impl, lb, "openai", mode, "wire.openai-stream-usage")
    body = received[-1].body
    check((body.get("stream_options") or {}).get("include_usage") is True, "wire.openai-stream-usage",
          "the streaming request on the wire does not set stream_options.include_usage", input=params, actual=body)


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("reasoning", [None, "high"], ids=["no-reasoning", "reasoning"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_reasoning_reaches_the_wire_over_http(impl, lb, provider, reasoning):
    """A call with reasoning sends the provider's own reasoning field on the wire; a call without sends none."""
    _, params, received = _exchange(impl, lb, provider, "stream" if reasoning else "plain", "wire.reasoning",
                                    reasoning=reasoning)
    body = received[0].body
    if provider == "openai":
        got = body.get("reasoning_effort")
        ok = got == reasoning
    elif provider == "codex":
        got = body.get("reasoning")
        ok = (got or {}).get("effort") == reasoning if reasoning else got is None
    else:
        got = body.get("thinking")
        ok = ((got or {}).get("type") == "enabled" and 1024 <= (got or {}).get("budget_tokens", 0) < body["max_tokens"]
              if reasoning else got is None)
    check(ok, "wire.reasoning", f"the {provider} request on the wire does not carry the reasoning as set "
          f"({reasoning!r})", input=params, actual=body)
