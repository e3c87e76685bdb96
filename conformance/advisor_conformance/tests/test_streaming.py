"""Calls over real HTTP to a loopback provider: streaming, the stream-required retry, decoding, faults.

Black-box: the implementation makes real HTTP requests to a server on
127.0.0.1 that the suite scripts (``advisor_conformance._loopback``), and the suite
reads what arrived on the wire.
"""

from __future__ import annotations

import time

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import check_segments
from advisor_conformance.scenarios import Reply, expected_answers, recorded_answer, refused_url
from advisor_conformance.scenarios import (call, check_use_kept, declared, error_of, result_of, run,
                                           scenario)

ANSWERS = expected_answers()
PROVIDERS = ["anthropic", "openai", "codex"]
JSON_ANSWER = {"anthropic": "anthropic-message.json", "openai": "openai-completion.json", "codex": "codex-response.json"}
STREAM_ANSWER = {"anthropic": "anthropic-stream.sse", "openai": "openai-stream.sse", "codex": "codex-stream.sse"}
STREAM_REQUIRED = '{"detail":"Stream must be set to true"}'


def _http(provider, base_url, timeout_ms=5000):
    return {"kind": provider, "base_url": base_url, "timeout_ms": timeout_ms}


def _call():
    return call(provider=[])


def _run(impl, provider, lb, rules, *, reasoning=None, calls=1, timeout_ms=5000, cap=None, base_url=None):
    runtime = {"http_provider": _http(provider, base_url or lb.base_url, timeout_ms), "reasoning": reasoning,
               "session_id": "sess-wire"}
    if cap is not None:
        runtime["max_uses_per_run"] = cap
    params = scenario([{"call": _call()} for _ in range(calls)], runtime=runtime)
    before = len(lb.received)
    answer = run(impl, params, rules)
    if len(lb.received) > before:  # every test here relies on the first request's stream flag: a control
        streamed = bool((lb.received[before].body or {}).get("stream")) if isinstance(lb.received[before].body,
                                                                                      dict) else False
        rule = "streaming.reasoning-streams" if reasoning else "streaming.non-streaming-default"
        check(streamed == bool(reasoning), rule, f"a call {'with' if reasoning else 'without'} reasoning sent its first "
              f"request {'streamed' if streamed else 'unstreamed'}", input=params)
    return answer, params


def _streams(received):
    return [bool((r.body or {}).get("stream")) for r in received]


def _first_call_requests(impl, strings, answer, lb, params):
    """How many HTTP requests the first of two calls made, the second being past a cap of 1: the second must not
    reach the provider at all (budget.no-provider-call), so every request received is the first call's. (When it
    did, the controls first tell a failed call that gave its use back, handler.failure-consumes-use.)"""
    later = sorted({request["call"] for request in answer["provider_requests"]} - {0})
    if later:
        check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")
    check(not later, "budget.no-provider-call", f"call(s) {later}, past the cap of 1, reached the provider",
          input=params, actual=answer["provider_requests"])
    return len(lb.received)


def _one_call(impl, lb, provider, rule, recorded, streams, what, **runtime):
    """Script one recorded answer, make one call, and check the requests' stream flags and that the answer's
    text became the note."""
    lb.expect(Reply.recorded(recorded))
    answer, params = _run(impl, provider, lb, rule, **runtime)
    check_equal(_streams(lb.received), streams, rule, f"the call was not exactly one {what} request", input=params)
    check_equal(result_of(answer, 0, rule, params), ANSWERS[recorded]["text"], rule,
                f"the {what} answer did not become the note", input=params)


@pytest.mark.rule(id="streaming.non-streaming-default")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_without_reasoning_one_plain_call(impl, lb, provider):
    """Without reasoning the call is one non-streaming request, and its JSON answer becomes the note."""
    _one_call(impl, lb, provider, "streaming.non-streaming-default", JSON_ANSWER[provider], [False], "non-streaming")


@pytest.mark.rule(id="streaming.reasoning-streams")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_reasoning_streams_only(impl, lb, provider):
    """With reasoning the call is one streaming request and nothing else."""
    _one_call(impl, lb, provider, "streaming.reasoning-streams", STREAM_ANSWER[provider], [True], "streaming",
              reasoning="high")


@pytest.mark.rule(id="streaming.stream-required-retry")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_stream_required_is_retried_once_as_a_stream(impl, lb, provider):
    """A plain call answered with a stream-required 400 is retried exactly once, as a stream."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER[provider]))
    answer, params = _run(impl, provider, lb, "streaming.stream-required-retry")
    check_equal(_streams(lb.received), [False, True], "streaming.stream-required-retry",
                "the stream-required error was not followed by exactly one streaming retry", input=params)
    check_equal(lb.received[0].body.get("messages") or lb.received[0].body.get("input"),
                lb.received[1].body.get("messages") or lb.received[1].body.get("input"),
                "streaming.stream-required-retry", "the retry did not resend the same request", input=params)
    result_of(answer, 0, "streaming.stream-required-retry", params)


@pytest.mark.rule(id="streaming.stream-required-retry")
def test_retry_failure_is_not_retried_again(impl, lb, strings):
    """When the streaming retry also fails, there is no third request; the call fails and its use is spent."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply(400, STREAM_REQUIRED))
    answer, params = _run(impl, "codex", lb, "streaming.stream-required-retry", calls=2, cap=1)
    made = _first_call_requests(impl, strings, answer, lb, params)
    check_equal(made, 2, "streaming.stream-required-retry", f"the call made {made} HTTP request(s); expected 2 (the "
                "plain call and one streaming retry)", input=params, actual=_streams(lb.received))
    error_of(answer, 0, "streaming.stream-required-retry", params)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.stream-required-detection")
