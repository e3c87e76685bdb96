"""advisor_reference._files: loaded files, the per-file and aggregate caps, and their rendering."""

from __future__ import annotations

import pytest

from advisor_reference import REFERENCE_STRINGS, LoadedFile, build_request, parse_transcript
from advisor_reference._files import CappedContent

from ._helpers import SNAPSHOT


def test_loaded_file_rejects_a_size_below_its_content():
    """A file cannot be smaller on disk than the bytes read from it; the error shows both counts."""
    with pytest.raises(ValueError) as info:
        LoadedFile("a.txt", b"abc", 2)
    assert "2" in str(info.value) and "3" in str(info.value)
    assert LoadedFile("a.txt", b"abc", 3).size == 3


def test_aggregate_cut_inside_a_marker_keeps_its_leading_bytes():
    """A file whose aggregate cut falls inside its per-file marker keeps the marker's first bytes as U+FFFD."""
    # Each 40000-byte file capped at 32768 bytes is 32768 + 30 (the marker "…[elided, 40000 bytes total]") = 32798
    # bytes. After a.txt and a 32736-byte b.txt, 98304 - 32798 - 32736 = 32770 bytes remain for c.txt: its 32768
    # bytes and the first 2 bytes of the 3-byte "…", which dangle; its new marker names its 32798 capped bytes.
    files = [
        LoadedFile("a.txt", b"a" * 32768, 40000),
        LoadedFile("b.txt", b"b" * 32736, 32736),
        LoadedFile("c.txt", b"c" * 32768, 40000),
    ]
    final = build_request(parse_transcript(SNAPSHOT), "", files)[-1].content
    assert final == (
        "File: a.txt\n```\n"
        + "a" * 32768
        + "\u2026[elided, 40000 bytes total]\n```\n\n"
        + "File: b.txt\n```\n"
        + "b" * 32736
        + "\n```\n\n"
        + "File: c.txt\n```\n"
        + "c" * 32768
        + "\ufffd\ufffd\u2026[elided, 32798 bytes total]\n```\n\n"
        + REFERENCE_STRINGS.guidance_request
    )


@pytest.mark.parametrize(
    "content",
    [CappedContent(b"abc"), CappedContent(b"ab", "\u2026[elided, 9 bytes total]")],
    ids=["plain", "with-marker"],
)
def test_cutting_content_to_its_own_length_leaves_it_unchanged(content):
    """Content that already fits the limit is not elided, so it gains no marker."""
    assert content.cut(len(content)) == content
    assert content.cut(len(content) + 1) == content
