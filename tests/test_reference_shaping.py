"""Unit tests of the reference's request shaping helpers: elision, file caps, Go JSON numbers, builder seams."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from advisor_reference import (
    REFERENCE_STRINGS,
    LoadedFile,
    ProviderAnswer,
    RenderedMessage,
    RequestBuilder,
    build_request,
    cap_arguments,
    elide_bytes,
    go_json,
    parse_transcript,
)
from advisor_reference._files import CappedContent
from advisor_reference.adapter import ReferenceAdapter

ELLIPSIS = "\u2026".encode()  # U+2026 is the three bytes E2 80 A6
SNAPSHOT = [{"role": "user", "content": "Fix the bug."}]


# --- elide_bytes ------------------------------------------------------------------------------------------------------

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


# --- cap_arguments' default rule --------------------------------------------------------------------------------------

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


# --- go_json numbers --------------------------------------------------------------------------------------------------

def test_go_json_writes_positive_zero_without_a_sign():
    """A float zero is written ``0`` (only a negative zero carries the minus sign)."""
    assert go_json(0.0) == "0"
    assert go_json({"x": 0.0, "y": -0.0}) == '{"x":0,"y":-0}'


@pytest.mark.parametrize("number, shown", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_go_json_error_names_the_number_json_cannot_carry(number, shown):
    """Encoding NaN or an infinity fails with a message naming the value."""
    with pytest.raises(ValueError, match=f"^JSON cannot carry {shown}$"):
        go_json(number)


# --- the aggregate file cap -------------------------------------------------------------------------------------------

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
        "File: a.txt\n```\n" + "a" * 32768 + "\u2026[elided, 40000 bytes total]\n```\n\n"
        + "File: b.txt\n```\n" + "b" * 32736 + "\n```\n\n"
        + "File: c.txt\n```\n" + "c" * 32768 + "\ufffd\ufffd\u2026[elided, 32798 bytes total]\n```\n\n"
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


# --- the request builder's seams --------------------------------------------------------------------------------------

def test_build_without_a_question_has_no_question_block():
    """RequestBuilder.build called with only a snapshot ends on the bare request for guidance."""
    messages = RequestBuilder().build(parse_transcript(SNAPSHOT))
    assert messages[-1] == RenderedMessage("user", REFERENCE_STRINGS.guidance_request)


def test_builder_variant_that_loses_a_capped_file_fails_loudly():
    """A builder whose cap_files returns fewer contents than files raises instead of leaving a file out."""

    class Dropping(RequestBuilder):
        def cap_files(self, files, deduped):
            return super().cap_files(files, deduped)[:-1]

    files = [LoadedFile("a.txt", b"a", 1), LoadedFile("b.txt", b"b", 1)]
    with pytest.raises(ValueError):
        Dropping().build(parse_transcript(SNAPSHOT), "", files)


class _AnsweringHttp:
    """Stands in for HttpProvider: answers every request without a network."""

    def __init__(self, kind, base_url, *, api_key="", timeout=60.0):
        self.kind = kind

    def complete(self, request):
        return ProviderAnswer(f"answered over {self.kind}")

    def close(self):
        pass


def test_scenario_uses_the_adapters_builder_and_http_provider_class():
    """An adapter variant's scenario builds requests with its own strings and reaches its own HTTP provider class."""

    class Variant(ReferenceAdapter):
        strings = replace(REFERENCE_STRINGS, system_prompt="A variant's own system prompt.")
        http_provider_class = _AnsweringHttp

    out = Variant().scenario({
        "runtime": {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:1"}},
        "steps": [{"call": {"input": {}, "snapshot": SNAPSHOT}}],
    })
    assert out["calls"] == [{"result": "answered over openai"}]
    (request,) = out["provider_requests"]
    assert request["messages"][0] == {"role": "system", "content": "A variant's own system prompt."}
