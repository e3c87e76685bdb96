"""Failed provider calls over HTTP (clarifications §6, §8): a stream that ends without its final event, and what a
failed call reports (the status and an excerpt of the body, a body that is not JSON, a refused connection, a
timeout), on plain calls, streams and the stream-required retry.
"""

from __future__ import annotations

import time

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, check_use_kept, error_of, recorded_answer, refused_url

from ..common.providers import speaks
from .answers import _event, anthropic_stream, chat_stream, read, responses_stream
from .calls import PROVIDERS, STREAM_ANSWER, STREAM_REQUIRED, _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
def test_stream_cut_before_its_final_event_fails(impl, lb, strings, provider):
    """A stream that ends before its final event fails the call, and the use stays spent."""
    lb.expect(Reply.recorded(f"{provider}-stream-cut.sse"))
    answer, params = _run(impl, provider, lb, "streaming.final-event-required", reasoning="high", calls=2, cap=1)
    error = error_of(answer, 0, "streaming.final-event-required", params)
    check_equal(error["code"], "provider_error", "streaming.final-event-required",
                "a cut stream did not fail with provider_error", input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.parametrize("provider, final", [("anthropic", "message_stop"), ("openai", "data: [DONE]"),
                                             ("codex", "response.completed")], ids=PROVIDERS)
def test_stream_with_its_stop_reason_but_no_final_event_fails(impl, lb, provider, final):
    """A stream that sent all its text and its stop reason but ends before its final event fails the call."""
    events = [event for event in recorded_answer(STREAM_ANSWER[provider]).split("\n\n") if event.strip()]
    check(final in events[-1], "streaming.final-event-required", "the recorded stream does not end with its final "
          "event", input=STREAM_ANSWER[provider], expected=final, actual=events[-1])  # a guard on the fixture
    lb.expect(Reply.events("\n\n".join(events[:-1]) + "\n\n"))
    answer, params = _run(impl, provider, lb, "streaming.final-event-required", reasoning="high")
    shown = {"scenario": params, "stream": f"{STREAM_ANSWER[provider]} without its last event ({final})"}
    error = error_of(answer, 0, "streaming.final-event-required", shown)
    check_equal(error["code"], "provider_error", "streaming.final-event-required",
                f"a stream without {final} did not fail with provider_error", input=shown, actual=error)




@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider, answered", [
    ("anthropic", Reply.events("")),
    ("anthropic", Reply.events(_event("ping", {"type": "ping"}) * 3)),
    ("openai", Reply.events(": keep-alive\n\n" * 3)),
    ("codex", Reply.events(_event("response.created", {"type": "response.created", "response": {"id": "resp_1"}}))),
    ("anthropic", anthropic_stream([("text", ["Check the float64 (\u03b5)"])], final=False)),
    ("openai", chat_stream(["Check the float64 (\u03b5)"], final=False)),
    ("codex", responses_stream([["Check the float64 (\u03b5)"]], final=False)),
], ids=["empty-body", "anthropic-pings-only", "openai-comments-only", "responses-created-only",
        "anthropic-no-message-stop", "openai-no-done", "responses-no-completed"])
def test_stream_without_its_final_event_fails(impl, lb, provider, answered):
    """A stream with no events, only keep-alives, or text but no final event fails the call (final-event-required),
    with a provider_error (failure-report)."""
    lb.expect(answered)
    answer, params = _run(impl, provider, lb, "streaming.final-event-required", reasoning="high")
    shown = {"scenario": params, "stream": answered.body[:3000]}
    error = error_of(answer, 0, "streaming.final-event-required", shown)
    check_equal(error["code"], "provider_error", "streaming.failure-report",
                "a stream without its final event did not fail with provider_error", input=shown, actual=error)


@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.parametrize("provider, answered, cut", [
    ("anthropic", anthropic_stream([]), False),
    ("openai", chat_stream([]), False),
    ("codex", responses_stream([]), False),
    ("codex", responses_stream([], incomplete="max_output_tokens"), True),
], ids=["anthropic", "openai", "responses-completed", "responses-incomplete"])
def test_stream_with_its_final_event_but_no_text_is_complete(impl, lb, strings, provider, answered, cut):
    """A stream that reaches its final event (response.incomplete included) is complete even without any text: the
    call answers the no-content note, it does not fail."""
    read(impl, lb, strings, provider, answered, [], cut, "streaming.final-event-required", reasoning="high")
