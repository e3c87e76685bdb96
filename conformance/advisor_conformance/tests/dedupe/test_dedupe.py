"""Dedupe of caller files against full reads in the snapshot (spec: Payload shaping; clarifications §1, §4).

The rules of what counts as a read and as a full read, and of the hash, are in ``test_dedupe_reads.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check
from advisor_conformance.scenarios import call, requests_of, result_of, run, scenario
from advisor_conformance.shaping import (
    Deduped,
    check_segments,
    file_param,
    file_segments,
    files_part,
    match_parts,
    params,
)
from advisor_conformance.workspace import workspace

from .reads import (
    CONTENT,
    NOT_FULL,
    PATH,
    _assert_deduped,
    _assert_sent,
    _files_part,
    _read,
    _transcript,
    not_full_control,
)

OTHER = b"# notes\n\nnothing to see here yet\n"


# -- dedupe.full-read-match ---------------------------------------------------------------------------------------


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
@pytest.mark.parametrize("read_path", ["cmd/main.go.orig", "cmd/main.g", "cmd/main.go/main.go", "cmd"],
                         ids=["longer-name", "shorter-name", "below-it", "its-directory"])
def test_read_of_a_path_sharing_its_head_does_not_dedupe(impl, strings, read_path):
    """A full read of a path that only shares the display path's head (or extends it) does not dedupe the file."""
    request = params(_transcript(_read(read_path)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-match")


@pytest.mark.rule(id="dedupe.full-read-match")
@pytest.mark.parametrize("read_path", ["CMD/main.go", "cmd/Main.go", "CMD/MAIN.GO"], ids=["directory", "name", "all"])
def test_read_of_the_path_in_other_letter_case_does_not_dedupe(impl, strings, read_path):
    """Paths are compared with their letter case: a full read of the path in other case does not dedupe the file."""
    request = params(_transcript(_read(read_path)), files=[file_param(PATH, CONTENT)])
    _assert_sent(impl, strings, request, "dedupe.full-read-match")


@pytest.mark.rule(id="dedupe.full-read-match")
@given(data=st.one_of(st.text(max_size=200).map(str.encode), st.binary(max_size=64)),
       others=st.lists(s.display_paths(), max_size=3))
@example(data=CONTENT, others=[]).via("dedupe.full-read-match:one-file")
@example(data=CONTENT, others=["src/util.py", "docs/notes.md"]).via("dedupe.full-read-match:among-other-files")
@example(data="naïve café €\n".encode(), others=[]).via("dedupe.full-read-match:non-ascii")
@example(data=b"\xff\xfe\x00\x80 raw", others=["notes.txt"]).via("dedupe.full-read-match:not-utf8")
def test_any_content_matching_its_full_read_is_deduped(impl, strings, data, others):
    """Whatever the bytes, a file equal to its latest full read is deduped and other files are sent."""
    transcript = _transcript(_read(PATH, data))
    others = [p for p in others if p != PATH]
    files = [file_param(PATH, data)] + [file_param(p, b"x") for p in others]
    request = params(transcript, files=files)
    _assert_deduped(impl, strings, request, "dedupe.full-read-match", data=data, others=[(p, b"x") for p in others])


@pytest.mark.rule(id="dedupe.full-read-match")
@pytest.mark.rule(id="dedupe.notice")
@pytest.mark.needs(areas=["files"])
def test_each_copy_of_a_repeated_file_is_deduped(impl, strings):
    """A file given twice, with a file between, is deduped both times against the one full read."""
    files = [file_param(PATH, CONTENT), file_param("notes.md", OTHER), file_param(PATH, CONTENT)]
    # Control: without a read, the repeated file is sent at each of its places (files.render-format).
    control = params(_transcript(), files=files)
    blocks = [(PATH, CONTENT), ("notes.md", OTHER), (PATH, CONTENT)]
    check_segments(_files_part(impl, strings, control, "files.render-format"),
                   [segment for p, d in blocks for segment in file_segments(p, d, "files.render-format")], strings,
                   "a repeated file is not sent at each of its places", input=control)
    request = params(_transcript(_read(PATH)), files=files)
    got = _files_part(impl, strings, request, "dedupe.full-read-match")
    check(oracle.file_block(PATH, CONTENT) not in got, "dedupe.full-read-match",
          "a copy of the file was sent whole though the snapshot holds a matching full read", input=request, actual=got)
    segments: list[tuple] = [(Deduped(PATH, CONTENT.decode()), "dedupe.notice"),
                *file_segments("notes.md", OTHER, "files.render-format"),
                (Deduped(PATH, CONTENT.decode()), "dedupe.notice")]
    check_segments(got, segments, strings, "the two copies are not both deduped around the file sent", input=request)


@pytest.mark.rule(id="dedupe.full-read-match")
@pytest.mark.needs(areas=["files"])
def test_deduped_file_takes_none_of_the_aggregate(impl, strings):
    """A deduped file takes none of the 98304-byte aggregate: three 32768-byte files after it are sent whole."""
    big = [(f"big{i}.txt", bytes([ord("a") + i]) * 32768) for i in range(3)]
    shown = {"files": [PATH, *(f"{p} ({len(d)} bytes)" for p, d in big)], "read": PATH}
    # Controls: a 32768-byte file is whole (files.per-file-cap), and three of them fill the aggregate exactly
    # (files.aggregate-cap), so that a file elided here is the deduped one's doing.
    one = params(_transcript(), files=[file_param(*big[0])])
    check_segments(_files_part(impl, strings, one, "files.per-file-cap"), file_segments(*big[0], "files.per-file-cap"),
                   strings, "a file of exactly 32768 bytes is not sent whole", input={"files": shown["files"][1:2]})
    three = params(_transcript(), files=[file_param(p, d) for p, d in big])
    check_segments(_files_part(impl, strings, three, "files.aggregate-cap"),
                   [segment for p, d in big for segment in file_segments(p, d, "files.aggregate-cap")], strings,
                   "three files of 32768 bytes are not all sent whole", input={"files": shown["files"][1:]})
    request = params(_transcript(_read(PATH)), files=[file_param(PATH, CONTENT), *(file_param(p, d) for p, d in big)])
    got = _files_part(impl, strings, request, "dedupe.full-read-match")
    check(not got.startswith(oracle.file_block(PATH, CONTENT)), "dedupe.full-read-match",
          "the file was sent whole though the snapshot holds a matching full read", input=shown, actual=got[:300])
    check_segments(got, [(Deduped(PATH, CONTENT.decode()), "dedupe.notice"),
                         *(segment for p, d in big for segment in file_segments(p, d, "dedupe.full-read-match"))],
                   strings, "the deduped file took some of the aggregate from the files after it", input=shown)


def _live_snapshot(read=None):
    """The parent's snapshot at an advisor call (with no in-flight text), holding ``read`` if given."""
    out: list[dict] = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Fix main.go."}]
    if read is not None:
        out += [{"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_r", "name": "read", "arguments": {"path": PATH}}]}, read]
    return out + [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_adv", "name": "advisor", "arguments": {"files": [PATH]}}]}]


@pytest.mark.rule(id="dedupe.full-read-match")
@pytest.mark.needs(operations=["scenario"])  # the files are loaded from a workspace by a call
@pytest.mark.parametrize("spelling", ["./cmd/main.go", "cmd/../cmd/main.go", "cmd//main.go", "{work}/cmd/main.go"],
                         ids=["dot-slash", "dot-dot", "double-slash", "absolute"])
@pytest.mark.needs(areas=["workspace"])
def test_file_is_matched_by_its_display_path_however_it_is_spelt(impl, strings, spelling):
    """A caller's path spelt otherwise is deduped against the full read of its display path."""
    shown = {"files": [spelling], "work_dir": "{work}"}
    finals = []
    with workspace({PATH: {"text": CONTENT.decode()}}) as work:
        for snapshot in (_live_snapshot(), _live_snapshot(_read(PATH))):
            step = call(input={"files": [spelling.replace("{work}", str(work))]}, snapshot=snapshot)
            answer = run(impl, scenario([{"call": step}], work_dir=str(work)), "dedupe.full-read-match")
            result_of(answer, 0, "dedupe.full-read-match", shown)
            (request,) = requests_of(answer, 0)
            finals.append(files_part(request["messages"][-1]["content"], strings, input=shown))
    # Control: without the read, the file is shown by its display path (workspace.display-path).
    check(finals[0].startswith(f"File: {PATH}\n"), "workspace.display-path",
          f"{spelling!r} is not shown as {PATH!r}", input=shown, actual=finals[0][:200])
    check(not finals[1].startswith(oracle.file_block(PATH, CONTENT)), "dedupe.full-read-match",
          f"{spelling!r} was sent whole though the snapshot holds a matching full read of {PATH!r}", input=shown,
          actual=finals[1])
    check_segments(finals[1], [(Deduped(PATH, CONTENT.decode()), "dedupe.notice")], strings,
                   "the file was not deduped as the declared block", input=shown)


# -- dedupe.most-recent-full-read ---------------------------------------------------------------------------------


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
@pytest.mark.parametrize("hashes, deduped", [(["match", "other", "match"], True), (["other", "match", "other"], False),
                                             (["match", "match", "other"], False)],
                         ids=["newest-of-three-matches", "middle-of-three-matches", "two-older-match"])
def test_of_several_full_reads_only_the_newest_counts(impl, strings, hashes, deduped):
    """Of three full reads of the path, the newest alone decides whether the file is deduped."""
    edited = CONTENT + b"// edited\n"
    request = params(_transcript(*(_read(PATH, CONTENT if h == "match" else edited) for h in hashes)),
                     files=[file_param(PATH, CONTENT)])
    (_assert_deduped if deduped else _assert_sent)(impl, strings, request, "dedupe.most-recent-full-read")


@pytest.mark.rule(id="dedupe.most-recent-full-read")
@pytest.mark.parametrize("kind", list(NOT_FULL))
def test_later_reads_that_are_not_full_are_skipped(impl, strings, kind):
    """A newer read of the path that is not a full read (with another hash) does not hide the latest full read."""
    not_full_control(impl, strings, kind)
    later = NOT_FULL[kind][1](CONTENT + b"more\n", strings)
    request = params(_transcript(_read(PATH), later), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.most-recent-full-read")


@pytest.mark.rule(id="dedupe.most-recent-full-read")
def test_newer_full_read_of_another_path_does_not_hide_it(impl, strings):
    """A newer full read of another path leaves the file's own latest full read in force."""
    request = params(_transcript(_read(PATH), _read("notes.md", OTHER)), files=[file_param(PATH, CONTENT)])
    _assert_deduped(impl, strings, request, "dedupe.most-recent-full-read")


# -- dedupe.over-cap-never ----------------------------------------------------------------------------------------


@pytest.mark.rule(id="dedupe.over-cap-never")
@pytest.mark.parametrize("size", [32769, 40000])
def test_files_over_the_cap_are_never_deduped(impl, strings, size):
    """A file over 32768 bytes is sent capped even when a full read with its exact hash is in the snapshot."""
    data = (b"line of text\n" * 4000)[:size]
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_sent(impl, strings, request, "dedupe.over-cap-never", data=data, sent=oracle.elide_bytes(data, 32768),
                 shown={"files": [{"path": PATH, "bytes": size}]})


@pytest.mark.rule(id="dedupe.over-cap-never")
@pytest.mark.rule(id="dedupe.notice")
@pytest.mark.parametrize("size", [32767, 32768])
def test_file_up_to_the_cap_can_be_deduped(impl, strings, size):
    """A file of at most 32768 bytes is not over the cap, so it is deduped."""
    data = (b"line of text\n" * 4000)[:size]
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data)])
    _assert_deduped(impl, strings, request, "dedupe.over-cap-never", data=data)


