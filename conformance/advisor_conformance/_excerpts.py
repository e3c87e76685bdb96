"""Where two texts first differ, shown so that nothing of the data can be taken for the frame.

An excerpt is written as a slice of its text and a Python literal,
``expected[940:1040] 'aaa…[elided, 1001 bytes total]'``: the slice says where
it starts and ends (it is the whole text when it runs from 0 to the length),
and the quotes of the literal, which the data cannot contain unescaped, are
its frame. No character that the data may hold frames it (``…`` is the
elision marker's own). The characters where the texts part are named by code
point as well, ``U+2026 HORIZONTAL ELLIPSIS``, so that a difference nobody
can see (a no-break space, a zero-width joiner, a look-alike letter, a
dangling byte's U+FFFD) is still read.
"""

from __future__ import annotations

import unicodedata


def first_difference(expected: str, actual: str) -> int:
    """The index of the first character where the texts differ (the shorter one's length when one is a prefix)."""
    return next(
        (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), min(len(expected), len(actual))
    )


def code_point(text: str, at: int) -> str:
    """The character at ``at`` by code point and name (``U+00A0 NO-BREAK SPACE``), or ``the end of the text``."""
    if at >= len(text):
        return "the end of the text"
    name = unicodedata.name(text[at], "")
    return f"U+{ord(text[at]):04X}" + (f" {name}" if name else "")


def region(label: str, text: str, start: int, end: int, *, shift: int = 0) -> str:
    """``label[start:end] 'the characters'``, ``end`` cut to the text's length; the slice is written ``shift``
    characters on (the text is a part of a longer one that starts there)."""
    start, end = max(0, start), min(max(0, end), len(text))
    return f"{label}[{start + shift}:{end + shift}] {text[start:end]!r}"


def parting(expected: str, actual: str, at: int) -> str:
    """What each text holds where they part: ``expected U+2026 HORIZONTAL ELLIPSIS, got U+002E FULL STOP``."""
    return f"expected {code_point(expected, at)}, got {code_point(actual, at)}"


def difference(expected: str, actual: str, *, before: int = 40, after: int = 60) -> tuple[int, str]:
    """Where the texts part, and what each holds there and around it: ``(1000, "(expected U+2026 HORIZONTAL
    ELLIPSIS, got U+002E FULL STOP) expected[960:1060] '...', actual[960:1060] '...'")``."""
    at = first_difference(expected, actual)
    return at, (
        f"({parting(expected, actual, at)}) {region('expected', expected, at - before, at + after)}, "
        f"{region('actual', actual, at - before, at + after)}"
    )
