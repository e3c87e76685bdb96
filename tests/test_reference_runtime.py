"""Unit tests of the reference runtime's Python surface: tool input, path policy, counters, provider."""

from __future__ import annotations

import base64
import os
import re
import threading
import time
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

import advisor_reference
from advisor_reference import (
    REFERENCE_STRINGS, TOOL_DEFINITION, AdvisorCallFailed, AdvisorInputError, AdvisorRuntime, BudgetStore,
    CacheKeyStore, FileRefused, PathPolicy, ProviderAnswer, ProviderError, ProviderRequest, RenderedMessage,
    RequestBuilder, RuntimeConfig, ScriptedProvider, ScriptedReply, ToolInput, UseCounter, decode_tool_input,
    load_files, new_cache_key, parse_transcript, transport_sessions,
)
from advisor_reference._budget import UseGrant
from advisor_reference._handler import budget_spent_note, make_note
from advisor_reference._http import encode
from advisor_reference._provider import provider_request_from_json
from advisor_reference._sessions import CACHE_KEY_SLOT, cache_key_for_handler
from advisor_reference.adapter import AREAS, PROTOCOL_VERSION, ReferenceAdapter


def test_bare_and_missing_inputs_decode_to_an_empty_call():
    """A null or empty tool input is a bare call without question or files."""
    assert decode_tool_input(None) == decode_tool_input({}) == decode_tool_input({"other": 1})
    assert decode_tool_input({}).files == ()


def test_non_object_input_is_an_error_naming_input():
    """A tool input that is not an object is an input error at ``input``."""
    with pytest.raises(AdvisorInputError) as info:
        decode_tool_input(["question"])
    assert info.value.at == "input" and info.value.code == "invalid_input"


def test_policy_needs_an_absolute_working_directory():
    """A relative working directory is rejected when the policy is made."""
    with pytest.raises(ValueError, match="absolute"):
        PathPolicy("relative/dir")


def test_nul_in_a_path_is_refused(tmp_path):
    """A path with a NUL byte is refused before the file system sees it."""
    with pytest.raises(FileRefused):
        load_files(PathPolicy(str(tmp_path)), ["a\x00b"])


def test_fifo_with_a_writer_waiting_is_still_refused(tmp_path):
    """A FIFO is refused from its file type even when a writer holds it open, and nothing is read from it."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as pipe:  # blocks until some reader opens the FIFO
            pipe.write(b"data")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with pytest.raises(FileRefused, match="FIFO"):
        load_files(PathPolicy(str(tmp_path)), ["pipe"])
    reader = os.open(fifo, os.O_RDONLY)  # release the writer thread
    writer.join(5)
    os.close(reader)
    assert not writer.is_alive()


def test_blocked_paths_are_resolved_against_the_working_directory(tmp_path):
    """A blocked entry given relative to the working directory blocks that directory's files."""
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "id").write_text("secret")
    with pytest.raises(FileRefused, match="blocked"):
        load_files(PathPolicy(str(tmp_path), blocked=("keys",)), ["keys/id"])


def test_use_counter_rejects_a_negative_cap():
    """A negative cap is a configuration error."""
    with pytest.raises(ValueError):
        UseCounter(-1)


