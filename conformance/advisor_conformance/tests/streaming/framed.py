"""One stream of every provider, its text, and the note it is read to over HTTP: shared by the tests of the stream's
framings and of its cuts into reads."""

from __future__ import annotations

from advisor_conformance.event_streams import STREAM_RULE
from advisor_conformance.scenarios import call, result_of, run, scenario

PROVIDERS = ["anthropic", "openai", "codex"]
PIECES = ["Check the float64 ", "rounding: caf\u00e9, ", "na\u00efve \u2014 \U0001f600", " done."]
TEXT = "".join(PIECES)


def _note(impl, provider, base_url, shown):
    runtime = {"http_provider": {"kind": provider, "base_url": base_url + ("/v1" if provider == "openai" else ""),
                                 "timeout_ms": 5000}, "reasoning": "high"}
    params = scenario([{"call": call(provider=[])}], runtime=runtime)
    answer = run(impl, params, STREAM_RULE[provider])
    return result_of(answer, 0, STREAM_RULE[provider], {"scenario": params, **shown})
