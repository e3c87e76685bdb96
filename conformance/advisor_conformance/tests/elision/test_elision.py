"""Elision of tool-call argument strings (clarifications §3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.shaping import (
    body,
    check_segments,
    params,
    parse_args,
    rendered_arguments,
    shape,
    tool_call_lines,
)

MARKER = re.compile("\u2026\\[elided, (\\d+) bytes total\\]$")


def _check_elided(got, original, head_rule, what, shown):
    """An elided string is its cut prefix (blamed on ``head_rule``) and then the marker (elision.marker-format)."""
    data = original.encode("utf-8")
    check(got != original, "elision.threshold", f"{what}: a string of {len(data)} bytes was left whole", input=shown)
    head = oracle.go_decode(data[:1000])
    check_segments(got, [(head, head_rule), (oracle.marker(len(data)), "elision.marker-format")], {}, what,
                   input=shown)


def _check_arguments(expected, got, original, rule, what, shown, path="arguments"):
    """Rendered arguments against the capped ones, each difference blamed on the rule it breaks: a string left
    whole that should be cut on ``rule``; a cut string on the cut or the marker; a changed key or non-string value
    on elision.non-strings-unchanged."""
    if isinstance(expected, dict) and isinstance(got, dict):
        check_equal(sorted(got), sorted(expected), "elision.non-strings-unchanged", f"the keys of {path} changed",
                    input=shown)
        for key in expected:
            _check_arguments(expected[key], got[key], original[key], rule, what, shown, f"{path}.{key[:20]}")
    elif isinstance(expected, list) and isinstance(got, list) and len(got) == len(expected):
        for index, (want, have, was) in enumerate(zip(expected, got, original, strict=True)):
            _check_arguments(want, have, was, rule, what, shown, f"{path}[{index}]")
    elif isinstance(expected, str) and isinstance(got, str) and expected != got:
        if expected != original and got == original:
            raise violation(rule, f"{what}: {path} was left whole", input=shown, expected=expected, actual=got)
        if expected != original:
            _check_elided(got, original, "elision.byte-cut", f"{what}: {path}", shown)
        raise violation("elision.threshold", f"{what}: {path} was changed", input=shown, expected=expected, actual=got)
    elif oracle.normalise_numbers(expected) != oracle.normalise_numbers(got):
        raise violation("elision.non-strings-unchanged", f"{what}: {path} changed", input=shown, expected=expected,
                        actual=got)


@pytest.mark.rule(id="elision.threshold")
@pytest.mark.parametrize("size", [0, 1, 999, 1000])
def test_strings_up_to_1000_bytes_are_unchanged(impl, size):
    """An argument string of at most 1000 bytes is rendered unchanged."""
    value = "x" * size
    _, args = rendered_arguments(impl, {"content": value}, "elision.threshold")
    check_equal(args["content"], value, "elision.threshold", f"a {size}-byte string was changed",
                input={"content": f"'x' * {size}"})


@pytest.mark.rule(id="elision.threshold")
@pytest.mark.parametrize("size", [1001, 1002, 5000])
def test_strings_over_1000_bytes_are_elided(impl, size):
    """An argument string over 1000 bytes is cut to 1000 bytes and marked."""
    value = "y" * size
    _, args = rendered_arguments(impl, {"content": value}, "elision.threshold")
    check(args["content"].startswith("y" * 1000) and not args["content"].startswith("y" * 1001),
          "elision.threshold", f"a {size}-byte string was not cut at 1000 bytes", input={"content": f"'y' * {size}"},
          actual=args["content"])


@pytest.mark.rule(id="elision.threshold")
@example(value="").via("elision.threshold:empty")
@example(value="\u20ac" * 333 + "a").via("elision.threshold:multibyte-at-threshold")
@example(value="\U0001F600" * 250).via("elision.threshold:four-byte-at-threshold")
@example(value="\u20ac" * 334).via("elision.threshold:multibyte-over-few-characters")
@example(value="\U0001F600" * 251).via("elision.threshold:four-byte-over")
@given(value=s.arg_strings())
def test_only_strings_over_1000_bytes_change(impl, value):
    """An argument string changes exactly when its UTF-8 length is over 1000 bytes."""
    _, args = rendered_arguments(impl, {"value": value}, "elision.threshold")
    over = len(value.encode("utf-8")) > 1000
    check((args["value"] != value) == over, "elision.threshold",
          f"a {len(value.encode('utf-8'))}-byte string was {'not ' if over else ''}elided",
          input={"value": value}, actual=args["value"])


@pytest.mark.rule(id="elision.threshold")
@pytest.mark.parametrize("char", ['"', "\\", "\n", "<", "\x01"],
                         ids=["quote", "backslash", "newline", "less-than", "control"])
def test_threshold_counts_raw_bytes_not_their_json_escapes(impl, char):
    """A 1000-byte string of characters that JSON escapes is unchanged: the threshold counts the raw bytes."""
    value = char * 1000
    _, args = rendered_arguments(impl, {"content": value}, "elision.threshold")
    check_equal(args["content"], value, "elision.threshold", "a 1000-byte string of escaped characters was changed",
                input={"content": f"{char!r} * 1000"})


@pytest.mark.rule(id="elision.threshold")
def test_each_string_is_measured_alone(impl):
    """Strings of at most 1000 bytes stay whole beside each other, and only the long one of a call is elided."""
    arguments = {"a": "x" * 1000, "b": "y" * 1000, "c": "z" * 999, "d": "w" * 1001, "e": "short"}
    _, args = rendered_arguments(impl, arguments, "elision.threshold")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.threshold",
                     "strings were not each measured on their own", arguments)


def _all_arguments(impl, transcript, calls, rule):
    """The parsed arguments of every tool-call line of a shaped transcript, message by message; a rendering that
    does not keep ``calls`` (the number of calls of each assistant message) is blamed on the flatten rules."""
    request = params(transcript)
    assistants = [m for m in body(shape(impl, request, rule)) if m["role"] == "assistant"]
    check(len(assistants) == len(calls), "flatten.assistant-with-calls",
          f"the snapshot's {len(calls)} assistant messages are rendered as {len(assistants)}", input=request,
          actual=assistants)
    out: list = []
    for message, count in zip(assistants, calls, strict=True):
        lines = tool_call_lines(message["content"])
        check(len(lines) == count, "flatten.tool-call-line",
              f"an assistant message with {count} call(s) holds {len(lines)} tool-call line(s)", input=request,
              actual=message["content"])
        out.extend(parse_args(text, "flatten.args-json", request) for _, text in lines)
    return out


@pytest.mark.rule(id="elision.threshold")
def test_every_message_has_its_calls_elided(impl):
    """The tool call of each assistant message has its long strings elided on its own."""
    calls = [{"text": "a" * 1001}, {"text": "b" * 1000}, {"text": "c" * 2500, "path": "c.txt"}]
    transcript: list[dict] = [{"role": "user", "content": "write the files"}]
    for index, arguments in enumerate(calls):
        transcript += [{"role": "assistant", "content": f"step {index}",
                        "tool_calls": [{"id": f"c{index}", "name": "write", "arguments": arguments}]},
                       {"role": "tool", "name": "write", "tool_call_id": f"c{index}", "content": "ok"}]
    got = _all_arguments(impl, transcript, [1] * len(calls), "elision.threshold")
    for index, (arguments, rendered) in enumerate(zip(calls, got, strict=True)):
        _check_arguments(oracle.cap_arguments(arguments), rendered, arguments, "elision.threshold",
                         f"the arguments of the call of message {index + 1} are not its own arguments, capped", transcript)


@pytest.mark.rule(id="elision.marker-format")
@pytest.mark.parametrize("size", [1001, 4096, 123456])
def test_marker_reports_the_true_length(impl, size):
    """The marker after an elided string is `…[elided, N bytes total]` with N the original byte length."""
    value = "m" * size
    _, args = rendered_arguments(impl, {"content": value}, "elision.marker-format")
    _check_elided(args["content"], value, "elision.threshold",
                  "the elided string is not the 1000-byte prefix followed by the marker", {"content": f"'m' * {size}"})


@pytest.mark.rule(id="elision.marker-format")
@pytest.mark.parametrize("value", ["\u00e9" * 600, "\U0001F600" * 300, "a" + "\u4e2d" * 400],
                         ids=["2-byte", "4-byte", "3-byte"])
def test_marker_counts_bytes_of_multibyte_strings(impl, value):
    """The marker's N of a multi-byte string is its length in UTF-8 bytes, not in characters."""
    _, args = rendered_arguments(impl, {"content": value}, "elision.marker-format")
    got, shown = args["content"], {"content": f"{value[-1]!r} string of {len(value.encode())} bytes"}
    check(got != value, "elision.threshold", "a string over 1000 bytes was left whole", input=shown)
    match = MARKER.search(got)
    check(match is not None, "elision.marker-format", "the elided string does not end with the marker", input=shown,
          actual=got)
    assert match is not None  # check raised otherwise
    check_equal(int(match[1]), len(value.encode("utf-8")), "elision.marker-format",
                "the marker's N is not the length in bytes", input=shown)
    check_equal(got[: match.start()], oracle.go_decode(value.encode("utf-8")[:1000]), "elision.byte-cut",
                "the text before the marker is not the first 1000 bytes", input=shown)


