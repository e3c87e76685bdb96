"""Unit tests of the reference's ``scenario`` operation: params validation, scripted replies, handlers, answers."""

from __future__ import annotations

import copy
import dataclasses
import re
import threading
import time

import pytest

from advisor_reference import AdvisorRuntime, ProviderError, RequestBuilder
from advisor_reference._provider import ScriptedReply
from advisor_reference._scenario import _reply, run_scenario
from advisor_reference._strings import REFERENCE_STRINGS
from advisor_reference.adapter import ReferenceAdapter

SNAPSHOT = [{"role": "user", "content": "Fix the bug."}]
HEX32 = re.compile(r"[0-9a-f]{32}")


def call(**fields):
    """A valid call: a bare input on a one-message snapshot with one good reply, overridden by ``fields``."""
    return {"input": {}, "snapshot": SNAPSHOT, "provider": [{"answer": "ok"}], **fields}


def scenario(steps, runtime=None, **params):
    return {"runtime": {} if runtime is None else runtime, "steps": steps, **params}


def answer(params):
    return ReferenceAdapter().scenario(params)


def error_of(params):
    out = answer(params)
    assert set(out) == {"error"}, f"the scenario was not refused: {out}"
    return out["error"]


# --- params validation --------------------------------------------------------------------------------------------

