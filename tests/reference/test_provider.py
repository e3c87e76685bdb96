"""advisor_reference._provider: the provider boundary: the neutral request and its JSON form, answers, errors,
and the scripted provider."""

from __future__ import annotations

import threading
import time

import pytest

from advisor_reference import (
    AdvisorInputError,
    AdvisorRuntime,
    ProviderAnswer,
    ProviderError,
    ProviderRequest,
    RenderedMessage,
    RuntimeConfig,
    ScriptedProvider,
    ScriptedReply,
    parse_transcript,
)
from advisor_reference._provider import provider_request_from_json

from ..support.provider_requests import provider_request
from ._helpers import GOOD_REQUEST as GOOD


def _request(**fields):
    base = dict(
        messages=(RenderedMessage("system", "sys"), RenderedMessage("user", "u")),
        max_tokens=9,
        prompt_cache_key="k",
        transport_session="t",
        parent_session="p",
    )
    return provider_request(**{**base, **fields})


# --- the neutral request --------------------------------------------------------------------------------------------


def test_provider_request_to_json():
    """A request's JSON form holds every field, tools as an empty list."""
    assert _request(reasoning="high", stream=True).to_json() == {
        "model": "m",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "u"}],
        "tools": [],
        "max_tokens": 9,
        "reasoning": "high",
        "stream": True,
        "prompt_cache_key": "k",
        "transport_session": "t",
        "parent_session": "p",
        "advisor_cache_profile": True,
    }


def test_provider_request_round_trips_through_json():
    """A request read back from its JSON form (with a call index) is the same request."""
    for request in (
        _request(),
        _request(
            reasoning="x",
            stream=True,
            advisor_cache_profile=False,
            transport_session=None,
            parent_session=None,
            prompt_cache_key="",
        ),
    ):
        assert provider_request_from_json({"call": 3, **request.to_json()}) == request


def test_provider_request_defaults_from_json():
    """Only model, messages and max_tokens are required; the rest default to no reasoning, no stream, no key."""
    request = provider_request_from_json({"model": "m", "messages": [], "max_tokens": 1})
    assert request == ProviderRequest(
        model="m",
        messages=(),
        max_tokens=1,
        reasoning=None,
        stream=False,
        prompt_cache_key="",
        transport_session=None,
        parent_session=None,
        advisor_cache_profile=True,
    )


@pytest.mark.parametrize(
    "raw, at",
    [
        ([], "request"),
        ({**GOOD, "temperature": 1}, "request.temperature"),
        ({"messages": [], "max_tokens": 1}, "request.model"),
        ({"model": "m", "max_tokens": 1}, "request.messages"),
        ({"model": "m", "messages": []}, "request.max_tokens"),
        ({**GOOD, "model": 1}, "request.model"),
        ({**GOOD, "messages": {}}, "request.messages"),
        ({**GOOD, "max_tokens": "5"}, "request.max_tokens"),
        ({**GOOD, "max_tokens": True}, "request.max_tokens"),
        ({**GOOD, "reasoning": 1}, "request.reasoning"),
        ({**GOOD, "stream": 1}, "request.stream"),
        ({**GOOD, "stream": None}, "request.stream"),
        ({**GOOD, "prompt_cache_key": None}, "request.prompt_cache_key"),
        ({**GOOD, "transport_session": 1}, "request.transport_session"),
        ({**GOOD, "parent_session": False}, "request.parent_session"),
        ({**GOOD, "advisor_cache_profile": "yes"}, "request.advisor_cache_profile"),
        ({**GOOD, "tools": {}}, "request.tools"),
        ({**GOOD, "tools": [{"name": "read"}]}, "request.tools"),
        ({**GOOD, "messages": ["hi"]}, "request.messages[0]"),
        ({**GOOD, "messages": [{"role": "user"}]}, "request.messages[0]"),
        ({**GOOD, "messages": [{"role": "user", "content": "a", "name": "n"}]}, "request.messages[0]"),
        (
            {**GOOD, "messages": [{"role": "user", "content": "a"}, {"role": "tool", "content": "r"}]},
            "request.messages[1]",
        ),
        ({**GOOD, "messages": [{"role": "assistant", "content": None}]}, "request.messages[0]"),
    ],
    ids=[
        "not-object",
        "unknown-field",
        "no-model",
        "no-messages",
        "no-max-tokens",
        "number-model",
        "object-messages",
        "string-max-tokens",
        "boolean-max-tokens",
        "number-reasoning",
        "number-stream",
        "null-stream",
        "null-cache-key",
        "number-transport-session",
        "boolean-parent-session",
        "string-cache-profile",
        "object-tools",
        "some-tools",
        "string-message",
        "message-without-content",
        "message-with-name",
        "tool-role",
        "null-content",
    ],
)
def test_provider_request_json_errors_name_the_field(raw, at):
    """A malformed neutral request is an invalid_input error at the field, whose message names it."""
    with pytest.raises(AdvisorInputError) as info:
        provider_request_from_json(raw)
    assert (info.value.at, info.value.code) == (at, "invalid_input")
    assert at in str(info.value)


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


# --- answers and errors ---------------------------------------------------------------------------------------------


def test_provider_answer_and_error_defaults():
    """An answer stops on ``stop`` with no usage by default; an error has no status unless given."""
    assert (ProviderAnswer("t").finish_reason, dict(ProviderAnswer("t").usage)) == ("stop", {})
    assert ProviderError("x").status is None and ProviderError("x", status=502).status == 502
    assert str(ProviderError("boom")) == "boom"


# --- the scripted provider ------------------------------------------------------------------------------------------


def test_scripted_reply_defaults():
    """A scripted reply defaults to an empty answer that stops, with no error, status or delay."""
    assert ScriptedReply() == ScriptedReply(text="", finish_reason="stop", error=None, status=None, delay_s=0.0)


def test_scripted_provider_answers_in_order_and_records_requests():
    """The scripted provider answers its replies in order, records each request, then fails with none left."""
    provider = ScriptedProvider(
        [
            ScriptedReply(text="a", finish_reason="length"),
            ScriptedReply(text="b"),
            ScriptedReply(error="down", status=503),
        ]
    )
    first, second, third, fourth = (_request(model=str(i)) for i in range(4))
    assert provider.complete(first) == ProviderAnswer("a", "length")
    assert provider.complete(second) == ProviderAnswer("b", "stop")
    with pytest.raises(ProviderError) as info:
        provider.complete(third)
    assert (str(info.value), info.value.status) == ("down", 503)
    with pytest.raises(ProviderError) as none:
        provider.complete(fourth)
    assert none.value.status is None
    assert provider.requests == [first, second, third, fourth]


def test_scripted_provider_without_replies_fails():
    """A scripted provider asked more often than scripted raises a provider error."""
    runtime = AdvisorRuntime(RuntimeConfig(), ScriptedProvider())
    with pytest.raises(Exception) as info:
        runtime.new_handler().handle({}, parse_transcript([]))
    assert isinstance(info.value.__cause__, ProviderError)


def test_scripted_provider_copies_its_script():
    """The scripted provider keeps its own copy of the replies it was given."""
    replies = [ScriptedReply(text="a")]
    provider = ScriptedProvider(replies)
    provider.complete(_request())
    assert replies == [ScriptedReply(text="a")]


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
        thread.join(30)
    assert sorted(answers, key=int) == [str(i) for i in range(20)] and len(provider.requests) == 20
