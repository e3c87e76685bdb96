"""Decoding provider answers over HTTP, at the edges test_streaming_answers.py does not reach: a stream of thousands
of text deltas; stream events whose data is not one JSON value, has white space around its JSON value, or is JSON but
not an object; 200 answers whose JSON body is not the provider's answer object; objects holding values the provider's
types do not allow (null or string blocks, a null message, a text piece without its text, an error that is a plain
string).

What a failed call's message says is not pinned here (only that it is a provider_error). What an implementation
makes of input the provider's documented wire never sends is open, so those tests accept either failing the call
with a provider_error or reading the answer as it stands (a piece without text adding nothing), and require only
that the call gets that outcome: never a broken run, never text the answer does not hold.
"""

from __future__ import annotations

import json

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply

from ..common.providers import by_provider, speaks
from .answers import _note_control, read
from .calls import _run
from .deltas import AFTER_FIRST_DELTA, TEXT, _stream, _with_event

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

#: More pieces than any small batch an implementation might gather them in (the reference joins every 1024).
MANY = 2100
PIECES = [f"w{index:04d}\u00e9" for index in range(MANY)]


def _outcome(impl, lb, provider, answered, rule, reasoning=None):
    """One call answered with ``answered``: the call's outcome (a note or an error) and the scenario shown."""
    lb.expect(answered)
    answer, params = _run(impl, provider, lb, rule, reasoning=reasoning)
    shown = {"scenario": params, "answered": answered.body[:3000]}
    calls = answer["calls"]
    check(len(calls) == 1, rule, f"the answer holds {len(calls)} call outcome(s); expected 1", input=shown,
          actual=calls)
    return calls[0], shown


# -- a long stream -----------------------------------------------------------------------------------------------------

@pytest.mark.rule(id="streaming.anthropic-events")
@speaks("anthropic")
def test_anthropic_stream_of_thousands_of_deltas_is_read_whole(impl, lb, strings):
    """An Anthropic stream of thousands of text deltas becomes the note: every delta, in order, nothing between."""
    read(impl, lb, strings, "anthropic", _stream("anthropic", PIECES), ["".join(PIECES)], False,
         "streaming.anthropic-events", reasoning="high")


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("provider", ["openai", "codex"])
def test_openai_stream_of_thousands_of_deltas_is_read_whole(impl, lb, strings, provider):
    """A chat chunk stream or a Responses event stream of thousands of text deltas becomes the note: every delta, in
    order, nothing between."""
    read(impl, lb, strings, provider, _stream(provider, PIECES), ["".join(PIECES)], False, "streaming.openai-chunks",
         reasoning="medium")


# -- event data ----------------------------------------------------------------------------------------------------

DELTA = {
    "anthropic": ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": " Then sleep."}}),
    "openai": (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764400000, "model": "gpt-5",
                      "choices": [{"index": 0, "delta": {"content": " Then sleep."}, "finish_reason": None}]}),
    "codex": ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_1",
                                             "output_index": 0, "content_index": 0, "delta": " Then sleep."}),
}


def _event_text(provider, data):
    name = DELTA[provider][0]
    return (f"event: {name}\n" if name else "") + f"data: {data}\n\n"


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider", ["anthropic", "openai", "codex"])
@pytest.mark.parametrize("data", ['{"choices": gateway hiccup}', '{"choices": [{"index": 0, "delta": {',
                                  "{TRAILING} tail"], ids=["not-json", "cut-json", "json-then-text"])
def test_stream_event_that_is_not_json_fails_the_call(impl, lb, provider, data):
    """A stream with an event whose data is not one JSON value (not JSON, cut short, or a JSON value followed by
    other text) is a broken stream: the call fails with a provider_error."""
    if "{TRAILING}" in data:
        data = data.replace("{TRAILING}", json.dumps(DELTA[provider][1]))
    answered = _with_event(_stream(provider, TEXT), _event_text(provider, data), AFTER_FIRST_DELTA[provider])
    outcome, shown = _outcome(impl, lb, provider, answered, "streaming.failure-report", reasoning="high")
    check("error" in outcome, "streaming.failure-report", "a stream with an event that is not JSON did not fail the "
          "call", input=shown, actual=outcome)
    check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                "a stream with an event that is not JSON did not fail with provider_error", input=shown,
                actual=outcome["error"])


MID = " Then sleep."


def _spaced(provider):
    """A stream of three text deltas whose middle one's data has white space before and after its JSON value."""
    events = _stream(provider, [TEXT[0], MID, TEXT[1]]).body.split("\n\n")
    at = AFTER_FIRST_DELTA[provider]
    assert json.dumps(MID)[1:-1] in events[at], events[at]  # a guard on the helper stream's layout
    events[at] = events[at].replace("data: ", "data:  ", 1) + " \t"
    return Reply.events("\n\n".join(events))