def test_use_counter_counts_exactly_the_cap_under_threads():
    """Many threads taking uses get exactly ``limit`` grants."""
    counter, grants = UseCounter(7), []
    threads = [threading.Thread(target=lambda: grants.append(counter.take().granted)) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert grants.count(True) == 7 and counter.used == 7


def test_session_names():
    """Main and sub-agent advisors get their transport sessions under the parent session."""
    assert transport_sessions("s", sub_agent=False) == ("s-advisor", "s")
    assert transport_sessions("s", sub_agent=True) == ("s-subagent-advisor", "s")
    assert transport_sessions("", sub_agent=True) == (None, None)


def test_scripted_provider_without_replies_fails():
    """A scripted provider asked more often than scripted raises a provider error."""
    runtime = AdvisorRuntime(RuntimeConfig(), ScriptedProvider())
    with pytest.raises(Exception) as info:
        runtime.new_handler().handle({}, parse_transcript([]))
    assert isinstance(info.value.__cause__, ProviderError)


HEX32 = re.compile(r"[0-9a-f]{32}")
SNAPSHOT = parse_transcript([{"role": "user", "content": "Fix the bug."}])


# tool input

@pytest.mark.parametrize(
    "raw, at, message",
    [
        ("ask", "input", "the tool input must be an object, got string"),
        (7, "input", "the tool input must be an object, got number"),
        ([], "input", "the tool input must be an object, got array"),
        ({"question": None}, "input.question", "question must be a string, got null"),
        ({"question": ["a"]}, "input.question", "question must be a string, got array"),
        ({"files": "a.txt"}, "input.files", "files must be an array of strings, got string"),
        ({"files": {"a": 1}}, "input.files", "files must be an array of strings, got object"),
        ({"files": None}, "input.files", "files must be an array of strings, got null"),
        ({"files": ["a", 1]}, "input.files[1]", "files must be an array of strings; item 1 is number"),
        ({"files": [True]}, "input.files[0]", "files must be an array of strings; item 0 is boolean"),
        ({"question": 1, "files": 1}, "input.question", "question must be a string, got number"),
    ],
)
def test_tool_input_errors_name_the_field_and_the_type(raw, at, message):
    """A tool input of the wrong type is an invalid_input error at the field, saying what was expected and given."""
    with pytest.raises(AdvisorInputError) as info:
        decode_tool_input(raw)
    assert (info.value.at, info.value.detail, info.value.code) == (at, message, "invalid_input")


@pytest.mark.parametrize(
    "raw, decoded",
    [
        ({"question": "why?", "files": ["a", "b", "a"]}, ToolInput("why?", ("a", "b", "a"))),
        ({"question": "  padded  "}, ToolInput("  padded  ", ())),
        ({"files": []}, ToolInput("", ())),
        ({"extra": [1], "question": ""}, ToolInput("", ())),
    ],
)
def test_tool_input_decodes_question_and_files(raw, decoded):
    """Question and files decode as given, in order with duplicates; unknown keys are ignored."""
    assert decode_tool_input(raw) == decoded


def test_tool_definition_offers_question_and_up_to_8_files():
    """The advisor tool is named advisor and takes an optional question and at most 8 file paths."""
    schema = TOOL_DEFINITION["input_schema"]
    assert TOOL_DEFINITION["name"] == "advisor"
    assert schema["properties"]["files"]["maxItems"] == 8
    assert schema.get("required", []) == []
    assert ReferenceAdapter().tool_definition({}) == TOOL_DEFINITION


def test_tool_definition_answer_is_a_copy():
    """Changing the answer of tool_definition leaves the next answer unchanged."""
    adapter = ReferenceAdapter()
    first = adapter.tool_definition()
    first["input_schema"]["properties"].clear()
    first["name"] = "other"
    assert adapter.tool_definition() == TOOL_DEFINITION
    assert TOOL_DEFINITION["name"] == "advisor" and TOOL_DEFINITION["input_schema"]["properties"]


# handler

def _runtime(replies=(), **config):
    provider = ScriptedProvider(list(replies))
    return AdvisorRuntime(RuntimeConfig(**config), provider), provider


def test_handler_sends_the_built_request():
    """A call sends one request with the built messages and the runtime's settings, and returns the trimmed answer."""
    runtime, provider = _runtime([ScriptedReply(text="\n advice \t")], model="m", max_tokens=77, session_id="s")
    handler = runtime.new_handler()
    assert handler.handle({"question": "why?"}, SNAPSHOT) == "advice"
    (request,) = provider.requests
    assert request == ProviderRequest(
        model="m", messages=tuple(RequestBuilder(REFERENCE_STRINGS).build(SNAPSHOT, "why?", [])), max_tokens=77,
        reasoning=None, stream=False, prompt_cache_key=handler.cache_key, transport_session="s-advisor",
        parent_session="s", advisor_cache_profile=True, tools=())


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
    assert info.value.detail == "file access is not configured for the advisor"
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
    """A provider error becomes AdvisorCallFailed with its message and status, and the use stays spent."""
    runtime, _ = _runtime([ScriptedReply(error="rate limited", status=429)], max_uses_per_run=2)
    with pytest.raises(AdvisorCallFailed) as info:
        runtime.new_handler().handle({}, SNAPSHOT)
    assert str(info.value) == "the advisor call failed: rate limited"
    assert info.value.status == 429 and isinstance(info.value.__cause__, ProviderError)
    assert info.value.to_json() == {"code": "provider_error", "message": "the advisor call failed: rate limited"}
    assert runtime.counter.used == 1


def test_call_failure_status_defaults_to_none():
    """A call failure made without a status has none."""
    assert AdvisorCallFailed("x").status is None and AdvisorCallFailed.code == "provider_error"


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
    """A runtime config defaults to 3 main-agent uses, 1 child use, and no work dir."""
    runtime, _ = _runtime()
    assert (runtime.counter.limit, runtime.children.limit) == (3, 1)
    assert RuntimeConfig().model == "advisor-model" and RuntimeConfig().max_tokens == 4096


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


def test_runtime_uses_the_given_builder():
    """A runtime made with a builder shapes requests with it and declares its strings."""
    strings = replace(REFERENCE_STRINGS, budget_spent="none left: {used}/{max}")
    builder = RequestBuilder(strings)
    runtime = AdvisorRuntime(RuntimeConfig(max_uses_per_run=0), ScriptedProvider(), builder=builder)
    assert runtime.builder is builder and runtime.strings is strings
    assert runtime.new_handler().handle({}, SNAPSHOT) == "none left: 0/0"


# budget

def test_use_grants_count_up_to_the_cap():
    """Each grant reports the count after it; past the cap nothing changes and the grant is refused."""
    counter = UseCounter(2)
    assert [counter.take() for _ in range(4)] == [UseGrant(True, 1, 2), UseGrant(True, 2, 2), UseGrant(False, 2, 2),
                                                  UseGrant(False, 2, 2)]
    assert counter.used == 2 and counter.limit == 2


def test_zero_cap_refuses_at_once():
    """A cap of 0 refuses the first use with 0/0."""
    counter = UseCounter(0)
    assert counter.take() == UseGrant(False, 0, 0) and counter.used == 0


def test_use_counter_error_names_the_problem():
    """A negative cap is refused saying so."""
    with pytest.raises(ValueError, match="^the use cap cannot be negative$"):
        UseCounter(-1)


def test_budget_store_keys_counters_by_agent_id():
    """The same agent id gets the same counter, different ids independent ones with the store's cap (default 1)."""
    store = BudgetStore()
    assert store.limit == 1
    first = store.counter("a")
    assert store.counter("a") is first and first.limit == 1
    assert first.take().granted and not store.counter("a").take().granted
    assert store.counter("b").take() == UseGrant(True, 1, 1)
    assert BudgetStore(4).counter("x").limit == 4


def test_budget_store_makes_one_counter_per_id_under_threads():
    """Threads asking the store for one id at the same time all get the same counter."""
    store, got = BudgetStore(3), []
    start = threading.Barrier(8)

    def ask():
        start.wait()
        got.append(store.counter("same"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(counter) for counter in got}) == 1


# sessions and cache keys

def test_session_names_with_none():
    """No session id means no transport session for main or sub-agent advisors."""
    assert transport_sessions(None, sub_agent=False) == (None, None)
    assert transport_sessions("", sub_agent=False) == (None, None)


def test_new_cache_keys_are_32_lower_case_hex_and_fresh():
    """A minted key is 32 lower-case hex digits, and no two are alike."""
    keys = {new_cache_key() for _ in range(50)}
    assert len(keys) == 50 and all(HEX32.fullmatch(key) for key in keys)


@pytest.mark.parametrize(
    "keys, expected",
    [({"advisor": "abc"}, "abc"), ({"advisor": "abc", "main": "zzz"}, "abc"), ({"main": "zzz"}, None),
     ({"advisor": ""}, None), ({}, None), (None, None)],
    ids=["advisor", "among-others", "other-slot", "empty-key", "empty-store", "no-keys"],
)
def test_cache_key_from_the_store_or_minted(keys, expected):
    """The handler's key is the store's advisor key; with none (or an empty one) it mints a fresh one."""
    store = CacheKeyStore(keys)
    assert store.key(CACHE_KEY_SLOT) == (expected or "")
    key = cache_key_for_handler(store)
    if expected is None:
        assert HEX32.fullmatch(key) and key != cache_key_for_handler(store)
    else:
        assert key == expected == cache_key_for_handler(store)


def test_no_store_mints_a_key():
    """Without a store each handler key is fresh."""
    assert CACHE_KEY_SLOT == "advisor"
    first, second = cache_key_for_handler(None), cache_key_for_handler(None)
    assert HEX32.fullmatch(first) and first != second


def test_cache_key_store_copies_its_keys():
    """Changing the dict a store was made from does not change the store."""
    keys = {"advisor": "k"}
    store = CacheKeyStore(keys)
    keys["advisor"] = "changed"
    assert store.key("advisor") == "k"
    assert CacheKeyStore().key("advisor") == ""


# provider boundary

def _request(**fields):
    base = dict(model="m", messages=(RenderedMessage("system", "sys"), RenderedMessage("user", "u")), max_tokens=9,
                reasoning=None, stream=False, prompt_cache_key="k", transport_session="t", parent_session="p")
    return ProviderRequest(**{**base, **fields})


def test_provider_request_to_json():
    """A request's JSON form holds every field, tools as an empty list."""
    assert _request(reasoning="high", stream=True).to_json() == {
        "model": "m", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "u"}],
        "tools": [], "max_tokens": 9, "reasoning": "high", "stream": True, "prompt_cache_key": "k",
        "transport_session": "t", "parent_session": "p", "advisor_cache_profile": True,
    }


