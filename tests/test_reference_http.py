"""The reference's HTTP provider in detail: URLs, headers, when it streams, and what its errors say (respx, no network)."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from advisor_conformance.scenarios import recorded_answer
from advisor_reference import LoadedFile, ProviderError, ProviderRequest, RenderedMessage, build_request, parse_transcript
from advisor_reference._http import EXCERPT, HttpProvider, StreamRequired, encode

BASE = {"anthropic": "https://api.anthropic.test", "openai": "https://api.openai.test/v1",
        "codex": "https://chatgpt.test/backend-api/codex"}
PATH = {"anthropic": "/v1/messages", "openai": "/chat/completions", "codex": "/responses"}
PLAIN = {"anthropic": "anthropic-message.json", "openai": "openai-completion.json", "codex": "codex-response.json"}
STREAM = {"anthropic": "anthropic-stream.sse", "openai": "openai-stream.sse", "codex": "codex-stream.sse"}
SSE = {"content-type": "text/event-stream"}
AUTH = {"anthropic": ("x-api-key", "secret"), "openai": ("authorization", "Bearer secret"),
        "codex": ("authorization", "Bearer secret")}


def _request(*, reasoning=None, stream=False):
    return ProviderRequest(model="m", messages=(RenderedMessage("system", "advise"), RenderedMessage("user", "go")),
                           max_tokens=4096, reasoning=reasoning, stream=stream, prompt_cache_key="k" * 32,
                           transport_session=None, parent_session=None)


def _sse(kind):
    return httpx.Response(200, text=recorded_answer(STREAM[kind]), headers=SSE)


def _error_message(kind, response, *, stream=False):
    """The provider error a call answered with ``response`` raises (plain call, or streaming)."""
    with respx.mock() as mock:
        mock.post(BASE[kind] + PATH[kind]).mock(return_value=response)
        with pytest.raises(ProviderError) as info:
            HttpProvider(kind, BASE[kind]).complete(_request(reasoning="high" if stream else None, stream=stream))
    return info.value


# -- the request builder and the encoder ------------------------------------------------------------


def test_build_request_puts_the_loaded_files_in_the_final_message():
    """build_request renders each loaded file as a block in the trailing user message."""
    messages = build_request(parse_transcript([{"role": "user", "content": "Fix the bug."}]), "Why?",
                             [LoadedFile("notes.txt", b"hello", 5)])
    assert "File: notes.txt\n```\nhello\n```\n\n" in messages[-1].content


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
    assert str(info.value) == "unknown provider kind 'gemini'; expected one of anthropic, openai, codex"


def test_provider_rejects_an_unknown_kind():
    """An HTTP provider of an unknown kind cannot be built, and the error names the kind."""
    with pytest.raises(ValueError, match="unknown provider kind 'gemini'"):
        HttpProvider("gemini", "https://api.gemini.test")


# -- URLs and headers ----------------------------------------------------------------------------


@pytest.mark.parametrize("base, url", [
    ("https://api.openai.test/v1/", "https://api.openai.test/v1/chat/completions"),
    ("https://api.openai.test/v1//", "https://api.openai.test/v1/chat/completions"),
    ("https://gateway.test/BOX/", "https://gateway.test/BOX/chat/completions"),
    ("https://gateway.test/BOX", "https://gateway.test/BOX/chat/completions"),
])
def test_trailing_slashes_of_the_base_url_are_dropped(base, url):
    """The request goes to the base URL without its trailing slashes, followed by the wire's path."""
    with respx.mock() as mock:
        route = mock.post(url).mock(return_value=httpx.Response(200, text=recorded_answer(PLAIN["openai"])))
        HttpProvider("openai", base).complete(_request())
    assert route.call_count == 1


@pytest.mark.parametrize("kind", sorted(BASE))
def test_without_an_api_key_no_credential_is_sent(kind):
    """A provider built without an API key sends neither an authorization nor an x-api-key header."""
    with respx.mock() as mock:
        route = mock.post(BASE[kind] + PATH[kind]).mock(return_value=httpx.Response(
            200, text=recorded_answer(PLAIN[kind])))
        HttpProvider(kind, BASE[kind]).complete(_request())
    headers = route.calls.last.request.headers
    assert "authorization" not in headers and "x-api-key" not in headers


@pytest.mark.parametrize("kind", sorted(BASE))
def test_a_streaming_call_sends_the_credential_and_the_wire_headers(kind):
    """A streaming call carries the API key in the provider's auth header and asks for an event stream."""
    header, value = AUTH[kind]
    with respx.mock() as mock:
        route = mock.post(BASE[kind] + PATH[kind]).mock(return_value=_sse(kind))
        HttpProvider(kind, BASE[kind], api_key="secret").complete(_request(reasoning="high", stream=True))
    sent = route.calls.last.request
    assert sent.method == "POST"
    assert sent.headers[header] == value
    assert sent.headers["accept"] == "text/event-stream"
    if kind == "codex":
        assert sent.headers["session-id"] == "k" * 32


