"""Dedupe of caller files against full reads in the snapshot (spec: Payload shaping; clarifications §1, §4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check
from advisor_conformance.shaping import (
    Deduped,
    check_segments,
    file_param,
    file_segments,
    files_part,
    final,
    match_parts,
    params,
    shape,
)

CONTENT = b"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
PATH = "cmd/main.go"


def _read(path, data=CONTENT, name="read", **fields):
    return {"role": "tool", "name": name, "tool_call_id": "call_r", "content": oracle.read_result(path, data, **fields)}


def _transcript(*reads):
    out = [{"role": "user", "content": "look at main.go"}]
    for read in reads:
        out.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_r", "name": read["name"], "arguments": {"path": PATH}}]})
        out.append(read)
    return out


def _files_part(impl, strings, request, rule):
    return files_part(final(shape(impl, request, rule)), strings, input=request)


def _assert_deduped(impl, strings, request, rule, path=PATH, data=CONTENT, others=()):
    """The files part is the deduped block of ``path`` (its layout the implementation's), then ``others`` whole."""
    got = _files_part(impl, strings, request, rule)
    # Sent whole, the file was not deduped: the rule's. Any other departure is the deduped block's layout's or
    # the following files'.
    check(not got.startswith(oracle.file_block(path, data)), rule,
          "the file was sent whole though the snapshot holds a matching full read", input=request, actual=got)
    segments = [(Deduped(path, data.decode("utf-8", "replace")), "dedupe.notice"),
                *(segment for p, d in others for segment in file_segments(p, d, "files.render-format"))]
    check_segments(got, segments, strings, "the file was not deduped as the declared block", input=request)


def _assert_sent(impl, strings, request, rule, data=CONTENT, path=PATH, sent=None, shown=None):
    """The files part is ``path`` sent with its content (``sent``: as capped; by default ``data`` whole): a deduped
    block there breaks ``rule``; any other departure is blamed on the part of the file block where it departs."""
    got = _files_part(impl, strings, request, rule)
    shown = request if shown is None else shown
    deduped = match_parts(got, [Deduped(path, data.decode("utf-8", "replace"))], strings) is None
    check(not deduped, rule, "the file was deduped, but it must be sent with its content", input=shown, actual=got)
    check_segments(got, file_segments(path, data if sent is None else sent, rule), strings,
                   "the file is not sent with its content", input=shown)


@pytest.mark.rule(id="dedupe.full-read-match")
def test_file_matching_a_full_read_is_deduped(impl, strings):
    """A file whose hash matches the latest full read of its path is sent without content."""
    request = params(_transcript(_read(PATH)), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.full-read-match")


@pytest.mark.rule(id="dedupe.full-read-match")
def test_changed_file_is_sent(impl, strings):
    """A file whose content changed since the full read is sent with its content."""
    changed = CONTENT.replace(b"hi", b"bye")
    request = params(_transcript(_read(PATH)), files=[file_param(PATH, changed)])
    _assert_sent(impl, strings, request, "dedupe.full-read-match", data=changed)


@pytest.mark.rule(id="dedupe.full-read-match")
def test_read_of_another_path_does_not_dedupe(impl, strings):
    """A full read of another path with the same content does not dedupe the file."""
    request = params(_transcript(_read("cmd/other.go")), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-match")


@pytest.mark.rule(id="dedupe.full-read-match")
@pytest.mark.parametrize("read_path", ["internal/cmd/main.go", "/home/dev/project/cmd/main.go", "xcmd/main.go", "main.go"],
                         ids=["longer-relative", "absolute", "longer-name", "base-name"])
def test_read_of_a_path_sharing_its_tail_does_not_dedupe(impl, strings, read_path):
    """A full read of a path that only shares the display path's tail (or is its base name) does not dedupe the file."""
    request = params(_transcript(_read(read_path)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-match")


@pytest.mark.rule(id="dedupe.full-read-match")
@given(data=st.one_of(st.text(max_size=200).map(str.encode), st.binary(max_size=64)),
       others=st.lists(s.display_paths(), max_size=3))
def test_any_content_matching_its_full_read_is_deduped(impl, strings, data, others):
    """Whatever the bytes, a file equal to its latest full read is deduped and other files are sent."""
    transcript = _transcript(_read(PATH, data))
    others = [p for p in others if p != PATH]
    files = [file_param(PATH, data)] + [file_param(p, b"x") for p in others]
    request = params(transcript, files=files)
    _assert_deduped(impl, strings, request, "dedupe.full-read-match", data=data, others=[(p, b"x") for p in others])


@pytest.mark.rule(id="dedupe.most-recent-full-read")
def test_newer_full_read_wins(impl, strings):
    """When a newer full read of the path has another hash, an older matching one does not dedupe."""
    newer = CONTENT + b"// edited\n"
    request = params(_transcript(_read(PATH), _read(PATH, newer)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.most-recent-full-read")


@pytest.mark.rule(id="dedupe.most-recent-full-read")
def test_file_reverted_to_the_newest_full_read_is_deduped(impl, strings):
    """A file matching the newest full read is deduped even if an older read differs."""
    older = CONTENT + b"// old\n"
    request = params(_transcript(_read(PATH, older), _read(PATH)), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.most-recent-full-read")


@pytest.mark.rule(id="dedupe.most-recent-full-read")
def test_partial_reads_are_skipped(impl, strings):
    """A newer partial read does not hide the latest full read."""
    partial = _read(PATH, CONTENT + b"more\n", end=2)
    request = params(_transcript(_read(PATH), partial), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.most-recent-full-read")


@pytest.mark.rule(id="dedupe.over-cap-never")
@pytest.mark.parametrize("size", [32769, 40000])
def test_files_over_the_cap_are_never_deduped(impl, strings, size):
    """A file over 32768 bytes is sent capped even when a full read with its exact hash is in the snapshot."""
    data = (b"line of text\n" * 4000)[:size]
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, request, "dedupe.over-cap-never", data=data, sent=oracle.elide_bytes(data, 32768),
                 shown={"files": [{"path": PATH, "bytes": size}]})


@pytest.mark.rule(id="dedupe.over-cap-never")
def test_file_of_exactly_the_cap_can_be_deduped(impl, strings):
    """A file of exactly 32768 bytes is not over the cap, so it is deduped."""
    data = (b"line of text\n" * 4000)[:32768]
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_deduped(impl, strings, request, "dedupe.over-cap-never", data=data)


@pytest.mark.rule(id="dedupe.read-result-shape")
@pytest.mark.parametrize("tool", ["grep", "cat", "Read"])
def test_only_the_read_tool_counts(impl, strings, tool):
    """A result of another tool, even in the read object's shape, is not a read."""
    request = params(_transcript(_read(PATH, name=tool)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.read-result-shape")


@pytest.mark.rule(id="dedupe.read-result-shape")
def test_read_with_next_offset_is_still_a_read(impl, strings):
    """The optional next_offset field does not stop a full read from counting."""
    content = json.loads(oracle.read_result(PATH, CONTENT))
    content["next_offset"] = 0
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": json.dumps(content)}
    request = params(_transcript(read), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.read-result-shape")


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize(
    "fields",
    [{"start": 2}, {"end": 3, "total": 5}, {"end": 0, "total": 0}, {"start": 1, "end": 6, "total": 5}],
    ids=["starts-at-line-2", "ends-early", "zero-lines", "ends-past-total"],
)
def test_partial_reads_do_not_dedupe(impl, strings, fields):
    """A read that is not from line 1 to the last line of a non-empty file is not full."""
    request = params(_transcript(_read(PATH, **fields)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-definition")


@pytest.mark.rule(id="dedupe.full-read-definition")
def test_line_truncated_output_does_not_dedupe(impl, strings):
    """A read whose output holds the declared line-truncation marker is not full."""
    output = oracle.go_decode(CONTENT).replace("println", "println" + strings["line_truncation_marker"])
    request = params(_transcript(_read(PATH, output=output)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-definition")


@pytest.mark.rule(id="dedupe.undecodable-never-full")
@pytest.mark.parametrize(
    "content",
    [
        "[compacted] the agent read cmd/main.go (5 lines)",
        "",
        "[]",
        '{"path": "cmd/main.go", "start_line": "1", "end_line": 5, "total_lines": 5, "file_hash": "X", "output": ""}',
        '{"path": "cmd/main.go", "start_line": 1.5, "end_line": 5, "total_lines": 5, "file_hash": "X", "output": ""}',
        '{"path": "cmd/main.go", "start_line": 1, "end_line": 5, "total_lines": 5, "file_hash": 7, "output": ""}',
    ],
    ids=["summary", "empty", "array", "string-line", "fractional-line", "numeric-hash"],
)
def test_undecodable_results_never_dedupe(impl, strings, content):
    """A read result that does not decode as the read object never dedupes, even with a matching hash."""
    content = content.replace('"X"', json.dumps(oracle.file_hash(CONTENT)))
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": content}
    request = params(_transcript(read), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.undecodable-never-full")


@pytest.mark.rule(id="dedupe.file-hash")
def test_hash_ignores_trailing_white_space(impl, strings):
    """A read hashed over a version with trailing blanks and CRLF matches the file without them."""
    with_blanks = CONTENT.replace(b"\n", b"  \t\r\n")
    read = _read(PATH, CONTENT, digest=oracle.file_hash(with_blanks))
    request = params(_transcript(read), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.file-hash")


@pytest.mark.rule(id="dedupe.file-hash")
@pytest.mark.parametrize(
    "data, digest",
    # Checked against a bitwise CRC-32 (poly 0xEDB88320); 123456789 is the standard check value.
    [(b"", "00000000"), (b"123456789", "CBF43926"), (b"hello\n", "363A3020"), (b"a \nb\t\r\n", "18572A97"),
     (b"\xff\xfe\n", "2B33C8D2"), (b"a\x0b\nb\x0c \n", "6D341575")],
    ids=["empty", "check-value", "hello", "trailing-blanks", "binary", "vertical-tab-form-feed-kept"],
)
def test_known_hashes(impl, strings, data, digest):
    """file_hash is CRC-32 over the trailing-blank-stripped lines, as 8 upper-case hex digits."""
    read = _read("f.txt", data, digest=digest, total=1)
    request = params(_transcript(read), files=[file_param("f.txt", data)])
    _assert_deduped(impl, strings, request, "dedupe.file-hash", path="f.txt", data=data)


# Bytes that white-space stripping might touch: only space, tab and \r are stripped, at line ends.
LINE_END_BYTES = [b"a", b" ", b"\t", b"\r", b"\n", b"\x0b", b"\x0c", b"\x00", b"\x85", b"\xa0", "\u3000".encode()]


@pytest.mark.rule(id="dedupe.file-hash")
@given(data=st.one_of(st.binary(max_size=300), st.lists(st.sampled_from(LINE_END_BYTES), max_size=40).map(b"".join)))
def test_hash_of_any_content(impl, strings, data):
    """A read carrying the CRC-32 of the normalised content dedupes that content, and a different hash does not."""
    good = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_deduped(impl, strings, good, "dedupe.file-hash", data=data)
    other = format((int(oracle.file_hash(data), 16) + 1) % 2**32, "08X")
    bad = params(_transcript(_read(PATH, data, digest=other)), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, bad, "dedupe.file-hash", data=data)


@pytest.mark.rule(id="dedupe.notice")
def test_notice_names_the_path_and_carries_no_content(impl, strings):
    """A deduped file's block names its path and carries the declared notice and none of its content (in the
    declared layout, where the implementation declares one)."""
    request = params(_transcript(_read(PATH)), files=[file_param(PATH, CONTENT)])
    got = _files_part(impl, strings, request, "dedupe.notice")
    problem = match_parts(got, [Deduped(PATH, CONTENT.decode())], strings)
    check(problem is None, "dedupe.notice", f"the deduped file's block is wrong: {problem}", input=request, actual=got)
    check("println" not in got, "dedupe.notice", "the deduped file's content was sent", input=request, actual=got)