def test_provider_request_round_trips_through_json():
    """A request read back from its JSON form (with a call index) is the same request."""
    for request in (_request(), _request(reasoning="x", stream=True, advisor_cache_profile=False,
                                         transport_session=None, parent_session=None, prompt_cache_key="")):
        assert provider_request_from_json({"call": 3, **request.to_json()}) == request


def test_provider_request_defaults_from_json():
    """Only model, messages and max_tokens are required; the rest default to no reasoning, no stream, no key."""
    request = provider_request_from_json({"model": "m", "messages": [], "max_tokens": 1})
    assert request == ProviderRequest(model="m", messages=(), max_tokens=1, reasoning=None, stream=False,
                                      prompt_cache_key="", transport_session=None, parent_session=None,
                                      advisor_cache_profile=True)


GOOD = {"model": "m", "messages": [{"role": "user", "content": "u"}], "max_tokens": 5}


@pytest.mark.parametrize(
    "raw, at, message",
    [
        ([], "request", "must be an object"),
        ({**GOOD, "temperature": 1}, "request.temperature", "unknown field 'temperature'"),
        ({"messages": [], "max_tokens": 1}, "request.model", "is required"),
        ({"model": "m", "max_tokens": 1}, "request.messages", "is required"),
        ({"model": "m", "messages": []}, "request.max_tokens", "is required"),
        ({**GOOD, "model": 1}, "request.model", "has the wrong type"),
        ({**GOOD, "messages": {}}, "request.messages", "has the wrong type"),
        ({**GOOD, "max_tokens": "5"}, "request.max_tokens", "has the wrong type"),
        ({**GOOD, "max_tokens": True}, "request.max_tokens", "has the wrong type"),
        ({**GOOD, "reasoning": 1}, "request.reasoning", "has the wrong type"),
        ({**GOOD, "stream": 1}, "request.stream", "has the wrong type"),
        ({**GOOD, "stream": None}, "request.stream", "has the wrong type"),
        ({**GOOD, "prompt_cache_key": None}, "request.prompt_cache_key", "has the wrong type"),
        ({**GOOD, "transport_session": 1}, "request.transport_session", "has the wrong type"),
        ({**GOOD, "parent_session": False}, "request.parent_session", "has the wrong type"),
        ({**GOOD, "advisor_cache_profile": "yes"}, "request.advisor_cache_profile", "has the wrong type"),
        ({**GOOD, "tools": {}}, "request.tools", "has the wrong type"),
        ({**GOOD, "tools": [{"name": "read"}]}, "request.tools", "an advisor request carries no tools"),
        ({**GOOD, "messages": ["hi"]}, "request.messages[0]", "must be an object with exactly role and content"),
        ({**GOOD, "messages": [{"role": "user"}]}, "request.messages[0]",
         "must be an object with exactly role and content"),
        ({**GOOD, "messages": [{"role": "user", "content": "a", "name": "n"}]}, "request.messages[0]",
         "must be an object with exactly role and content"),
        ({**GOOD, "messages": [{"role": "user", "content": "a"}, {"role": "tool", "content": "r"}]},
         "request.messages[1]", "role must be system, user or assistant and content a string"),
        ({**GOOD, "messages": [{"role": "assistant", "content": None}]}, "request.messages[0]",
         "role must be system, user or assistant and content a string"),
    ],
)
def test_provider_request_json_errors_name_the_field(raw, at, message):
    """A malformed neutral request is an invalid_input error at the field, saying what is wrong."""
    with pytest.raises(AdvisorInputError) as info:
        provider_request_from_json(raw)
    assert (info.value.at, info.value.detail) == (at, message)