@pytest.mark.rule(id="dedupe.over-cap-never")
@pytest.mark.needs(areas=["files"])
def test_capped_read_of_a_larger_file_is_never_deduped(impl, strings):
    """A file of 40000 bytes read capped at 32768 is over the cap by its true size: never deduped, even when a full
    read's hash matches the bytes read."""
    data = (b"line of text\n" * 4000)[:32768]
    sent = data + oracle.marker(40000).encode()
    shown = {"files": [{"path": PATH, "bytes read": 32768, "size": 40000}]}
    # Control: without a read, the file is sent capped with the marker of its true size (files.true-size).
    control = params(_transcript(), files=[file_param(PATH, data, size=40000)])
    _assert_sent(impl, strings, control, "files.true-size", data=data, sent=sent, shown=shown)
    request = params(_transcript(_read(PATH, data)), files=[file_param(PATH, data, size=40000)])
    _assert_sent(impl, strings, request, "dedupe.over-cap-never", data=data, sent=sent, shown=shown)


# -- dedupe.notice ------------------------------------------------------------------------------------------------


@pytest.mark.rule(id="dedupe.notice")
def test_notice_names_the_path_and_carries_no_content(impl, strings):
    """A deduped file's block names its path and carries the declared notice and none of its content (in the
    declared layout, where the implementation declares one)."""
    request = params(_transcript(_read(PATH)), files=[file_param(PATH, CONTENT)])
    got = _files_part(impl, strings, request, "dedupe.notice")
    problem = match_parts(got, [Deduped(PATH, CONTENT.decode())], strings)
    check(problem is None, "dedupe.notice", f"the deduped file's block is wrong: {problem}", input=request, actual=got)
    check("println" not in got, "dedupe.notice", "the deduped file's content was sent", input=request, actual=got)


