"""advisor_reference._anthropic: the Anthropic Messages wire: thinking budgets, breakpoints, answers and streams."""

from __future__ import annotations

from functools import partial

import pytest

from advisor_reference import ProviderError
from advisor_reference._anthropic import (
    assign_advisor_breakpoints,
    decode,
    encode,
    finish_reason,
    stream_event,
    thinking,
)
from advisor_reference._wire import StreamState

from ..support.provider_requests import provider_request
from ._helpers import ZERO_USAGE as NO_USAGE
from ._helpers import compact as _data
from ._helpers import feed

ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}
_feed = partial(feed, stream_event)


# --- encoding: thinking budgets and breakpoint spacing --------------------------------------------------------------


@pytest.mark.parametrize(
    "effort, max_tokens, budget",
    [
        ("minimal", 4096, 1024),  # the smallest table budget is allowed: "at least 1024 tokens"
        ("high", 1025, 1024),  # capped to max_tokens - 1, which still reaches 1024
        ("xhigh", 32000, 8192),  # an effort the table does not know gets the medium budget
    ],
)
def test_thinking_budget_of_exactly_1024_tokens_and_unknown_efforts(effort, max_tokens, budget):
    """Thinking is enabled with a budget of 1024 tokens or more below max_tokens; an unknown effort counts as medium."""
    assert thinking(effort, max_tokens) == {"type": "enabled", "budget_tokens": budget}


def test_encoded_request_carries_the_medium_budget_for_an_unknown_effort():
    """An encoded request with an effort outside the table streams with the medium thinking budget."""
    request = provider_request(max_tokens=32000, reasoning="xhigh", stream=True, prompt_cache_key="k")
    body = encode(request, stream=True).body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192} and body["stream"] is True


def test_breakpoint_spacing_is_counted_in_blocks():
    """With a spacing of 4, the tail is marked every 4 blocks back from its last block, up to 4 marks."""
    messages = [{"role": "user", "content": [{"type": "text", "text": f"m{i}"}]} for i in range(11)]
    assign_advisor_breakpoints([], messages, spacing=4)
    marked = [i for i, message in enumerate(messages) if "cache_control" in message["content"][0]]
    assert marked == [1, 5, 9]
    assert all(messages[i]["content"][0]["cache_control"] == ONE_HOUR for i in marked)


# --- decoding a plain Messages response -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stop_reason, expected",
    [
        (None, "stop"),
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "refusal"),
        ("tool_use", "tool_use"),
    ],
)
def test_finish_reasons(stop_reason, expected):
    """Ended turns and stop sequences finish with ``stop``, max_tokens with ``length``; other reasons pass through."""
    assert finish_reason(stop_reason) == expected


@pytest.mark.parametrize("payload", [None, ["content"], {"content": "text"}, {"content": None}, {}])
def test_response_without_a_content_list_is_a_provider_error(payload):
    """A response that is not an object with a content list fails with a provider error naming the content field."""
    with pytest.raises(ProviderError) as info:
        decode(payload)
    assert "content" in str(info.value) and info.value.status is None


def test_answer_joins_the_text_blocks_only():
    """The answer is the text blocks joined without separator; other blocks and text blocks without text add nothing."""
    answer = decode(
        {
            "content": [
                "junk",
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "text", "text": "Check "},
                {"type": "text"},
                {"type": "tool_use", "text": "not an answer"},
                {"type": "text", "text": "the floats."},
            ],
            "stop_reason": "end_turn",
        }
    )
    assert (answer.text, answer.finish_reason, dict(answer.usage)) == ("Check the floats.", "stop", NO_USAGE)


def test_answer_cut_by_max_tokens_finishes_with_length():
    """A response that stopped on max_tokens finishes with ``length``."""
    answer = decode({"content": [{"type": "text", "text": "Check"}], "stop_reason": "max_tokens"})
    assert answer.finish_reason == "length"


def test_token_counts_that_are_not_integers_count_as_zero():
    """Usage values that are strings, booleans or floats count as 0 tokens; integers are kept."""
    answer = decode(
        {
            "content": [],
            "usage": {
                "input_tokens": "412",
                "output_tokens": True,
                "cache_read_input_tokens": 1.5,
                "cache_creation_input_tokens": 96,
            },
        }
    )
    assert dict(answer.usage) == {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_creation_tokens": 96,
    }


# --- decoding a Messages stream -------------------------------------------------------------------------------------