@pytest.mark.rule(id="streaming.anthropic-events")
@speaks("anthropic")
def test_anthropic_event_data_with_white_space_around_its_json_is_read(impl, lb, strings):
    """An Anthropic text delta whose data has white space before and after its JSON value is read like any other."""
    read(impl, lb, strings, "anthropic", _spaced("anthropic"), [TEXT[0] + MID + TEXT[1]], False,
         "streaming.anthropic-events", reasoning="high")


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("provider", ["openai", "codex"])
def test_openai_event_data_with_white_space_around_its_json_is_read(impl, lb, strings, provider):
    """A chat chunk or Responses event whose data has white space before and after its JSON value is read like any
    other."""
    read(impl, lb, strings, provider, _spaced(provider), [TEXT[0] + MID + TEXT[1]], False, "streaming.openai-chunks",
         reasoning="medium")


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider", ["anthropic", "openai", "codex"])
@pytest.mark.parametrize("data", ["[1, 2]", "42", '"text"', "null"], ids=["array", "number", "string", "null"])
def test_stream_event_that_is_json_but_not_an_object_gets_an_outcome(impl, lb, provider, data):
    """A stream event whose data is JSON but not an object either is passed over or fails the call with a
    provider_error: the call gets its outcome either way."""
    answered = _with_event(_stream(provider, TEXT), _event_text(provider, data), AFTER_FIRST_DELTA[provider])
    outcome, shown = _outcome(impl, lb, provider, answered, "streaming.failure-report", reasoning="high")
    if "error" in outcome:
        check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                    "a stream event that is not a JSON object failed the call otherwise than with provider_error",
                    input=shown, actual=outcome["error"])


# -- a 200 answer that is no answer object -----------------------------------------------------------------------------

@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("provider", ["anthropic", "openai", "codex"])
@pytest.mark.parametrize("body", ["{}", "[]", "null", "42"], ids=["empty-object", "array", "null", "number"])
def test_answer_that_is_json_but_no_answer_object_gets_an_outcome(impl, lb, strings, provider, body):
    """A 200 answer whose JSON body is not the provider's answer object (an empty object, an array, null, a number)
    either fails the call with a provider_error or is read as an answer without text: the call gets its outcome."""
    outcome, shown = _outcome(impl, lb, provider, Reply(200, body), "streaming.failure-report")
    if "error" in outcome:
        check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                    "a 200 answer that is no answer object failed the call otherwise than with provider_error",
                    input=shown, actual=outcome["error"])


# -- odd shapes of the provider's objects ------------------------------------------------------------------------------

def _anthropic_answer(content, usage):
    return Reply.json({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": content, "stop_reason": "end_turn", "stop_sequence": None, "usage": usage})


ODD_ANSWERS = {
    "anthropic-stray-blocks": ("anthropic", _anthropic_answer(
        [None, "stray", {"type": "text"}, {"type": "text", "text": TEXT[0]}], {"input_tokens": 412})),
    "openai-null-message": ("openai", Reply.json({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764400000, "model": "gpt-5",
        "choices": [{"index": 0, "message": None, "finish_reason": "stop"}]})),
    "responses-stray-items": ("codex", Reply.json({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-codex",
        "output": [None, {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                          "content": [None, {"type": "output_text", "text": TEXT[0], "annotations": []}]}]})),
    "responses-incomplete-without-details": ("codex", Reply.json({
        "id": "resp_1", "object": "response", "status": "incomplete", "incomplete_details": None,
        "model": "gpt-5-codex", "output": [{"id": "msg_1", "type": "message", "role": "assistant",
                                            "status": "incomplete",
                                            "content": [{"type": "output_text", "text": TEXT[0]}]}]})),
}


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("case", by_provider(ODD_ANSWERS))
def test_answer_with_stray_values_gets_an_outcome(impl, lb, case):
    """A 200 answer whose objects hold values the provider's types do not allow (null or string blocks, items or
    parts, a text block without text, a null message, usage without output tokens, an incomplete answer without
    details) either fails the call with a provider_error or is read: the call gets its outcome."""
    provider, answered = ODD_ANSWERS[case]
    outcome, shown = _outcome(impl, lb, provider, answered, "streaming.failure-report")
    if "error" in outcome:
        check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                    "an answer with stray values failed the call otherwise than with provider_error", input=shown,
                    actual=outcome["error"])


ODD_EVENTS = {
    "anthropic-null-delta": ("anthropic", "content_block_delta", {"type": "content_block_delta", "index": 0,
                                                                  "delta": None}),
    "anthropic-null-message-start": ("anthropic", "message_start", {"type": "message_start", "message": None}),
    "anthropic-message-delta-without-stop-reason": ("anthropic", "message_delta", {
        "type": "message_delta", "delta": {}, "usage": {}}),
    "anthropic-message-delta-null": ("anthropic", "message_delta", {"type": "message_delta", "delta": None}),
    "responses-completed-without-response": ("codex", "response.completed", {"type": "response.completed"}),
}


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("case", by_provider(ODD_EVENTS))
def test_stream_event_with_stray_values_gets_an_outcome(impl, lb, case):
    """A stream event whose object holds null or missing values the provider's types require either is read as it
    stands or fails the call with a provider_error: the call gets its outcome."""
    provider, name, data = ODD_EVENTS[case]
    event = f"event: {name}\ndata: {json.dumps(data)}\n\n"
    answered = _with_event(_stream(provider, TEXT), event, AFTER_FIRST_DELTA[provider])
    outcome, shown = _outcome(impl, lb, provider, answered, "streaming.failure-report", reasoning="high")
    if "error" in outcome:
        check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                    "a stream event with stray values failed the call otherwise than with provider_error", input=shown,
                    actual=outcome["error"])


