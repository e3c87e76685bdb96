"""advisor_reference._http: the HTTP provider against recorded answers served by respx (no network): URLs, headers,
when it streams, the stream-required retry, and what its errors show."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from advisor_conformance.scenarios import expected_answers, recorded_answer
from advisor_reference import ProviderError, RenderedMessage
from advisor_reference._http import EXCERPT, HttpProvider, StreamRequired, encode

from ..support.provider_requests import provider_request

BASE = {
    "anthropic": "https://api.anthropic.test",
    "openai": "https://api.openai.test/v1",
    "codex": "https://chatgpt.test/backend-api/codex",
}
PATH = {"anthropic": "/v1/messages", "openai": "/chat/completions", "codex": "/responses"}
PLAIN = {"anthropic": "anthropic-message.json", "openai": "openai-completion.json", "codex": "codex-response.json"}
STREAM = {"anthropic": "anthropic-stream.sse", "openai": "openai-stream.sse", "codex": "codex-stream.sse"}
SSE = {"content-type": "text/event-stream"}
AUTH = {
    "anthropic": ("x-api-key", "secret"),
    "openai": ("authorization", "Bearer secret"),
    "codex": ("authorization", "Bearer secret"),
}
EXPECTED = expected_answers()


def _request(*, reasoning=None, stream=None):
    """A neutral request; it asks for a stream when told, else exactly when it has reasoning."""
    return provider_request(
        messages=(RenderedMessage("system", "advise"), RenderedMessage("user", "go")),
        max_tokens=4096,
        reasoning=reasoning,
        stream=reasoning is not None if stream is None else stream,
        prompt_cache_key="k" * 32,
    )


def _route(mock, kind):
    return mock.post(BASE[kind] + PATH[kind])


def _sse(kind):
    return httpx.Response(200, text=recorded_answer(STREAM[kind]), headers=SSE)


def _error_message(kind, response, *, stream=False):
    """The provider error a call answered with ``response`` raises (plain call, or streaming)."""
    with respx.mock() as mock:
        _route(mock, kind).mock(return_value=response)
        with pytest.raises(ProviderError) as info:
            HttpProvider(kind, BASE[kind]).complete(_request(reasoning="high" if stream else None, stream=stream))
    return info.value


# -- recorded answers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_answers_decode_as_expected(name):
    """Each recorded answer decodes to its text, finish reason and usage, or fails with a provider error."""
    kind = name.split("-")[0]
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
        expected["text"],
        expected["finish_reason"],
        expected["usage"],
    )


# -- the encoder -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BASE))
def test_encode_stream_argument_overrides_the_request(kind):
    """encode streams as its stream argument says, and as the request says when the argument is left out."""
    assert encode(kind, _request(stream=False), stream=True).body["stream"] is True
    assert "stream" not in encode(kind, _request(stream=True), stream=False).body
    assert encode(kind, _request(stream=True)).body["stream"] is True
    assert "stream" not in encode(kind, _request(stream=False)).body


def test_encode_rejects_an_unknown_kind_naming_the_known_ones():
    """An unknown provider kind is a ValueError naming it and listing the known kinds."""
    with pytest.raises(ValueError) as info:
        encode("gemini", _request())
    assert all(kind in str(info.value) for kind in ("gemini", "anthropic", "openai", "codex"))


def test_provider_rejects_an_unknown_kind():
    """An HTTP provider of an unknown kind cannot be built, and the error names the kind."""
    with pytest.raises(ValueError) as info:
        HttpProvider("gemini", "https://api.gemini.test")
    assert "gemini" in str(info.value)


# -- URLs and headers ------------------------------------------------------------------------------------------------


# This table and the error-event table of test_codex.py have the same shape (four pairs of strings) but share
# nothing: they are the data of unrelated tests, so there is no helper to draw out of them.
@pytest.mark.parametrize(
    "base, url",
    [
        ("https://api.openai.test/v1/", "https://api.openai.test/v1/chat/completions"),
        ("https://api.openai.test/v1//", "https://api.openai.test/v1/chat/completions"),
        ("https://gateway.test/BOX/", "https://gateway.test/BOX/chat/completions"),
        ("https://gateway.test/BOX", "https://gateway.test/BOX/chat/completions"),
    ],
)
def test_trailing_slashes_of_the_base_url_are_dropped(base, url):
    """The request goes to the base URL without its trailing slashes, followed by the wire's path."""
    with respx.mock() as mock:
        route = mock.post(url).mock(return_value=httpx.Response(200, text=recorded_answer(PLAIN["openai"])))
        HttpProvider("openai", base).complete(_request())
    assert route.call_count == 1