def test_provider_request_json_error_uses_the_given_prefix():
    """Errors of a request read at another path name that path."""
    with pytest.raises(AdvisorInputError) as info:
        provider_request_from_json({"model": "m"}, at="params.request")
    assert info.value.at == "params.request.messages"


def test_provider_request_accepts_every_role_and_empty_tools():
    """System, user and assistant messages are accepted, and an empty tools list is no tools."""
    raw = {**GOOD, "tools": [], "messages": [{"role": r, "content": r} for r in ("system", "user", "assistant")]}
    request = provider_request_from_json(raw)
    assert [m.role for m in request.messages] == ["system", "user", "assistant"] and request.tools == ()


def test_provider_answer_and_error_defaults():
    """An answer stops on ``stop`` with no usage by default; an error has no status unless given."""
    assert (ProviderAnswer("t").finish_reason, dict(ProviderAnswer("t").usage)) == ("stop", {})
    assert ProviderError("x").status is None and ProviderError("x", status=502).status == 502
    assert str(ProviderError("boom")) == "boom"


def test_scripted_provider_answers_in_order_and_records_requests():
    """The scripted provider answers its replies in order, records each request, then fails with none left."""
    provider = ScriptedProvider([ScriptedReply(text="a", finish_reason="length"), ScriptedReply(text="b"),
                                 ScriptedReply(error="down", status=503)])
    first, second, third, fourth = (_request(model=str(i)) for i in range(4))
    assert provider.complete(first) == ProviderAnswer("a", "length")
    assert provider.complete(second) == ProviderAnswer("b", "stop")
    with pytest.raises(ProviderError) as info:
        provider.complete(third)
    assert (str(info.value), info.value.status) == ("down", 503)
    with pytest.raises(ProviderError, match="^the scripted provider has no reply left for this request$") as none:
        provider.complete(fourth)
    assert none.value.status is None
    assert provider.requests == [first, second, third, fourth]


