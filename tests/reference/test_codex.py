"""advisor_reference._codex: the Responses (Codex) wire: answers, finish reasons and stream events."""

from __future__ import annotations

import re
from functools import partial

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_reference import ProviderAnswer, ProviderError, _codex

from ..support.provider_requests import provider_request
from ._helpers import ZERO_USAGE, feed
from ._helpers import compact as _compact

_codex_events = partial(feed, _codex.stream_event)


# --- answers (non-streaming) ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [[], None, "output", {}, {"output": None}, {"output": {"type": "message"}}])
def test_responses_answer_without_an_output_list_is_a_provider_error(payload):
    """A Responses answer that is not an object with an output list fails with a message naming the output."""
    with pytest.raises(ProviderError) as info:
        _codex.decode(payload)
    assert "output" in str(info.value)


def test_responses_answer_joins_the_text_parts_of_message_items():
    """The answer is the output_text and text parts of message items, joined with nothing between them."""
    payload = {
        "status": "completed",
        "output": [
            "junk",
            None,
            {"type": "reasoning", "summary": [], "content": [{"type": "output_text", "text": "hidden"}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "Check ", "annotations": []},
                    "loose text",
                    {"type": "refusal", "refusal": "no", "text": "refused"},
                    {"type": "text", "text": "the"},
                    {"type": "output_text"},
                ],
            },
            {"type": "message", "role": "assistant", "content": None},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": " rounding"}]},
        ],
    }
    assert _codex.decode(payload) == ProviderAnswer("Check the rounding", "stop", ZERO_USAGE)


@pytest.mark.parametrize(
    "response, expected",
    [
        ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, "length"),
        ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, "content_filter"),
        ({"status": "incomplete", "incomplete_details": {"reason": None}}, "incomplete"),
        ({"status": "incomplete", "incomplete_details": None}, "incomplete"),
        ({"status": "incomplete", "incomplete_details": "max_output_tokens"}, "incomplete"),
        ({"status": "incomplete"}, "incomplete"),
        ({"status": "completed", "incomplete_details": {"reason": "max_output_tokens"}}, "stop"),
    ],
)
def test_responses_finish_reason_from_status(response, expected):
    """An incomplete answer stops on length for max_output_tokens, on its stated reason, else on incomplete."""
    assert _codex.decode({**response, "output": []}).finish_reason == expected


# --- stream events --------------------------------------------------------------------------------------------------


def test_responses_stream_event_type_comes_from_the_payload_first():
    """The payload's type decides the event's kind, whatever the SSE event name says."""
    delta = _compact({"type": "response.output_text.delta", "delta": "hi"})
    state = _codex_events(("message", delta), ("response.completed", delta))
    assert state.text == ["hi", "hi"] and not state.done


def test_responses_stream_event_name_is_used_when_the_payload_has_no_type():
    """Without a type in the payload, a named SSE event supplies the kind; the default name message supplies none."""
    state = _codex_events(
        ("response.output_text.delta", '{"delta":"a"}'),
        ("message", '{"delta":"b"}'),
        ("response.completed", '{"response":{"status":"completed"}}'),
    )
    assert state.answer("codex") == ProviderAnswer("a", "stop", ZERO_USAGE)


def test_responses_stream_delta_without_text_adds_nothing():
    """A text delta event without a delta adds no text to the answer."""
    state = _codex_events(
        ("message", '{"type":"response.output_text.delta"}'),
        ("message", '{"type":"response.output_text.delta","delta":"x"}'),
        ("message", '{"type":"response.completed","response":{"status":"completed"}}'),
    )
    assert state.answer("codex").text == "x"


@pytest.mark.parametrize(
    "final",
    [
        '{"type":"response.completed"}',
        '{"type":"response.completed","response":null}',
        '{"type":"response.incomplete","response":"gone"}',
    ],
)
def test_responses_stream_final_event_without_a_response_object_ends_the_stream(final):
    """A final event without a response object ends the stream with stop and zero usage."""
    state = _codex_events(("message", '{"type":"response.output_text.delta","delta":"x"}'), ("message", final))
    assert state.answer("codex") == ProviderAnswer("x", "stop", ZERO_USAGE)


# Same shape as the base-URL table of test_http.py, nothing shared: each is its own test's data.
@pytest.mark.parametrize(
    "data, message",
    [
        ('{"type":"error","error":{"message":"boom","code":"server_error"}}', "boom"),
        ('{"type":"error","error":"plain failure"}', "plain failure"),
        ('{"type":"response.failed","response":{"status":"failed","error":{"message":"bad content"}}}', "bad content"),
        ('{"type":"error","message":"top level","code":"x"}', '{"type":"error","message":"top level","code":"x"}'),
        ('{"type":"response.failed","response":null}', '{"type":"response.failed","response":null}'),
        ('{"type":"error","response":"down"}', '{"type":"error","response":"down"}'),
    ],
)
def test_responses_stream_error_event_names_the_error(data, message):
    """An error or response.failed event fails the stream with the error's message, else with the event's data."""
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert message in str(info.value)


def test_responses_stream_error_without_message_quotes_200_characters():
    """An error event without a message fails the stream quoting the event's first 200 characters, and no more."""
    data = _compact({"type": "response.failed", "pad": "x" * 300})
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert data[:200] in str(info.value) and data[:201] not in str(info.value)


def test_responses_stream_event_that_is_not_json_is_quoted_up_to_200_characters():
    """An event that is not JSON fails the stream, quoting its first 200 characters and no more."""
    data = "<html>" + "x" * 300
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert repr(data[:200]) in str(info.value) and data[:201] not in str(info.value)


# --- affinity headers -----------------------------------------------------------------------------------------------


def _encoded(key):
    return _codex.encode(provider_request(prompt_cache_key=key), False)


@pytest.mark.parametrize(
    "key",
    ["k\r\nx-injected: 1", "k\n", "caf\u00e9", "k e y", "k\x00", "\t", "k\x7f"],
    ids=["crlf", "lf", "non-ascii", "space", "nul", "tab", "del"],
)
def test_a_key_that_is_not_a_header_token_stays_in_the_body_only(key):
    """A cache key with CR, LF, a control character, a space or non-ASCII goes in the body but in no header."""
    encoded = _encoded(key)
    assert encoded.body["prompt_cache_key"] == key
    assert "session-id" not in encoded.headers and "thread-id" not in encoded.headers


@given(key=st.text(max_size=40))
@example(key="5f0e7c1d2b3a49588776655443322110")
@example(key="a\r\nb")
@example(key="\u00e9")
def test_no_header_value_holds_cr_lf_or_non_ascii_whatever_the_key(key):
    """Whatever the cache key, every header value is visible ASCII, and a visible-ASCII key is both affinity
    headers."""
    headers = _encoded(key).headers
    assert all(re.fullmatch(r"[\x20-\x7e]*", value) for value in headers.values())
    token = bool(key) and all("\x21" <= char <= "\x7e" for char in key)
    assert (headers.get("session-id"), headers.get("thread-id")) == ((key, key) if token else (None, None))
