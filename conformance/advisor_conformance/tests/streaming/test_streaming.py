"""Calls over real HTTP to a loopback provider: plain and streaming calls, the stream-required retry and its
detection, and no other retry (reading the answers is test_streaming_answers.py's, failures are
test_streaming_failures.py's).

Black-box: the implementation makes real HTTP requests to a server on
127.0.0.1 that the suite scripts (``advisor_conformance._contract.loopback``), and the suite
reads what arrived on the wire.
"""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, check_use_kept, error_of, result_of

from ..common.providers import speaks
from .calls import ANSWERS, PROVIDERS, STREAM_ANSWER, STREAM_REQUIRED, _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

JSON_ANSWER = {"anthropic": "anthropic-message.json", "openai": "openai-completion.json", "codex": "codex-response.json"}
OTHER_400 = '{"error":{"message":"model not found"}}'


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
@speaks("codex")
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
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
    ('{"error":{"message":"STREAM MUST BE ENABLED FOR THIS MODEL"}}', True),
    ('{"stream":["This field is required."]}', True),
    ('{"error":{"message":"upstream proxy: authentication required"}}', True),
    ('', False),
    ('{"error":{"message":"max_tokens is required"}}', False),
], ids=["chatgpt-detail", "required-upper", "plain-text", "must-be-true", "must-without-stream", "stream-without-must",
        "must-upper", "field-error", "inside-other-words", "empty-body", "required-without-stream"])
@speaks("openai")
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
    if not retried and made > 1:  # is a 400 that names no stream at all retried too? Then the rule broken is no-retry
        lb.expect(Reply(400, OTHER_400), Reply.recorded(STREAM_ANSWER["openai"]))
        _run(impl, "openai", lb, "streaming.stream-required-detection")
        check(len(lb.received) == 1, "streaming.no-other-retry", f"a 400 with body {body!r} made {made} HTTP requests, and "
              f"one with {OTHER_400!r} (no stream-required error) made {len(lb.received)}", input=params)
    check_equal(made, 2 if retried else 1, "streaming.stream-required-detection",
                f"a 400 with body {body!r} made {made} HTTP request(s); expected {2 if retried else 1}", input=params)


@pytest.mark.rule(id="streaming.stream-required-detection")
@pytest.mark.parametrize("status, body", [(422, STREAM_REQUIRED), (500, STREAM_REQUIRED),
                                          (422, '{"stream":["This field is required."]}'),
                                          (401, '{"error":{"message":"authentication required"}}')],
                         ids=["422", "500", "422-stream-required", "401-required"])
