"""Dedupe of caller files against full reads already in the snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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
    if message.role != "tool" or message.name != READ_TOOL_NAME:  # rule: dedupe.read-result-shape
        return None
    if not message.content.lstrip(" \t\n\r").startswith("{"):  # JSON text of an object begins so: no decoding
        return None  # rule: dedupe.undecodable-never-full
    try:
        result = json.loads(message.content)
    except ValueError:  # rule: dedupe.undecodable-never-full
        return None
    if not isinstance(result, dict):  # rule: dedupe.undecodable-never-full
        return None
    # Like the origin's decoder, a missing or null field reads as its zero
    # value and a field of the wrong type makes the whole result undecodable.
    # rules: dedupe.read-result-shape, dedupe.undecodable-never-full
    path = _field(result, "path", str, "")
    digest = _field(result, "file_hash", str, "")
    output = _field(result, "output", str, "")
    start = _field(result, "start_line", int, 0)
    end = _field(result, "end_line", int, 0)
    total = _field(result, "total_lines", int, 0)
    if None in (path, digest, output, start, end, total):
        return None
    if start != 1 or end != total or total <= 0:  # rule: dedupe.full-read-definition
        return None
    if line_truncation_marker and line_truncation_marker in output:  # rule: dedupe.full-read-definition
        return None
    return path, digest


def latest_full_read_hashes(
    snapshot: Sequence[Message],
    line_truncation_marker: str = "",
    read_of: Callable[[Message], tuple[str, str] | None] | None = None,
) -> dict[str, str]:
    """Map each display path to the ``file_hash`` of its most recent full read in the snapshot.

    ``read_of`` replaces the full-read test (:func:`full_read` with the marker).
    """
    read_of = read_of or (lambda message: full_read(message, line_truncation_marker))
    hashes: dict[str, str] = {}
    for message in snapshot:
        found = read_of(message)
        if found is not None:
            hashes[found[0]] = found[1]  # a later full read wins (rule: dedupe.most-recent-full-read)
    return hashes


def may_dedupe(file: LoadedFile) -> bool:
    """Whether a file can be deduped at all: it is not over :data:`MAX_FILE_BYTES` (files over the cap are never
    deduped: their bytes are a prefix, and the read tool hashes whole files) and its bytes are the whole file."""
    return file.size <= MAX_FILE_BYTES and file.complete  # rule: dedupe.over-cap-never


def dedupe_flags(
    files: Sequence[LoadedFile],
    hashes: dict[str, str],
    can_dedupe: Callable[[LoadedFile], bool] = may_dedupe,
    hash_of: Callable[[bytes], str] = file_hash,
) -> list[bool]:
    """For each file, whether it is sent without content: it may be deduped and its hash matches the most
    recent full read of the same display path (``hashes``, from :func:`latest_full_read_hashes`).

    rule: dedupe.full-read-match
    """
    return [file.path in hashes and can_dedupe(file) and hash_of(file.data) == hashes[file.path] for file in files]