@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("status", [500, 429, 400])
@speaks("openai")
def test_http_errors_report_status_and_body(impl, lb, status):
    """An HTTP error is reported with its status and an excerpt of the body."""
    lb.expect(Reply(status, '{"error":{"message":"quota-exceeded-for-model-x7"}}'))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report")
    check_equal(len(lb.received), 1, "streaming.no-other-retry", f"the call answered HTTP {status} made "
                f"{len(lb.received)} HTTP request(s); expected 1", input=params)
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", f"HTTP {status} is not a provider_error",
                input=params, actual=error)
    check(str(status) in error["message"] and "quota-exceeded-for-model-x7" in error["message"],
          "streaming.failure-report", "the error does not show the status and the body", input=params,
          actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("status", [500, 400])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_http_errors_on_a_stream_report_status_and_body(impl, lb, provider, status):
    """An HTTP error in answer to a streaming call (a 500, or a 400 that is not about streaming) is reported with its
    status and an excerpt of the body too."""
    lb.expect(Reply(status, '{"error":{"message":"quota-exceeded-for-model-x7"}}'))
    answer, params = _run(impl, provider, lb, "streaming.failure-report", reasoning="low")
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", f"HTTP {status} to a streaming call is "
                "not a provider_error", input=params, actual=error)
    check(str(status) in error["message"] and "quota-exceeded-for-model-x7" in error["message"],
          "streaming.failure-report", "the error of a streaming call does not show the status and the body",
          input=params, actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@speaks("openai")
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
def test_body_that_is_not_json_fails_the_call(impl, lb, strings):
    """A 200 answer whose body is not JSON fails the call, and its use is spent."""
    lb.expect(Reply(200, "<html>gateway hiccup</html>", "text/html"))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report", calls=2, cap=1)
    error = error_of(answer, 0, "streaming.failure-report", params)
    check("json" in error["message"].lower(), "streaming.failure-report", "the error does not say the body is not "
          "JSON", input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.failure-report")
@speaks("anthropic")
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
def test_refused_connection_fails_the_call(impl, lb, strings):
    """A refused connection fails the call with a provider error, and its use is spent."""
    answer, params = _run(impl, "anthropic", lb, "streaming.failure-report", calls=2, cap=1,
                          base_url=refused_url())
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", "a refused connection is not a "
                "provider_error", input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.failure-report")
@speaks("openai")
def test_timeout_fails_the_call_in_time(impl, lb):
    """A provider slower than the configured timeout fails the call soon after the timeout, not after the answer."""
    lb.expect(Reply(200, "{}", delay_s=3.0))
    started = time.monotonic()
    answer, params = _run(impl, "openai", lb, "streaming.failure-report", timeout_ms=300)
    waited = time.monotonic() - started
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", "a timeout is not a provider_error",
                input=params, actual=error)
    check(waited < 2.5, "streaming.failure-report", f"the call waited {waited:.1f} s for a 0.3 s timeout",
          input=params)


@pytest.mark.rule(id="streaming.failure-report")
@speaks("openai")
def test_stream_timeout_fails_the_call_in_time(impl, lb):
    """A streaming call to a provider slower than the configured timeout fails soon after the timeout too."""
    lb.expect(Reply(200, recorded_answer(STREAM_ANSWER["openai"]), "text/event-stream", delay_s=3.0))
    started = time.monotonic()
    answer, params = _run(impl, "openai", lb, "streaming.failure-report", reasoning="low", timeout_ms=300)
    waited = time.monotonic() - started
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report",
                "a timeout of a streaming call is not a provider_error", input=params, actual=error)
    check(waited < 2.5, "streaming.failure-report", f"the streaming call waited {waited:.1f} s for a 0.3 s timeout",
          input=params)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider, status, body, shown", [
    ("openai", 500, "quota-exceeded-for-model-x7 " + "x" * 6000, ["quota-exceeded-for-model-x7"]),
    ("anthropic", 503, "", []),
    ("codex", 404, "<html><body>no route quota-exceeded-for-model-x7</body></html>", ["quota-exceeded-for-model-x7"]),
], ids=["long-body", "empty-body", "html-body"])
def test_any_error_body_is_reported_with_the_status(impl, lb, provider, status, body, shown):
    """An HTTP error of any body, a long one, an empty one or an HTML page, is a provider_error that shows the status
    and the start of the body."""
    lb.expect(Reply(status, body, "text/html" if body.startswith("<") else "application/json"))
    answer, params = _run(impl, provider, lb, "streaming.failure-report")
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", f"HTTP {status} is not a provider_error",
                input=params, actual=error)
    check(str(status) in error["message"] and all(part in error["message"] for part in shown),
          "streaming.failure-report", "the error does not show the status and the start of the body", input=params,
          expected=[str(status), *shown], actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@speaks("codex")
def test_failed_retry_reports_its_own_failure(impl, lb):
    """When the stream-required retry fails with an HTTP error, the call's error shows the retry's status and body."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply(502, '{"error":{"message":"quota-exceeded-for-model-x7"}}'))
    answer, params = _run(impl, "codex", lb, "streaming.failure-report")
    check_equal(len(lb.received), 2, "streaming.stream-required-retry", "the stream-required error was not followed "
                "by exactly one streaming retry", input=params)  # a control
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", "a failed retry is not a provider_error",
                input=params, actual=error)
    check("502" in error["message"] and "quota-exceeded-for-model-x7" in error["message"], "streaming.failure-report",
          "the error does not show the retry's status and body", input=params, actual=error)
