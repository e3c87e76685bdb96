"""JSON text exactly as the origin writes tool-call arguments.

The origin decodes tool-call arguments into Go's ``map[string]any`` (every
number becomes a float64) and writes them back with ``encoding/json``:
compact, object keys sorted by their UTF-8 bytes, ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped as ``\\u003c`` and so on, and numbers in Go's
shortest float64 form (``1`` for 1.0, ``1e+21``, ``1e-7``); the dangling
bytes of a cut string, not being UTF-8, are written ``\\ufffd``. The suite only
requires the text to parse back to the capped arguments; byte-exact origin
encoding is an option an implementation declares.
"""

from __future__ import annotations

import math
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any

from ._elision import CutText

# <, >, &, U+2028 and U+2029 as Go escapes them (rule: flatten.args-json-origin-encoding).
_HTML_SAFE = str.maketrans(
    {
        "<": "\\u003c",
        ">": "\\u003e",
        "&": "\\u0026",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)

_EXACT_INT_LIMIT = 2**53


def go_json(value: Any) -> str:
    """Encode a JSON value the way Go's ``json.Marshal`` encodes the decoded ``any`` value.

    rules: flatten.args-json, flatten.args-json-origin-encoding
    """
    parts: list[str] = []
    _encode(value, parts)
    return "".join(parts)


def _encode(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value) if -_EXACT_INT_LIMIT <= value <= _EXACT_INT_LIMIT else _float(float(value)))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        out.append("{")
        first = True
        for key in sorted(value):  # rule: flatten.args-json-origin-encoding
            if not first:
                out.append(",")
            first = False
            out.append(_string(key))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def _string(text: str) -> str:
    if isinstance(text, CutText):
        # Go writes each byte that is not valid UTF-8 (here: the dangling bytes of a cut) as \ufffd.
        # rule: flatten.args-json-origin-encoding
        encoded = encode_basestring(text.head)[:-1] + "\\ufffd" * text.dangling + encode_basestring(text.marker)[1:]
    else:
        encoded = encode_basestring(text)  # what json.dumps(ensure_ascii=False) writes for a string
    if "<" in text or ">" in text or "&" in text or "\u2028" in text or "\u2029" in text:
        encoded = encoded.translate(_HTML_SAFE)
    return encoded


def _float(number: float) -> str:
    """Go's float64 JSON form: shortest digits, positional between 1e-6 and 1e21.

    rule: flatten.args-json-origin-encoding
    """
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"JSON cannot carry {number!r}")
    if number == 0:
        return "-0" if math.copysign(1.0, number) < 0 else "0"
    magnitude = abs(number)
    shortest = repr(number)
    if magnitude < 1e-6 or magnitude >= 1e21:
        # Python's repr already uses exponent form here, with the same digits
        # and a two-digit exponent; Go then shortens "e-07" to "e-7".
        mantissa, exponent = shortest.split("e")
        sign, digits = exponent[0], exponent[1:]
        if sign == "-" and len(digits) == 2 and digits[0] == "0":
            digits = digits[1:]
        return f"{mantissa}e{sign}{digits}"
    text = format(Decimal(shortest), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
