"""Caller files: the per-file and aggregate caps and their rendering.

All lengths are UTF-8 byte counts of the raw file bytes; bytes that are not
valid UTF-8 are written as one U+FFFD each only when a file is rendered, so
the caps see the same lengths as the origin's byte strings.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._elision import elision_marker
from ._errors import AdvisorInputError
from ._text import decode_utf8

MAX_FILES = 8
MAX_FILE_BYTES = 32 * 1024
MAX_FILES_TOTAL_BYTES = 96 * 1024


@dataclass(frozen=True, slots=True)
class LoadedFile:
    """A caller file as loaded: its display path, the bytes read, and its true size.

    ``data`` may be a prefix of the file (a read capped at
    :data:`MAX_FILE_BYTES`); ``size`` is then the size on disk from stat.
    """

    path: str
    data: bytes
    size: int

    def __post_init__(self) -> None:
        if self.size < len(self.data):
            raise ValueError(f"size {self.size} is smaller than the {len(self.data)} bytes read")

    @property
    def complete(self) -> bool:
        """Whether ``data`` holds the whole file."""
        return len(self.data) == self.size


def check_file_count(count: int, at: str) -> None:
    """Reject more than :data:`MAX_FILES` files (duplicates count)."""
    if count > MAX_FILES:  # rule: files.max-count
        raise AdvisorInputError(
            f"too many files: {count} given, at most {MAX_FILES} allowed", at=at, code="too_many_files"
        )


def file_hash(data: bytes) -> str:
    """The read tool's ``file_hash``: CRC-32 of the lines with trailing blanks stripped, 8 upper-case hex digits.

    rule: dedupe.file-hash
    """
    normalised = b"\n".join(line.rstrip(b" \t\r") for line in data.split(b"\n"))
    return f"{zlib.crc32(normalised):08X}"


@dataclass(frozen=True, slots=True)
class CappedContent:
    """A file's content after the caps: the bytes kept and, when it was cut, the marker that follows them.

    The marker stays apart from the bytes so a capped file is never copied
    just to append 30 bytes; ``len()`` is the byte length the caps count.
    """

    kept: bytes
    marker: str = ""

    def __len__(self) -> int:
        return len(self.kept) + len(self.marker.encode("utf-8"))

    def cut(self, limit: int) -> CappedContent:
        """Elide this content to ``limit`` bytes; the new marker's N is this content's length.

        rule: files.aggregate-cap
        """
        total = len(self)
        if total <= limit:
            return self
        if limit <= len(self.kept):
            kept = self.kept[:limit]
        else:
            kept = self.kept + self.marker.encode("utf-8")[: limit - len(self.kept)]
        return CappedContent(kept, elision_marker(total))


def cap_file_contents(
    files: Sequence[LoadedFile],
    deduped: Sequence[bool] = (),
    cap_one: Callable[[LoadedFile], CappedContent] | None = None,
) -> list[CappedContent | None]:
    """Apply the per-file cap, then the aggregate cap, in order; ``None`` for a deduped file.

    Per file, content over :data:`MAX_FILE_BYTES` becomes its prefix and a
    marker with the true size. Then, with ``remaining`` starting at
    :data:`MAX_FILES_TOTAL_BYTES`, a result longer than ``remaining`` is elided
    to ``remaining`` bytes (its marker giving the length after the per-file
    cap) and its length is taken from ``remaining``, never below zero. A
    deduped file sends no content and takes nothing from ``remaining``.
    ``cap_one`` replaces the per-file cap (:func:`cap_file`).
    """
    cap_one = cap_one or cap_file
    remaining = MAX_FILES_TOTAL_BYTES  # rule: files.aggregate-cap
    out: list[CappedContent | None] = []
    for index, file in enumerate(files):
        if index < len(deduped) and deduped[index]:
            out.append(None)
            continue
        content = cap_one(file)
        if len(content) > remaining:
            content = content.cut(remaining)
        remaining = max(0, remaining - len(content))
        out.append(content)
    return out


def cap_file(file: LoadedFile) -> CappedContent:
    """The per-file cap: over :data:`MAX_FILE_BYTES` (by true size), the prefix and a marker with the true size."""
    if file.size <= MAX_FILE_BYTES:  # rule: files.per-file-cap
        return CappedContent(file.data)
    # The marker's N is the size on disk, not the bytes read (rules: files.per-file-cap, files.true-size).
    return CappedContent(file.data[:MAX_FILE_BYTES], elision_marker(file.size))


def file_block_parts(
    path: str, content: CappedContent, decode: Callable[[bytes], str] = decode_utf8
) -> tuple[str, ...]:
    """The pieces of one file block: ``File: <path>``, a fenced block with the content, a blank line.

    Pieces, so the whole final message is joined once: a 32 KiB file is then
    never copied into an intermediate block. ``decode`` writes the kept bytes as text.
    """
    return (f"File: {path}\n```\n", decode(content.kept), content.marker, "\n```\n\n")  # rule: files.render-format


def deduped_block_parts(path: str, notice: str, layout: str = "File: {path}\n{notice}\n\n") -> tuple[str, ...]:
    """A deduped file block: the declared layout with the path and the notice that says where the content is.

    rule: dedupe.notice
    """
    values = {"path": path, "notice": notice}
    return (re.sub(r"\{(path|notice)\}", lambda match: values[match[1]], layout),)
