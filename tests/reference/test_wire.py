"""advisor_reference._wire: the parts every wire shares: token counts and the JSON reading of stream event data."""

from __future__ import annotations

import pytest

from advisor_reference import ProviderError
from advisor_reference._wire import MAX_ANSWER_CHARS, MAX_JSON_VALUES, StreamState, integer, stream_payload


@pytest.mark.parametrize("value, expected", [(7, 7), (0, 0), ("7", 0), (True, 0), (False, 0), (None, 0), (7.0, 0)])
def test_integer_keeps_only_true_integers(value, expected):
    """A token count is the value when it is an int (not a bool), 0 otherwise."""
    assert integer(value) == expected


@pytest.mark.parametrize(
    "data, value",
    [
        ('{"type":"ping"}', {"type": "ping"}),
        (' {"a": 1}', {"a": 1}),
        ('{"a": 1}\n', {"a": 1}),
        ('{"a": 1}  ', {"a": 1}),
        ("12", None),
        ("[1, 2]", None),
        ('"text"', None),
        ("", None),
    ],
)
def test_stream_payload_is_the_event_object_or_none(data, value):
    """Event data is one JSON object (white space around it allowed); another JSON value or no data is None."""
    assert stream_payload(data, "what") == value


@pytest.mark.parametrize("data", ["nope", 'x{"a": 1}', '{"a": 1} x', '{"a": 1}{"b": 2}', "12 13"])
def test_stream_payload_that_is_not_json_is_a_provider_error_showing_it(data):
    """Data that is not one JSON value is a ProviderError that says which stream and shows the data's start."""
    with pytest.raises(ProviderError) as info:
        stream_payload(data, "the test stream")
    assert str(info.value).startswith("the test stream") and repr(data[:200]) in str(info.value)


@pytest.mark.parametrize(
    "data",
    ["[" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000, " " + "[" * 100_000],
    ids=["arrays", "objects", "after-white-space"],
)
def test_stream_payload_nested_too_deep_is_a_provider_error(data):
    """Event data nested deeper than the JSON decoder goes is a ProviderError naming the stream, not a crash."""
    with pytest.raises(ProviderError) as info:
        stream_payload(data, "the test stream")
    assert str(info.value).startswith("the test stream")


def test_a_streamed_answer_past_its_cap_is_a_provider_error():
    """Text gathered past MAX_ANSWER_CHARS characters fails the stream; up to the cap it is kept whole."""
    state = StreamState()
    piece = "x" * (1024 * 1024)
    for _ in range(MAX_ANSWER_CHARS // len(piece)):
        state.add_text(piece)
    state.done = True
    assert len(state.answer("openai").text) == MAX_ANSWER_CHARS
    with pytest.raises(ProviderError):
        state.add_text("y")


def test_many_small_pieces_are_joined_in_order():
    """Thousands of one-character pieces make the answer in their order, gathered in a few joined strings."""
    state = StreamState(done=True)
    for index in range(5000):
        state.add_text(str(index % 10))
    assert state.answer("codex").text == "0123456789" * 500
    assert len(state.text) + len(state.joined) < 1100


@pytest.mark.parametrize("item", ["{}", "[]", '"a"', "0"])
def test_stream_payload_of_too_many_values_is_refused_before_decoding(item):
    """Event data of more than MAX_JSON_VALUES values is a ProviderError; half as many values are decoded."""
    with pytest.raises(ProviderError):
        stream_payload('{"a":[' + ",".join([item] * (MAX_JSON_VALUES + 1)) + "]}", "the test stream")
    assert len(stream_payload('{"a":[' + ",".join([item] * (MAX_JSON_VALUES // 2 - 1)) + "]}", "s")["a"]) > 0