@pytest.mark.rule(id="elision.marker-format")
def test_each_marker_counts_its_own_string(impl):
    """Each elided string of a call carries its own length in its marker."""
    arguments = {"a": "p" * 1001, "b": "q" * 2500, "c": "r" * 12345}
    _, args = rendered_arguments(impl, arguments, "elision.marker-format")
    for key, value in arguments.items():
        _check_elided(args[key], value, "elision.threshold", f"{key} does not carry its own length",
                      {key: f"{value[0]!r} * {len(value)}" for key, value in arguments.items()})


@pytest.mark.rule(id="elision.marker-format")
@example(value="a" * 999 + "\u20ac" * 3).via("elision.marker-format:after-split-character")
@given(value=s.sized_text(1001, 6000))
def test_elided_string_is_bounded_and_honest(impl, value):
    """An elided string is at most 1000 bytes plus the marker, and its marker reports the true length."""
    _, args = rendered_arguments(impl, {"value": value}, "elision.marker-format")
    got = args["value"]
    match = MARKER.search(got)
    check(match is not None, "elision.marker-format", "the elided string does not end with the marker",
          input={"value": value}, actual=got)
    assert match is not None  # check raised otherwise
    true_length = len(value.encode("utf-8"))
    check_equal(int(match[1]), true_length, "elision.marker-format", "the marker's N is not the true byte length",
                input={"value": value})
    prefix = got[: match.start()]
    # Each dangling byte may widen to a 3-byte U+FFFD; at most 3 bytes dangle.
    check(len(prefix.encode("utf-8")) <= 1000 + 2 * 3, "elision.byte-cut",
          "the text before the marker is longer than the 1000-byte cut", input={"value": value}, actual=prefix)