# -- when the provider streams -------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BASE))
@pytest.mark.parametrize("reasoning, stream", [("high", False), (None, True), ("low", True)])
def test_reasoning_or_a_stream_request_makes_one_streaming_call(kind, reasoning, stream):
    """A request with reasoning, or one that asks for a stream, is one streaming call and nothing else."""
    with respx.mock() as mock:
        route = mock.post(BASE[kind] + PATH[kind]).mock(return_value=_sse(kind))
        answer = HttpProvider(kind, BASE[kind]).complete(_request(reasoning=reasoning, stream=stream))
    assert route.call_count == 1
    assert json.loads(route.calls.last.request.content)["stream"] is True
    assert answer.text.startswith("Check the float64 rounding")


def test_a_stream_required_answer_to_the_retry_is_not_retried_again():
    """When the streaming retry also gets a stream-required 400, the call fails as a plain provider error."""
    with respx.mock() as mock:
        route = mock.post(BASE["codex"] + PATH["codex"]).mock(
            return_value=httpx.Response(400, content=b'{"detail":"Stream must be set to true"}'))
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
    assert (str(error), error.status) == ("openai answered HTTP 400: stream is required", 400)


def test_the_sse_event_name_gives_the_kind_of_an_anthropic_event():
    """An Anthropic stream event is read by its SSE event name even when its data carries no type."""
    body = ('event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n'
            'event: message_delta\ndata: {"delta":{"stop_reason":"max_tokens"}}\n\n'
            'event: message_stop\ndata: {}\n\n')
    with respx.mock() as mock:
        mock.post(BASE["anthropic"] + PATH["anthropic"]).mock(return_value=httpx.Response(200, text=body,
                                                                                           headers=SSE))
        answer = HttpProvider("anthropic", BASE["anthropic"]).complete(_request(reasoning="high", stream=True))
    assert (answer.text, answer.finish_reason) == ("Hi", "length")


@pytest.mark.parametrize("kind", sorted(BASE))
def test_a_cut_stream_names_the_provider(kind):
    """A stream that ends before its final event fails with an error naming the provider kind."""
    error = _error_message(kind, httpx.Response(200, text=recorded_answer(f"{kind}-stream-cut.sse"), headers=SSE),
                           stream=True)
    assert str(error) == f"the {kind} stream ended before its final event"


# -- HTTP errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("status", [400, 401, 500])
def test_an_http_error_gives_its_status_and_body(status, stream):
    """An HTTP error status, 400 included, fails with the status and the body, streaming or not."""
    error = _error_message("anthropic", httpx.Response(status, text="max_tokens: too large"), stream=stream)
    assert str(error) == f"anthropic answered HTTP {status}: max_tokens: too large"
    assert error.status == status


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("body, shown", [
    ("", "(empty body)"),
    (" \n\t ", "(empty body)"),
    ("  bad \n  gateway\t ", "bad gateway"),
    ("x" * EXCERPT, "x" * EXCERPT),
    ("y" * (EXCERPT + 1), "y" * EXCERPT + "…"),
    ("ab " * EXCERPT, ("ab " * EXCERPT)[:EXCERPT] + "…"),
], ids=["empty", "blank", "white-space", "at-limit", "over-limit", "collapsed-then-cut"])
def test_the_body_excerpt(body, shown, stream):
    """The error shows the body with white space collapsed, cut with an ellipsis past the excerpt length, or says it is empty."""
    error = _error_message("openai", httpx.Response(502, text=body), stream=stream)
    assert str(error) == f"openai answered HTTP 502: {shown}"


def test_a_streaming_error_body_that_is_not_utf8_is_shown_with_replacement_characters():
    """A streaming call's error body with invalid UTF-8 is shown with U+FFFD in place of the bad bytes."""
    error = _error_message("codex", httpx.Response(503, content=b"busy \xff\xfe now"), stream=True)
    assert str(error) == "codex answered HTTP 503: busy \ufffd\ufffd now"
    assert error.status == 503


# -- transport failures --------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("exc, message", [
    (httpx.ReadTimeout("slow"), "openai did not answer in time (ReadTimeout) at https://api.openai.test/v1"),
    (httpx.ConnectTimeout("slow"), "openai did not answer in time (ConnectTimeout) at https://api.openai.test/v1"),
    (httpx.ConnectError("Connection refused"),
     "cannot connect to openai at https://api.openai.test/v1: Connection refused"),
    (httpx.RemoteProtocolError("peer closed connection"), "the connection to openai broke: peer closed connection"),
    (httpx.ReadError("reset by peer"), "the connection to openai broke: reset by peer"),
], ids=["read-timeout", "connect-timeout", "refused", "protocol", "read"])
def test_transport_failures_say_what_happened(exc, message, stream):
    """A timeout, a refused connection or a broken connection is a provider error saying which, and where."""
    with respx.mock() as mock:
        mock.post(BASE["openai"] + PATH["openai"]).mock(side_effect=exc)
        with pytest.raises(ProviderError) as info:
            HttpProvider("openai", BASE["openai"] + "/").complete(
                _request(reasoning="high" if stream else None, stream=stream))
    assert str(info.value) == message
    assert info.value.status is None