def test_events_named_message_or_unnamed_are_read_by_their_type():
    """Events without a name of their own (``message`` or empty) are dispatched on the type in their data."""
    state = _feed(
        ("message", _data({"type": "message_start", "message": {"usage": {"input_tokens": 412, "output_tokens": 1}}})),
        ("message", _data({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Che"}})),
        ("", _data({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ck"}})),
        ("", _data({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}})),
        ("message", _data({"type": "message_stop"})),
    )
    answer = state.answer("anthropic")
    assert (answer.text, answer.finish_reason, dict(answer.usage)) == (
        "Check",
        "length",
        {**NO_USAGE, "input_tokens": 412, "output_tokens": 9},
    )


def test_a_named_event_is_read_by_its_name():
    """An event with a name is dispatched on that name, even when its data carries no type."""
    state = _feed(
        ("content_block_delta", _data({"index": 0, "delta": {"type": "text_delta", "text": "hi"}})),
        ("message_stop", "{}"),
    )
    assert (state.text, state.done) == (["hi"], True)


@pytest.mark.parametrize(
    "event, data", [("ping", "keep-alive"), ("ping", ""), ("message_stop", ""), ("content_block_delta", "")]
)
def test_pings_and_events_without_data_are_ignored(event, data):
    """A ping, whatever its data, and an event with empty data change nothing."""
    state = _feed((event, data))
    assert state == StreamState()


def test_event_data_that_is_not_json_is_a_provider_error_with_an_excerpt():
    """Event data that is not JSON fails with a provider error quoting its first 200 characters, and no more."""
    data = "x" * 300
    with pytest.raises(ProviderError) as info:
        _feed(("content_block_delta", data))
    assert repr("x" * 200) in str(info.value) and "x" * 201 not in str(info.value)


def test_data_with_junk_before_the_json_is_not_json():
    """Event data with a character before its JSON object is a provider error showing that data, not the object."""
    data = 'x{"type":"message_stop"}'
    with pytest.raises(ProviderError) as info:
        _feed(("message_stop", data))
    assert repr(data) in str(info.value)


@pytest.mark.parametrize(
    "delta", [None, "text_delta", {"type": "text_delta"}, {"type": "thinking_delta", "thinking": "hm"}]
)
def test_deltas_without_answer_text_add_nothing(delta):
    """A content delta that is not a text delta, or a text delta without text, adds nothing to the answer."""
    state = _feed(
        ("content_block_delta", _data({"type": "content_block_delta", "index": 0, "delta": delta})),
        (
            "content_block_delta",
            _data({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        ),
        ("message_stop", _data({"type": "message_stop"})),
    )
    assert state.answer("anthropic").text == "ok"


@pytest.mark.parametrize("delta", [None, {}, {"stop_sequence": None}])
def test_message_delta_without_a_stop_reason_keeps_the_finish_reason(delta):
    """A message delta without a stop reason leaves the finish reason as it was and still updates the usage."""
    state = _feed(
        ("message_delta", _data({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}})),
        ("message_delta", _data({"type": "message_delta", "delta": delta, "usage": {"output_tokens": 5}})),
    )
    assert (state.finish_reason, state.usage.output_tokens) == ("length", 5)


def test_stream_without_a_stop_reason_finishes_with_stop():
    """A complete stream that never sent a stop reason finishes with ``stop``."""
    state = _feed(
        ("content_block_delta", _data({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "ok"}})),
        ("message_stop", _data({"type": "message_stop"})),
    )
    assert state.answer("anthropic").finish_reason == "stop"


def test_stream_cut_before_message_stop_is_an_error_naming_the_provider():
    """A stream that ends before its final event fails with a provider error naming the provider."""
    state = _feed(
        (
            "content_block_delta",
            _data({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Check"}}),
        )
    )
    with pytest.raises(ProviderError) as info:
        state.answer("anthropic")
    assert "anthropic" in str(info.value) and info.value.status is None


def test_error_event_reports_the_error_message():
    """An error event fails with a provider error carrying the error's own message."""
    data = _data({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    for event in ("error", "message"):
        with pytest.raises(ProviderError) as info:
            _feed((event, data))
        assert "Overloaded" in str(info.value)


@pytest.mark.parametrize("error", [{"type": "x" * 250}, "y" * 250, None])
def test_error_event_without_a_message_reports_an_excerpt_of_its_data(error):
    """An error event whose error is not an object with a message reports the first 200 characters of its data."""
    data = _data({"type": "error", "error": error, "note": "z" * 250})
    with pytest.raises(ProviderError) as info:
        _feed(("error", data))
    assert data[:200] in str(info.value) and data[:201] not in str(info.value)
