"""The size-preserving elision marker and the caps that use it.

A value over its cap becomes its first ``limit`` bytes followed by
``…[elided, N bytes total]``, where N is the true length in bytes. The cut is
by bytes; dangling bytes of a split character are written as U+FFFD when the
bytes are decoded (see :mod:`reference._text`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._text import REPLACEMENT, to_valid_unicode

#: Strings inside tool-call arguments longer than this many bytes are elided (rule: elision.threshold).
MAX_TOOL_ARG_STRING_BYTES = 1000


def elision_marker(total: int) -> str:
    """The marker that follows an elided prefix: ``…[elided, N bytes total]`` (rule: elision.marker-format)."""
    return f"\u2026[elided, {total} bytes total]"


def elide_bytes(data: bytes, limit: int, total: int | None = None) -> bytes:
    """Cut ``data`` to ``limit`` bytes plus the marker when ``total`` exceeds ``limit``.

    ``total`` is the true size of the value ``data`` was read from; it defaults
    to ``len(data)``. When ``data`` was already capped at read time, passing
    the true size keeps the marker honest.
    """
    if total is None:
        total = len(data)
    if total <= limit:
        return data
    return data[:limit] + elision_marker(total).encode("utf-8")


class CutText(str):
    """An elided string whose cut split a character.

    Its value has one U+FFFD per dangling byte, as every JSON form carries it;
    ``head`` (the whole characters before the cut), ``dangling`` and
    ``marker`` let the origin encoding of tool-call arguments write those
    bytes as Go does: ``\\ufffd`` escapes.
    """

    head: str
    dangling: int
    marker: str

    @classmethod
    def of(cls, head: str, dangling: int, marker: str) -> CutText:
        text = cls(head + REPLACEMENT * dangling + marker)
        text.head, text.dangling, text.marker = head, dangling, marker
        return text


def elide_text(text: str, limit: int) -> str:
    """Elide a string by its UTF-8 byte length; dangling bytes of a split character become U+FFFD.

    rule: elision.byte-cut
    """
    # A character is at most four bytes, so short strings cannot be over the limit.
    if len(text) * 4 <= limit:
        return text
    if text.isascii():  # one byte per character: no need to encode the whole string
        return text if len(text) <= limit else text[:limit] + elision_marker(len(text))
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = elision_marker(len(data))
    # ``text`` is valid UTF-8, so at most 3 bytes of a split character dangle after the cut.
    for dangling in range(4):
        try:
            head = data[: limit - dangling].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return head + marker if dangling == 0 else CutText.of(head, dangling, marker)
    raise AssertionError("unreachable: a cut of valid UTF-8 leaves at most 3 dangling bytes")


def cap_arguments(value: Any, elide_string: Callable[[str], str] | None = None) -> Any:
    """Return a copy of a JSON value with every string value over 1000 bytes elided.

    Object keys, numbers, booleans and null are left as they are; objects and
    arrays are walked to any depth. The input is never mutated (rule: flatten.deterministic).
    ``elide_string`` replaces the rule applied to each string value.
    """
    if elide_string is None:
        elide_string = _elide_argument_string
    if isinstance(value, str):
        return elide_string(value)
    # Keys are kept (rule: elision.non-strings-unchanged); objects and arrays are walked (rule: elision.any-depth).
    if isinstance(value, dict):
        return {to_valid_unicode(key): cap_arguments(item, elide_string) for key, item in value.items()}
    if isinstance(value, list):  # rule: elision.any-depth
        return [cap_arguments(item, elide_string) for item in value]
    return value  # numbers, booleans and null (rule: elision.non-strings-unchanged)


def _elide_argument_string(text: str) -> str:
    return elide_text(to_valid_unicode(text), MAX_TOOL_ARG_STRING_BYTES)
