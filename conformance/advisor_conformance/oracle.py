"""The suite's own statement of the shaping rules, used to compute expected values.

Written from the spec and the clarifications, independently of the reference
implementation (the suite never imports ``reference``), in the plainest form
that is still correct: clarity over speed. Each function names its rule.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any

ARG_LIMIT = 1000  # elision.threshold
FILE_LIMIT = 32768  # files.per-file-cap
FILES_TOTAL = 98304  # files.aggregate-cap
QUESTION_LIMIT = 4000  # question.cap
MAX_FILES = 8  # files.max-count


def marker(total: int) -> str:
    """elision.marker-format: ``…[elided, N bytes total]``."""
    return "\u2026[elided, " + str(total) + " bytes total]"


def go_decode(data: bytes) -> str:
    """files.invalid-utf8 / elision.byte-cut: UTF-8 with one U+FFFD per byte outside a well-formed sequence.

    A direct reading of the well-formed byte sequences of the Unicode
    standard (table 3-7), one byte at a time, as Go's decoder does.
    """
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        b0 = data[i]
        if b0 < 0x80:
            out.append(chr(b0))
            i += 1
            continue
        if 0xC2 <= b0 <= 0xDF:
            size, ranges = 2, [(0x80, 0xBF)]
        elif b0 == 0xE0:
            size, ranges = 3, [(0xA0, 0xBF), (0x80, 0xBF)]
        elif 0xE1 <= b0 <= 0xEC or 0xEE <= b0 <= 0xEF:
            size, ranges = 3, [(0x80, 0xBF), (0x80, 0xBF)]
        elif b0 == 0xED:
            size, ranges = 3, [(0x80, 0x9F), (0x80, 0xBF)]
        elif b0 == 0xF0:
            size, ranges = 4, [(0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)]
        elif 0xF1 <= b0 <= 0xF3:
            size, ranges = 4, [(0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)]
        elif b0 == 0xF4:
            size, ranges = 4, [(0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)]
        else:
            out.append("\ufffd")
            i += 1
            continue
        tail = data[i + 1 : i + size]
        if len(tail) == size - 1 and all(lo <= b <= hi for b, (lo, hi) in zip(tail, ranges, strict=True)):
            out.append(data[i : i + size].decode("utf-8"))
            i += size
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def elide_bytes(data: bytes, limit: int, total: int | None = None) -> bytes:
    """The first ``limit`` bytes and the marker when the true length ``total`` is over ``limit``."""
    total = len(data) if total is None else total
    if total <= limit:
        return data
    return data[:limit] + marker(total).encode("utf-8")


def elide_string(text: str, limit: int = ARG_LIMIT) -> str:
    """elision.threshold / marker-format / byte-cut for one string."""
    return go_decode(elide_bytes(text.encode("utf-8"), limit))


def cap_arguments(value: Any) -> Any:
    """elision.any-depth / non-strings-unchanged: every string value elided, keys and scalars kept."""
    if isinstance(value, str):
        return elide_string(value)
    if isinstance(value, dict):
        return {key: cap_arguments(item) for key, item in value.items()}
    if isinstance(value, list):
        return [cap_arguments(item) for item in value]
    return value


def normalise_numbers(value: Any) -> Any:
    """JSON value with every number as a float64, as the origin decodes arguments (for semantic comparison)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        return {key: normalise_numbers(item) for key, item in value.items()}
    return [normalise_numbers(item) for item in value]


def cap_files(files: Sequence[tuple[bytes, int]], deduped: Sequence[bool] | None = None) -> list[bytes | None]:
    """files.per-file-cap / true-size / aggregate-cap over ``(data, true size)`` pairs; None when deduped."""
    remaining = FILES_TOTAL
    out: list[bytes | None] = []
    for index, (data, size) in enumerate(files):
        if deduped and deduped[index]:
            out.append(None)
            continue
        content = elide_bytes(data, FILE_LIMIT, size)
        if len(content) > remaining:
            content = elide_bytes(content, remaining)
        remaining -= len(content)
        if remaining < 0:
            remaining = 0
        out.append(content)
    return out


def file_block(path: str, content: bytes) -> str:
    """files.render-format."""
    return "File: " + path + "\n```\n" + go_decode(content) + "\n```\n\n"


def deduped_block(path: str, notice: str) -> str:
    """dedupe.notice."""
    return "File: " + path + "\n" + notice + "\n\n"


def file_hash(data: bytes) -> str:
    """dedupe.file-hash."""
    lines = data.split(b"\n")
    stripped = [line.rstrip(b" \t\r") for line in lines]
    return format(zlib.crc32(b"\n".join(stripped)), "08X")


def is_go_space(char: str) -> bool:
    """question.trim: Go's unicode.IsSpace (Python's isspace() also counts U+001C..U+001F)."""
    return char.isspace() and char not in "\x1c\x1d\x1e\x1f"


def trim(text: str) -> str:
    """question.trim / inflight.empty-dropped: Go's strings.TrimSpace."""
    start, end = 0, len(text)
    while start < end and is_go_space(text[start]):
        start += 1
    while end > start and is_go_space(text[end - 1]):
        end -= 1
    return text[start:end]


def question_block(question: str) -> str:
    """question.trim / omitted-when-empty / cap / blank-line."""
    text = trim(question)
    if not text:
        return ""
    return elide_string(text, QUESTION_LIMIT) + "\n\n"


def read_result(
    path: str,
    data: bytes,
    *,
    start: int = 1,
    end: int | None = None,
    total: int | None = None,
    output: str | None = None,
    digest: str | None = None,
) -> str:
    """The JSON content of a result of the read tool (dedupe.read-result-shape)."""
    lines = max(1, data.count(b"\n") + (0 if data.endswith(b"\n") else 1))
    total = lines if total is None else total
    return json.dumps(
        {
            "path": path,
            "start_line": start,
            "end_line": total if end is None else end,
            "total_lines": total,
            "file_hash": file_hash(data) if digest is None else digest,
            "output": go_decode(data) if output is None else output,
        }
    )
