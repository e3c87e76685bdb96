"""Provider answers over HTTP at the edges of how a client reads them (clarifications §8): error bodies larger than any
sensible read bound, error bodies that are not valid UTF-8 or declare a charset no decoder knows, a streaming answer
without a content type, and plain and streamed answers that arrive in many pieces.

Whatever the client does to bound, decode or piece together what it reads, a failed call is a provider_error that
shows the status and the start of the body (streaming.failure-report), and a long answer is read whole.

Black-box: the implementation makes real HTTP requests to the suite's loopback provider on 127.0.0.1 (and, for an
answer without a Content-Type header, which the loopback provider always sends, to a small server of this module).
"""

from __future__ import annotations

import json
import threading

import pytest
from werkzeug import Request, Response

from advisor_conformance._contract.loopback import LocalServer
from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, error_of

from ..common.providers import speaks
from .answers import read
from .bodies import LONG, LONG_ANSWERS, LONG_STREAMS, TOKEN
from .calls import _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

#: Words with single spaces between them: an excerpt of the body shows them as they are.
WORDS = "quota exceeded for model x7"
#: Hundreds of kilobytes: larger than any single read, and than what a client may keep of an error body.
HUGE = 300_000


def _reported(lb, answer, params, status, shown, what):
    """The call failed with a provider_error whose message shows ``status`` and each of ``shown``
    (streaming.failure-report). Control first: the error was not retried (streaming.no-other-retry), so the status of
    an unscripted second answer is never blamed on the report."""
    check_equal(len(lb.received), 1, "streaming.no-other-retry", f"the call answered {what} made {len(lb.received)} "
                "HTTP request(s); expected 1", input=params)
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error.get("code"), "provider_error", "streaming.failure-report", f"{what} is not a provider_error",
                input=params, actual=error)
    message = error.get("message", "")
    check(str(status) in message and all(part in message for part in shown), "streaming.failure-report",
          f"the error of {what} does not show the status and the start of the body", input=params,
          expected=[str(status), *shown], actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider, reasoning, status, body, shown", [
    ("openai", None, 429, json.dumps({"error": {"message": WORDS, "type": "rate_limit"}}), [WORDS]),
    ("anthropic", None, 500, json.dumps({"error": {"message": TOKEN, "detail": "x" * HUGE}}), [TOKEN]),
    ("codex", "low", 502, TOKEN + " " + "y" * HUGE, [TOKEN]),
], ids=["words", "huge-json-body", "huge-body-on-a-stream"])
def test_error_body_of_any_size_is_reported_with_the_status(impl, lb, provider, reasoning, status, body, shown):
    """An HTTP error is a provider_error showing the status and the start of the body as written, whether the body
    holds a few words or hundreds of kilobytes, on a plain call or a stream."""
    lb.expect(Reply(status, body))
    answer, params = _run(impl, provider, lb, "streaming.failure-report", reasoning=reasoning)
    shown_params = {"scenario": params, "answered": f"HTTP {status}, a body of {len(body)} bytes: {body[:200]}"}
    _reported(lb, answer, shown_params, status, shown, f"HTTP {status}")


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("status, body, content_type", [
    (500, TOKEN.encode() + b" \xff\xfe\xc3( \xe2\x82", "application/json"),
    (503, TOKEN.encode() + b" \xff\xfe\xc3( caf\xe9", "text/plain; charset=x-no-such-charset"),
    (500, TOKEN.encode() + b" caf\xc3\xa9", "text/plain; charset=x-no-such-charset"),
], ids=["invalid-utf8", "unknown-charset-invalid-bytes", "unknown-charset"])
@speaks("openai")
def test_undecodable_error_body_is_reported_with_the_status(impl, lb, status, body, content_type):
    """An HTTP error whose body is not valid UTF-8, or declares a charset no decoder knows, is a provider_error showing
    the status and the body's readable start."""
    lb.expect(Reply(status, body, content_type))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report")
    shown_params = {"scenario": params, "answered": f"HTTP {status}, {content_type}: {body!r}"}
    _reported(lb, answer, shown_params, status, [TOKEN], f"HTTP {status} with an undecodable body")


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("body, content_type", [
    (b"<html>\xff\xfe gateway hiccup</html>", "text/html"),
    (b"<html>\xff\xfe gateway hiccup</html>", "text/html; charset=x-no-such-charset"),
], ids=["invalid-utf8", "unknown-charset"])
@speaks("openai")
def test_undecodable_body_that_is_not_json_fails_the_call(impl, lb, body, content_type):
    """A 200 answer whose body is neither JSON nor valid UTF-8 (or in a charset no decoder knows) is a provider_error
    that says the body is not JSON."""
    lb.expect(Reply(200, body, content_type))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report")
    shown_params = {"scenario": params, "answered": f"HTTP 200, {content_type}: {body!r}"}
    check_equal(len(lb.received), 1, "streaming.no-other-retry", f"the call answered a body that is not JSON made "
                f"{len(lb.received)} HTTP request(s); expected 1", input=shown_params)
    error = error_of(answer, 0, "streaming.failure-report", shown_params)
    check_equal(error.get("code"), "provider_error", "streaming.failure-report", "an undecodable body that is not "
                "JSON is not a provider_error", input=shown_params, actual=error)
    check("json" in error.get("message", "").lower(), "streaming.failure-report", "the error does not say the body is "
          "not JSON", input=shown_params, actual=error)


