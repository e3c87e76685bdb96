"""The <args-json> of a tool-call line: its meaning, and the origin's bytes where declared (clarifications §2)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import check_segments, rendered_arguments

JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _long_strings(value):
    """The argument strings over the 1000-byte threshold, at any depth."""
    if isinstance(value, str):
        return [value] if len(value.encode("utf-8")) > oracle.ARG_LIMIT else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _long_strings(item)]


def _elision_control(impl, arguments):
    """Control, for arguments that hold strings to elide: a 1000-byte string stays whole (elision.threshold), and
    each long string parses back as its cut prefix (elision.byte-cut) and the marker (elision.marker-format), so that
    a wrong elision is never blamed on the encoding."""
    long = _long_strings(arguments)
    if not long:
        return
    _, whole = rendered_arguments(impl, {"s": "a" * oracle.ARG_LIMIT}, "elision.threshold")
    check_equal(whole, {"s": "a" * oracle.ARG_LIMIT}, "elision.threshold", "a 1000-byte string was changed",
                input={"s": "'a' * 1000"})
    _, parsed = rendered_arguments(impl, {"s": long[0]}, "elision.byte-cut")
    data = long[0].encode("utf-8")
    cut = parsed.get("s") if isinstance(parsed, dict) else parsed
    check(cut != long[0], "elision.threshold", f"a string of {len(data)} bytes ({len(long[0])} characters) was left "
          "whole", input={"s": long[0]})
    check_segments(str(cut), [(oracle.go_decode(data[:oracle.ARG_LIMIT]), "elision.byte-cut"),
                              (oracle.marker(len(data)), "elision.marker-format")], {},
                   "the long string is not its first 1000 bytes and the marker", input={"s": long[0]})


# -- flatten.args-json --------------------------------------------------------------------------------------------

NESTED = {"edits": [{"old": "a", "new": ["b", []]}], "opts": {"dry": {"run": True}}}
SCALARS = {"n": 0, "neg": -7, "f": 2.5, "sum": 0.1 + 0.2, "big": 2**53, "exp": 1e21, "tiny": 1e-7, "t": True,
           "no": False, "z": None}
ESCAPES = {"q": 'say "hi"', "path": "C:\\dir\\f", "text": "a\nb\tc\r\n"}
NON_ASCII = {"t": "é ß 中 😀 𝄞", "seps": "a\u2028b\u2029c", "html": "<a href='x'>&amp;</a>"}
KEYS = {"": 1, "ключ": "v", "a b": [], "😀": {}, "<&>": None}
BRACKETS = {"s": "]", "line": "[tool_call: x {}]", "brace": "} {"}


@pytest.mark.rule(id="flatten.args-json")
@example(arguments={}).via("flatten.args-json:empty-object")
@example(arguments={"path": "internal/net", "pattern": "retry"}).via("flatten.args-json:flat-strings")
@example(arguments=NESTED).via("flatten.args-json:nested")
@example(arguments=SCALARS).via("flatten.args-json:scalars")
@example(arguments=ESCAPES).via("flatten.args-json:escapes")
@example(arguments={"ctl": "\x00\x01\x08\x0b\x0c\x1b\x1f\x7f"}).via("flatten.args-json:control-chars")
@example(arguments=NON_ASCII).via("flatten.args-json:non-ascii-and-html")
@example(arguments=KEYS).via("flatten.args-json:unusual-keys")
@example(arguments=BRACKETS).via("flatten.args-json:brackets")
@given(arguments=st.dictionaries(st.one_of(st.text(max_size=10), st.sampled_from(s.ORDERED_KEYS)),
                                  s.json_values(strings=s.texts(max_size=40)), max_size=5))
def test_args_json_parses_back(impl, arguments):
    """The <args-json> of a call with no string long enough to elide parses back to exactly its arguments."""
    _, parsed = rendered_arguments(impl, arguments, "flatten.args-json")
    check_equal(oracle.normalise_numbers(parsed), oracle.normalise_numbers(arguments), "flatten.args-json",
                "the <args-json> does not parse back to the arguments", input=arguments)


@pytest.mark.rule(id="flatten.args-json")
@pytest.mark.parametrize("arguments", [{"content": "x" * 1500, "path": "a.go"}, {"cut": "a" * 998 + "€€", "n": 1}],
                         ids=["over-threshold", "cut-in-a-character"])
@pytest.mark.needs(areas=["elision"])
def test_elided_arguments_parse_back_to_the_capped_ones(impl, arguments):
    """The <args-json> of a call with strings over 1000 bytes parses back to its arguments after elision."""
    _elision_control(impl, arguments)
    _, parsed = rendered_arguments(impl, arguments, "flatten.args-json")
    check_equal(oracle.normalise_numbers(parsed), oracle.normalise_numbers(oracle.cap_arguments(arguments)),
                "flatten.args-json", "the <args-json> does not parse back to the capped arguments", input=arguments)


# -- flatten.args-json-origin-encoding ----------------------------------------------------------------------------


#: The tests of the origin encoding need it declared.
ORIGIN_ENCODING = pytest.mark.needs(options={"args_json": "origin"})


@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@ORIGIN_ENCODING
@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"b": 1, "a": [True, None, 2.5]}, '{"a":[true,null,2.5],"b":1}'),
        ({"html": "<a href='x'>&</a>"}, '{"html":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e"}'),
        ({"sep": "line\u2028para\u2029end"}, '{"sep":"line\\u2028para\\u2029end"}'),
        ({"ctl": "tab\tnl\ncr\r\x01\x7f", "q": "\"\\"}, '{"ctl":"tab\\tnl\\ncr\\r\\u0001\x7f","q":"\\"\\\\"}'),
        ({"n": [1.0, 100.0, 1e21, 1e-7, 0.000001, 123456789012345678901234567890, -0.5]},
         '{"n":[1,100,1e+21,1e-7,0.000001,1.2345678901234568e+29,-0.5]}'),
        ({"é": "ü", "z": {}, "A": []}, '{"A":[],"z":{},"é":"ü"}'),
        pytest.param({"cut": "a" * 998 + "€" * 2},
                     '{"cut":"' + "a" * 998 + '\\ufffd\\ufffd\u2026[elided, 1004 bytes total]"}',
                     marks=pytest.mark.needs(areas=["elision"])),
        ({}, "{}"),
        ({"b": {"d": [{"y": 1, "x": 2}], "c": "x"}, "a": 0}, '{"a":0,"b":{"c":"x","d":[{"x":2,"y":1}]}}'),
        ({"a<b": {"&": ">"}}, '{"a\\u003cb":{"\\u0026":"\\u003e"}}'),
        ({"z": [0.0, -0.0, 0, -1.5e-300]}, '{"z":[0,-0,0,-1.5e-300]}'),
        ({"t": "中😀", "e": "\ufffd"}, '{"e":"\ufffd","t":"中😀"}'),
    ],
    ids=["sorted-compact", "html-escapes", "line-separators", "control-chars", "float64-numbers", "key-order-bytes",
         "dangling-bytes", "empty-object", "nested-sorted", "html-in-keys", "signed-zeros", "non-ascii-raw"],
)
def test_origin_encoding_bytes(impl, arguments, expected):
    """With the origin encoding declared, <args-json> is byte-for-byte Go's encoding of the decoded arguments."""
    _elision_control(impl, arguments)
    text, _ = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    check_equal(text, expected, "flatten.args-json-origin-encoding", "the <args-json> is not the origin's encoding",
                input=arguments)


@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@ORIGIN_ENCODING
@given(arguments=s.arguments())
def test_origin_encoding_is_compact_sorted_and_escaped(impl, arguments):
    """With the origin encoding declared, <args-json> is compact, key-sorted and free of raw <, >, &, U+2028, U+2029."""
    text, parsed = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    for char in "<>&\u2028\u2029":
        check(char not in text, "flatten.args-json-origin-encoding", f"{char!r} is not escaped", input=arguments,
              actual=text)

    def keys_sorted(pairs):
        keys = [key.encode("utf-8") for key, _ in pairs]
        check(keys == sorted(keys), "flatten.args-json-origin-encoding", "object keys are not sorted by their bytes",
              input=arguments, actual=text)
        return dict(pairs)

    json.loads(text, object_pairs_hook=keys_sorted)
    outside_strings = JSON_STRING.sub("", text)
    check(not any(char.isspace() for char in outside_strings), "flatten.args-json-origin-encoding",
          "the encoding is not compact: white space outside strings", input=arguments, actual=text)
