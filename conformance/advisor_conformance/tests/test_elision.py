"""Elision of tool-call argument strings (clarifications §3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.shaping import check_segments, rendered_arguments

MARKER = re.compile("\u2026\\[elided, (\\d+) bytes total\\]$")


def _check_elided(got, original, head_rule, what, shown):
    """An elided string is its cut prefix (blamed on ``head_rule``) and then the marker (elision.marker-format)."""
    data = original.encode("utf-8")
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
@given(value=s.arg_strings())
def test_only_strings_over_1000_bytes_change(impl, value):
    """An argument string changes exactly when its UTF-8 length is over 1000 bytes."""
    _, args = rendered_arguments(impl, {"value": value}, "elision.threshold")
    over = len(value.encode("utf-8")) > 1000
    check((args["value"] != value) == over, "elision.threshold",
          f"a {len(value.encode('utf-8'))}-byte string was {'not ' if over else ''}elided",
          input={"value": value}, actual=args["value"])


@pytest.mark.rule(id="elision.marker-format")
@pytest.mark.parametrize("size", [1001, 4096, 123456])
def test_marker_reports_the_true_length(impl, size):
    """The marker after an elided string is `…[elided, N bytes total]` with N the original byte length."""
    value = "m" * size
    _, args = rendered_arguments(impl, {"content": value}, "elision.marker-format")
    _check_elided(args["content"], value, "elision.threshold",
                  "the elided string is not the 1000-byte prefix followed by the marker", {"content": f"'m' * {size}"})


@pytest.mark.rule(id="elision.marker-format")
@given(value=s.sized_text(1001, 6000))
def test_elided_string_is_bounded_and_honest(impl, value):
    """An elided string is at most 1000 bytes plus the marker, and its marker reports the true length."""
    _, args = rendered_arguments(impl, {"value": value}, "elision.marker-format")
    got = args["value"]
    match = MARKER.search(got)
    check(match is not None, "elision.marker-format", "the elided string does not end with the marker",
          input={"value": value}, actual=got)
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
@given(arguments=s.arguments())
def test_every_string_at_any_depth_is_capped(impl, arguments):
    """The rendered arguments equal the arguments with every string value elided, at any depth."""
    _, args = rendered_arguments(impl, arguments, "elision.any-depth")
    _check_arguments(oracle.cap_arguments(arguments), args, arguments, "elision.any-depth",
                     "the rendered arguments are not the capped arguments", arguments)


@pytest.mark.rule(id="elision.non-strings-unchanged")
def test_keys_and_scalars_are_unchanged(impl):
    """Long object keys, numbers, booleans and null pass through elision unchanged."""
    key = "k" * 1500
    arguments = {key: 1, "n": 12.5, "big": 9007199254740992, "neg": -3, "t": True, "f": False, "z": None}
    _, args = rendered_arguments(impl, arguments, "elision.non-strings-unchanged")
    check_equal(oracle.normalise_numbers(args), oracle.normalise_numbers(arguments), "elision.non-strings-unchanged",
                "a key or a non-string value changed", input=arguments)


@pytest.mark.rule(id="elision.non-strings-unchanged")
@given(arguments=st.dictionaries(s.object_keys, st.one_of(s.json_scalars, st.lists(s.json_scalars, max_size=3)),
                                 max_size=4))
def test_non_string_values_survive(impl, arguments):
    """Arguments without string values render to exactly the same JSON value."""
    _, args = rendered_arguments(impl, arguments, "elision.non-strings-unchanged")
    check_equal(oracle.normalise_numbers(args), oracle.normalise_numbers(arguments), "elision.non-strings-unchanged",
                "a key or a non-string value changed", input=arguments)