def test_scripted_provider_copies_its_script():
    """The scripted provider keeps its own copy of the replies it was given."""
    replies = [ScriptedReply(text="a")]
    provider = ScriptedProvider(replies)
    provider.complete(_request())
    assert replies == [ScriptedReply(text="a")]


def test_scripted_reply_defaults():
    """A scripted reply defaults to an empty answer that stops, with no error, status or delay."""
    assert ScriptedReply() == ScriptedReply(text="", finish_reason="stop", error=None, status=None, delay_s=0.0)


def test_scripted_provider_delays():
    """A reply with a delay comes back after it; the others at once."""
    provider = ScriptedProvider([ScriptedReply(text="late", delay_s=0.2), ScriptedReply(error="late", delay_s=0.2)])
    start = time.monotonic()
    assert provider.complete(_request()).text == "late"
    with pytest.raises(ProviderError):
        provider.complete(_request())
    assert 0.4 <= time.monotonic() - start < 5


def test_scripted_provider_is_safe_under_threads():
    """Concurrent requests each get exactly one reply and every request is recorded."""
    provider = ScriptedProvider([ScriptedReply(text=str(i)) for i in range(20)])
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(provider.complete(_request()).text)) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers, key=int) == [str(i) for i in range(20)] and len(provider.requests) == 20


# adapter

def test_describe():
    """describe names the reference, its version, language, protocol, areas, strings and options."""
    version = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["version"]
    assert ReferenceAdapter().describe() == {
        "name": "reference", "version": version, "language": "python", "protocol": 1, "areas": list(AREAS),
        "strings": REFERENCE_STRINGS.to_json(), "options": {"args_json": "origin", "confinement": True},
    }
    assert advisor_reference.__version__ == version and PROTOCOL_VERSION == 1 and "workspace" in AREAS


