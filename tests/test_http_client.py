"""The reference's HTTP client, against recorded provider answers served by respx (no network)."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance.scenarios import expected_answers, recorded_answer
from advisor_reference import ProviderError, ProviderRequest, RenderedMessage
from advisor_reference._http import HttpProvider, encode

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


def _choice(draw, with_delta: bool) -> dict:
    keys = draw(st.lists(st.sampled_from(["index", "logprobs", "finish_reason", "note"]), unique=True))
    if with_delta:
        keys.insert(draw(st.integers(0, len(keys))), "delta")
    values = {
        "index": st.integers(0, 2), "logprobs": st.one_of(st.none(), st.just({"content": []})),
        "finish_reason": st.sampled_from([None, "", "stop", "length"]), "note": CHUNK_TEXT,
        "delta": st.one_of(st.just({}), CHUNK_TEXT.map(lambda text: {"content": text}),
                           st.just({"role": "assistant", "content": None})),
    }
    return {key: draw(values[key]) for key in keys}


@st.composite
def chat_chunks(draw) -> dict:
    """Chunks of every shape a server may send: key orders, several choices, a ``delta`` key elsewhere."""
    choices = [_choice(draw, draw(st.booleans())) for _ in range(draw(st.integers(1, 3)))]
    parts = {"choices": choices}
    for key in draw(st.lists(st.sampled_from(["id", "model", "meta", "usage"]), unique=True, max_size=3)):
        parts[key] = {
            "id": CHUNK_TEXT, "model": CHUNK_TEXT,
            "meta": st.just({"delta": {"content": "not the answer"}, "finish_reason": "length"}),
            "usage": st.one_of(st.none(), st.just({"prompt_tokens": 3, "completion_tokens": 4})),
        }[key]
        parts[key] = draw(parts[key])
    order = draw(st.permutations(sorted(parts)))
    return {key: parts[key] for key in order}


@st.composite
def chat_streams(draw) -> list[dict]:
    """Chunks of one stream: a frame repeated with other texts and finish reasons, mixed with chunks of other shapes."""
    frame = draw(chat_chunks())
    chunks = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            chunks.append(draw(chat_chunks()))
            continue
        choice = dict(frame["choices"][0])
        if "delta" in choice:
            choice["delta"] = {"content": draw(CHUNK_TEXT)}
        if "finish_reason" in choice:
            choice["finish_reason"] = draw(st.sampled_from([None, "stop", "length"]))
        chunks.append({**frame, "choices": [choice, *frame["choices"][1:]]})
    return chunks


@given(chunks=chat_streams(), compact=st.booleans())
def test_chat_stream_reads_the_first_choice_of_every_chunk(chunks, compact):
    """A chat stream's answer is the first choice's delta contents in order, its finish reason the last one given,
    whatever the key order, the other choices or a `delta` key outside them."""
    from advisor_reference._openai import stream_event
    from advisor_reference._wire import StreamState

    state = StreamState()
    text, reason = [], ""
    for chunk in chunks:
        stream_event(state, "message", json.dumps(chunk, separators=(",", ":") if compact else (", ", ": ")))
        first = chunk["choices"][0]
        if isinstance(first.get("delta"), dict) and isinstance(first["delta"].get("content"), str):
            text.append(first["delta"]["content"])
        reason = first.get("finish_reason") or reason
    assert ("".join(state.text), state.finish_reason) == ("".join(text), reason)


@pytest.mark.parametrize("data, text, reason", [
    ('{"choices":[{"index":0,"finish_reason":"length","delta":{"content":"a"}}]}', "a", "length"),
    ('{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{},"finish_reason":"length"}]}', "a", ""),
    ('{"meta":{"delta":{"content":"x"}},"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}',
     "a", "stop"),
    ('{"choices":[{"index":0,"delta":{"content":"a"},"note":"}","finish_reason":"length"}]}', "a", "length"),
    ('{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"length"}]}', "a", "length"),
], ids=["reason-before-delta", "reason-in-second-choice", "delta-outside-choices", "brace-in-a-string", "openai-order"])
def test_chat_chunk_reads_the_first_choice_whatever_the_key_order(data, text, reason):
    """A chat chunk's text and finish reason come from its first choice, whatever order its keys come in."""
    from advisor_reference._openai import stream_event
    from advisor_reference._wire import StreamState

    state = StreamState()
    stream_event(state, "message", data)
    assert ("".join(state.text), state.finish_reason) == (text, reason), data