@pytest.mark.parametrize("kind", sorted(BASE))
def test_credentials_are_added_by_the_client_only(kind):
    """The API key goes into the provider's auth header on the wire, never into the encoded request."""
    header, value = AUTH[kind]
    assert header not in encode(kind, _request()).headers
    with respx.mock() as mock:
        route = _route(mock, kind).mock(return_value=httpx.Response(200, text=recorded_answer(PLAIN[kind])))
        HttpProvider(kind, BASE[kind], api_key="secret").complete(_request())
    assert route.calls.last.request.headers[header] == value


@pytest.mark.parametrize("kind", sorted(BASE))
def test_without_an_api_key_no_credential_is_sent(kind):
    """A provider built without an API key sends neither an authorization nor an x-api-key header."""
    with respx.mock() as mock:
        route = _route(mock, kind).mock(return_value=httpx.Response(200, text=recorded_answer(PLAIN[kind])))
        HttpProvider(kind, BASE[kind]).complete(_request())
    headers = route.calls.last.request.headers
    assert "authorization" not in headers and "x-api-key" not in headers


@pytest.mark.parametrize("kind", sorted(BASE))
def test_a_streaming_call_sends_the_credential_and_the_wire_headers(kind):
    """A streaming call carries the API key in the provider's auth header and asks for an event stream."""
    header, value = AUTH[kind]
    with respx.mock() as mock:
        route = _route(mock, kind).mock(return_value=_sse(kind))
        HttpProvider(kind, BASE[kind], api_key="secret").complete(_request(reasoning="high", stream=True))
    sent = route.calls.last.request
    assert sent.method == "POST"
    assert sent.headers[header] == value
    assert sent.headers["accept"] == "text/event-stream"
    if kind == "codex":
        assert sent.headers["session-id"] == "k" * 32


# -- when the provider streams ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BASE))
@pytest.mark.parametrize("reasoning, stream", [("high", False), (None, True), ("low", True)])
def test_reasoning_or_a_stream_request_makes_one_streaming_call(kind, reasoning, stream):
    """A request with reasoning, or one that asks for a stream, is one streaming call and nothing else."""
    with respx.mock() as mock:
        route = _route(mock, kind).mock(return_value=_sse(kind))
        answer = HttpProvider(kind, BASE[kind]).complete(_request(reasoning=reasoning, stream=stream))
    assert route.call_count == 1
    assert json.loads(route.calls.last.request.content)["stream"] is True
    assert answer.text.startswith("Check the float64 (\u03b5) rounding")


def test_stream_required_is_retried_once():
    """A stream-required 400 on a plain call leads to exactly one more request, streaming."""
    with respx.mock() as mock:
        route = _route(mock, "codex").mock(
            side_effect=[httpx.Response(400, json={"detail": "Stream must be set to true"}), _sse("codex")]
        )
        answer = HttpProvider("codex", BASE["codex"]).complete(_request())
    assert route.call_count == 2
    assert [json.loads(call.request.content).get("stream", False) for call in route.calls] == [False, True]
    assert answer.text == EXPECTED["codex-stream.sse"]["text"]


def test_a_stream_required_answer_to_the_retry_is_not_retried_again():
    """When the streaming retry also gets a stream-required 400, the call fails as a plain provider error."""
    with respx.mock() as mock:
        route = _route(mock, "codex").mock(
            return_value=httpx.Response(400, content=b'{"detail":"Stream must be set to true"}')
        )
        with pytest.raises(ProviderError) as info:
            HttpProvider("codex", BASE["codex"]).complete(_request())
    assert route.call_count == 2
    assert not isinstance(info.value, StreamRequired)
    assert info.value.status == 400
    assert '{"detail":"Stream must be set to true"}' in str(info.value)


def test_a_stream_required_answer_to_a_streaming_call_is_a_plain_provider_error():
    """A streaming call answered with a stream-required 400 fails once, not as a stream-required error."""
    error = _error_message("openai", httpx.Response(400, text="stream is required"), stream=True)
    assert not isinstance(error, StreamRequired)
    assert error.status == 400 and "stream is required" in str(error)


def test_the_sse_event_name_gives_the_kind_of_an_anthropic_event():
    """An Anthropic stream event is read by its SSE event name even when its data carries no type."""
    body = (
        'event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n'
        'event: message_delta\ndata: {"delta":{"stop_reason":"max_tokens"}}\n\n'
        "event: message_stop\ndata: {}\n\n"
    )
    with respx.mock() as mock:
        _route(mock, "anthropic").mock(return_value=httpx.Response(200, text=body, headers=SSE))
        answer = HttpProvider("anthropic", BASE["anthropic"]).complete(_request(reasoning="high", stream=True))
    assert (answer.text, answer.finish_reason) == ("Hi", "length")


