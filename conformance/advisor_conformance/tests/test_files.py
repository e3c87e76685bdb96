"""Caller files: the count, the caps and the rendering (spec: Payload shaping; clarifications §3, §4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check_equal
from advisor_conformance.shaping import (Deduped, check_segments, file_param, file_segments, files_part, final,
                                         params, shape, shape_error)

SNAPSHOT = [{"role": "user", "content": "review these files"}]
KIB32 = 32768


def _files_block(got, strings, rules, request):
    """The files part of a trailing message that holds only files and the guidance request."""
    return files_part(got, strings, input=request)


def _blocks(files, rules):
    """The segments of ``files`` (path, content sent) rendered one after another, the contents blamed on ``rules``."""
    return [segment for path, content in files for segment in file_segments(path, content, rules)]


@pytest.mark.rule(id="files.max-count")
def test_eight_files_are_accepted(impl):
    """A call with exactly 8 files is shaped."""
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", f"file {i}\n") for i in range(8)])
    shape(impl, request, "files.max-count")


@pytest.mark.rule(id="files.max-count")
@pytest.mark.parametrize("count", [9, 12])
def test_more_than_eight_files_are_rejected(impl, count):
    """A call with more than 8 files is an error with the code too_many_files."""
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", "x") for i in range(count)])
    error = shape_error(impl, request, "files.max-count")
    check_equal(error["code"], "too_many_files", "files.max-count", f"{count} files gave the wrong error",
                input=request)


@pytest.mark.rule(id="files.max-count")
def test_duplicate_paths_count(impl):
    """Nine copies of one path count as nine files."""
    request = params(SNAPSHOT, files=[file_param("same.txt", "x")] * 9)
    error = shape_error(impl, request, "files.max-count")
    check_equal(error["code"], "too_many_files", "files.max-count", "duplicate paths were not counted", input=request)


@pytest.mark.rule(id="files.per-file-cap")
@pytest.mark.parametrize("size", [KIB32 - 1, KIB32])
def test_files_up_to_the_cap_are_whole(impl, strings, size):
    """A file of at most 32768 bytes is rendered whole."""
    data = b"a" * (size - 1) + b"\n"
    request = params(SNAPSHOT, files=[file_param("big.txt", data)])
    got = _files_block(final(shape(impl, request, "files.per-file-cap")), strings, "files.per-file-cap", request)
    check_segments(got, _blocks([("big.txt", data)], "files.per-file-cap"), strings,
                   f"a {size}-byte file was not sent whole", input=request)


@pytest.mark.rule(id="files.per-file-cap")
@pytest.mark.parametrize("size", [KIB32 + 1, 50000])
def test_files_over_the_cap_are_elided(impl, strings, size):
    """A file over 32768 bytes is its first 32768 bytes and the marker with its size."""
    data = (b"0123456789abcdef" * 4000)[:size]
    request = params(SNAPSHOT, files=[file_param("big.txt", data)])
    got = _files_block(final(shape(impl, request, "files.per-file-cap")), strings, "files.per-file-cap", request)
    expected = _blocks([("big.txt", data[:KIB32] + oracle.marker(size).encode())], "files.per-file-cap")
    check_segments(got, expected, strings, f"a {size}-byte file was not capped at 32768 bytes", input=request)


@pytest.mark.rule(id="files.true-size")
@pytest.mark.parametrize("read", [KIB32, 100], ids=["capped-read", "short-prefix"])
def test_marker_reports_the_size_on_disk(impl, strings, read):
    """When only a prefix was read, the marker reports the true size on disk, not the bytes read."""
    data = b"z" * read
    request = params(SNAPSHOT, files=[file_param("huge.log", data, size=4 * 1024**3)])
    got = _files_block(final(shape(impl, request, "files.true-size")), strings, "files.true-size", request)
    expected = _blocks([("huge.log", data + oracle.marker(4 * 1024**3).encode())], "files.true-size")
    check_segments(got, expected, strings, "the marker does not carry the true size", input=request)


@pytest.mark.rule(id="files.aggregate-cap")
def test_four_full_files_leave_the_fourth_as_a_marker(impl, strings):
    """Three full 32 KiB files use up the 96 KiB; a fourth renders as a marker only."""
    datas = [bytes([ord("a") + i]) * KIB32 for i in range(4)]
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", d) for i, d in enumerate(datas)])
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    expected = [*((f"f{i}.txt", d) for i, d in enumerate(datas[:3])), ("f3.txt", oracle.marker(KIB32).encode())]
    check_segments(got, _blocks(expected, "files.aggregate-cap"), strings,
                   "the fourth full file was not reduced to a marker", input=request)


@pytest.mark.rule(id="files.aggregate-cap")
def test_overflowing_file_is_elided_to_what_remains(impl, strings):
    """A file that overflows what remains is cut there; its marker counts its per-file-capped length."""
    datas = [b"a" * 40000, b"b" * 40000, b"c" * 40000, b"d" * 10]
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", d) for i, d in enumerate(datas)])
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    # Per-file cap: 32768 bytes + "…[elided, 40000 bytes total]" (30 bytes) = 32798 bytes each.
    capped = [d[:KIB32] + "\u2026[elided, 40000 bytes total]".encode() for d in datas[:3]]
    assert all(len(c) == 32798 for c in capped)
    # 98304 - 2 * 32798 = 32708 bytes remain for the third file; nothing remains for the fourth.
    expected = [("f0.txt", capped[0]), ("f1.txt", capped[1]),
                ("f2.txt", capped[2][:32708] + "\u2026[elided, 32798 bytes total]".encode()),
                ("f3.txt", "\u2026[elided, 10 bytes total]".encode())]
    check_segments(got, _blocks(expected, "files.aggregate-cap"), strings,
                   "the aggregate cap was not applied in order", input=request)


@pytest.mark.rule(id="files.aggregate-cap")
@given(pairs=s.files(max_size=8))
def test_aggregate_cap_in_order(impl, strings, pairs):
    """Files are capped one by one and then share 98304 bytes in order, as the aggregate rule states."""
    request = params(SNAPSHOT, files=[file_param(path, data) for path, data in pairs])
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    contents = oracle.cap_files([(data, len(data)) for _, data in pairs])
    expected = _blocks([(path, content) for (path, _), content in zip(pairs, contents)], "files.aggregate-cap")
    check_segments(got, expected, strings, "the files do not follow the per-file and aggregate caps", input=request)


@pytest.mark.rule(id="files.render-format")
@given(path=s.display_paths(), text=st.text(max_size=80))
def test_file_block_format(impl, strings, path, text):
    """A file renders as `File: <path>`, a fence, the content, a closing fence and a blank line."""
    request = params(SNAPSHOT, files=[file_param(path, text)])
    got = _files_block(final(shape(impl, request, "files.render-format")), strings, "files.render-format", request)
    check_equal(got, f"File: {path}\n```\n{text}\n```\n\n", "files.render-format", "the file block is malformed",
                input=request)


@pytest.mark.rule(id="files.render-format")
def test_files_keep_their_order(impl, strings):
    """Files are rendered in the order given, duplicates included."""
    names = ["z.py", "a.py", "m.py", "a.py"]
    request = params(SNAPSHOT, files=[file_param(n, f"# {i}\n") for i, n in enumerate(names)])
    got = _files_block(final(shape(impl, request, "files.render-format")), strings, "files.render-format", request)
    files = [(n, f"# {i}\n".encode()) for i, n in enumerate(names)]
    check_segments(got, _blocks(files, "files.render-format"), strings, "the files are out of order",
                   order=("files.render-format", [oracle.file_block(*file) for file in files]), input=request)


@pytest.mark.rule(id="files.invalid-utf8")
@pytest.mark.parametrize(
    "data",
    [b"ok \xff\xfe end", b"\xe2\x82 cut euro", b"\xf0\x9f\x98 cut face", b"\xed\xa0\x80 surrogate", b"\xc0\xaf overlong",
     b"\x80\x80\x80"],
    ids=["ff-fe", "truncated-3-byte", "truncated-4-byte", "encoded-surrogate", "overlong", "lone-continuations"],
)
def test_invalid_bytes_become_one_replacement_each(impl, strings, data):
    """Each byte that is not part of valid UTF-8 is written as one U+FFFD."""
    request = params(SNAPSHOT, files=[file_param("bin.dat", data)])
    got = _files_block(final(shape(impl, request, "files.invalid-utf8")), strings, "files.invalid-utf8", request)
    check_segments(got, _blocks([("bin.dat", data)], "files.invalid-utf8"), strings,
                   "invalid bytes were not written as one U+FFFD each", input=request)


@pytest.mark.rule(id="files.invalid-utf8")
@given(data=st.tuples(st.binary(min_size=1, max_size=6), st.integers(KIB32 - 8, KIB32 + 8)).map(
    lambda pair: (pair[0] * (pair[1] // len(pair[0]) + 1))[: pair[1]]))
def test_caps_count_original_bytes(impl, strings, data):
    """The per-file cap counts the original bytes, before invalid ones widen to U+FFFD."""
    request = params(SNAPSHOT, files=[file_param("blob.bin", data)])
    got = _files_block(final(shape(impl, request, "files.invalid-utf8")), strings, "files.invalid-utf8", request)
    check_segments(got, _blocks([("blob.bin", oracle.elide_bytes(data, KIB32))], "files.invalid-utf8"), strings,
                   "the cap did not count the file's original bytes",
                   input={"files": [{"path": "blob.bin", "bytes": len(data)}]})


@pytest.mark.rule(id="files.aggregate-cap")
def test_deduped_file_takes_none_of_the_aggregate(impl, strings):
    """A deduped file uses none of the 96 KiB, so three full files after it still fit."""
    big = [bytes([ord("a") + i]) * 32768 for i in range(3)]
    source = b"print('hello')\n"
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": oracle.read_result("hello.py", source)}
    files = [file_param("hello.py", source)] + [file_param(f"f{i}.txt", d) for i, d in enumerate(big)]
    request = params([*SNAPSHOT, read], files=files)
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    segments = [(Deduped("hello.py", source.decode()), "dedupe.notice"),
                *_blocks([(f"f{i}.txt", d) for i, d in enumerate(big)], "files.aggregate-cap")]
    check_segments(got, segments, strings, "the three full files after a deduped one are not whole", input=request)