@pytest.mark.parametrize("body, retried", [
    ('{"detail":"Stream must be set to true"}', True),
    ('{"error":{"message":"stream is REQUIRED for this model"}}', True),
    ('streaming required', True),
    ('{"error":{"message":"Unsupported value: stream must be true"}}', True),
    ('{"error":{"message":"max_tokens must be positive"}}', False),
    ('{"error":{"message":"invalid stream options"}}', False),
], ids=["chatgpt-detail", "required-upper", "plain-text", "must-be-true", "must-without-stream", "stream-without-must"])
def test_stream_required_means_400_with_stream_and_must_or_required(impl, lb, body, retried):
    """A 400 is stream-required exactly when its body, lower-cased, holds `stream` and `must` or `required`."""
    lb.expect(Reply(400, body), Reply.recorded(STREAM_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.stream-required-detection")
    made = len(lb.received)
    if retried and made == 1:  # is any stream-required error retried at all? Then the rule broken is the retry
        lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["openai"]))
        _run(impl, "openai", lb, "streaming.stream-required-detection")
        check(len(lb.received) == 2, "streaming.stream-required-retry", f"a 400 with body {body!r} made one request, "
              f"and so does one with {STREAM_REQUIRED!r}: no stream-required error is retried", input=params)
    # A 400 that is not stream-required but was retried breaks the detection or the no-retry rule: from outside,
    # the two are one behaviour, so both are named.
    rules = "streaming.stream-required-detection" if retried else ["streaming.stream-required-detection",
                                                                    "streaming.no-other-retry"]
    check_equal(made, 2 if retried else 1, rules,
                f"a 400 with body {body!r} made {made} HTTP request(s); expected {2 if retried else 1}", input=params)


