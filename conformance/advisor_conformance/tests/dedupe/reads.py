"""A transcript with a file read in it and the checks of what reaches the request, shared by the dedupe tests."""

from __future__ import annotations

from typing import Any

from advisor_conformance import oracle
from advisor_conformance.checks import check, violation
from advisor_conformance.shaping import Deduped, check_segments, file_param, file_segments, match_parts, params

from ..common.shaped import files_part_of as _files_part

CONTENT = b"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"


PATH = "cmd/main.go"


def _read(path, data=CONTENT, name="read", **fields):
    return {"role": "tool", "name": name, "tool_call_id": "call_r", "content": oracle.read_result(path, data, **fields)}


def _transcript(*reads):
    out: list[dict[str, Any]] = [{"role": "user", "content": "look at main.go"}]
    for read in reads:
        out.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_r", "name": read["name"], "arguments": {"path": PATH}}]})
        out.append(read)
    return out


def _assert_deduped(impl, strings, request, rule, path=PATH, data=CONTENT, others=()):
    """The files part is the deduped block of ``path`` (its layout the implementation's), then ``others`` whole."""
    got = _files_part(impl, strings, request, rule)
    # Sent whole, the file was not deduped: the rule's. Any other departure is the deduped block's layout's or
    # the following files'. The notice is checked first: a block without it may be a deduped block that lacks it.
    if got.startswith(oracle.file_block(path, data)):
        _check_notice_first(impl, strings, got, path, data, request)
    check(not got.startswith(oracle.file_block(path, data)), rule,
          "the file was sent whole though the snapshot holds a matching full read", input=request, actual=got)
    segments: list[tuple[Any, Any]] = [(Deduped(path, data.decode("utf-8", "replace")), "dedupe.notice"),
                *(segment for p, d in others for segment in file_segments(p, d, "files.render-format"))]
    check_segments(got, segments, strings, "the file was not deduped as the declared block", input=request)


def _check_notice_first(impl, strings, got, path, data, request):
    """A block that reads as the file sent whole but lacks the declared notice, for content too blank to tell (an
    empty file sent whole and a deduped block without its notice can be the same text): a file with content and its
    full read decides. Deduped there (its content left out), the implementation dedupes and its block lacks the
    notice: dedupe.notice's, not the dedupe decision's."""
    __tracebackhide__ = True
    if data.strip() or strings["deduped_file_notice"] in got:
        return
    control = params(_transcript(_read(path, CONTENT)), files=[file_param(path, CONTENT)])
    if not _files_part(impl, strings, control, "dedupe.full-read-match").startswith(oracle.file_block(path, CONTENT)):
        raise violation("dedupe.notice", "the block of this file, whose content is blank, lacks the declared notice: it "
                        "reads as the file sent whole, but a file with content and its full read is deduped, so this "
                        "is a deduped block without its notice", input=[request, control], actual=got)


def _assert_sent(impl, strings, request, rule, data=CONTENT, path=PATH, sent=None, shown=None):
    """The files part is ``path`` sent with its content (``sent``: as capped; by default ``data`` whole): a deduped
    block there breaks ``rule``; any other departure is blamed on the part of the file block where it departs."""
    got = _files_part(impl, strings, request, rule)
    shown = request if shown is None else shown
    deduped = match_parts(got, [Deduped(path, data.decode("utf-8", "replace"))], strings) is None
    check(not deduped, rule, "the file was deduped, but it must be sent with its content", input=shown, actual=got)
    check_segments(got, file_segments(path, data if sent is None else sent, rule), strings,
                   "the file is not sent with its content", input=shown)


# Reads that are not full reads, each with the rule that says so; ``data`` is the content the read carries.
NOT_FULL = {
    "ends-early": ("dedupe.full-read-definition", lambda data, strings: _read(PATH, data, end=2)),
    "starts-at-line-2": ("dedupe.full-read-definition", lambda data, strings: _read(PATH, data, start=2)),
    "line-truncated": ("dedupe.full-read-definition", lambda data, strings: _read(
        PATH, data, output=oracle.go_decode(data) + strings["line_truncation_marker"])),
    "compacted-summary": ("dedupe.undecodable-never-full", lambda data, strings: {
        "role": "tool", "name": "read", "tool_call_id": "call_r", "content": "[compacted] read cmd/main.go"}),
    "other-tool": ("dedupe.read-result-shape", lambda data, strings: _read(PATH, data, name="view")),
}


def not_full_control(impl, strings, kind):
    """Control: a read of ``kind`` alone, carrying the file's own hash, does not dedupe it (blamed on the rule that
    makes it not a full read), so that a read wrongly taken as full is never blamed on the rule under test."""
    rule, make = NOT_FULL[kind]
    request = params(_transcript(make(CONTENT, strings)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, rule)
