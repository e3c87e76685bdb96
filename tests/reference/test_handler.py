"""advisor_reference._handler: the advisor runtime and its per-turn handler, from a tool call to the note."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor_reference import (
    REFERENCE_STRINGS,
    TOOL_DEFINITION,
    AdvisorCallFailed,
    AdvisorInputError,
    AdvisorRuntime,
    CacheKeyStore,
    FileRefused,
    PathPolicy,
    ProviderAnswer,
    ProviderError,
    ProviderRequest,
    RequestBuilder,
    RuntimeConfig,
    ScriptedProvider,
    ScriptedReply,
    parse_transcript,
)
from advisor_reference._handler import budget_spent_note, make_note

from ._helpers import HEX32
from ._helpers import SNAPSHOT as RAW_SNAPSHOT

SNAPSHOT = parse_transcript(RAW_SNAPSHOT)


def _runtime(replies=(), **config):
    provider = ScriptedProvider(list(replies))
    return AdvisorRuntime(RuntimeConfig(**config), provider), provider


# --- a call ---------------------------------------------------------------------------------------------------------


def test_handler_sends_the_built_request():
    """A call sends one request with the built messages and the runtime's settings, and returns the trimmed answer."""
    runtime, provider = _runtime([ScriptedReply(text="\n advice \t")], model="m", max_tokens=77, session_id="s")
    handler = runtime.new_handler()
    assert handler.handle({"question": "why?"}, SNAPSHOT) == "advice"
    (request,) = provider.requests
    assert request == ProviderRequest(
        model="m",
        messages=tuple(RequestBuilder(REFERENCE_STRINGS).build(SNAPSHOT, "why?", [])),
        max_tokens=77,
        reasoning=None,
        stream=False,
        prompt_cache_key=handler.cache_key,
        transport_session="s-advisor",
        parent_session="s",
        advisor_cache_profile=True,
        tools=(),
    )


def test_handler_streams_when_reasoning_is_set():
    """With reasoning set, the request carries it and streams."""
    runtime, provider = _runtime([ScriptedReply(text="a")], reasoning="low")
    runtime.new_handler("child").handle(None, SNAPSHOT)
    (request,) = provider.requests
    assert (request.reasoning, request.stream) == ("low", True)
    assert (request.transport_session, request.parent_session) == (None, None)


@pytest.mark.parametrize(
    "raw, snapshot, code, at",
    [
        ({"question": 1, "files": ["x"] * 9}, None, "invalid_input", "input.question"),
        ({"files": ["x"] * 9}, None, "missing_snapshot", "snapshot"),
        ({"files": ["x"] * 9}, SNAPSHOT, "too_many_files", "input.files"),
        ({"files": ["x"]}, SNAPSHOT, "file_error", "input.files"),
    ],
    ids=["input-first", "snapshot-second", "count-third", "files-last"],
)
def test_handler_checks_in_order_and_spends_nothing(raw, snapshot, code, at):
    """Validation runs input, snapshot, file count, files in that order; a failure sends nothing and spends no use."""
    runtime, provider = _runtime(max_uses_per_run=1)
    with pytest.raises(AdvisorInputError) as info:
        runtime.new_handler().handle(raw, snapshot)
    assert (info.value.code, info.value.at) == (code, at)
    assert provider.requests == [] and runtime.counter.used == 0


def test_handler_without_work_dir_refuses_files_but_takes_empty_lists():
    """Without a working directory a call with files is a file_error; an empty files list is a bare call."""
    runtime, provider = _runtime([ScriptedReply(text="fine")])
    assert runtime.policy is None
    with pytest.raises(FileRefused) as info:
        runtime.new_handler().handle({"files": ["a"]}, SNAPSHOT)
    assert (info.value.code, info.value.at) == ("file_error", "input.files")
    assert runtime.new_handler().handle({"files": []}, SNAPSHOT) == "fine"


def test_runtime_path_policy_follows_the_config(tmp_path):
    """The runtime's path policy has the configured working directory, blocked paths and confinement."""
    runtime, _ = _runtime(work_dir=str(tmp_path), blocked_paths=("a", "b"), confine_to_work_dir=True)
    assert runtime.policy == PathPolicy(str(tmp_path), ("a", "b"), True)
    runtime, _ = _runtime(work_dir=str(tmp_path))
    assert runtime.policy == PathPolicy(str(tmp_path), (), False)


def test_handler_reads_files_from_the_work_dir(tmp_path):
    """Files named in the call are read from the working directory into the request's final message."""
    (tmp_path / "a.txt").write_text("alpha")
    runtime, provider = _runtime([ScriptedReply(text="ok")], work_dir=str(tmp_path))
    assert runtime.new_handler().handle({"files": ["a.txt"]}, SNAPSHOT) == "ok"
    assert "File: a.txt\n```\nalpha\n```" in provider.requests[0].messages[-1].content


def test_provider_failure_is_a_call_failure_that_keeps_the_use():
    """A provider error becomes AdvisorCallFailed showing its message, with its status; the use stays spent."""
    runtime, _ = _runtime([ScriptedReply(error="rate limited", status=429)], max_uses_per_run=2)
    with pytest.raises(AdvisorCallFailed) as info:
        runtime.new_handler().handle({}, SNAPSHOT)
    assert "rate limited" in str(info.value)
    assert info.value.status == 429 and isinstance(info.value.__cause__, ProviderError)
    assert info.value.to_json() == {"code": "provider_error", "message": str(info.value)}
    assert runtime.counter.used == 1


