"""Byte-level text helpers that follow the origin's (Go's) string semantics.

Go strings are byte strings: lengths are UTF-8 byte counts, a cut can split a
character, and when such bytes are finally written as JSON every byte that is
not part of a valid UTF-8 sequence becomes one U+FFFD. Python's
``errors="replace"`` writes one U+FFFD per *maximal invalid sequence*
instead, so this module registers a small codec error handler with the
per-byte rule.
"""

from __future__ import annotations

import codecs
import re

REPLACEMENT = "\ufffd"
_ERROR_HANDLER = "advisor-per-byte-replace"


def _replace_each_byte(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):  # pragma: no cover - only registered for decoding
        raise error
    return REPLACEMENT * (error.end - error.start), error.end


codecs.register_error(_ERROR_HANDLER, _replace_each_byte)


def decode_utf8(data: bytes) -> str:
    """Decode UTF-8, writing one U+FFFD for each byte that is not part of a valid sequence.

    rule: files.invalid-utf8
    """
    return data.decode("utf-8", _ERROR_HANDLER)


# Go's unicode.IsSpace: the Latin-1 spaces plus the White_Space property above
# Latin-1. Python's str.strip() also strips U+001C..U+001F, which Go keeps, and
# JavaScript's trim() strips U+FEFF, which Go keeps too.
GO_SPACE = (
    "\t\n\v\f\r \u0085\u00a0"
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim_space(text: str) -> str:
    """Trim leading and trailing white space as Go's strings.TrimSpace does.

    rules: question.trim, inflight.block-layout, handler.note-trimmed
    """
    return text.strip(GO_SPACE)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def to_valid_unicode(text: str) -> str:
    """Replace lone surrogates (legal in JSON escapes, not in UTF-8) by U+FFFD, as Go's JSON decoder does."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(REPLACEMENT, text)
    return text