@pytest.mark.rule(id="elision.byte-cut")
@pytest.mark.parametrize(
    "char, lead",
    [("é", 999), ("€", 999), ("€", 998), ("😀", 997), ("😀", 998), ("😀", 999)],
    ids=["2-byte-split-1", "3-byte-split-1", "3-byte-split-2", "4-byte-split-3", "4-byte-split-2", "4-byte-split-1"],
)
def test_cut_splits_characters_into_replacement_chars(impl, char, lead):
    """A cut inside a multi-byte character leaves one U+FFFD per dangling byte."""
    value = "a" * lead + char * 10
    _, args = rendered_arguments(impl, {"content": value}, "elision.byte-cut")
    dangling = 1000 - lead
    _check_elided(args["content"], value, "elision.byte-cut",
                  f"a cut {dangling} byte(s) into {char!r} is not written as {dangling} U+FFFD",
                  {"content": f"'a' * {lead} + {char!r} * 10"})


@pytest.mark.rule(id="elision.byte-cut")
@example(value="a" * 1200).via("elision.byte-cut:ascii")
@example(value="a" * 997 + "\u20ac" + "b" * 10).via("elision.byte-cut:boundary-aligned")
@example(value="\u4e2d" * 400).via("elision.byte-cut:all-multibyte")
@example(value="\u00e9\u4e2d\U0001F600a" * 120).via("elision.byte-cut:mixed-widths")
@example(value="a" * 999 + "\U0001F600").via("elision.byte-cut:just-over-split")
@given(value=s.sized_text(995, 1300))
def test_cut_is_by_bytes(impl, value):
    """The elided prefix is the first 1000 bytes, with dangling bytes of a split character as U+FFFD."""
    _, args = rendered_arguments(impl, {"value": value}, "elision.byte-cut")
    if len(value.encode("utf-8")) <= 1000:
        check_equal(args["value"], value, "elision.threshold", "a string of at most 1000 bytes was changed",
                    input={"value": value})
        return
    _check_elided(args["value"], value, "elision.byte-cut", "the string is not cut at byte 1000 with per-byte U+FFFD",
                  {"value": value})


@pytest.mark.rule(id="elision.any-depth")
def test_nested_strings_are_elided(impl):
    """Strings inside nested arrays and objects are elided like top-level ones."""
    long = "n" * 1500
    arguments = {"ops": [{"type": "write", "content": long, "meta": {"notes": [long, "short"]}}], "path": "a.go"}
    _, args = rendered_arguments(impl, arguments, "elision.any-depth")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.any-depth",
                     "a nested string was not elided", arguments)


