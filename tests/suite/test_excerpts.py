"""Excerpts of differing texts: framed by nothing the data can hold, with invisible differences named by code point."""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance._excerpts import code_point, difference, first_difference, parting, region
from advisor_conformance.checks import violation

#: ``label[start:end] literal``: how an excerpt is written.
EXCERPT = re.compile(r"(expected|actual)\[(\d+):(\d+)\] ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
MARKER = "…[elided, 1001 bytes total]"


@given(text=st.text(), start=st.integers(-5, 50), length=st.integers(0, 60))
@example(text="a" * 30 + MARKER, start=25, length=40)
@example(text="'…'\"…\n", start=0, length=10)
def test_an_excerpt_reads_back_as_exactly_its_slice(text, start, length):
    """An excerpt's slice and literal give back exactly the characters it shows, whatever the text holds (the
    elision marker's `…`, quotes, newlines): nothing of the data is taken for the frame."""
    shown = region("expected", text, start, start + length)
    match = EXCERPT.fullmatch(shown)
    assert match is not None, shown
    first, last = int(match[2]), int(match[3])
    assert ast.literal_eval(match[4]) == text[first:last]
    assert first == max(0, start) and last == min(max(0, start + length), len(text))


@pytest.mark.parametrize(
    "expected, actual, names",
    [
        ("a b", "a\u00a0b", ["U+0020 SPACE", "U+00A0 NO-BREAK SPACE"]),
        ("ab", "a\u200db", ["U+0062 LATIN SMALL LETTER B", "U+200D ZERO WIDTH JOINER"]),
        ("pay", "p\u0430y", ["U+0061 LATIN SMALL LETTER A", "U+0430 CYRILLIC SMALL LETTER A"]),
        ("x\u2026", "x...", ["U+2026 HORIZONTAL ELLIPSIS", "U+002E FULL STOP"]),
        ("line\n", "line", ["U+000A", "the end of the text"]),
    ],
    ids=["no-break-space", "zero-width-joiner", "look-alike", "ellipsis", "end"],
)
def test_the_characters_where_texts_part_are_named_by_code_point(expected, actual, names):
    """Where two texts part, each side's character is named by code point (and name), so a difference nobody can see
    is still read; a text that ends there says so."""
    at = first_difference(expected, actual)
    told = parting(expected, actual, at)
    assert all(name in told for name in names), told
    assert told.index(names[0]) < told.index(names[1])
    assert code_point(actual, len(actual)) == "the end of the text"


def test_a_long_string_difference_in_a_failure_is_sliced_and_named():
    """A failure comparing two long strings shows where they part by code point, and slices of each that read back
    as the texts' own characters, even when the texts hold the elision marker."""
    expected = "a" * 1000 + MARKER
    actual = expected.replace("1001", "1002")
    message = str(violation("elision.marker-format", "the marker differs", expected=expected, actual=actual))
    at = first_difference(expected, actual)
    assert f"at character {at}" in message and "U+0031 DIGIT ONE" in message and "U+0032 DIGIT TWO" in message
    excerpts = EXCERPT.findall(message)
    assert [label for label, *_ in excerpts] == ["expected", "actual"]
    for label, first, last, literal in excerpts:
        text = expected if label == "expected" else actual
        assert ast.literal_eval(literal) == text[int(first) : int(last)]
        assert int(first) <= at < int(last)


def test_difference_shows_both_regions_around_the_first_difference():
    """difference() gives the index where two texts part and each text's region around it."""
    at, shown = difference("x" * 100 + "A" + "y" * 100, "x" * 100 + "B" + "y" * 100, before=5, after=5)
    assert at == 100
    assert "expected[95:105] 'xxxxxAyyyy'" in shown and "actual[95:105] 'xxxxxByyyy'" in shown