def test_call_failure_status_defaults_to_none():
    """A call failure made without a status has none."""
    assert AdvisorCallFailed("x").status is None and AdvisorCallFailed.code == "provider_error"


# --- notes ----------------------------------------------------------------------------------------------------------


def test_budget_spent_call_sends_nothing():
    """Past the cap a call returns the budget-spent note with used/max and makes no provider call."""
    runtime, provider = _runtime([ScriptedReply(text="one")], max_uses_per_run=1)
    assert runtime.new_handler().handle({}, SNAPSHOT) == "one"
    assert runtime.new_handler().handle({}, SNAPSHOT) == budget_spent_note(REFERENCE_STRINGS, 1, 1)
    assert len(provider.requests) == 1


@pytest.mark.parametrize("used, limit", [(1, 3), (0, 0), (12, 34)])
def test_budget_spent_note_fills_used_and_max(used, limit):
    """The budget-spent note is the declared template with {used} and {max} replaced."""
    strings = replace(REFERENCE_STRINGS, budget_spent="spent {used} of {max}; {used}!")
    assert budget_spent_note(strings, used, limit) == f"spent {used} of {limit}; {used}!"


@pytest.mark.parametrize(
    "text, finish, note",
    [
        ("  advice\n", "stop", "advice"),
        ("advice", "length", "advice\n\n" + REFERENCE_STRINGS.token_limit_note),
        (" \n\t", "stop", REFERENCE_STRINGS.no_content_note),
        ("", "length", REFERENCE_STRINGS.no_content_note + "\n\n" + REFERENCE_STRINGS.token_limit_note),
        ("advice", "max_tokens", "advice"),
    ],
    ids=["trimmed", "length", "blank", "blank-length", "other-reason"],
)
def test_note_from_the_answer(text, finish, note):
    """The note is the trimmed answer or the no-content note, with the token-limit note after a length stop."""
    assert make_note(REFERENCE_STRINGS, ProviderAnswer(text, finish)) == note


# --- the runtime: counters, keys, sessions, builder -----------------------------------------------------------------


def test_runtime_counters_and_tools():
    """The main agent has the runtime's counter; children get theirs from the store with the child cap."""
    runtime, _ = _runtime(max_uses_per_run=5, child_max_uses=2)
    assert runtime.counter_for(None) is runtime.counter and runtime.counter.limit == 5
    assert runtime.counter_for("a") is runtime.counter_for("a") is not runtime.counter_for("b")
    assert runtime.counter_for("a").limit == 2
    assert runtime.tools() == [TOOL_DEFINITION]
    assert runtime.strings is REFERENCE_STRINGS
    assert runtime.new_handler("a").counter is runtime.counter_for("a")
    assert runtime.new_handler().counter is runtime.counter


def test_runtime_defaults():
    """A default runtime grants the main agent 3 uses and each child 1, and asks advisor-model for 4096 tokens."""
    runtime, provider = _runtime([ScriptedReply(text="ok")] * 5)
    main = [runtime.new_handler().handle({}, SNAPSHOT) for _ in range(4)]
    child = [runtime.new_handler("c").handle({}, SNAPSHOT) for _ in range(2)]
    assert main == ["ok"] * 3 + [budget_spent_note(REFERENCE_STRINGS, 3, 3)]
    assert child == ["ok", budget_spent_note(REFERENCE_STRINGS, 1, 1)]
    assert {(request.model, request.max_tokens) for request in provider.requests} == {("advisor-model", 4096)}


def test_handler_cache_keys():
    """Each handler mints its own 32-hex key without a store; with a key in the store every handler uses it."""
    runtime, _ = _runtime()
    first, second = runtime.new_handler().cache_key, runtime.new_handler().cache_key
    assert HEX32.fullmatch(first) and HEX32.fullmatch(second) and first != second
    shared = AdvisorRuntime(RuntimeConfig(), ScriptedProvider(), cache_keys=CacheKeyStore({"advisor": "k1"}))
    assert shared.new_handler().cache_key == shared.new_handler("c").cache_key == "k1"


def test_handler_sessions():
    """Main-agent handlers use <session>-advisor, child handlers <session>-subagent-advisor, both under <session>."""
    runtime, _ = _runtime(session_id="abc")
    main, child = runtime.new_handler(), runtime.new_handler("kid")
    assert (main.transport_session, main.parent_session) == ("abc-advisor", "abc")
    assert (child.transport_session, child.parent_session) == ("abc-subagent-advisor", "abc")


def test_handler_knows_whose_turn_it_serves():
    """A handler carries the child agent's id it was built for, and none for the main agent."""
    runtime, _ = _runtime()
    assert (runtime.new_handler().agent_id, runtime.new_handler("child-7").agent_id) == (None, "child-7")


def test_runtime_uses_the_given_builder():
    """A runtime made with a builder shapes requests with it and declares its strings."""
    strings = replace(REFERENCE_STRINGS, budget_spent="none left: {used}/{max}")
    builder = RequestBuilder(strings)
    runtime = AdvisorRuntime(RuntimeConfig(max_uses_per_run=0), ScriptedProvider(), builder=builder)
    assert runtime.builder is builder and runtime.strings is strings
    assert runtime.new_handler().handle({}, SNAPSHOT) == "none left: 0/0"
