"""Caller files: the count, the caps and the rendering (spec: Payload shaping; clarifications §3, §4)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import RuleViolation, check_equal
from advisor_conformance.shaping import (
    Deduped,
    check_segments,
    file_param,
    file_segments,
    files_part,
    final,
    params,
    shape,
    shape_error,
)

from ..common.shaped import files_part_of

SNAPSHOT = [{"role": "user", "content": "review these files"}]
KIB32 = 32768


def _files_block(got, strings, rules, request):
    """The files part of a trailing message that holds only files and the guidance request."""
    return files_part(got, strings, input=request)


def _blocks(files, rules):
    """The segments of ``files`` (path, content sent) rendered one after another, the contents blamed on ``rules``."""
    return [segment for path, content in files for segment in file_segments(path, content, rules)]


def _check_file_block(got, path, content, rule, strings, what, **context):
    """``got`` is one file block of ``path`` holding ``content`` (bytes sent), each difference blamed on the segment
    where it departs; a content that runs on past its end under a right frame is blamed on ``rule`` alone."""
    try:
        check_segments(got, _blocks([(path, content)], rule), strings, what, **context)
    except RuleViolation as violation:
        head, tail = f"File: {path}\n```\n", "\n```\n\n"
        framed = got.startswith(head) and got.endswith(tail) and len(got) >= len(head) + len(tail)
        if framed and len(violation.rules) > 1:
            check_segments(got[len(head):len(got) - len(tail)], [(oracle.go_decode(content), rule)], strings, what,
                           **context)
        raise


def _render(impl, strings, files, rule, transcript=SNAPSHOT):
    """The files part of the trailing message for ``files`` (``(path, data, size)`` triples, size None for the
    length of the data), and the request."""
    request = params(transcript, files=[file_param(path, data, size) for path, data, size in files])
    return files_part_of(impl, strings, request, rule), request


def _check_lone_file(impl, strings, data, size, rule, what):
    """Control: one file alone renders as the caps say, each difference blamed on ``rule``."""
    got, request = _render(impl, strings, [("control.txt", data, size)], rule)
    expected = oracle.cap_files([(data, len(data) if size is None else size)])[0]
    _check_file_block(got, "control.txt", expected, rule, strings, what,
                      input={"files": [{"path": "control.txt", "bytes": len(data), "size": size}]})


def _per_file_control(impl, strings, sizes):
    """Control: a lone file of each size at or over 32768 bytes renders as the per-file cap says (files.per-file-cap),
    so that a wrong per-file cap is never blamed on the rule under test."""
    for size in sorted({size for size in sizes if size >= KIB32}):
        _check_lone_file(impl, strings, b"c" * size, None, "files.per-file-cap",
                         f"a lone {size}-byte file does not follow the per-file cap")


def _true_size_control(impl, strings, read, size):
    """Control: a lone capped read's marker carries the size on disk (files.true-size)."""
    _per_file_control(impl, strings, [read])
    _check_lone_file(impl, strings, b"t" * read, size, "files.true-size",
                     f"a lone {read}-byte read of a {size}-byte file does not carry the true size")


def _whole_utf8(data):
    """Whether ``data`` is valid UTF-8 (no character cut at its end)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode_control(impl, strings, data):
    """Control: a lone file of ``data`` that is not valid UTF-8 keeps its valid UTF-8 and writes each invalid byte as
    one U+FFFD (files.invalid-utf8), so that a wrong decoding is never blamed on the rule under test. Valid UTF-8 has
    no invalid byte: how its text is rendered is the rule under test's."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        _check_lone_file(impl, strings, data, None, "files.invalid-utf8",
                         "a lone file of these bytes is not their UTF-8 text with one U+FFFD per invalid byte")


@pytest.mark.rule(id="files.max-count")
def test_eight_files_are_accepted(impl):
    """A call with exactly 8 files is shaped."""
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", f"file {i}\n") for i in range(8)])
    shape(impl, request, "files.max-count")


@pytest.mark.rule(id="files.max-count")
@pytest.mark.parametrize("paths", [[], ["one.txt"], ["same.txt"] * 8], ids=["none", "one", "eight-copies"])
def test_up_to_eight_files_are_accepted(impl, paths):
    """No file, one file and eight copies of one path are all within the count."""
    request = params(SNAPSHOT, files=[file_param(path, f"file {i}\n") for i, path in enumerate(paths)])
    shape(impl, request, "files.max-count")


