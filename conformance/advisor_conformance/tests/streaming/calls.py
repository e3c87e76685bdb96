"""Calls over HTTP to a provider on the loopback and the answers the fixtures record, shared by the streaming tests."""

from __future__ import annotations

from advisor_conformance.checks import check
from advisor_conformance.scenarios import call, expected_answers, run, scenario

ANSWERS = expected_answers()


PROVIDERS = ["anthropic", "openai", "codex"]


STREAM_ANSWER = {"anthropic": "anthropic-stream.sse", "openai": "openai-stream.sse", "codex": "codex-stream.sse"}


STREAM_REQUIRED = '{"detail":"Stream must be set to true"}'


def _http(provider, base_url, timeout_ms=5000):
    return {"kind": provider, "base_url": base_url, "timeout_ms": timeout_ms}


def _call():
    return call(provider=[])


def _run(impl, provider, lb, rules, *, reasoning=None, calls=1, timeout_ms=5000, cap=None, base_url=None):
    runtime = {"http_provider": _http(provider, base_url or lb.base_url, timeout_ms), "reasoning": reasoning,
               "session_id": "sess-wire"}
    if cap is not None:
        runtime["max_uses_per_run"] = cap
    params = scenario([{"call": _call()} for _ in range(calls)], runtime=runtime)
    before = len(lb.received)
    answer = run(impl, params, rules)
    if len(lb.received) > before:  # every test here relies on the first request's stream flag: a control
        streamed = bool((lb.received[before].body or {}).get("stream")) if isinstance(lb.received[before].body,
                                                                                      dict) else False
        rule = "streaming.reasoning-streams" if reasoning else "streaming.non-streaming-default"
        check(streamed == bool(reasoning), rule, f"a call {'with' if reasoning else 'without'} reasoning sent its first "
              f"request {'streamed' if streamed else 'unstreamed'}", input=params)
    return answer, params