ERROR_EVENTS = {
    "anthropic": ("error", {"type": "error", "error": "Overloaded"}),
    "openai": (None, {"error": "Overloaded"}),
    "codex": ("error", {"type": "error", "error": "Overloaded"}),
}


def _string_error(impl, lb, provider, rule):
    name, data = ERROR_EVENTS[provider]
    event = (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
    answered = _with_event(_stream(provider, TEXT), event, AFTER_FIRST_DELTA[provider])
    outcome, shown = _outcome(impl, lb, provider, answered, rule, reasoning="high")
    check("error" in outcome, rule, "an error event did not fail the call", input=shown, actual=outcome)
    check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                "an error event did not fail the call with provider_error", input=shown, actual=outcome["error"])


@pytest.mark.rule(id="streaming.anthropic-events")
@speaks("anthropic")
def test_anthropic_error_event_with_a_plain_string_error_fails_the_call(impl, lb):
    """An Anthropic error event whose `error` is a plain string instead of an object still fails the call."""
    _string_error(impl, lb, "anthropic", "streaming.anthropic-events")


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("provider", ["openai", "codex"])
def test_openai_error_event_with_a_plain_string_error_fails_the_call(impl, lb, provider):
    """A chat error chunk or a Responses error event whose `error` is a plain string instead of an object still fails
    the call."""
    _string_error(impl, lb, provider, "streaming.openai-chunks")


# -- a text piece without its text -------------------------------------------------------------------------------------

def _text_or_failure(impl, lb, strings, provider, answered, text, rule, reasoning=None):
    """One call answered with ``answered``, whose only text is ``text``: it fails with a provider_error, or its note is
    ``text``, nothing added for the piece that has no text."""
    _note_control(impl, strings, False, False)
    outcome, shown = _outcome(impl, lb, provider, answered, rule, reasoning=reasoning)
    if "error" in outcome:
        check_equal(outcome["error"].get("code"), "provider_error", "streaming.failure-report",
                    "an answer with a piece without text failed the call otherwise than with provider_error",
                    input=shown, actual=outcome["error"])
        return
    check_equal(outcome["result"], text, rule, "a piece without text added text to the note", input=shown)


WITHOUT_TEXT = {
    "anthropic-text-block": ("anthropic", _anthropic_answer([{"type": "text"}, {"type": "text", "text": TEXT[0]}],
                                                            {"input_tokens": 412, "output_tokens": 57})),
    "responses-output-text-part": ("codex", Reply.json({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-codex",
        "output": [{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "annotations": []},
                                {"type": "output_text", "text": TEXT[0], "annotations": []}]}]})),
}


@pytest.mark.rule(id="streaming.non-streaming-default")
@pytest.mark.parametrize("case", by_provider(WITHOUT_TEXT))
def test_plain_text_piece_without_text_adds_nothing(impl, lb, strings, case):
    """A JSON answer with a text block or output_text part that lacks its text either fails with a provider_error or
    becomes the note of its other text, nothing added for the piece without text."""
    provider, answered = WITHOUT_TEXT[case]
    _text_or_failure(impl, lb, strings, provider, answered, TEXT[0], "streaming.non-streaming-default")


def _delta_without_text(provider, name, data):
    return _with_event(_stream(provider, TEXT), f"event: {name}\ndata: {json.dumps(data)}\n\n",
                       AFTER_FIRST_DELTA[provider])


@pytest.mark.rule(id="streaming.anthropic-events")
@speaks("anthropic")
def test_anthropic_text_delta_without_text_adds_nothing(impl, lb, strings):
    """An Anthropic text_delta without its text either fails the call with a provider_error or adds nothing to the
    note."""
    answered = _delta_without_text("anthropic", "content_block_delta", {"type": "content_block_delta", "index": 0,
                                                                        "delta": {"type": "text_delta"}})
    _text_or_failure(impl, lb, strings, "anthropic", answered, "".join(TEXT), "streaming.anthropic-events",
                     reasoning="high")


@pytest.mark.rule(id="streaming.openai-chunks")
@speaks("codex")
def test_responses_text_delta_without_delta_adds_nothing(impl, lb, strings):
    """A Responses output_text delta event without its delta either fails the call with a provider_error or adds
    nothing to the note."""
    answered = _delta_without_text("codex", "response.output_text.delta", {
        "type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0})
    _text_or_failure(impl, lb, strings, "codex", answered, "".join(TEXT), "streaming.openai-chunks",
                     reasoning="medium")
