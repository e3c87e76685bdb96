"""What counts as a read and as a full read, and the read's file hash (clarifications §1), seen through dedupe."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance.shaping import file_param, params

from .reads import CONTENT, PATH, _assert_deduped, _assert_sent, _read, _transcript, not_full_control

# -- dedupe.read-result-shape -------------------------------------------------------------------------------------


@pytest.mark.rule(id="dedupe.read-result-shape")
def test_result_of_the_read_tool_is_a_read(impl, strings):
    """A result of the tool named read whose content is the read object is a read: as a full read, it dedupes."""
    request = params(_transcript(_read(PATH, name="read")), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.read-result-shape")


@pytest.mark.rule(id="dedupe.read-result-shape")
@pytest.mark.parametrize("tool", ["grep", "cat", "Read", "read_file", "reader"])
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


@pytest.mark.rule(id="dedupe.read-result-shape")
@pytest.mark.parametrize("role", ["user", "assistant", "system"])
def test_read_object_outside_a_tool_result_is_not_a_read(impl, strings, role):
    """A message of another role whose text is the read object is not a read."""
    transcript = [{"role": "user", "content": "look at main.go"},
                  {"role": role, "content": oracle.read_result(PATH, CONTENT)},
                  {"role": "user", "content": "and now?"}]
    request = params(transcript, files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.read-result-shape")


# -- dedupe.full-read-definition ----------------------------------------------------------------------------------


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize("data", [b"x = 1\n", CONTENT, b"a\nb"], ids=["one-line", "several-lines", "no-final-newline"])
def test_read_from_line_1_to_the_last_is_full(impl, strings, data):
    """A read from line 1 to the last of its total lines, above 0, is full and dedupes the matching file."""
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_deduped(impl, strings, request, "dedupe.full-read-definition", data=data)


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize(
    "fields",
    [{"start": 2}, {"end": 3, "total": 5}, {"end": 0, "total": 0}, {"start": 1, "end": 6, "total": 5},
     {"start": 0}, {"start": 0, "end": 4, "total": 4}, {"end": -1, "total": -1}],
    ids=["starts-at-line-2", "ends-early", "zero-lines", "ends-past-total", "starts-at-line-0", "zero-based-lines",
         "negative-lines"],
)
def test_partial_reads_do_not_dedupe(impl, strings, fields):
    """A read that is not from line 1 to the last line of a non-empty file is not full."""
    request = params(_transcript(_read(PATH, **fields)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-definition")


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize("absent", ["left-out", "null"])
@pytest.mark.parametrize("field", ["start_line", "end_line", "total_lines"])
@pytest.mark.parametrize("data", [b"x = 1\n", CONTENT], ids=["one-line", "several-lines"])
def test_read_without_a_line_field_is_not_full(impl, strings, data, field, absent):
    """A read whose start_line, end_line or total_lines is left out or null is not full, whatever the file's length."""
    # Decoded as the origin does, the field reads as 0 and the read is not from line 1 to a last line above 0;
    # decoded strictly, it is no read object at all: either way the file is sent. A port that takes a missing
    # start as line 1 or a missing end as the last line dedupes it.
    read = json.loads(oracle.read_result(PATH, data))
    if absent == "null":
        read[field] = None
    else:
        del read[field]
    message = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": json.dumps(read)}
    request = params(_transcript(message), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, request, "dedupe.full-read-definition", data=data)


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize("where", ["inside-a-line", "output-end", "output-start"])
def test_line_truncated_output_does_not_dedupe(impl, strings, where):
    """A read whose output holds the declared line-truncation marker, wherever it stands, is not full."""
    marker, text = strings["line_truncation_marker"], oracle.go_decode(CONTENT)
    output = {"inside-a-line": text.replace("println", "println" + marker), "output-end": text + marker,
              "output-start": marker + text}[where]
    request = params(_transcript(_read(PATH, output=output)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-definition")


@pytest.mark.rule(id="dedupe.full-read-definition")
@pytest.mark.parametrize("part", ["head", "tail"])
def test_output_with_part_of_the_marker_is_full(impl, strings, part):
    """An output holding the declared line-truncation marker less one character is still a full read."""
    marker, text = strings["line_truncation_marker"], oracle.go_decode(CONTENT)
    if len(marker) < 2:
        pytest.skip("the declared line-truncation marker is one character")
    output = text.replace("println", "println" + (marker[:-1] if part == "head" else marker[1:]))
    if marker in output:
        pytest.skip("the part of the marker forms the whole marker with the text around it")
    request = params(_transcript(_read(PATH, output=output)), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.full-read-definition")


# -- dedupe.undecodable-never-full --------------------------------------------------------------------------------

READ_OBJECT = ('{"path": "cmd/main.go", "start_line": 1, "end_line": 5, "total_lines": 5, "file_hash": "X", '
               '"output": ""}')


@pytest.mark.rule(id="dedupe.undecodable-never-full")
@pytest.mark.parametrize(
    "content",
    [
        "[compacted] the agent read cmd/main.go (5 lines)",
        "",
        "[]",
        "null",
        '"cmd/main.go"',
        READ_OBJECT.replace('"start_line": 1', '"start_line": "1"'),
        READ_OBJECT.replace('"start_line": 1', '"start_line": 1.5'),
        READ_OBJECT.replace('"start_line": 1', '"start_line": true'),
        READ_OBJECT.replace('"file_hash": "X"', '"file_hash": 7'),
        READ_OBJECT.replace('"output": ""', '"output": ["package main"]'),
        READ_OBJECT[:-20],
        READ_OBJECT + "\n[compacted]",
    ],
    ids=["summary", "empty", "array", "json-null", "json-string", "string-line", "fractional-line", "boolean-line",
         "numeric-hash", "array-output", "cut-short", "trailing-text"],
)
def test_undecodable_results_never_dedupe(impl, strings, content):
    """A read result that does not decode as the read object never dedupes, even with a matching hash."""
    # Control: a well-formed read that is not full does not dedupe (dedupe.full-read-definition), so a read taken
    # whole without looking at its lines is not blamed here.
    not_full_control(impl, strings, "starts-at-line-2")
    content = content.replace('"X"', json.dumps(oracle.file_hash(CONTENT)))
    read = {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": content}
    request = params(_transcript(read), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.undecodable-never-full")


# -- dedupe.file-hash ---------------------------------------------------------------------------------------------


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
     (b"\xff\xfe\n", "2B33C8D2"), (b"a\x0b\nb\x0c \n", "6D341575"), (b"x217\n", "00D9AAB4"),
     (b"  a\n\tb\n", "265D86F9"), ("a\u00a0\nb\u3000\n".encode(), "6EF99125"), (b"a\rb\n", "1D183C12"),
     (b"a\n\n\n", "B573CB38"), (b"a\nb", "EF0790FB")],
    ids=["empty", "check-value", "hello", "trailing-blanks", "binary", "vertical-tab-form-feed-kept", "leading-zeros",
         "leading-blanks-kept", "unicode-spaces-kept", "inner-carriage-return-kept", "trailing-blank-lines-kept",
         "no-final-newline"],
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
@example(data=b"one\r\ntwo\r\n").via("dedupe.file-hash:crlf")
@example(data=b" \t\r\n\n \n").via("dedupe.file-hash:only-blanks")
@example(data="naïve\u00a0\n\u3000x\n".encode()).via("dedupe.file-hash:unicode-spaces")
@example(data=b"no final newline \t").via("dedupe.file-hash:no-final-newline")
def test_hash_of_any_content(impl, strings, data):
    """A read carrying the CRC-32 of the normalised content dedupes that content, and a different hash does not."""
    good = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_deduped(impl, strings, good, "dedupe.file-hash", data=data)
    other = format((int(oracle.file_hash(data), 16) + 1) % 2**32, "08X")
    bad = params(_transcript(_read(PATH, data, digest=other)), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, bad, "dedupe.file-hash", data=data)


@pytest.mark.rule(id="dedupe.file-hash")
def test_hash_taken_without_stripping_does_not_match(impl, strings):
    """A read carrying the CRC-32 of the content with its trailing blanks kept does not match that content."""
    data = b"def f():  \n\treturn 1\t\r\n"
    unstripped = format(zlib.crc32(data), "08X")
    assert unstripped != oracle.file_hash(data)
    request = params(_transcript(_read(PATH, data, digest=unstripped)), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, request, "dedupe.file-hash", data=data)


@pytest.mark.rule(id="dedupe.file-hash")
@pytest.mark.parametrize("data", [b"123456789", b"func main() {}\n"], ids=["check-value", "go-file"])
def test_hash_in_lower_case_does_not_match(impl, strings, data):
    """file_hash is written in upper-case hex: a read carrying the content's CRC-32 in lower case holds another
    hash, so the file is sent (the hashes are compared as they are written, not case-insensitively)."""
    digest = oracle.file_hash(data)
    assert digest != digest.lower()  # a guard: the hash holds a letter
    request = params(_transcript(_read(PATH, data, digest=digest.lower())), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, request, "dedupe.file-hash", data=data)