@pytest.mark.rule(id="files.max-count")
@pytest.mark.parametrize("count", [8, 9])
def test_deduped_files_count(impl, count):
    """Files the snapshot already holds count like any other: 8 are accepted, 9 are too many."""
    source = b"print('hello')\n"
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r",
            "content": oracle.read_result("hello.py", source)}
    files = [file_param("hello.py", source)] * 2 + [file_param(f"f{i}.txt", "x") for i in range(count - 2)]
    request = params([*SNAPSHOT, read], files=files)
    if count <= 8:
        shape(impl, request, "files.max-count")
        return
    error = shape_error(impl, request, "files.max-count")
    check_equal(error["code"], "too_many_files", "files.max-count", "deduped files were not counted", input=request)


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
@pytest.mark.parametrize("size", [0, 1, KIB32 - 1, KIB32])
def test_files_up_to_the_cap_are_whole(impl, strings, size):
    """A file of at most 32768 bytes is rendered whole."""
    data = (b"a" * (size - 1) + b"\n") if size else b""
    request = params(SNAPSHOT, files=[file_param("big.txt", data)])
    got = _files_block(final(shape(impl, request, "files.per-file-cap")), strings, "files.per-file-cap", request)
    _check_file_block(got, "big.txt", data, "files.per-file-cap", strings, f"a {size}-byte file was not sent whole",
                      input={"files": [{"path": "big.txt", "bytes": size}]})


@pytest.mark.rule(id="files.per-file-cap")
@pytest.mark.parametrize("size", [KIB32 + 1, 50000])
def test_files_over_the_cap_are_elided(impl, strings, size):
    """A file over 32768 bytes is its first 32768 bytes and the marker with its size."""
    data = (b"0123456789abcdef" * 4000)[:size]
    request = params(SNAPSHOT, files=[file_param("big.txt", data)])
    got = _files_block(final(shape(impl, request, "files.per-file-cap")), strings, "files.per-file-cap", request)
    _check_file_block(got, "big.txt", data[:KIB32] + oracle.marker(size).encode(), "files.per-file-cap", strings,
                      f"a {size}-byte file was not capped at 32768 bytes",
                      input={"files": [{"path": "big.txt", "bytes": size}]})


@pytest.mark.rule(id="files.per-file-cap")
@pytest.mark.parametrize("text", ["\u20ac" * 10922 + "ab", "\U0001F600" * 8200, "a" * 32767 + "\u20ac" * 4,
                                  "a" * 32765 + "\U0001F600" * 3],
                         ids=["multibyte-at-cap", "four-byte-over-cap", "split-one-dangling", "split-three-dangling"])
def test_cap_counts_bytes_not_characters(impl, strings, text):
    """The per-file cap counts UTF-8 bytes: the cut falls at byte 32768, a split character's bytes as U+FFFD."""
    data = text.encode("utf-8")
    dangling = next((data[KIB32 - n:KIB32] for n in range(4) if _whole_utf8(data[:KIB32 - n])), b"")
    _decode_control(impl, strings, "".join(sorted(set(text))).encode() + (dangling if len(data) > KIB32 else b""))
    request = params(SNAPSHOT, files=[file_param("text.md", data)])
    got = _files_block(final(shape(impl, request, "files.per-file-cap")), strings, "files.per-file-cap", request)
    _check_file_block(got, "text.md", oracle.elide_bytes(data, KIB32), "files.per-file-cap", strings,
                      f"a file of {len(text)} characters and {len(data)} bytes was not capped at byte 32768",
                      input={"files": [{"path": "text.md", "text": f"{len(text)} characters, {len(data)} bytes"}]})


@pytest.mark.rule(id="files.true-size")
@pytest.mark.parametrize("read, size", [(KIB32, 4 * 1024**3), (100, 4 * 1024**3), (KIB32, KIB32 + 1), (KIB32, KIB32),
                                        (40000, 40000)],
                         ids=["capped-read", "short-prefix", "one-byte-over", "read-fills-reader", "whole-read-over"])
def test_marker_reports_the_size_on_disk(impl, strings, read, size):
    """When only a prefix was read, the marker reports the true size on disk, not the bytes read."""
    _per_file_control(impl, strings, [read])
    data = b"z" * read
    request = params(SNAPSHOT, files=[file_param("huge.log", data, size=size)])
    got = _files_block(final(shape(impl, request, "files.true-size")), strings, "files.true-size", request)
    _check_file_block(got, "huge.log", oracle.elide_bytes(data, KIB32, size), "files.true-size", strings,
                      f"the marker of a {read}-byte read of a {size}-byte file is wrong",
                      input={"files": [{"path": "huge.log", "bytes": read, "size": size}]})


