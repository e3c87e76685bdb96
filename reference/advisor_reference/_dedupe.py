"""Dedupe of caller files against full reads already in the snapshot."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._files import MAX_FILE_BYTES, LoadedFile, file_hash
from ._transcript import Message

READ_TOOL_NAME = "read"


def _field(result: dict[str, Any], key: str, kind: type, zero: Any) -> Any:
    value = result.get(key)
    if value is None:
        return zero
    if not isinstance(value, kind) or isinstance(value, bool):
        return None
    return value


def full_read(message: Message, line_truncation_marker: str) -> tuple[str, str] | None:
    """``(path, file_hash)`` when ``message`` is a full read of a file, else ``None``.

    A full read is a result of the read tool whose content decodes as the read
    object with ``start_line == 1``, ``end_line == total_lines``,
    ``total_lines > 0`` and an ``output`` without the line-truncation marker.
    Anything that does not decode that way (a compacted summary, say) is never
    a full read: the file is then sent, never wrongly deduped.
    """
    if message.role != "tool" or message.name != READ_TOOL_NAME:
        return None
    try:
        result = json.loads(message.content)
    except ValueError:
        return None
    if not isinstance(result, dict):
        return None
    # Like the origin's decoder, a missing or null field reads as its zero
    # value and a field of the wrong type makes the whole result undecodable.
    path = _field(result, "path", str, "")
    digest = _field(result, "file_hash", str, "")
    output = _field(result, "output", str, "")
    start = _field(result, "start_line", int, 0)
    end = _field(result, "end_line", int, 0)
    total = _field(result, "total_lines", int, 0)
    if None in (path, digest, output, start, end, total):
        return None
    if start != 1 or end != total or total <= 0:
        return None
    if line_truncation_marker and line_truncation_marker in output:
        return None
    return path, digest


def latest_full_read_hashes(snapshot: Sequence[Message], line_truncation_marker: str) -> dict[str, str]:
    """Map each display path to the ``file_hash`` of its most recent full read in the snapshot."""
    hashes: dict[str, str] = {}
    for message in snapshot:
        found = full_read(message, line_truncation_marker)
        if found is not None:
            hashes[found[0]] = found[1]
    return hashes


def dedupe_flags(files: Sequence[LoadedFile], snapshot: Sequence[Message], line_truncation_marker: str) -> list[bool]:
    """For each file, whether it is sent without content.

    A file is deduped when it is not over :data:`MAX_FILE_BYTES` and its hash
    matches the most recent full read of the same display path. Files over
    the cap are never deduped: their bytes are a prefix, and the read tool
    hashes whole files.
    """
    hashes = latest_full_read_hashes(snapshot, line_truncation_marker) if files else {}
    flags = []
    for file in files:
        expected = hashes.get(file.path)
        flags.append(
            expected is not None
            and file.size <= MAX_FILE_BYTES
            and file.complete
            and file_hash(file.data) == expected
        )
    return flags