@pytest.mark.rule(id="streaming.non-streaming-default")
@pytest.mark.parametrize("provider, answered", LONG_ANSWERS)
def test_long_plain_answer_is_read_whole(impl, lb, strings, provider, answered):
    """A JSON answer of some hundred kilobytes, which arrives in many reads, becomes the note whole."""
    read(impl, lb, strings, provider, answered, [LONG], False, "streaming.non-streaming-default")


@pytest.mark.parametrize("provider, answered, rule", LONG_STREAMS)
def test_long_stream_is_read_whole(impl, lb, strings, provider, answered, rule):
    """An event stream of some hundred kilobytes, hundreds of events arriving in many reads, becomes the note whole."""
    read(impl, lb, strings, provider, answered, [LONG], False, rule, reasoning="high")


# -- an answer without a Content-Type header ---------------------------------------------------------------------------

class _Bare(LocalServer):
    """A server on 127.0.0.1 that answers every request 200 with ``body`` and no Content-Type header at all."""

    def __init__(self) -> None:
        super().__init__()
        self.body = b""
        self.requests = 0
        self.lock = threading.Lock()

    def handle(self, request: Request) -> Response:
        request.get_data()
        with self.lock:
            self.requests += 1
        response = Response(self.body, status=200)
        del response.headers["Content-Type"]
        return response


@pytest.fixture(scope="module")
def bare():
    with _Bare().running() as server:
        yield server


@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider, body", [
    ("anthropic", b""),
    ("openai", b"not an event stream\n"),
    ("codex", b""),
], ids=["anthropic-empty", "openai-text", "codex-empty"])
def test_stream_answer_without_a_content_type_or_events_fails(impl, lb, bare, provider, body):
    """A streaming call answered 200 with no Content-Type header and no events fails the call (final-event-required)
    with a provider_error (failure-report)."""
    bare.body, bare.requests = body, 0
    answer, params = _run(impl, provider, lb, "streaming.final-event-required", reasoning="high",
                          base_url=bare.base_url)
    shown = {"scenario": params, "answered": f"HTTP 200, no Content-Type header, body {body!r}"}
    check(bare.requests >= 1, "streaming.failure-report", "the call made no HTTP request", input=shown,
          actual=answer.get("calls"))
    error = error_of(answer, 0, "streaming.final-event-required", shown)
    check_equal(error.get("code"), "provider_error", "streaming.failure-report", "a stream answer without a content "
                "type or events is not a provider_error", input=shown, actual=error)