@pytest.mark.rule(id="files.aggregate-cap")
def test_four_full_files_leave_the_fourth_as_a_marker(impl, strings):
    """Three full 32 KiB files use up the 96 KiB; a fourth renders as a marker only."""
    _per_file_control(impl, strings, [KIB32])
    datas = [bytes([ord("a") + i]) * KIB32 for i in range(4)]
    request = params(SNAPSHOT, files=[file_param(f"f{i}.txt", d) for i, d in enumerate(datas)])
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    expected = [*((f"f{i}.txt", d) for i, d in enumerate(datas[:3])), ("f3.txt", oracle.marker(KIB32).encode())]
    check_segments(got, _blocks(expected, "files.aggregate-cap"), strings,
                   "the fourth full file was not reduced to a marker", input=request)


@pytest.mark.rule(id="files.aggregate-cap")
def test_overflowing_file_is_elided_to_what_remains(impl, strings):
    """A file that overflows what remains is cut there; its marker counts its per-file-capped length."""
    _per_file_control(impl, strings, [40000])
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
@example(pairs=[(f"f{i}.txt", bytes([97 + i]) * 9000) for i in range(8)]).via("files.aggregate-cap:under-total")
@example(pairs=[("small.txt", b"s" * 10), *((f"f{i}.txt", bytes([97 + i]) * 40000) for i in range(3))]).via(
    "files.aggregate-cap:small-file-first")
@given(pairs=s.files(max_size=8))
def test_aggregate_cap_in_order(impl, strings, pairs):
    """Files are capped one by one and then share 98304 bytes in order, as the aggregate rule states."""
    request = params(SNAPSHOT, files=[file_param(path, data) for path, data in pairs])
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    contents = oracle.cap_files([(data, len(data)) for _, data in pairs])
    expected = _blocks([(path, content) for (path, _), content in zip(pairs, contents, strict=True)], "files.aggregate-cap")
    try:
        check_segments(got, expected, strings, "the files do not follow the per-file and aggregate caps",
                       input=request)
    except RuleViolation:
        _per_file_control(impl, strings, [len(data) for _, data in pairs])  # a wrong per-file cap is blamed there
        raise


AGGREGATE_CASES = {
    "eight-fill-exactly": [12288] * 8,
    "eight-one-byte-over": [12288] * 7 + [12289],
    "one-byte-remains": [KIB32, KIB32, KIB32 - 1, 5],
    "cut-inside-marker": [KIB32, KIB32 - 10, 40000],
    "cut-splits-marker-ellipsis": [KIB32, KIB32 - 1, 40000],
    "spent-after-overflow": [40000, 40000, 40000, 100, 0],
}


@pytest.mark.rule(id="files.aggregate-cap")
@pytest.mark.parametrize("sizes", list(AGGREGATE_CASES.values()), ids=list(AGGREGATE_CASES))
def test_aggregate_boundaries(impl, strings, sizes):
    """The files fill 98304 bytes in order: a file that fits exactly is whole, one that overflows is cut to what
    remains (inside its per-file marker, if that is where the cut falls), and after an overflow nothing remains."""
    _per_file_control(impl, strings, sizes)
    _decode_control(impl, strings, "\u2026[elided".encode() + b"\xe2")  # what a cut inside a marker leaves
    pairs = [(f"f{i}.txt", bytes([97 + i]) * size) for i, size in enumerate(sizes)]
    got, request = _render(impl, strings, [(path, data, None) for path, data in pairs], "files.aggregate-cap")
    contents = oracle.cap_files([(data, len(data)) for _, data in pairs])
    expected = _blocks([(path, content) for (path, _), content in zip(pairs, contents, strict=True)], "files.aggregate-cap")
    check_segments(got, expected, strings, f"files of {sizes} bytes do not share the 98304 bytes in order",
                   input={"files": [{"path": path, "bytes": len(data)} for path, data in pairs]})


@pytest.mark.rule(id="files.aggregate-cap")
def test_capped_reads_share_the_total_by_their_capped_length(impl, strings):
    """Capped reads of huge files count their per-file-capped length against the 98304 bytes, not their true size."""
    size = 4 * 1024**3
    _true_size_control(impl, strings, KIB32, size)
    files = [(f"huge{i}.log", bytes([97 + i]) * KIB32, size) for i in range(3)]
    got, request = _render(impl, strings, files, "files.aggregate-cap")
    contents = oracle.cap_files([(data, size) for _, data, size in files])
    # Each is 32768 bytes and a 35-byte marker: 98304 - 2 * 32803 = 32698 bytes remain for the third.
    expected = _blocks([(path, content) for (path, _, _), content in zip(files, contents, strict=True)], "files.aggregate-cap")
    check_segments(got, expected, strings, "capped reads did not share the total by their length",
                   input={"files": [{"path": path, "bytes": len(data), "size": size} for path, data, size in files]})