@speaks("openai")
def test_stream_required_body_on_another_status_is_not_retried(impl, lb, status, body):
    """Only an HTTP 400 is a stream-required error: another status whose body asks for a stream, or says
    `required`, is not retried."""
    lb.expect(Reply(status, body), Reply.recorded(STREAM_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.stream-required-detection")
    shown = {"scenario": params, "answered": f"HTTP {status} {body}"}
    check_equal(len(lb.received), 1, "streaming.stream-required-detection",
                f"HTTP {status} with body {body!r} made {len(lb.received)} HTTP request(s); expected 1", input=shown)
    error_of(answer, 0, "streaming.stream-required-detection", shown)


@pytest.mark.rule(id="streaming.no-other-retry")
@pytest.mark.parametrize("status, body", [(500, '{"error":"internal"}'), (429, '{"error":"rate limited"}'),
                                          (400, '{"error":{"message":"model not found"}}'), (503, ""),
                                          (401, '{"error":{"message":"invalid api key"}}')],
                         ids=["500", "429", "400-other", "503-empty", "401"])
@speaks("anthropic")
@pytest.mark.needs(areas=["budget", "handler"])  # the cap keeps a second call from the provider
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
@speaks("openai")
def test_stream_required_on_a_stream_is_not_retried(impl, lb):
    """A stream-required 400 in answer to a streaming call is not retried."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.no-other-retry", reasoning="low")
    check_equal(len(lb.received), 1, "streaming.no-other-retry",
                f"a streaming call answered a stream-required 400 made {len(lb.received)} HTTP request(s); expected 1",
                input=params)
    error_of(answer, 0, "streaming.no-other-retry", params)


# -- more calls, efforts and failed exchanges --------------------------------------------------------------------------

RETRY_KEYS = ("model", "messages", "input", "system", "instructions", "max_tokens", "max_output_tokens",
              "prompt_cache_key")


@pytest.mark.rule(id="streaming.non-streaming-default")
@speaks("codex")
def test_call_after_a_retried_call_starts_plain_again(impl, lb):
    """A call without reasoning is sent plain even when the call before it needed the stream-required retry."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["codex"]), Reply.recorded(JSON_ANSWER["codex"]))
    answer, params = _run(impl, "codex", lb, "streaming.non-streaming-default", calls=2, cap=2)
    streams = _streams(lb.received)
    check_equal(streams[:2], [False, True], "streaming.stream-required-retry", "the first call's stream-required "
                "error was not followed by exactly one streaming retry", input=params)  # a control
    check_equal(streams, [False, True, False], "streaming.non-streaming-default", "the second call, without "
                "reasoning, was not one non-streaming request", input=params)
    check_equal(result_of(answer, 1, "streaming.non-streaming-default", params), ANSWERS[JSON_ANSWER["codex"]]["text"],
                "streaming.non-streaming-default", "the second call's JSON answer did not become its note", input=params)


@pytest.mark.rule(id="streaming.reasoning-streams")
@pytest.mark.parametrize("provider, effort", [("openai", "low"), ("codex", "medium"), ("anthropic", "low")],
                         ids=["openai-low", "codex-medium", "anthropic-low"])
def test_every_effort_streams(impl, lb, provider, effort):
    """A call with any reasoning effort is one streaming request and nothing else."""
    _one_call(impl, lb, provider, "streaming.reasoning-streams", STREAM_ANSWER[provider], [True], "streaming",
              reasoning=effort)


@pytest.mark.rule(id="streaming.reasoning-streams")
@speaks("anthropic")
def test_every_call_with_reasoning_streams(impl, lb):
    """Each call of a run with reasoning is one streaming request, the second as the first."""
    lb.expect(Reply.recorded(STREAM_ANSWER["anthropic"]), Reply.recorded(STREAM_ANSWER["anthropic"]))
    answer, params = _run(impl, "anthropic", lb, "streaming.reasoning-streams", reasoning="high", calls=2, cap=2)
    check_equal(_streams(lb.received), [True, True], "streaming.reasoning-streams", "the two calls with reasoning were "
                "not two streaming requests", input=params)
    result_of(answer, 1, "streaming.reasoning-streams", params)


@pytest.mark.rule(id="streaming.reasoning-streams")
@pytest.mark.parametrize("failure", [Reply(500, '{"error":"internal"}'), Reply.recorded("openai-stream-cut.sse")],
                         ids=["http-500", "cut-stream"])
@speaks("openai")
def test_failed_stream_does_not_fall_back_to_a_plain_call(impl, lb, failure):
    """A call with reasoning whose stream fails sends no plain request after it: it is a streaming call only."""
    lb.expect(failure, Reply.recorded(JSON_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.reasoning-streams", reasoning="high")
    check(all(_streams(lb.received)), "streaming.reasoning-streams", "a call with reasoning sent a plain request after "
          "its stream failed", input=params, actual=_streams(lb.received))
    error_of(answer, 0, ["streaming.reasoning-streams", "streaming.no-other-retry"], params)


@pytest.mark.rule(id="streaming.stream-required-retry")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_retry_resends_the_request_as_a_stream(impl, lb, provider):
    """The retry is the same request, streamed: the same path, model, messages and limits, and its stream becomes the
    note."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER[provider]))
    answer, params = _run(impl, provider, lb, "streaming.stream-required-retry")
    check_equal(_streams(lb.received), [False, True], "streaming.stream-required-retry",
                "the stream-required error was not followed by exactly one streaming retry", input=params)
    first, retry = ({key: request.body.get(key) for key in RETRY_KEYS} | {"path": request.path}
                    for request in lb.received)
    check_equal(retry, first, "streaming.stream-required-retry", "the retry is not the same request", input=params)
    note = result_of(answer, 0, "streaming.stream-required-retry", params)
    check_equal(note, ANSWERS[STREAM_ANSWER[provider]]["text"], "streaming.stream-required-retry",
                "the retry's stream did not become the note", input=params)


@pytest.mark.rule(id="streaming.stream-required-retry")
@pytest.mark.parametrize("second", [Reply(500, '{"error":"internal"}'), Reply.recorded("openai-stream-cut.sse")],
                         ids=["http-500", "cut-stream"])
@speaks("openai")
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
def test_retry_that_fails_otherwise_fails_the_call(impl, lb, strings, second):
    """When the streaming retry fails otherwise (an HTTP error, a cut stream), there is no third request; the call
    fails and its use is spent."""
    lb.expect(Reply(400, STREAM_REQUIRED), second, Reply.recorded(JSON_ANSWER["openai"]))
    answer, params = _run(impl, "openai", lb, "streaming.stream-required-retry", calls=2, cap=1)
    made = _first_call_requests(impl, strings, answer, lb, params)
    rules = "streaming.stream-required-retry" if made < 2 else ["streaming.stream-required-retry",
                                                                  "streaming.no-other-retry"]
    check_equal(made, 2, rules, f"the call made {made} HTTP request(s); expected 2 (the plain call and one streaming "
                "retry)", input=params, actual=_streams(lb.received))
    error_of(answer, 0, "streaming.stream-required-retry", params)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="streaming.stream-required-retry")
@speaks("codex")
def test_retried_call_succeeds_within_a_cap_of_one(impl, lb):
    """With the cap at 1, a call retried as a stream still gets its answer: the retry is part of the call's one use."""
    lb.expect(Reply(400, STREAM_REQUIRED), Reply.recorded(STREAM_ANSWER["codex"]))
    answer, params = _run(impl, "codex", lb, "streaming.stream-required-retry", cap=1)
    check_equal(_streams(lb.received), [False, True], "streaming.stream-required-retry",
                "the stream-required error was not followed by exactly one streaming retry", input=params)
    check_equal(result_of(answer, 0, "streaming.stream-required-retry", params), ANSWERS[STREAM_ANSWER["codex"]]["text"],
                "streaming.stream-required-retry", "the retried call did not answer its stream's text", input=params)


@pytest.mark.rule(id="streaming.no-other-retry")
@pytest.mark.parametrize("provider, failure, reasoning, timeout_ms", [
    ("openai", Reply(200, "<html>gateway hiccup</html>", "text/html"), None, 5000),
    ("anthropic", Reply(200, "{}", delay_s=3.0), None, 300),
    ("anthropic", Reply.recorded("anthropic-stream-cut.sse"), "high", 5000),
    ("codex", Reply.recorded("codex-stream-error.sse"), "medium", 5000),
], ids=["not-json", "timeout", "cut-stream", "stream-error-event"])
@pytest.mark.needs(areas=["budget"])  # the cap keeps a second call from the provider
def test_failed_exchanges_are_not_retried(impl, lb, strings, provider, failure, reasoning, timeout_ms):
    """A call whose answer is not JSON, comes too late, or whose stream is cut or reports an error makes exactly one
    request, fails, and spends its use."""
    again = STREAM_ANSWER[provider] if reasoning else JSON_ANSWER[provider]
    lb.expect(failure, Reply.recorded(again), Reply.recorded(again))
    answer, params = _run(impl, provider, lb, "streaming.no-other-retry", reasoning=reasoning, timeout_ms=timeout_ms,
                          calls=2, cap=1)
    made = _first_call_requests(impl, strings, answer, lb, params)
    check_equal(made, 1, "streaming.no-other-retry", f"the failed call made {made} HTTP request(s); expected 1",
                input=params, actual=_streams(lb.received))
    error_of(answer, 0, "streaming.no-other-retry", params)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")
