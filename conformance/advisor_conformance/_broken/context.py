"""Broken implementations of the rules that read the conversation as context: dedupe of files against full reads,
and the in-flight message. Each is the reference with one RequestBuilder step done wrong."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace

from advisor_reference import RequestBuilder, trim_space

from . import breaks, check_forgotten

# -- dedupe ----------------------------------------------------------------------------------------------


@breaks("dedupe.full-read-match")
class DedupeBySuffix(RequestBuilder):
    """paths are matched by suffix (to allow absolute paths in read results), so a full read of pkg/cmd/main.go dedupes
    cmd/main.go"""

    def dedupe(self, files, snapshot):
        hashes = self.full_read_hashes(snapshot)
        flags = []
        for file in files:
            matches = [digest for path, digest in hashes.items() if path == file.path or path.endswith("/" + file.path)]
            flags.append(bool(matches) and self.may_dedupe(file) and self.hash_file(file.data) == matches[-1])
        return flags


@breaks("dedupe.most-recent-full-read")
class AnyFullReadCounts(RequestBuilder):
    """every full read counts (a set of path and hash pairs), so an older matching read dedupes a file that a newer read
    contradicts"""

    def dedupe(self, files, snapshot):
        seen = {found for message in snapshot if (found := self.full_read(message)) is not None}
        return [self.may_dedupe(file) and (file.path, self.hash_file(file.data)) in seen for file in files]


@breaks("dedupe.over-cap-never")
class OverCapDeduped(check_forgotten(RequestBuilder, "may_dedupe", answer=True)):
    """the size check is forgotten: a file over 32768 bytes whose hash matches is deduped"""


@breaks("dedupe.read-result-shape")
class AnyToolIsARead(RequestBuilder):
    """the tool name is not checked: any tool result whose content parses as a read object counts as a read"""

    def dedupe(self, files, snapshot):
        as_reads = [replace(m, name="read") if m.role == "tool" else m for m in snapshot]
        return super().dedupe(files, as_reads)


@breaks("dedupe.undecodable-never-full")
class LineNumbersCoerced(RequestBuilder):
    """line numbers are read with int(), so "1" and 1.5 are taken as line 1 and a result the origin cannot decode counts
    as a full read"""

    def full_read(self, message):
        if message.role != "tool" or message.name != "read":
            return None
        try:
            result = json.loads(message.content)
            path, digest, output = str(result["path"]), str(result["file_hash"]), str(result.get("output", ""))
            start, end, total = int(result["start_line"]), int(result["end_line"]), int(result["total_lines"])
        except (ValueError, KeyError, TypeError):
            return None
        if start == 1 and end == total > 0 and self.strings.line_truncation_marker not in output:
            return path, digest
        return None


def _hash_with_python_rstrip(data):
    stripped = b"\n".join(line.rstrip() for line in data.split(b"\n"))
    return f"{zlib.crc32(stripped):08X}"


@breaks("dedupe.file-hash")
class HashStripsAllWhiteSpace(RequestBuilder):
    """lines are stripped with bytes.rstrip(), which also strips vertical tabs and form feeds"""

    def hash_file(self, data):
        return _hash_with_python_rstrip(data)


@breaks("dedupe.notice")
class NoticeInsideFence(RequestBuilder):
    """a deduped file reuses the file template: the notice is rendered inside the code fence"""

    def deduped_block(self, path):
        return (f"File: {path}\n```\n{self.strings.deduped_file_notice}\n```\n\n",)


# -- in-flight -------------------------------------------------------------------------------------------


@breaks("inflight.last-message-only")
class TrailingAssistantRunRemoved(RequestBuilder):
    """a while loop takes out every trailing assistant message, not just the last one"""

    def split_in_flight(self, snapshot):
        transcript, text = super().split_in_flight(snapshot)
        while transcript and transcript[-1].role == "assistant":
            transcript = transcript[:-1]
        return transcript, text


@breaks("inflight.empty-dropped")
class BlankInFlightLabelled(RequestBuilder):
    """the emptiness check looks at the untrimmed content, so a blank text gets a label with nothing under it"""

    def split_in_flight(self, snapshot):
        if not snapshot or snapshot[-1].role != "assistant":
            return snapshot, None
        content = snapshot[-1].content
        return snapshot[:-1], (trim_space(content) if content else None)


@breaks("inflight.label-at-head")
class InFlightAfterQuestion(RequestBuilder):
    """the in-flight block is written after the question, just before the guidance request"""

    def final_message(self, in_flight_block, file_blocks, question_block):
        return "".join([*file_blocks, question_block, in_flight_block, self.strings.guidance_request])


@breaks("inflight.block-layout")
class InFlightStrippedByPython(RequestBuilder):
    """the block trims the text again with Python's str.strip(), which also strips U+001C..U+001F that Go keeps"""

    def render_in_flight(self, text):
        if text is None:
            return ""
        return f"{self.strings.inflight_label}\n{text.strip()}\n\n"


@breaks("inflight.other-role-stays")
class TrailingToolResultRemoved(RequestBuilder):
    """a trailing tool result is taken out of the transcript too, as if it ended the in-flight turn"""

    def split_in_flight(self, snapshot):
        if snapshot and snapshot[-1].role == "tool":
            return snapshot[:-1], None
        return super().split_in_flight(snapshot)