@pytest.mark.parametrize("kind", sorted(BASE))
def test_a_cut_stream_names_the_provider(kind):
    """A stream that ends before its final event fails with an error naming the provider kind."""
    error = _error_message(
        kind, httpx.Response(200, text=recorded_answer(f"{kind}-stream-cut.sse"), headers=SSE), stream=True
    )
    assert kind in str(error)


def test_plain_answer_with_an_event_stream_content_type_is_not_json():
    """A plain call answered with a body that is not JSON fails, showing the body."""
    error = _error_message("openai", httpx.Response(200, text="data: {}\n\n"))
    assert "data: {}" in str(error)


def test_stream_answered_with_json_is_an_error():
    """A streaming call answered without an event stream fails with a provider error naming the provider."""
    error = _error_message("anthropic", httpx.Response(200, json={"content": []}), stream=True)
    assert "anthropic" in str(error)


# -- HTTP errors -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("status", [400, 401, 500])
def test_an_http_error_gives_its_status_and_body(status, stream):
    """An HTTP error status, 400 included, fails with the status and the body, streaming or not."""
    error = _error_message("anthropic", httpx.Response(status, text="max_tokens: too large"), stream=stream)
    assert "max_tokens: too large" in str(error)
    assert error.status == status


def test_http_error_shows_status_and_excerpt():
    """An HTTP error names the status and carries an excerpt of a long body, not all of it."""
    error = _error_message("anthropic", httpx.Response(529, text="upstream overloaded; " * 100))
    message = str(error)
    assert "529" in message and "upstream overloaded" in message and len(message) < 500
    assert error.status == 529


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "body, shown",
    [
        ("", None),
        (" \n\t ", None),
        ("  bad \n  gateway\t ", "bad gateway"),
        ("x" * EXCERPT, "x" * EXCERPT),
        ("y" * (EXCERPT + 1), "y" * EXCERPT),
        ("ab " * EXCERPT, ("ab " * EXCERPT)[:EXCERPT]),
    ],
    ids=["empty", "blank", "white-space", "at-limit", "over-limit", "collapsed-then-cut"],
)
def test_the_body_excerpt(body, shown, stream):
    """The error shows the body with white space collapsed, cut past the excerpt length, or says it is empty."""
    message = str(_error_message("openai", httpx.Response(502, text=body), stream=stream))
    if shown is None:
        assert "empty" in message
        return
    collapsed = " ".join(body.split())
    assert shown in message
    if len(collapsed) > len(shown):  # cut: nothing of the body past the excerpt is shown
        assert collapsed[: len(shown) + 1] not in message


def test_a_streaming_error_body_that_is_not_utf8_is_shown_with_replacement_characters():
    """A streaming call's error body with invalid UTF-8 is shown with U+FFFD in place of the bad bytes."""
    error = _error_message("codex", httpx.Response(503, content=b"busy \xff\xfe now"), stream=True)
    assert "busy \ufffd\ufffd now" in str(error)
    assert error.status == 503


# -- transport failures ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "exc, shown",
    [
        (httpx.ReadTimeout("slow"), ["openai", "ReadTimeout", BASE["openai"]]),
        (httpx.ConnectTimeout("slow"), ["openai", "ConnectTimeout", BASE["openai"]]),
        (httpx.ConnectError("Connection refused"), ["openai", BASE["openai"], "Connection refused"]),
        (httpx.RemoteProtocolError("peer closed connection"), ["openai", "peer closed connection"]),
        (httpx.ReadError("reset by peer"), ["openai", "reset by peer"]),
    ],
    ids=["read-timeout", "connect-timeout", "refused", "protocol", "read"],
)
def test_transport_failures_say_what_happened(exc, shown, stream):
    """A timeout, a refused connection or a broken connection is a provider error saying which, and where."""
    with respx.mock() as mock:
        _route(mock, "openai").mock(side_effect=exc)
        with pytest.raises(ProviderError) as info:
            HttpProvider("openai", BASE["openai"] + "/").complete(
                _request(reasoning="high" if stream else None, stream=stream)
            )
    assert all(part in str(info.value) for part in shown), str(info.value)
    assert BASE["openai"] + "/" not in str(info.value)
    assert info.value.status is None


def test_timeouts_are_configurable_and_reported():
    """A read timeout becomes a provider error that names the provider and the timeout."""
    with respx.mock() as mock:
        _route(mock, "openai").mock(side_effect=httpx.ReadTimeout("slow"))
        with pytest.raises(ProviderError) as info:
            HttpProvider("openai", BASE["openai"], timeout=5).complete(_request())  # a deadline not passed first
    assert "openai" in str(info.value) and "ReadTimeout" in str(info.value)
    assert HttpProvider("openai", BASE["openai"], timeout=2.5).client.timeout.read == 2.5