@pytest.mark.rule(id="dedupe.notice")
@pytest.mark.parametrize("second", ["docs/naïve notes.md", "src/util.py"], ids=["space-and-non-ascii", "plain"])
def test_each_deduped_file_has_its_own_block(impl, strings, second):
    """Two deduped files, with a file sent between them, each get a block naming its own path and the notice."""
    transcript = _transcript(_read(PATH), _read(second, OTHER))
    files = [file_param(PATH, CONTENT), file_param("todo.txt", b"ship it\n"), file_param(second, OTHER)]
    request = params(transcript, files=files)
    got = _files_part(impl, strings, request, "dedupe.notice")
    whole = [p for p, d in ((PATH, CONTENT), (second, OTHER)) if oracle.file_block(p, d) in got]
    check(not whole, "dedupe.full-read-match", f"{whole} sent whole though the snapshot holds matching full reads",
          input=request, actual=got)
    segments: list[tuple] = [(Deduped(PATH, CONTENT.decode()), "dedupe.notice"),
                *file_segments("todo.txt", b"ship it\n", "files.render-format"),
                (Deduped(second, OTHER.decode()), "dedupe.notice")]
    check_segments(got, segments, strings, "each deduped file does not have its own block", input=request)
    check(OTHER.decode().strip() not in got and "println" not in got, "dedupe.notice",
          "a deduped file's content was sent", input=request, actual=got)
