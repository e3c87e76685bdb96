"""advisor_reference._scenario, part one: the validation of scenario params and the decoding of scripted replies;
running scenarios is in test_scenario_calls.py and test_scenario_handlers.py."""

from __future__ import annotations

import copy

import pytest

from advisor_reference._provider import ScriptedReply
from advisor_reference._scenario import _http_provider, _reply

from ._helpers import answer, call, error_of, scenario

# One row per malformed field: rows are alike by design (a table of cases), so the duplicates tool pairs some of
# them; there is no repeated logic to draw out.
INVALID = [
    # the params object and its top-level fields
    ("params-array", [], "params"),
    ("params-string", "steps", "params"),
    ("unknown-top-level", {"steps": [], "colour": 1}, "colour"),
    ("steps-missing", {"runtime": {}}, "steps"),
    ("steps-null", {"steps": None}, "steps"),
    ("steps-object", {"steps": {}}, "params.steps"),
    ("work-dir-number", {"steps": [], "work_dir": 1}, "params.work_dir"),
    ("work-dir-relative", {"steps": [], "work_dir": "work"}, "work_dir"),
    ("work-dir-empty", {"steps": [], "work_dir": ""}, "work_dir"),
    ("work-dir-nul", {"steps": [], "work_dir": "/w\x00"}, "work_dir"),
    # the runtime
    ("runtime-array", scenario([], []), "runtime"),
    ("runtime-string", scenario([], "fast"), "runtime"),
    ("runtime-unknown", scenario([], {"max_uses": 1}), "runtime.max_uses"),
    ("model-number", scenario([], {"model": 1}), "runtime.model"),
    ("model-null", scenario([], {"model": None}), "runtime.model"),
    ("max-tokens-string", scenario([], {"max_tokens": "10"}), "runtime.max_tokens"),
    ("max-tokens-bool", scenario([], {"max_tokens": True}), "runtime.max_tokens"),
    ("max-tokens-float", scenario([], {"max_tokens": 1.5}), "runtime.max_tokens"),
    ("reasoning-number", scenario([], {"reasoning": 1}), "runtime.reasoning"),
    ("max-uses-string", scenario([], {"max_uses_per_run": "3"}), "runtime.max_uses_per_run"),
    ("max-uses-bool", scenario([], {"max_uses_per_run": False}), "runtime.max_uses_per_run"),
    ("max-uses-null", scenario([], {"max_uses_per_run": None}), "runtime.max_uses_per_run"),
    ("child-uses-string", scenario([], {"child_max_uses": "1"}), "runtime.child_max_uses"),
    ("child-uses-bool", scenario([], {"child_max_uses": True}), "runtime.child_max_uses"),
    ("session-number", scenario([], {"session_id": 7}), "runtime.session_id"),
    ("confine-number", scenario([], {"confine_to_work_dir": 1}), "runtime.confine_to_work_dir"),
    ("confine-string", scenario([], {"confine_to_work_dir": "yes"}), "runtime.confine_to_work_dir"),
    ("blocked-string", scenario([], {"blocked_paths": "secrets"}), "runtime.blocked_paths"),
    ("blocked-null", scenario([], {"blocked_paths": None}), "runtime.blocked_paths"),
    ("blocked-item", scenario([], {"blocked_paths": ["a", 1]}), "runtime.blocked_paths"),
    ("blocked-nul", scenario([], {"blocked_paths": ["a", "b\x00"]}), "runtime.blocked_paths[1]"),
    ("blocked-surrogate", scenario([], {"blocked_paths": ["a\ud800"]}), "runtime.blocked_paths[0]"),
    ("blocked-tilde-user", scenario([], {"blocked_paths": ["~/ok", "~alice/.ssh"]}), "runtime.blocked_paths[1]"),
    ("blocked-tilde-user-alone", scenario([], {"blocked_paths": ["~root"]}), "runtime.blocked_paths[0]"),
    ("blocked-tilde-dot", scenario([], {"blocked_paths": ["~.ssh"]}), "runtime.blocked_paths[0]"),
    ("home-number", scenario([], {"home_dir": 1}), "runtime.home_dir"),
    ("home-relative", scenario([], {"home_dir": "home"}), "runtime.home_dir"),
    ("home-empty", scenario([], {"home_dir": ""}), "runtime.home_dir"),
    ("home-nul", scenario([], {"home_dir": "/h\x00"}), "runtime.home_dir"),
    ("negative-max-uses", scenario([], {"max_uses_per_run": -1}), "runtime"),
    ("negative-child-uses", scenario([], {"child_max_uses": -1}), "runtime"),
    ("store-array", scenario([], {"cache_key_store": ["k"]}), "runtime.cache_key_store"),
    ("store-value", scenario([], {"cache_key_store": {"advisor": 1}}), "runtime.cache_key_store"),
    (
        "store-second-value",
        scenario([], {"cache_key_store": {"advisor": "k", "other": None}}),
        "runtime.cache_key_store",
    ),
    # steps
    ("step-array", scenario([[]]), "steps[0]"),
    ("step-empty", scenario([{}]), "steps[0]"),
    ("step-unknown-kind", scenario([{"wait": 1}]), "steps[0]"),
    ("step-two-kinds", scenario([{"call": call(), "tools": {}}]), "steps[0]"),
    ("second-step", scenario([{"call": call()}, {"calls": []}]), "steps[1]"),
    ("concurrent-object", scenario([{"concurrent": {}}]), "steps[0].concurrent"),
    ("tools-array", scenario([{"tools": []}]), "steps[0].tools"),
    ("tools-agent-number", scenario([{"tools": {"agent": 1}}]), "steps[0].tools.agent"),
    # calls
    ("call-array", scenario([{"call": []}]), "steps[0].call"),
    ("call-unknown", scenario([{"call": call(colour="red")}]), "steps[0].call.colour"),
    ("call-no-snapshot", scenario([{"call": {"input": {}}}]), "steps[0].call.snapshot"),
    ("call-bad-snapshot", scenario([{"call": call(snapshot=[{"role": "robot"}])}]), "steps[0].call.snapshot[0].role"),
    ("call-snapshot-object", scenario([{"call": call(snapshot={})}]), "steps[0].call.snapshot"),
    ("call-agent-number", scenario([{"call": call(agent=3)}]), "steps[0].call.agent"),
    ("call-conversation-string", scenario([{"call": call(conversation="1")}]), "steps[0].call.conversation"),
    ("call-conversation-null", scenario([{"call": call(conversation=None)}]), "steps[0].call.conversation"),
    ("call-turn-bool", scenario([{"call": call(turn=True)}]), "steps[0].call.turn"),
    ("call-provider-object", scenario([{"call": call(provider={})}]), "steps[0].call.provider"),
    ("call-provider-null", scenario([{"call": call(provider=None)}]), "steps[0].call.provider"),
    ("second-call", scenario([{"call": call()}, {"call": call(turn="2")}]), "steps[1].call.turn"),
    ("concurrent-call", scenario([{"concurrent": [call(), call(agent=1)]}]), "steps[0].concurrent[1].agent"),
    ("concurrent-call-array", scenario([{"concurrent": [[]]}]), "steps[0].concurrent[0]"),
    # scripted replies
    ("reply-string", scenario([{"call": call(provider=["ok"])}]), "steps[0].call.provider[0]"),
    ("reply-unknown", scenario([{"call": call(provider=[{"text": "ok"}])}]), "steps[0].call.provider[0].text"),
    ("reply-answer-number", scenario([{"call": call(provider=[{"answer": 1}])}]), "steps[0].call.provider[0].answer"),
    (
        "reply-finish-null",
        scenario([{"call": call(provider=[{"answer": "", "finish_reason": None}])}]),
        "steps[0].call.provider[0].finish_reason",
    ),
    (
        "reply-delay-string",
        scenario([{"call": call(provider=[{"answer": "", "delay_ms": "5"}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    (
        "reply-delay-float",
        scenario([{"call": call(provider=[{"answer": "", "delay_ms": 0.5}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    ("reply-error-number", scenario([{"call": call(provider=[{"error": 500}])}]), "steps[0].call.provider[0].error"),
    ("reply-error-null", scenario([{"call": call(provider=[{"error": None}])}]), "steps[0].call.provider[0].error"),
    (
        "reply-status-string",
        scenario([{"call": call(provider=[{"error": "x", "status": "500"}])}]),
        "steps[0].call.provider[0].status",
    ),
    (
        "reply-status-bool",
        scenario([{"call": call(provider=[{"error": "x", "status": True}])}]),
        "steps[0].call.provider[0].status",
    ),
    (
        "error-reply-delay",
        scenario([{"call": call(provider=[{"error": "x", "delay_ms": "1"}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    (
        "second-reply",
        scenario([{"call": call(provider=[{"answer": "a"}, {"answer": 2}])}]),
        "steps[0].call.provider[1].answer",
    ),
    (
        "reply-delay-negative",
        scenario([{"call": call(provider=[{"answer": "", "delay_ms": -1}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    (
        "reply-delay-huge",
        scenario([{"call": call(provider=[{"answer": "", "delay_ms": 10**15}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    (
        "reply-delay-over-a-minute",
        scenario([{"call": call(provider=[{"error": "x", "delay_ms": 60_001}])}]),
        "steps[0].call.provider[0].delay_ms",
    ),
    # the HTTP provider of black-box runs
    ("http-array", scenario([], {"http_provider": []}), "runtime.http_provider"),
    (
        "http-unknown",
        scenario([], {"http_provider": {"kind": "openai", "base_url": "http://h", "token": "t"}}),
        "runtime.http_provider.token",
    ),
    ("http-kind-missing", scenario([], {"http_provider": {"base_url": "http://h"}}), "runtime.http_provider.kind"),
    (
        "http-kind-unknown",
        scenario([], {"http_provider": {"kind": "gemini", "base_url": "http://h"}}),
        "runtime.http_provider.kind",
    ),
    (
        "http-kind-number",
        scenario([], {"http_provider": {"kind": 1, "base_url": "http://h"}}),
        "runtime.http_provider.kind",
    ),
    ("http-base-url-missing", scenario([], {"http_provider": {"kind": "openai"}}), "runtime.http_provider.base_url"),
    (
        "http-base-url-empty",
        scenario([], {"http_provider": {"kind": "openai", "base_url": ""}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-base-url-number",
        scenario([], {"http_provider": {"kind": "openai", "base_url": 80}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-timeout-string",
        scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h", "timeout_ms": "1"}}),
        "runtime.http_provider.timeout_ms",
    ),
    (
        "http-timeout-negative",
        scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h", "timeout_ms": -5}}),
        "runtime.http_provider.timeout_ms",
    ),
    (
        "http-timeout-zero",
        scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h", "timeout_ms": 0}}),
        "runtime.http_provider.timeout_ms",
    ),
    (
        "http-timeout-over-an-hour",
        scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h", "timeout_ms": 3_600_001}}),
        "runtime.http_provider.timeout_ms",
    ),
    (
        "http-base-url-ftp",
        scenario([], {"http_provider": {"kind": "openai", "base_url": "ftp://h/v1"}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-base-url-no-scheme",
        scenario([], {"http_provider": {"kind": "openai", "base_url": "api.openai.com/v1"}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-base-url-no-host",
        scenario([], {"http_provider": {"kind": "openai", "base_url": "https:///v1"}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-base-url-bad-port",
        scenario([], {"http_provider": {"kind": "openai", "base_url": "http://h:port"}}),
        "runtime.http_provider.base_url",
    ),
    (
        "http-api-key-number",
        scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h", "api_key": 1}}),
        "runtime.http_provider.api_key",
    ),
    (
        "http-with-replies",
        scenario([{"call": call()}], {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:9"}}),
        "steps",
    ),
    (
        "http-with-concurrent-replies",
        scenario(
            [{"tools": {}}, {"concurrent": [call(provider=[]), call()]}],
            {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:9"}},
        ),
        "steps",
    ),
]


@pytest.mark.parametrize("params, at", [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_malformed_params_are_refused_naming_the_field(params, at):
    """Malformed scenario params answer one invalid_input error whose ``at`` names the field, as its message does."""
    error = error_of(params)
    assert (error["code"], error["at"]) == ("invalid_input", at)
    assert set(error) == {"code", "message", "at"} and at in error["message"]


def test_a_refused_base_url_is_not_shown_in_the_error():
    """A base URL that is refused is named by its field, and its credentials are not echoed in the message."""
    error = error_of(scenario([], {"http_provider": {"kind": "openai", "base_url": "ftp://user:pa55w0rd@h/?k=s3cr3t"}}))
    assert error["at"] == "runtime.http_provider.base_url"
    assert "pa55w0rd" not in error["message"] and "s3cr3t" not in error["message"]


@pytest.mark.parametrize("delay_ms, timeout_ms", [(0, 1), (60_000, 3_600_000)], ids=["lowest", "highest"])
def test_the_bounds_of_delay_and_timeout_are_accepted(delay_ms, timeout_ms):
    """delay_ms from 0 to 60000 and timeout_ms from 1 to 3600000 are accepted."""
    assert _reply({"answer": "a", "delay_ms": delay_ms}, "r").delay_s == delay_ms / 1000
    provider = _http_provider({"kind": "openai", "base_url": "http://127.0.0.1:9", "timeout_ms": timeout_ms})
    assert provider.timeout == timeout_ms / 1000
    provider.close()


def test_error_in_steps_comes_before_the_http_provider_is_checked():
    """A malformed step is reported even when the HTTP provider is malformed too."""
    params = scenario([{"call": []}], {"http_provider": {"kind": "gemini"}})
    assert error_of(params)["at"] == "steps[0].call"


def test_params_are_not_mutated():
    """Running a scenario leaves its params, replies included, exactly as they were."""
    params = scenario(
        [{"call": call(provider=[{"answer": "a"}, {"answer": "b"}])}, {"concurrent": [call(), call(agent="c")]}],
        {"max_uses_per_run": 5},
    )
    before = copy.deepcopy(params)
    answer(params)
    assert params == before


@pytest.mark.parametrize(
    "raw, reply",
    [
        ({"answer": "a"}, ScriptedReply(text="a", finish_reason="stop", delay_s=0.0)),
        ({}, ScriptedReply(text="", finish_reason="stop", delay_s=0.0)),
        (
            {"answer": "a", "finish_reason": "length", "delay_ms": 1500},
            ScriptedReply(text="a", finish_reason="length", delay_s=1.5),
        ),
        ({"error": "e", "status": 502, "delay_ms": 250}, ScriptedReply(error="e", status=502, delay_s=0.25)),
        ({"error": "e"}, ScriptedReply(error="e", status=None, delay_s=0.0)),
    ],
    ids=["answer-only", "empty", "all-answer-fields", "all-error-fields", "error-only"],
)
def test_reply_decodes_with_its_defaults(raw, reply):
    """A scripted reply finishes with ``stop`` and waits no time unless told, and ``delay_ms`` becomes seconds."""
    assert _reply(raw, "steps[0].call.provider[0]") == reply
