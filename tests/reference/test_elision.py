"""advisor_reference._elision: the elision marker, byte elision, and the cap on tool-call argument strings."""

from __future__ import annotations

import pytest

from advisor_reference import build_request, cap_arguments, elide_bytes, parse_transcript

ELLIPSIS = "\u2026".encode()  # U+2026 is the three bytes E2 80 A6


@pytest.mark.parametrize(
    "data, limit, total, expected",
    [
        (b"abcdef", 4, None, b"abcd" + ELLIPSIS + b"[elided, 6 bytes total]"),
        (b"abcd", 4, None, b"abcd"),
        (b"abcd", 4, 10, b"abcd" + ELLIPSIS + b"[elided, 10 bytes total]"),
        (b"abcdef", 4, 9, b"abcd" + ELLIPSIS + b"[elided, 9 bytes total]"),
        (b"ab", 4, 4, b"ab"),
    ],
    ids=["over-limit", "at-limit", "capped-read-true-size", "true-size-overrides-length", "true-size-at-limit"],
)
def test_elide_bytes_cuts_to_the_limit_and_names_the_true_size(data, limit, total, expected):
    """Bytes whose true size exceeds the limit become the limit's prefix plus the UTF-8 marker with that size."""
    assert elide_bytes(data, limit, total) == expected


def test_cap_arguments_elides_long_strings_at_any_depth_by_default():
    """Without a custom rule, string values over 1000 bytes at any depth are cut to 1000 bytes plus the marker."""
    arguments = {"edits": [{"text": "x" * 1001, "line": 7}, "y" * 1000], "flag": None}
    assert cap_arguments(arguments) == {
        "edits": [{"text": "x" * 1000 + "\u2026[elided, 1001 bytes total]", "line": 7}, "y" * 1000],
        "flag": None,
    }


def test_cap_arguments_default_counts_bytes_and_replaces_lone_surrogates():
    """The default rule counts UTF-8 bytes, writes a split character's dangling byte and a lone surrogate as U+FFFD."""
    # "a" plus 600 two-byte characters is 1201 bytes; byte 1000 is the first half of the 500th "é".
    long_text = "a" + "\u00e9" * 600
    assert cap_arguments({"s": long_text, "lone": "\ud800"}) == {
        "s": "a" + "\u00e9" * 499 + "\ufffd" + "\u2026[elided, 1201 bytes total]",
        "lone": "\ufffd",
    }


def test_elided_argument_with_lone_surrogate():
    """A long argument string holding a lone surrogate counts it as the 3 bytes of U+FFFD when elided."""
    call = {"id": "c", "name": "edit", "arguments": {"text": "\udfff" + "x" * 1500}}
    messages = build_request(
        parse_transcript([{"role": "assistant", "tool_calls": [call]}, {"role": "user", "content": "ok"}])
    )
    assert '"text":"\ufffd' in messages[1].content and "[elided, 1503 bytes total]" in messages[1].content