def test_adapter_uses_the_given_builder():
    """An adapter made with a builder declares that builder's strings and shapes with it."""
    builder = RequestBuilder(replace(REFERENCE_STRINGS, guidance_request="Advise!"))
    adapter = ReferenceAdapter(builder)
    assert adapter.builder is builder and adapter.describe()["strings"]["guidance_request"] == "Advise!"
    assert adapter.shape({"transcript": []})["messages"][-1]["content"] == "Advise!"
    assert ReferenceAdapter().builder.strings == REFERENCE_STRINGS


def _shape_error(params):
    out = ReferenceAdapter().shape(params)
    assert set(out) == {"error"}, out
    return out["error"]


@pytest.mark.parametrize(
    "params, error",
    [
        ([], {"code": "invalid_input", "message": "params must be an object"}),
        ({"transcript": [], "colour": 1}, {"code": "invalid_input", "message": "colour: unknown field 'colour'",
                                           "at": "colour"}),
        ({}, {"code": "invalid_input", "message": "transcript: is required", "at": "transcript"}),
        ({"transcript": [], "question": 1}, {"code": "invalid_input", "message": "question: must be a string",
                                             "at": "question"}),
        ({"transcript": [], "files": {}}, {"code": "invalid_input", "message": "files: must be an array of file objects",
                                          "at": "files"}),
        ({"transcript": [], "files": ["a"] * 9},
         {"code": "too_many_files", "message": "files: too many files: 9 given, at most 8 allowed", "at": "files"}),
        ({"transcript": [], "files": ["a"]}, {"code": "invalid_input", "message": "files[0]: must be an object",
                                              "at": "files[0]"}),
    ],
    ids=["not-object", "unknown", "no-transcript", "question-type", "files-type", "nine-files", "file-not-object"],
)
def test_shape_errors(params, error):
    """A malformed shape request answers one error naming the field."""
    assert _shape_error(params) == error


GOOD_FILE = {"path": "a.txt", "content": "abc"}


@pytest.mark.parametrize(
    "item, at, message",
    [
        ({**GOOD_FILE, "mode": 1}, "files[1].mode", "unknown field 'mode'"),
        ({"content": "x"}, "files[1].path", "must be a non-empty string"),
        ({**GOOD_FILE, "path": ""}, "files[1].path", "must be a non-empty string"),
        ({**GOOD_FILE, "path": 1}, "files[1].path", "must be a non-empty string"),
        ({"path": "a"}, "files[1]", "exactly one of content and content_base64 is required"),
        ({**GOOD_FILE, "content_base64": ""}, "files[1]", "exactly one of content and content_base64 is required"),
        ({"path": "a", "content": 1}, "files[1].content", "must be a string"),
        ({"path": "a", "content_base64": 1}, "files[1].content_base64", "must be a base64 string"),
        ({"path": "a", "content_base64": "a"}, "files[1].content_base64", "is not valid base64: "),
        ({"path": "a", "content_base64": "@@@@"}, "files[1].content_base64", "is not valid base64: "),
        ({**GOOD_FILE, "size": -1}, "files[1].size", "must be a non-negative integer"),
        ({**GOOD_FILE, "size": True}, "files[1].size", "must be a non-negative integer"),
        ({**GOOD_FILE, "size": "3"}, "files[1].size", "must be a non-negative integer"),
        ({**GOOD_FILE, "size": 2}, "files[1].size", "is 2, smaller than the 3 bytes of content"),
    ],
)
def test_shape_file_errors_name_the_file_and_field(item, at, message):
    """A malformed file of a shape request is an invalid_input error at that file's field."""
    error = _shape_error({"transcript": [], "files": [GOOD_FILE, item]})
    assert (error["code"], error["at"]) == ("invalid_input", at)
    assert error["message"].startswith(f"{at}: {message}")