@pytest.mark.rule(id="elision.any-depth")
@example(arguments={"content": "x" * 1500}).via("elision.any-depth:top-level")
@example(arguments={"a": {"b": {"c": "x" * 1500, "d": "short"}}}).via("elision.any-depth:objects-in-objects")
@example(arguments={"lines": ["x" * 1500, "short", "y" * 1001]}).via("elision.any-depth:array-of-strings")
@example(arguments={"m": [["x" * 1500], [["y" * 2000, "z"]]]}).via("elision.any-depth:arrays-in-arrays")
@example(arguments={"ops": [{"content": "x" * 1500}, {"content": "ok"}]}).via("elision.any-depth:objects-in-arrays")
@example(arguments={"v": [1, None, "x" * 1500, True, {"k": 2.5, "s": "y" * 1001}]}).via(
    "elision.any-depth:beside-scalars")
@given(arguments=s.arguments())
def test_every_string_at_any_depth_is_capped(impl, arguments):
    """The rendered arguments equal the arguments with every string value elided, at any depth."""
    _, args = rendered_arguments(impl, arguments, "elision.any-depth")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.any-depth",
                     "the rendered arguments are not the capped arguments", arguments)


def _nested(depth, leaf):
    """``leaf`` under ``depth`` levels of containers, objects and arrays in turn."""
    value = leaf
    for level in range(depth):
        value = {f"k{level}": value} if level % 2 else [value, level]
    return {"root": value}


@pytest.mark.rule(id="elision.any-depth")
@pytest.mark.parametrize("depth", [1, 2, 3, 10, 64])
def test_strings_deep_inside_are_elided(impl, depth):
    """A long string under many levels of arrays and objects is elided like a top-level one."""
    arguments = _nested(depth, "d" * 1200)
    _, args = rendered_arguments(impl, arguments, "elision.any-depth")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.any-depth",
                     f"a string {depth} levels deep was not elided", {"root": f"{depth} levels over 'd' * 1200"})


@pytest.mark.rule(id="elision.non-strings-unchanged")
def test_keys_and_scalars_are_unchanged(impl):
    """Long object keys, numbers, booleans and null pass through elision unchanged."""
    key = "k" * 1500
    arguments = {key: 1, "n": 12.5, "big": 9007199254740992, "neg": -3, "t": True, "f": False, "z": None}
    _, args = rendered_arguments(impl, arguments, "elision.non-strings-unchanged")
    check_equal(oracle.normalise_numbers(args), oracle.normalise_numbers(arguments), "elision.non-strings-unchanged",
                "a key or a non-string value changed", input=arguments)


@pytest.mark.rule(id="elision.non-strings-unchanged")
@example(arguments={"zero": 0, "neg": -3, "big": 2**53, "low": -(2**53)}).via(
    "elision.non-strings-unchanged:integers")
@example(arguments={"half": 12.5, "tiny": 5e-324, "huge": 1e300, "neg": -0.25}).via(
    "elision.non-strings-unchanged:floats")
@example(arguments={"t": True, "f": False, "z": None}).via("elision.non-strings-unchanged:booleans-null")
@example(arguments={"xs": [1, 2.5, None, False], "e": [], "o": {}}).via("elision.non-strings-unchanged:containers")
@example(arguments={"k" * 1500: 1, "\u20ac" * 400: None}).via("elision.non-strings-unchanged:long-keys")
@example(arguments={"outer": {"k" * 1200: {"j" * 1001: 3}}, "list": [{"m" * 1100: True}]}).via(
    "elision.non-strings-unchanged:nested-long-keys")
@given(arguments=st.dictionaries(s.object_keys, st.one_of(s.json_scalars, st.lists(s.json_scalars, max_size=3)),
                                 max_size=4))
def test_non_string_values_survive(impl, arguments):
    """Arguments without string values render to exactly the same JSON value."""
    _, args = rendered_arguments(impl, arguments, "elision.non-strings-unchanged")
    check_equal(oracle.normalise_numbers(args), oracle.normalise_numbers(arguments), "elision.non-strings-unchanged",
                "a key or a non-string value changed", input=arguments)


@pytest.mark.rule(id="elision.non-strings-unchanged")
@pytest.mark.parametrize("key", ["k" * 1001, "\u20ac" * 500], ids=["ascii-key", "multibyte-key"])
def test_long_key_of_an_elided_value_is_kept(impl, key):
    """A key over 1000 bytes is kept whole while its long string value is elided."""
    arguments = {key: "v" * 1500, "nested": [{key: "w" * 2000}]}
    _, args = rendered_arguments(impl, arguments, "elision.non-strings-unchanged")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.any-depth",
                     "a long key of an elided value changed", {"key": f"{key[0]!r} * {len(key)}"})