@pytest.mark.rule(id="streaming.stream-required-detection")
@pytest.mark.parametrize("status", [422, 500])
def test_stream_required_body_on_another_status_is_not_retried(impl, lb, status):
    """Only an HTTP 400 is a stream-required error: another status whose body asks for a stream is not retried."""
    lb.expect(Reply(status, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.stream-required-detection")
    shown = {"scenario": params, "answered": f"HTTP {status} {STREAM_REQUIRED}"}
    check_equal(len(lb.received), 1, "streaming.stream-required-detection",
                f"HTTP {status} with body {STREAM_REQUIRED!r} was retried", input=shown)
    error_of(answer, 0, "streaming.stream-required-detection", shown)


@pytest.mark.rule(id="streaming.no-other-retry")
@pytest.mark.parametrize("status, body", [(500, '{"error":"internal"}'), (429, '{"error":"rate limited"}'),
                                          (400, '{"error":{"message":"model not found"}}'), (503, "")],
                         ids=["500", "429", "400-other", "503-empty"])
def test_other_errors_are_not_retried(impl, lb, strings, status, body):
    """Any other error makes exactly one request, fails the call, and spends its use."""
    lb.expect(Reply(status, body), Reply.recorded(JSON_ANSWER["anthropic"]))
    answer, params = _run(impl, "anthropic", lb, "streaming.no-other-retry", calls=2, cap=1)
    made = _first_call_requests(impl, strings, answer, lb, params)
    check_equal(made, 1, "streaming.no-other-retry", f"the call answered HTTP {status} made {made} HTTP request(s); "
                "expected 1", input=params)
    error = error_of(answer, 0, "streaming.no-other-retry", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", "the failed call's error code",
                input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.no-other-retry")
def test_stream_required_on_a_stream_is_not_retried(impl, lb):
    """A stream-required 400 in answer to a streaming call is not retried."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.no-other-retry", reasoning="low")
    check_equal(len(lb.received), 1, "streaming.no-other-retry", "a streaming call was retried", input=params)
    error_of(answer, 0, "streaming.no-other-retry", params)


@pytest.mark.rule(id="streaming.final-event-required")
@pytest.mark.parametrize("provider", PROVIDERS)
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


def _read_stream(impl, lb, strings, name, provider, rule, reasoning):
    """Serve a recorded stream to a reasoning call: its text becomes the note, with the token-limit note when cut."""
    lb.expect(Reply.recorded(name))
    answer, params = _run(impl, provider, lb, rule, reasoning=reasoning)
    note = result_of(answer, 0, rule, params)
    segments = [(ANSWERS[name]["text"], rule)]
    if ANSWERS[name]["finish_reason"] == "length":  # the note's own wording is the handler's; its absence, either's
        segments += [("\n\n", ["handler.token-limit-note", rule]),
                     (declared(strings, "token_limit_note", rule), "handler.token-limit-note")]
    check_segments(note, segments, strings, f"{name} was not read right", input=params)


@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("name", ["anthropic-stream.sse", "anthropic-stream-max-tokens.sse"],
                         ids=["end-turn", "max-tokens"])
def test_anthropic_event_stream(impl, lb, strings, name):
    """An Anthropic event stream is read to its text (thinking and pings ignored) and its stop reason."""
    _read_stream(impl, lb, strings, name, "anthropic", "streaming.anthropic-events", "high")


@pytest.mark.rule(id="streaming.anthropic-events")
def test_anthropic_error_event_fails_the_call(impl, lb):
    """An `error` event inside an Anthropic stream fails the call, naming the error."""
    lb.expect(Reply.recorded("anthropic-stream-error.sse"))
    answer, params = _run(impl, "anthropic", lb, "streaming.anthropic-events", reasoning="high")
    error = error_of(answer, 0, "streaming.anthropic-events", params)
    check("overloaded" in error["message"].lower(), "streaming.anthropic-events",
          "the error does not say what the stream reported", input=params, actual=error)


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("name, provider", [("openai-stream.sse", "openai"), ("openai-stream-length.sse", "openai"),
                                            ("openai-stream-reordered.sse", "openai"),
                                            ("codex-stream.sse", "codex"), ("codex-stream-incomplete.sse", "codex")],
                         ids=["chat-stop", "chat-length", "chat-keys-reordered", "responses-completed",
                              "responses-incomplete"])
def test_openai_streams(impl, lb, strings, name, provider):
    """OpenAI chat chunks (to `data: [DONE]`) and Responses events are read to their text and finish reason."""
    _read_stream(impl, lb, strings, name, provider, "streaming.openai-chunks", "medium")


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("name, provider, reported", [
    ("openai-stream-error.sse", "openai", "the server had an error"),
    ("codex-stream-error.sse", "codex", "the model produced invalid content"),
], ids=["chat-error-chunk", "responses-failed"])
def test_openai_stream_errors_fail_the_call(impl, lb, name, provider, reported):
    """An error inside an OpenAI stream fails the call, and the error says what the stream reported."""
    lb.expect(Reply.recorded(name))
    answer, params = _run(impl, provider, lb, "streaming.openai-chunks", reasoning="medium")
    error = error_of(answer, 0, "streaming.openai-chunks", params)
    check_equal(error["code"], "provider_error", "streaming.openai-chunks", "a stream error did not fail the call",
                input=params, actual=error)
    check(reported in error["message"].lower(), "streaming.openai-chunks",
          "the error does not say what the stream reported",
          input=params, expected=f"a message containing {reported!r}", actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("status", [500, 429, 400])
def test_http_errors_report_status_and_body(impl, lb, status):
    """An HTTP error is reported with its status and an excerpt of the body."""
    lb.expect(Reply(status, '{"error":{"message":"quota-exceeded-for-model-x7"}}'))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report")
    check_equal(len(lb.received), 1, "streaming.no-other-retry", f"the call answered HTTP {status} made "
                f"{len(lb.received)} HTTP request(s); expected 1", input=params)
    error = error_of(answer, 0, "streaming.failure-report", params)
    check(str(status) in error["message"] and "quota-exceeded-for-model-x7" in error["message"],
          "streaming.failure-report", "the error does not show the status and the body", input=params,
          actual=error)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_http_errors_on_a_stream_report_status_and_body(impl, lb, provider):
    """An HTTP error in answer to a streaming call is reported with its status and an excerpt of the body too."""
    lb.expect(Reply(500, '{"error":{"message":"quota-exceeded-for-model-x7"}}'))
    answer, params = _run(impl, provider, lb, "streaming.failure-report", reasoning="low")
    error = error_of(answer, 0, "streaming.failure-report", params)
    check("500" in error["message"] and "quota-exceeded-for-model-x7" in error["message"],
          "streaming.failure-report", "the error of a streaming call does not show the status and the body",
          input=params, actual=error)


@pytest.mark.rule(id="streaming.failure-report")
def test_body_that_is_not_json_fails_the_call(impl, lb, strings):
    """A 200 answer whose body is not JSON fails the call, and its use is spent."""
    lb.expect(Reply(200, "<html>gateway hiccup</html>", "text/html"))
    answer, params = _run(impl, "openai", lb, "streaming.failure-report", calls=2, cap=1)
    error = error_of(answer, 0, "streaming.failure-report", params)
    check("json" in error["message"].lower(), "streaming.failure-report", "the error does not say the body is not "
          "JSON", input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.failure-report")
def test_refused_connection_fails_the_call(impl, lb, strings):
    """A refused connection fails the call with a provider error, and its use is spent."""
    answer, params = _run(impl, "anthropic", lb, "streaming.failure-report", calls=2, cap=1,
                          base_url=refused_url())
    error = error_of(answer, 0, "streaming.failure-report", params)
    check_equal(error["code"], "provider_error", "streaming.failure-report", "a refused connection is not a "
                "provider_error", input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.failure-report")
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