@pytest.mark.parametrize(
    "item, block",
    [
        ({"path": "a.txt", "content": "abc"}, "File: a.txt\n```\nabc\n```"),
        ({"path": "b.bin", "content_base64": base64.b64encode(b"x\xffy").decode()}, "File: b.bin\n```\nx\ufffdy\n```"),
        ({"path": "c.txt", "content": "abc", "size": 3}, "File: c.txt\n```\nabc\n```"),
        ({"path": "d.txt", "content": "", "size": 0}, "File: d.txt\n```\n\n```"),
        ({"path": "e.txt", "content": "a\ud800"}, "File: e.txt\n```\na\ufffd\n```"),
        ({"path": "f\ud800", "content": "x"}, "File: f\ufffd\n```\nx\n```"),
    ],
    ids=["text", "base64", "size", "empty", "surrogate-content", "surrogate-path"],
)
def test_shape_renders_given_files(item, block):
    """Files given as text or base64 are rendered under their path in the final message."""
    out = ReferenceAdapter().shape({"transcript": [], "files": [item]})
    assert block in out["messages"][-1]["content"]


def test_shape_file_with_a_larger_true_size_is_capped_by_it():
    """A file whose true size exceeds its content is marked elided with that size once over the cap."""
    item = {"path": "big", "content": "a" * 40000, "size": 50000}
    final = ReferenceAdapter().shape({"transcript": [], "files": [item]})["messages"][-1]["content"]
    assert "a" * 32768 + "\u2026[elided, 50000 bytes total]" in final
    assert "a" * 32769 not in final


def test_shape_null_files_and_surrogate_question():
    """Null files are none; a lone surrogate in the question becomes U+FFFD."""
    out = ReferenceAdapter().shape({"transcript": [], "files": None, "question": "why\ud800"})
    assert "why\ufffd" in out["messages"][-1]["content"]


@pytest.mark.parametrize(
    "params, error",
    [
        ("x", {"code": "invalid_input", "message": "params must be an object"}),
        ({"provider": "openai", "request": GOOD, "x": 1}, {"code": "invalid_input", "message": "x: unknown field 'x'",
                                                          "at": "x"}),
        ({"request": GOOD}, {"code": "invalid_input", "message": "provider: must be one of anthropic, openai, codex",
                             "at": "provider"}),
        ({"provider": "gemini", "request": GOOD},
         {"code": "invalid_input", "message": "provider: must be one of anthropic, openai, codex", "at": "provider"}),
        ({"provider": "openai"}, {"code": "invalid_input", "message": "request: must be an object", "at": "request"}),
        ({"provider": "codex", "request": {**GOOD, "stream": "no"}},
         {"code": "invalid_input", "message": "request.stream: has the wrong type", "at": "request.stream"}),
    ],
    ids=["not-object", "unknown", "no-provider", "bad-provider", "no-request", "bad-request"],
)
def test_encode_errors(params, error):
    """A malformed encode request answers one error naming the field."""
    assert ReferenceAdapter().encode(params) == {"error": error}


@pytest.mark.parametrize("kind", ["anthropic", "openai", "codex"])
def test_encode_answers_the_http_request(kind):
    """encode answers the encoding of the neutral request for the provider."""
    assert ReferenceAdapter().encode({"provider": kind, "request": GOOD}) == encode(
        kind, provider_request_from_json(GOOD)).to_json()


def test_scenario_errors_are_answers():
    """A malformed scenario answers an error rather than raising."""
    assert ReferenceAdapter().scenario([]) == {"error": {"code": "invalid_input", "message": "params: must be an object",
                                                         "at": "params"}}


def test_public_names_exist():
    """Every name the package exports is defined."""
    assert all(hasattr(advisor_reference, name) for name in advisor_reference.__all__)


def test_build_request_defaults():
    """build_request with only a snapshot builds the reference's request with no question or files."""
    messages = advisor_reference.build_request(SNAPSHOT)
    assert messages == RequestBuilder(REFERENCE_STRINGS).build(SNAPSHOT, "", [])
    assert messages[0].content == REFERENCE_STRINGS.system_prompt
    strings = replace(REFERENCE_STRINGS, system_prompt="Be brief.")
    assert advisor_reference.build_request(SNAPSHOT, "q?", [], strings)[0].content == "Be brief."
    assert "q?" in advisor_reference.build_request(SNAPSHOT, "q?")[-1].content


def test_handler_knows_whose_turn_it_serves():
    """A handler carries the child agent's id it was built for, and none for the main agent."""
    runtime, _ = _runtime()
    assert (runtime.new_handler().agent_id, runtime.new_handler("child-7").agent_id) == (None, "child-7")