@pytest.mark.rule(id="files.render-format")
@example(path="src/app.py", text="x = 1").via("files.render-format:plain")
@example(path="empty.txt", text="").via("files.render-format:empty-content")
@example(path="notes.md", text="line one\nline two\n").via("files.render-format:trailing-newline")
@example(path="README.md", text="```python\ncode\n```").via("files.render-format:fence-inside")
@example(path="win.txt", text="a\r\nb\r\n").via("files.render-format:crlf")
@example(path="docs/na\u00efve notes.md", text="caf\u00e9").via("files.render-format:path-with-space-and-accent")
@given(path=s.display_paths(), text=s.texts(max_size=80))
def test_file_block_format(impl, strings, path, text):
    """A file renders as `File: <path>`, a fence, the content, a closing fence and a blank line."""
    request = params(SNAPSHOT, files=[file_param(path, text)])
    got = _files_block(final(shape(impl, request, "files.render-format")), strings, "files.render-format", request)
    if got != f"File: {path}\n```\n{text}\n```\n\n":
        _decode_control(impl, strings, text.encode())  # a wrong decoding of the content is files.invalid-utf8's
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
     b"\x80\x80\x80", b"\xf4\x90\x80\x80 too big", b"\xf5\xf8\xfc\xfe x",
     b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"],
    ids=["ff-fe", "truncated-3-byte", "truncated-4-byte", "encoded-surrogate", "overlong", "lone-continuations",
         "above-max-code-point", "invalid-lead-bytes", "valid-multibyte-kept"],
)
def test_invalid_bytes_become_one_replacement_each(impl, strings, data):
    """Each byte that is not part of valid UTF-8 is written as one U+FFFD."""
    request = params(SNAPSHOT, files=[file_param("bin.dat", data)])
    got = _files_block(final(shape(impl, request, "files.invalid-utf8")), strings, "files.invalid-utf8", request)
    _check_file_block(got, "bin.dat", data, "files.invalid-utf8", strings,
                      "invalid bytes were not written as one U+FFFD each", input=request)


@pytest.mark.rule(id="files.invalid-utf8")
@example(data=b"\xff" * KIB32).via("files.invalid-utf8:invalid-at-cap")
@example(data=b"\xff" * (KIB32 + 1)).via("files.invalid-utf8:invalid-over-cap")
@example(data=b"a" * (KIB32 - 1) + b"\xe2\x82" + b"z" * 5).via("files.invalid-utf8:truncated-sequence-at-cut")
@example(data=(b"ok\xfe" * 11000)[: KIB32 + 2]).via("files.invalid-utf8:mixed-over-cap")
@given(data=st.tuples(st.binary(min_size=1, max_size=6), st.integers(KIB32 - 8, KIB32 + 8)).map(
    lambda pair: (pair[0] * (pair[1] // len(pair[0]) + 1))[: pair[1]]))
def test_caps_count_original_bytes(impl, strings, data):
    """The per-file cap counts the original bytes, before invalid ones widen to U+FFFD."""
    request = params(SNAPSHOT, files=[file_param("blob.bin", data)])
    got = _files_block(final(shape(impl, request, "files.invalid-utf8")), strings, "files.invalid-utf8", request)
    try:
        _check_file_block(got, "blob.bin", oracle.elide_bytes(data, KIB32), "files.invalid-utf8", strings,
                          "the cap did not count the file's original bytes",
                          input={"files": [{"path": "blob.bin", "bytes": len(data)}]})
    except RuleViolation:
        _per_file_control(impl, strings, [len(data)])  # a wrong per-file cap is blamed there
        raise


@pytest.mark.rule(id="files.aggregate-cap")
@pytest.mark.needs(areas=["dedupe"])
def test_deduped_file_takes_none_of_the_aggregate(impl, strings):
    """A deduped file uses none of the 96 KiB, so three full files after it still fit."""
    _per_file_control(impl, strings, [KIB32])
    big = [bytes([ord("a") + i]) * 32768 for i in range(3)]
    source = b"print('hello')\n"
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": oracle.read_result("hello.py", source)}
    files = [file_param("hello.py", source)] + [file_param(f"f{i}.txt", d) for i, d in enumerate(big)]
    request = params([*SNAPSHOT, read], files=files)
    got = _files_block(final(shape(impl, request, "files.aggregate-cap")), strings, "files.aggregate-cap", request)
    segments = [(Deduped("hello.py", source.decode()), "dedupe.notice"),
                *_blocks([(f"f{i}.txt", d) for i, d in enumerate(big)], "files.aggregate-cap")]
    check_segments(got, segments, strings, "the three full files after a deduped one are not whole", input=request)
