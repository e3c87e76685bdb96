"""advisor_reference._gojson: JSON written the way Go's encoder writes it (float64 numbers, escapes)."""

from __future__ import annotations

import math

import pytest

from advisor_reference import go_json


@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1"),
        (-0.0, "-0"),
        (0.1, "0.1"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (5e-324, "5e-324"),
        (1.5e300, "1.5e+300"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (10**25, "1e+25"),
        ({"b": [1, "x"], "a": None}, '{"a":null,"b":[1,"x"]}'),
        ("<&>\u2028", '"\\u003c\\u0026\\u003e\\u2028"'),
    ],
)
def test_go_json_forms(value, text):
    """go_json writes numbers in Go's float64 form and escapes like Go's encoder."""
    assert go_json(value) == text


def test_go_json_writes_positive_zero_without_a_sign():
    """A float zero is written ``0`` (only a negative zero carries the minus sign)."""
    assert go_json(0.0) == "0"
    assert go_json({"x": 0.0, "y": -0.0}) == '{"x":0,"y":-0}'


def test_go_json_rejects_values_json_cannot_carry():
    """NaN has no JSON form, so encoding it is an error rather than invalid output."""
    with pytest.raises(ValueError):
        go_json(math.nan)


@pytest.mark.parametrize("number, shown", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_go_json_error_names_the_number_json_cannot_carry(number, shown):
    """Encoding NaN or an infinity fails with a message naming the value."""
    with pytest.raises(ValueError) as info:
        go_json(number)
    assert shown in str(info.value)