INVALID = [
    # the params object and its top-level fields
    ("params-array", [], "params", "must be an object"),
    ("params-string", "steps", "params", "must be an object"),
    ("unknown-top-level", {"steps": [], "colour": 1}, "colour", "unknown field 'colour'"),
    ("steps-missing", {"runtime": {}}, "steps", "is required"),
    ("steps-null", {"steps": None}, "steps", "is required"),
    ("steps-object", {"steps": {}}, "params.steps", "must be list"),
    ("work-dir-number", {"steps": [], "work_dir": 1}, "params.work_dir", "must be str"),
    ("work-dir-relative", {"steps": [], "work_dir": "work"}, "work_dir", "must be an absolute path"),
    ("work-dir-empty", {"steps": [], "work_dir": ""}, "work_dir", "must be an absolute path"),
    # the runtime
    ("runtime-array", scenario([], []), "runtime", "must be an object"),
    ("runtime-string", scenario([], "fast"), "runtime", "must be an object"),
    ("runtime-unknown", scenario([], {"max_uses": 1}), "runtime.max_uses", "unknown field 'max_uses'"),
    ("model-number", scenario([], {"model": 1}), "runtime.model", "must be str"),
    ("model-null", scenario([], {"model": None}), "runtime.model", "must be str"),
    ("max-tokens-string", scenario([], {"max_tokens": "10"}), "runtime.max_tokens", "must be int"),
    ("max-tokens-bool", scenario([], {"max_tokens": True}), "runtime.max_tokens", "must be int"),
    ("max-tokens-float", scenario([], {"max_tokens": 1.5}), "runtime.max_tokens", "must be int"),
    ("reasoning-number", scenario([], {"reasoning": 1}), "runtime.reasoning", "must be str or NoneType"),
    ("max-uses-string", scenario([], {"max_uses_per_run": "3"}), "runtime.max_uses_per_run", "must be int"),
    ("max-uses-bool", scenario([], {"max_uses_per_run": False}), "runtime.max_uses_per_run", "must be int"),
    ("max-uses-null", scenario([], {"max_uses_per_run": None}), "runtime.max_uses_per_run", "must be int"),
    ("child-uses-string", scenario([], {"child_max_uses": "1"}), "runtime.child_max_uses", "must be int"),
    ("child-uses-bool", scenario([], {"child_max_uses": True}), "runtime.child_max_uses", "must be int"),
    ("session-number", scenario([], {"session_id": 7}), "runtime.session_id", "must be str or NoneType"),
    ("confine-number", scenario([], {"confine_to_work_dir": 1}), "runtime.confine_to_work_dir", "must be bool"),
    ("confine-string", scenario([], {"confine_to_work_dir": "yes"}), "runtime.confine_to_work_dir",
     "must be bool"),
    ("blocked-string", scenario([], {"blocked_paths": "secrets"}), "runtime.blocked_paths", "must be list"),
    ("blocked-null", scenario([], {"blocked_paths": None}), "runtime.blocked_paths", "must be list"),
    ("blocked-item", scenario([], {"blocked_paths": ["a", 1]}), "runtime.blocked_paths",
     "must be an array of strings"),
    ("negative-max-uses", scenario([], {"max_uses_per_run": -1}), "runtime", "use caps cannot be negative"),
    ("negative-child-uses", scenario([], {"child_max_uses": -1}), "runtime", "use caps cannot be negative"),
    ("store-array", scenario([], {"cache_key_store": ["k"]}), "runtime.cache_key_store", "must be an object"),
    ("store-value", scenario([], {"cache_key_store": {"advisor": 1}}), "runtime.cache_key_store",
     "keys must be strings"),
    ("store-second-value", scenario([], {"cache_key_store": {"advisor": "k", "other": None}}),
     "runtime.cache_key_store", "keys must be strings"),
    # steps
    ("step-array", scenario([[]]), "steps[0]", "must be an object"),
    ("step-empty", scenario([{}]), "steps[0]", "a step is one of {call}, {concurrent}, {tools}"),
    ("step-unknown-kind", scenario([{"wait": 1}]), "steps[0]", "a step is one of {call}, {concurrent}, {tools}"),
    ("step-two-kinds", scenario([{"call": call(), "tools": {}}]), "steps[0]",
     "a step is one of {call}, {concurrent}, {tools}"),
    ("second-step", scenario([{"call": call()}, {"calls": []}]), "steps[1]",
     "a step is one of {call}, {concurrent}, {tools}"),
    ("concurrent-object", scenario([{"concurrent": {}}]), "steps[0].concurrent", "must be an array of calls"),
    ("tools-array", scenario([{"tools": []}]), "steps[0].tools", "must be an object"),
    ("tools-agent-number", scenario([{"tools": {"agent": 1}}]), "steps[0].tools.agent", "must be str or NoneType"),
    # calls
    ("call-array", scenario([{"call": []}]), "steps[0].call", "must be an object"),
    ("call-unknown", scenario([{"call": call(colour="red")}]), "steps[0].call.colour", "unknown field 'colour'"),
    ("call-no-snapshot", scenario([{"call": {"input": {}}}]), "steps[0].call.snapshot",
     "is required (null for a missing snapshot)"),
    ("call-bad-snapshot", scenario([{"call": call(snapshot=[{"role": "robot"}])}]), "steps[0].call.snapshot[0].role",
     "must be one of system, user, assistant, tool, got 'robot'"),
    ("call-snapshot-object", scenario([{"call": call(snapshot={})}]), "steps[0].call.snapshot",
     "must be an array of messages, got object"),
    ("call-agent-number", scenario([{"call": call(agent=3)}]), "steps[0].call.agent", "must be str or NoneType"),
    ("call-conversation-string", scenario([{"call": call(conversation="1")}]), "steps[0].call.conversation",
     "must be int"),
    ("call-conversation-null", scenario([{"call": call(conversation=None)}]), "steps[0].call.conversation",
     "must be int"),
    ("call-turn-bool", scenario([{"call": call(turn=True)}]), "steps[0].call.turn", "must be int"),
    ("call-provider-object", scenario([{"call": call(provider={})}]), "steps[0].call.provider", "must be list"),
    ("call-provider-null", scenario([{"call": call(provider=None)}]), "steps[0].call.provider", "must be list"),
    ("second-call", scenario([{"call": call()}, {"call": call(turn="2")}]), "steps[1].call.turn", "must be int"),
    ("concurrent-call", scenario([{"concurrent": [call(), call(agent=1)]}]), "steps[0].concurrent[1].agent",
     "must be str or NoneType"),
    ("concurrent-call-array", scenario([{"concurrent": [[]]}]), "steps[0].concurrent[0]", "must be an object"),
    # scripted replies
    ("reply-string", scenario([{"call": call(provider=["ok"])}]), "steps[0].call.provider[0]", "must be an object"),
    ("reply-unknown", scenario([{"call": call(provider=[{"text": "ok"}])}]), "steps[0].call.provider[0].text",
     "unknown field 'text'"),
    ("reply-answer-number", scenario([{"call": call(provider=[{"answer": 1}])}]), "steps[0].call.provider[0].answer",
     "must be str"),
    ("reply-finish-null", scenario([{"call": call(provider=[{"answer": "", "finish_reason": None}])}]),
     "steps[0].call.provider[0].finish_reason", "must be str"),
    ("reply-delay-string", scenario([{"call": call(provider=[{"answer": "", "delay_ms": "5"}])}]),
     "steps[0].call.provider[0].delay_ms", "must be int"),
    ("reply-delay-float", scenario([{"call": call(provider=[{"answer": "", "delay_ms": 0.5}])}]),
     "steps[0].call.provider[0].delay_ms", "must be int"),
    ("reply-error-number", scenario([{"call": call(provider=[{"error": 500}])}]), "steps[0].call.provider[0].error",
     "must be str"),
    ("reply-error-null", scenario([{"call": call(provider=[{"error": None}])}]), "steps[0].call.provider[0].error",
     "must be str"),
    ("reply-status-string", scenario([{"call": call(provider=[{"error": "x", "status": "500"}])}]),
     "steps[0].call.provider[0].status", "must be int"),
    ("reply-status-bool", scenario([{"call": call(provider=[{"error": "x", "status": True}])}]),
     "steps[0].call.provider[0].status", "must be int"),
    ("error-reply-delay", scenario([{"call": call(provider=[{"error": "x", "delay_ms": "1"}])}]),
     "steps[0].call.provider[0].delay_ms", "must be int"),
    ("second-reply", scenario([{"call": call(provider=[{"answer": "a"}, {"answer": 2}])}]),
     "steps[0].call.provider[1].answer", "must be str"),
    # the HTTP provider of black-box runs
    ("http-array", scenario([], {"http_provider": []}), "runtime.http_provider", "must be an object"),
    ("http-unknown", scenario([], {"http_provider": {"kind": "openai", "base_url": "http://h", "token": "t"}}),
     "runtime.http_provider.token", "unknown field 'token'"),
    ("http-kind-missing", scenario([], {"http_provider": {"base_url": "http://h"}}), "runtime.http_provider.kind",
     "must be one of anthropic, openai, codex"),
    ("http-kind-unknown", scenario([], {"http_provider": {"kind": "gemini", "base_url": "http://h"}}),
     "runtime.http_provider.kind", "must be one of anthropic, openai, codex"),
    ("http-kind-number", scenario([], {"http_provider": {"kind": 1, "base_url": "http://h"}}),
     "runtime.http_provider.kind", "must be str"),
    ("http-base-url-missing", scenario([], {"http_provider": {"kind": "openai"}}), "runtime.http_provider.base_url",
     "is required"),
    ("http-base-url-empty", scenario([], {"http_provider": {"kind": "openai", "base_url": ""}}),
     "runtime.http_provider.base_url", "is required"),
    ("http-base-url-number", scenario([], {"http_provider": {"kind": "openai", "base_url": 80}}),
     "runtime.http_provider.base_url", "must be str"),
    ("http-timeout-string", scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h",
                                                            "timeout_ms": "1"}}),
     "runtime.http_provider.timeout_ms", "must be int"),
    ("http-api-key-number", scenario([], {"http_provider": {"kind": "codex", "base_url": "http://h",
                                                            "api_key": 1}}),
     "runtime.http_provider.api_key", "must be str"),
    ("http-with-replies", scenario([{"call": call()}], {"http_provider": {"kind": "openai",
                                                                           "base_url": "http://127.0.0.1:9"}}),
     "steps", "with http_provider the suite's server scripts the replies; calls carry none"),
    ("http-with-concurrent-replies",
     scenario([{"tools": {}}, {"concurrent": [call(provider=[]), call()]}],
              {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:9"}}),
     "steps", "with http_provider the suite's server scripts the replies; calls carry none"),
]


@pytest.mark.parametrize("params, at, message", [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_malformed_params_are_refused_naming_the_field(params, at, message):
    """Malformed scenario params answer one invalid_input error whose ``at`` names the field and whose message says why."""
    error = error_of(params)
    assert error == {"code": "invalid_input", "message": f"{at}: {message}", "at": at}


def test_error_in_steps_comes_before_the_http_provider_is_checked():
    """A malformed step is reported even when the HTTP provider is malformed too."""
    params = scenario([{"call": []}], {"http_provider": {"kind": "gemini"}})
    assert error_of(params)["at"] == "steps[0].call"


def test_params_are_not_mutated():
    """Running a scenario leaves its params, replies included, exactly as they were."""
    params = scenario([{"call": call(provider=[{"answer": "a"}, {"answer": "b"}])},
                       {"concurrent": [call(), call(agent="c")]}], {"max_uses_per_run": 5})
    before = copy.deepcopy(params)
    answer(params)
    assert params == before


# --- the answer -----------------------------------------------------------------------------------------------------

def test_empty_scenario_answers_empty_lists():
    """A scenario without steps answers no calls, no tool lists and no requests."""
    assert answer({"steps": []}) == {"calls": [], "tools": [], "provider_requests": []}
    assert answer({"steps": [], "runtime": None}) == {"calls": [], "tools": [], "provider_requests": []}


def test_request_carries_every_field_of_the_runtime():
    """The recorded request carries the call index and the runtime's model, tokens, reasoning and sessions."""
    runtime = {"model": "big-model", "max_tokens": 123, "reasoning": "high", "session_id": "s1",
               "cache_key_store": {"advisor": "k" * 8}}
    out = answer(scenario([{"call": call(input={"question": "why?"})}], runtime))
    (request,) = out["provider_requests"]
    messages = request.pop("messages")
    assert request == {
        "call": 0, "model": "big-model", "tools": [], "max_tokens": 123, "reasoning": "high", "stream": True,
        "prompt_cache_key": "k" * 8, "transport_session": "s1-advisor", "parent_session": "s1",
        "advisor_cache_profile": True,
    }
    assert messages == [m.to_json() for m in RequestBuilder(REFERENCE_STRINGS).build(
        __import__("advisor_reference").parse_transcript(SNAPSHOT), "why?", [])]
    assert out["calls"] == [{"result": "ok"}]


def test_request_defaults():
    """Without runtime settings the request uses the default model and tokens, no reasoning and no sessions."""
    (request,) = answer(scenario([{"call": call()}]))["provider_requests"]
    assert (request["model"], request["max_tokens"], request["reasoning"], request["stream"]) == (
        "advisor-model", 4096, None, False)
    assert (request["transport_session"], request["parent_session"]) == (None, None)
    assert HEX32.fullmatch(request["prompt_cache_key"])


def test_explicit_null_reasoning_and_session_are_the_defaults():
    """``reasoning`` and ``session_id`` given as null behave as when they are left out."""
    runtime = {"reasoning": None, "session_id": None}
    (request,) = answer(scenario([{"call": call()}], runtime))["provider_requests"]
    assert (request["reasoning"], request["stream"], request["transport_session"]) == (None, False, None)


def test_child_call_uses_the_sub_agent_session():
    """A call with an agent id uses the shared sub-agent transport session under the parent session."""
    out = answer(scenario([{"call": call(agent="child-1")}], {"session_id": "run"}))
    (request,) = out["provider_requests"]
    assert (request["transport_session"], request["parent_session"]) == ("run-subagent-advisor", "run")


def test_calls_answer_in_script_order_with_their_indices():
    """Results come in script order and each request names the index of the call that made it."""
    steps = [
        {"call": call(provider=[{"answer": "zero"}])},
        {"tools": {}},
        {"concurrent": [call(turn=2, provider=[{"answer": "one", "delay_ms": 60}]),
                        call(turn=3, provider=[{"answer": "two"}])]},
        {"call": call(turn=4, input={"question": 5}, provider=[])},
        {"call": call(turn=5, provider=[{"answer": "four"}])},
    ]
    out = answer(scenario(steps, {"max_uses_per_run": 10}))
    assert out["calls"][:3] == [{"result": "zero"}, {"result": "one"}, {"result": "two"}]
    assert out["calls"][3]["error"]["at"] == "input.question"
    assert out["calls"][4] == {"result": "four"}
    assert sorted(request["call"] for request in out["provider_requests"]) == [0, 1, 2, 4]
    assert out["provider_requests"][0]["call"] == 0 and out["provider_requests"][-1]["call"] == 4
    assert out["tools"] == [["advisor"]]


def test_tools_steps_list_the_advisor_whatever_the_budget():
    """Each tools step answers the tool names offered then; the advisor stays listed after the budget is spent."""
    steps = [{"tools": {}}, {"call": call()}, {"call": call(turn=2)}, {"tools": {"agent": None}},
             {"tools": {"agent": "child"}}]
    out = answer(scenario(steps, {"max_uses_per_run": 1}))
    assert out["tools"] == [["advisor"], ["advisor"], ["advisor"]]
    assert out["calls"][1] == {"result": REFERENCE_STRINGS.budget_spent.replace("{used}", "1").replace("{max}", "1")}


# --- scripted replies -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "replies, outcome",
    [
        ([{"answer": "  first  "}, {"answer": "second"}], {"result": "first"}),
        ([{"answer": "cut", "finish_reason": "length"}], {"result": "cut\n\n" + REFERENCE_STRINGS.token_limit_note}),
        ([{"answer": "done", "finish_reason": "stop"}], {"result": "done"}),
        ([{"answer": "x", "finish_reason": "end_turn"}], {"result": "x"}),
        ([{}], {"result": REFERENCE_STRINGS.no_content_note}),
        ([{"finish_reason": "length"}], {"result": REFERENCE_STRINGS.no_content_note + "\n\n"
                                         + REFERENCE_STRINGS.token_limit_note}),
        ([{"error": "upstream returned 503", "status": 503}],
         {"error": {"code": "provider_error", "message": "the advisor call failed: upstream returned 503"}}),
        ([{"error": ""}], {"error": {"code": "provider_error", "message": "the advisor call failed: "}}),
        ([{"error": "boom", "answer": "ignored"}],
         {"error": {"code": "provider_error", "message": "the advisor call failed: boom"}}),
        ([], {"error": {"code": "provider_error",
                        "message": "the advisor call failed: no scripted provider reply is left for this call"}}),
    ],
    ids=["first-of-two", "length", "stop", "other-reason", "empty-reply", "empty-length", "error", "empty-error",
         "error-wins", "none-left"],
)
def test_scripted_reply_outcomes(replies, outcome):
    """A call's first scripted reply decides its outcome: the note, or a provider_error with the scripted message."""
    out = answer(scenario([{"call": call(provider=replies)}]))
    assert out["calls"] == [outcome]
    assert len(out["provider_requests"]) == 1


@pytest.mark.parametrize(
    "raw, reply",
    [
        ({"answer": "a"}, ScriptedReply(text="a", finish_reason="stop", delay_s=0.0)),
        ({}, ScriptedReply(text="", finish_reason="stop", delay_s=0.0)),
        ({"answer": "a", "finish_reason": "length", "delay_ms": 1500},
         ScriptedReply(text="a", finish_reason="length", delay_s=1.5)),
        ({"error": "e", "status": 502, "delay_ms": 250}, ScriptedReply(error="e", status=502, delay_s=0.25)),
        ({"error": "e"}, ScriptedReply(error="e", status=None, delay_s=0.0)),
    ],
    ids=["answer-only", "empty", "all-answer-fields", "all-error-fields", "error-only"],
)
def test_reply_decodes_with_its_defaults(raw, reply):
    """A scripted reply finishes with ``stop`` and waits no time unless told, and ``delay_ms`` becomes seconds."""
    assert _reply(raw, "steps[0].call.provider[0]") == reply


def test_replies_belong_to_their_own_call():
    """Each call answers from its own replies, whatever other calls have scripted."""
    steps = [{"call": call(provider=[{"answer": "a1"}, {"answer": "a2"}])},
             {"call": call(provider=[{"answer": "b1"}])},
             {"call": call(provider=[])}]
    out = answer(scenario(steps, {"max_uses_per_run": 3}))
    assert [c.get("result") for c in out["calls"]] == ["a1", "b1", None]
    assert out["calls"][2]["error"]["code"] == "provider_error"


def test_failed_call_keeps_the_use_and_later_calls_see_the_budget():
    """A provider failure spends its use; with a cap of 2 the third call gets the budget-spent note 2/2."""
    steps = [{"call": call(provider=[{"error": "down", "status": 500}])}, {"call": call(turn=2)},
             {"call": call(turn=3)}]
    out = answer(scenario(steps, {"max_uses_per_run": 2}))
    assert out["calls"][0]["error"]["code"] == "provider_error"
    assert out["calls"][1] == {"result": "ok"}
    assert out["calls"][2] == {"result": REFERENCE_STRINGS.budget_spent.replace("{used}", "2").replace("{max}", "2")}
    assert [r["call"] for r in out["provider_requests"]] == [0, 1]


class _StatusRecorder:
    """Wraps the scenario's provider and records the status of every provider error it raises."""

    def __init__(self, inner, statuses):
        self.inner, self.statuses = inner, statuses

    def complete(self, request):
        try:
            return self.inner.complete(request)
        except ProviderError as exc:
            self.statuses.append(exc.status)
            raise


@pytest.mark.parametrize("reply, status", [({"error": "x", "status": 429}, 429), ({"error": "x"}, None)],
                         ids=["scripted", "absent"])
def test_scripted_error_carries_its_status(reply, status):
    """A scripted error reaches the provider boundary as a ProviderError with the scripted status (None if absent)."""
    statuses: list = []

    class Runtime(AdvisorRuntime):
        def __init__(self, config, provider, **kwargs):
            super().__init__(config, _StatusRecorder(provider, statuses), **kwargs)

    out = run_scenario(scenario([{"call": call(provider=[reply])}]), RequestBuilder(REFERENCE_STRINGS), Runtime)
    assert out["calls"][0]["error"]["code"] == "provider_error"
    assert statuses == [status]


@pytest.mark.parametrize("reply", [{"answer": "late", "delay_ms": 150}, {"error": "late", "delay_ms": 150}],
                         ids=["answer", "error"])
def test_delay_holds_the_reply_back(reply):
    """A reply with ``delay_ms`` comes back no sooner than that many milliseconds, and not much later."""
    start = time.monotonic()
    out = answer(scenario([{"call": call(provider=[reply])}]))
    elapsed = time.monotonic() - start
    assert 0.15 <= elapsed < 5
    assert "late" in str(out["calls"][0])


def test_reply_without_delay_is_immediate():
    """A reply with ``delay_ms`` 0 does not wait."""
    start = time.monotonic()
    answer(scenario([{"call": call(provider=[{"answer": "now", "delay_ms": 0}])}]))
    assert time.monotonic() - start < 2


def test_requests_and_notes_use_the_given_builder():
    """The runtime builds requests and notes with the builder the scenario is given, not a default one."""
    strings = dataclasses.replace(REFERENCE_STRINGS, system_prompt="Custom system prompt.",
                                  budget_spent="Custom spent {used}/{max}.")
    out = run_scenario(scenario([{"call": call()}, {"call": call(turn=2)}], {"max_uses_per_run": 1}),
                       RequestBuilder(strings))
    (request,) = out["provider_requests"]
    assert request["messages"][0] == {"role": "system", "content": "Custom system prompt."}
    assert out["calls"] == [{"result": "ok"}, {"result": "Custom spent 1/1."}]


# --- handlers, cache keys and budgets -------------------------------------------------------------------------------

def _keys(steps, runtime=None):
    out = answer(scenario(steps, {"max_uses_per_run": 20, "child_max_uses": 20, **(runtime or {})}))
    assert all("result" in outcome for outcome in out["calls"]), out["calls"]
    by_call = {request["call"]: request["prompt_cache_key"] for request in out["provider_requests"]}
    return [by_call[index] for index in range(len(out["calls"]))]


def test_one_handler_per_agent_conversation_and_turn():
    """Calls of the same agent, conversation and turn share a handler's key; any other call gets a fresh one."""
    keys = _keys([
        {"call": call()},
        {"call": call(conversation=1, turn=1)},
        {"call": call(turn=2)},
        {"call": call(conversation=2)},
        {"call": call(agent="c")},
        {"call": call(agent="c", turn=1, conversation=1)},
        {"call": call(agent="d")},
    ])
    assert all(HEX32.fullmatch(key) for key in keys)
    assert keys[0] == keys[1] and keys[4] == keys[5]
    assert len({keys[0], keys[2], keys[3], keys[4], keys[6]}) == 5


def test_store_key_is_shared_by_every_handler():
    """With a key in the store's advisor slot, every handler of every agent sends that key."""
    keys = _keys([{"call": call()}, {"call": call(turn=2)}, {"call": call(conversation=3, agent="c")}],
                 {"cache_key_store": {"advisor": "shared-key"}})
    assert keys == ["shared-key"] * 3


@pytest.mark.parametrize("store", [{}, {"advisor": ""}, {"other": "not-this"}, None],
                         ids=["empty", "empty-key", "other-slot", "null"])
def test_store_without_an_advisor_key_lets_handlers_mint_keys(store):
    """A store with no key for the advisor slot (or none at all) makes each handler mint its own key."""
    keys = _keys([{"call": call()}, {"call": call(turn=2)}], {"cache_key_store": store})
    assert all(HEX32.fullmatch(key) for key in keys) and keys[0] != keys[1]


def test_concurrent_calls_share_one_handler_and_count_exactly():
    """Concurrent calls of one turn share one handler's key, and exactly the cap's worth of them are granted."""
    calls = [call(provider=[{"answer": f"a{i}", "delay_ms": 20}]) for i in range(6)]
    out = answer(scenario([{"concurrent": calls}], {"max_uses_per_run": 4}))
    results = [outcome["result"] for outcome in out["calls"]]
    spent = REFERENCE_STRINGS.budget_spent.replace("{used}", "4").replace("{max}", "4")
    assert results.count(spent) == 2
    assert sorted(r for r in results if r != spent) == sorted({f"a{i}" for i in range(6)} & set(results))
    assert len(out["provider_requests"]) == 4
    assert len({request["prompt_cache_key"] for request in out["provider_requests"]}) == 1
    for request in out["provider_requests"]:
        assert out["calls"][request["call"]]["result"] == f"a{request['call']}"


def test_concurrent_calls_run_at_the_same_time():
    """The calls of a concurrent step overlap: four 1 s replies take far less than the 4 s they take one by one."""
    calls = [call(turn=i, provider=[{"answer": f"r{i}", "delay_ms": 1000}]) for i in range(4)]
    start = time.monotonic()
    out = answer(scenario([{"concurrent": calls}], {"max_uses_per_run": 4}))
    assert 1.0 <= time.monotonic() - start < 3.0  # one at a time is at least 4 s: two seconds of slack for a busy host
    assert out["calls"] == [{"result": f"r{i}"} for i in range(4)]


def test_empty_concurrent_step_is_allowed():
    """A concurrent step with no calls adds no results and does not shift later call indices."""
    out = answer(scenario([{"concurrent": []}, {"call": call()}]))
    assert out["calls"] == [{"result": "ok"}]
    assert [r["call"] for r in out["provider_requests"]] == [0]


def test_children_have_their_own_budget():
    """Each child id has its own counter with the child cap; the main agent's cap is apart from them."""
    steps = [{"call": call(agent="a")}, {"call": call(agent="a", turn=2)}, {"call": call(agent="b")},
             {"call": call()}, {"call": call(turn=2)}, {"call": call(turn=3)}]
    out = answer(scenario(steps, {"max_uses_per_run": 2, "child_max_uses": 1}))
    note = REFERENCE_STRINGS.budget_spent
    assert out["calls"] == [
        {"result": "ok"}, {"result": note.replace("{used}", "1").replace("{max}", "1")}, {"result": "ok"},
        {"result": "ok"}, {"result": "ok"}, {"result": note.replace("{used}", "2").replace("{max}", "2")},
    ]


@pytest.mark.parametrize("runtime, used_max", [({}, (3, 3)), ({"max_uses_per_run": 0}, (0, 0))],
                         ids=["default-cap", "zero-cap"])
def test_main_agent_cap(runtime, used_max):
    """The main agent's cap defaults to 3 uses; a cap of 0 spends the budget at once (0/0)."""
    steps = [{"call": call(turn=turn)} for turn in range(5)]
    out = answer(scenario(steps, runtime))
    used, limit = used_max
    spent = {"result": REFERENCE_STRINGS.budget_spent.replace("{used}", str(used)).replace("{max}", str(limit))}
    assert out["calls"] == [{"result": "ok"}] * used + [spent] * (5 - used)


def test_child_cap_defaults_to_one():
    """A child agent gets one use by default."""
    out = answer(scenario([{"call": call(agent="c")}, {"call": call(agent="c", turn=2)}]))
    assert out["calls"][1] == {"result": REFERENCE_STRINGS.budget_spent.replace("{used}", "1").replace("{max}", "1")}


# --- missing snapshot and files -------------------------------------------------------------------------------------

def test_null_snapshot_is_a_missing_snapshot_error():
    """A call whose snapshot is null fails with missing_snapshot and sends nothing."""
    out = answer(scenario([{"call": call(snapshot=None)}]))
    assert out["calls"] == [{"error": {"code": "missing_snapshot",
                                       "message": "snapshot: the live conversation snapshot is missing",
                                       "at": "snapshot"}}]
    assert out["provider_requests"] == []


def test_call_without_input_is_a_bare_call():
    """A call that leaves ``input`` out is a bare call with no question and no files."""
    raw = call()
    del raw["input"]
    assert answer(scenario([{"call": raw}]))["calls"] == [{"result": "ok"}]


def test_files_without_a_work_dir_are_refused():
    """Files named in a scenario without a work_dir are a file_error at input.files and cost no use."""
    out = answer(scenario([{"call": call(input={"files": ["a.txt"]})}, {"call": call(turn=2)}],
                          {"max_uses_per_run": 1}))
    assert out["calls"][0] == {"error": {"code": "file_error",
                                         "message": "input.files: file access is not configured for the advisor",
                                         "at": "input.files"}}
    assert out["calls"][1] == {"result": "ok"}


def test_work_dir_settings_reach_the_path_policy(tmp_path):
    """The scenario's work_dir, blocked paths and confinement decide which files a call may read."""
    work = tmp_path / "work"
    (work / "keys").mkdir(parents=True)
    (work / "keys" / "id").write_text("secret")
    (work / "a.txt").write_text("alpha")
    (tmp_path / "out.txt").write_text("outside")
    steps = [{"call": call(turn=1, input={"files": ["a.txt"]})},
             {"call": call(turn=2, input={"files": ["keys/id"]})},
             {"call": call(turn=3, input={"files": ["../out.txt"]})}]
    out = answer(scenario(steps, {"blocked_paths": ["keys"], "confine_to_work_dir": True, "max_uses_per_run": 5},
                          work_dir=str(work)))
    assert out["calls"][0] == {"result": "ok"}
    assert out["calls"][1]["error"] == {"code": "file_error", "message": "input.files[0]: keys/id: blocked by the "
                                        "path policy", "at": "input.files[0]"}
    assert out["calls"][2]["error"]["message"] == "input.files[0]: ../out.txt: outside the working directory"
    (request,) = out["provider_requests"]
    assert "File: a.txt\n```\nalpha\n```" in request["messages"][-1]["content"]
    free = answer(scenario(steps[1:], {"max_uses_per_run": 5}, work_dir=str(work)))
    assert free["calls"] == [{"result": "ok"}, {"result": "ok"}]


# --- the HTTP provider ----------------------------------------------------------------------------------------------

class _FakeHttp:
    """Stands in for HttpProvider: records how it was made, answers every request, and records closing."""

    made: list = []

    def __init__(self, kind, base_url, *, api_key="", timeout=60.0):
        self.kind, self.base_url, self.api_key, self.timeout = kind, base_url, api_key, timeout
        self.closed = False
        self.requests: list = []
        _FakeHttp.made.append(self)

    def complete(self, request):
        from advisor_reference import ProviderAnswer
        self.requests.append(request)
        return ProviderAnswer(f"over {self.kind}")

    def close(self):
        self.closed = True


@pytest.mark.parametrize(
    "http, made",
    [
        ({"kind": "openai", "base_url": "http://127.0.0.1:1"}, ("openai", "http://127.0.0.1:1", "", 30.0)),
        ({"kind": "anthropic", "base_url": "http://h", "timeout_ms": 2500, "api_key": "sk"},
         ("anthropic", "http://h", "sk", 2.5)),
        ({"kind": "codex", "base_url": "http://h/", "timeout_ms": 0}, ("codex", "http://h/", "", 0.0)),
    ],
    ids=["defaults", "all-fields", "zero-timeout"],
)
def test_http_provider_is_made_from_its_settings(http, made):
    """The HTTP provider gets the kind, base URL, API key and timeout (milliseconds as seconds) of the runtime."""
    _FakeHttp.made = []
    steps = [{"call": call(provider=[])}, {"concurrent": [call(turn=2, provider=[])]}, {"call": {"snapshot": SNAPSHOT}}]
    out = run_scenario(scenario(steps, {"http_provider": http}), RequestBuilder(REFERENCE_STRINGS),
                       http_class=_FakeHttp)
    (provider,) = _FakeHttp.made
    assert (provider.kind, provider.base_url, provider.api_key, provider.timeout) == made
    assert out["calls"] == [{"result": f"over {made[0]}"}] * 3
    assert [r["call"] for r in out["provider_requests"]] == [0, 1, 2]
    assert len(provider.requests) == 3 and provider.closed


def test_no_http_provider_when_runtime_has_none():
    """Without http_provider (or with it null) the calls answer from their scripted replies, no HTTP is made."""
    _FakeHttp.made = []
    for runtime in ({}, {"http_provider": None}):
        out = run_scenario(scenario([{"call": call()}], runtime), RequestBuilder(REFERENCE_STRINGS),
                           http_class=_FakeHttp)
        assert out["calls"] == [{"result": "ok"}]
    assert _FakeHttp.made == []


def test_threads_do_not_leak_between_scenarios():
    """A scenario run in another thread answers the same as one run in this thread."""
    params = scenario([{"call": call(provider=[{"answer": "same"}])}])
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("out", answer(params)))
    thread.start()
    thread.join(10)
    assert box["out"]["calls"] == answer(params)["calls"] == [{"result": "same"}]
