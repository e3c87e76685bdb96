"""The reference's HTTP client, against recorded provider answers served by respx (no network)."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from hypothesis import given
from hypothesis import strategies as st

from conformance.loopback import expected_answers, recorded_answer
from reference import ProviderError, ProviderRequest, RenderedMessage
from reference._http import HttpProvider, encode

BASE = {"anthropic": "https://api.anthropic.test", "openai": "https://api.openai.test/v1",
        "codex": "https://chatgpt.test/backend-api/codex"}
PATH = {"anthropic": "/v1/messages", "openai": "/chat/completions", "codex": "/responses"}
EXPECTED = expected_answers()


def _request(reasoning=None, key="k" * 32):
    return ProviderRequest(model="m", messages=(RenderedMessage("system", "advise"), RenderedMessage("user", "go")),
                           max_tokens=4096, reasoning=reasoning, stream=reasoning is not None, prompt_cache_key=key,
                           transport_session=None, parent_session=None)


def _kind(name):
    return name.split("-")[0]


def _route(mock, kind):
    return mock.post(BASE[kind] + PATH[kind])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_answers_decode_as_expected(name):
    """Each recorded answer decodes to its text, finish reason and usage, or fails with a provider error."""
    kind = _kind(name)
    stream = name.endswith(".sse")
    body = recorded_answer(name)
    headers = {"content-type": "text/event-stream" if stream else "application/json"}
    with respx.mock(assert_all_called=True) as mock:
        _route(mock, kind).mock(return_value=httpx.Response(200, text=body, headers=headers))
        provider = HttpProvider(kind, BASE[kind], api_key="secret")
        expected = EXPECTED[name]
        if "error" in expected:
            with pytest.raises(ProviderError):
                provider.complete(_request(reasoning="high" if stream else None))
            return
        answer = provider.complete(_request(reasoning="high" if stream else None))
    assert (answer.text, answer.finish_reason, dict(answer.usage)) == (
        expected["text"], expected["finish_reason"], expected["usage"])


@pytest.mark.parametrize("kind, header, value", [("anthropic", "x-api-key", "secret"),
                                                 ("openai", "authorization", "Bearer secret"),
                                                 ("codex", "authorization", "Bearer secret")])
def test_credentials_are_added_by_the_client_only(kind, header, value):
    """The API key goes into the provider's auth header on the wire, never into the encoded request."""
    assert header not in encode(kind, _request()).headers
    with respx.mock() as mock:
        route = _route(mock, kind).mock(return_value=httpx.Response(200, text=recorded_answer(
            {"anthropic": "anthropic-message.json", "openai": "openai-completion.json",
             "codex": "codex-response.json"}[kind])))
        HttpProvider(kind, BASE[kind], api_key="secret").complete(_request())
    assert route.calls.last.request.headers[header] == value


def test_stream_required_is_retried_once():
    """A stream-required 400 on a plain call leads to exactly one more request, streaming."""
    with respx.mock() as mock:
        route = _route(mock, "codex").mock(side_effect=[
            httpx.Response(400, json={"detail": "Stream must be set to true"}),
            httpx.Response(200, text=recorded_answer("codex-stream.sse"), headers={"content-type": "text/event-stream"}),
        ])
        answer = HttpProvider("codex", BASE["codex"]).complete(_request())
    assert route.call_count == 2
    assert [json.loads(call.request.content).get("stream", False) for call in route.calls] == [False, True]
    assert answer.text == EXPECTED["codex-stream.sse"]["text"]


def test_timeouts_are_configurable_and_reported():
    """A read timeout becomes a provider error that says the provider did not answer in time."""
    with respx.mock() as mock:
        _route(mock, "openai").mock(side_effect=httpx.ReadTimeout("slow"))
        with pytest.raises(ProviderError, match="did not answer in time"):
            HttpProvider("openai", BASE["openai"], timeout=0.01).complete(_request())
    assert HttpProvider("openai", BASE["openai"], timeout=2.5).client.timeout.read == 2.5


def test_http_error_shows_status_and_excerpt():
    """An HTTP error names the status and carries an excerpt of a long body, not all of it."""
    body = "upstream overloaded; " * 100
    with respx.mock() as mock:
        _route(mock, "anthropic").mock(return_value=httpx.Response(529, text=body))
        with pytest.raises(ProviderError) as info:
            HttpProvider("anthropic", BASE["anthropic"]).complete(_request())
    message = str(info.value)
    assert "HTTP 529" in message and "upstream overloaded" in message and len(message) < 500
    assert info.value.status == 529


def test_plain_answer_with_an_event_stream_content_type_is_not_json():
    """A plain call answered with a body that is not JSON fails clearly."""
    with respx.mock() as mock:
        _route(mock, "openai").mock(return_value=httpx.Response(200, text="data: {}\n\n"))
        with pytest.raises(ProviderError, match="not JSON"):
            HttpProvider("openai", BASE["openai"]).complete(_request())


def test_stream_answered_with_json_is_an_error():
    """A streaming call answered without an event stream fails clearly."""
    with respx.mock() as mock:
        _route(mock, "anthropic").mock(return_value=httpx.Response(200, json={"content": []}))
        with pytest.raises(ProviderError, match="event stream"):
            HttpProvider("anthropic", BASE["anthropic"]).complete(_request(reasoning="high"))


CHUNK_TEXT = st.lists(st.sampled_from(['a', ' ', '"', '\\', '"delta":', '"finish_reason":', '{', '}', 'é', '\n',
                                       '"usage":{', '"error":']), max_size=12).map("".join)


@given(content=st.one_of(st.none(), CHUNK_TEXT), reason=st.sampled_from([None, "stop", "length"]),
       usage=st.one_of(st.none(), st.just({"prompt_tokens": 3, "completion_tokens": 4})),
       extra=st.dictionaries(st.sampled_from(["id", "model", "logprobs", "note"]), CHUNK_TEXT, max_size=2),
       compact=st.booleans())
def test_fast_chunk_reading_matches_the_full_parse(content, reason, usage, extra, compact):
    """The chat stream's fast reading of a chunk gives exactly what parsing the whole chunk gives."""
    from reference._openai import _full_chunk, stream_event
    from reference._wire import StreamState

    delta = {} if content is None else {"content": content}
    chunk = {**extra, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
             "usage": usage}
    data = json.dumps(chunk, separators=(",", ":") if compact else (", ", ": "))
    fast, full = StreamState(), StreamState()
    stream_event(fast, "message", data)
    _full_chunk(full, data)
    assert (fast.text, fast.finish_reason, fast.usage, fast.done) == (full.text, full.finish_reason, full.usage,
                                                                      full.done)
