"""advisor_reference._wire: the parts every wire shares: token counts and the JSON reading of stream event data."""

from __future__ import annotations

import pytest

from advisor_reference import ProviderError
from advisor_reference._wire import integer, stream_payload


@pytest.mark.parametrize("value, expected", [(7, 7), (0, 0), ("7", 0), (True, 0), (False, 0), (None, 0), (7.0, 0)])
def test_integer_keeps_only_true_integers(value, expected):
    """A token count is the value when it is an int (not a bool), 0 otherwise."""
    assert integer(value) == expected


@pytest.mark.parametrize("data, value", [
    ('{"type":"ping"}', {"type": "ping"}), (' {"a": 1}', {"a": 1}), ('{"a": 1}\n', {"a": 1}), ('{"a": 1}  ', {"a": 1}),
    ("12", None), ("[1, 2]", None), ('"text"', None), ("", None),
])
def test_stream_payload_is_the_event_object_or_none(data, value):
    """Event data is one JSON object (white space around it allowed); another JSON value or no data is None."""
    assert stream_payload(data, "what") == value


@pytest.mark.parametrize("data", ["nope", 'x{"a": 1}', '{"a": 1} x', '{"a": 1}{"b": 2}', "12 13"])
def test_stream_payload_that_is_not_json_is_a_provider_error_showing_it(data):
    """Data that is not one JSON value is a ProviderError that says which stream and shows the data's start."""
    with pytest.raises(ProviderError) as info:
        stream_payload(data, "the test stream")
    assert str(info.value).startswith("the test stream") and repr(data[:200]) in str(info.value)
