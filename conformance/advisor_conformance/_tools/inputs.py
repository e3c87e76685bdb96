"""The commands' own inputs: one bounded reader of JSON files, and the error that names the file and the field.

Every JSON file a command reads (a rule report for ``report`` and ``compare``, a session for ``cache-sim``, a
transcript for ``shape``) is read by :func:`read_json` and checked by a JSON Schema (:func:`check`) before any of it
is used, each kind by its own loader (``report/runs.py``, ``cachesim/sessions.py``, ``cli/shape.py``). The reader
refuses, naming the file and the field (a path such as ``rules/3/outcome``):

* a file over the loader's size limit (checked before it is read: at most that many bytes are read), a directory,
  or a special file (a FIFO, a device, a socket: opened without blocking, never read);
* text that is not UTF-8 (Latin-1, UTF-16 or UTF-32, with or without a byte order mark); a UTF-8 byte order mark is
  ignored, as RFC 8259 allows;
* ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON, and numbers that no double holds (``1e400``);
* a number written with more than :data:`NUMBER_CHARACTERS` characters (a 5,000-digit integer: Python's own limit
  would raise, and nothing the commands read needs one);
* a key twice in one object (JSON parsers keep one or the other: which one the command used would be a guess);
* nesting deeper than :data:`MAX_DEPTH` levels (100,000 levels are found without recursing that deep).

Every message is bounded in size, whatever the input (:mod:`advisor_conformance._bounded`).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from .._bounded import cap_line, summarise_errors

#: The deepest nesting a command reads (the deepest of the shipped files is 9 levels).
MAX_DEPTH = 64
#: The most characters of one number literal (a double needs at most 24, a 64-bit integer 20).
NUMBER_CHARACTERS = 40
_MESSAGE = 1000
_CHUNK = 1 << 20


class InputError(ValueError):
    """An input a command cannot use; ``str()`` names the file, the field (where there is one) and why."""

    def __init__(self, path: str, reason: str, field: str = "") -> None:
        super().__init__(cap_line(f"{path}: {field + ': ' if field else ''}{reason}", _MESSAGE))
        self.path = path
        self.field = field
        self.reason = reason


def pointer(parts: Iterable[Any]) -> str:
    """A field's path as the messages write it: ``rules/3/outcome``, ``(top)`` for the whole document (the form of
    :func:`advisor_conformance._bounded.describe_error`)."""
    return "/".join(str(part) for part in parts) or "(top)"


# -- reading ----------------------------------------------------------------------------------------------------------


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; :class:`InputError` otherwise."""
    label = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block the open
    except OSError as exc:
        raise InputError(label, f"cannot be read ({exc.strerror or exc})") from None
    with open(fd, "rb", closefd=True) as handle:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(label, "is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(label, "is not a regular file (a FIFO, a device or a socket): it is not read")
        if info.st_size > limit:
            raise InputError(label, f"is {info.st_size:,} bytes; at most {limit:,} are read")
        chunks: list[bytes] = []
        size = 0
        try:  # in chunks: read(limit + 1) would allocate the whole limit at once, whatever the file's size
            while size <= limit and (chunk := handle.read(min(_CHUNK, limit + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            raise InputError(label, f"cannot be read ({exc.strerror or exc})") from None
    raw = b"".join(chunks)
    if len(raw) > limit:  # it grew while it was read
        raise InputError(label, f"is over {limit:,} bytes; at most {limit:,} are read")
    return raw


_WIDE = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian, with a byte order mark)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian, with a byte order mark)"),
    (b"\xfe\xff", "UTF-16 (big-endian, with a byte order mark)"),
    (b"\xff\xfe", "UTF-16 (little-endian, with a byte order mark)"),
)


def decode(raw: bytes, label: str) -> str:
    """``raw`` as UTF-8 text (a UTF-8 byte order mark dropped); :class:`InputError` naming the encoding it seems to
    be in and where it stops being UTF-8."""
    for mark, name in _WIDE:
        if raw.startswith(mark):
            raise InputError(label, f"is {name} text; JSON files are read as UTF-8")
    if b"\x00" in raw[:4]:
        raise InputError(
            label, "is UTF-16 or UTF-32 text (NUL bytes in its first characters); JSON files are read as UTF-8"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            label,
            f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}, line {line}: Latin-1 or another "
            "8-bit encoding?); JSON files are read as UTF-8",
        ) from None


class _Refused:
    """A value the parser refused (NaN, a 5,000-digit number), kept in its place so the walk names its field."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Repeated(dict[str, Any]):
    """An object that had a key twice (the parser's hook cannot say where it is; the walk can)."""

    key: str = ""


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number (JSON has no NaN or infinities)")


def _integer(text: str) -> int | _Refused:
    if len(text) > NUMBER_CHARACTERS:
        return _Refused(f"a number of {len(text):,} digits (at most {NUMBER_CHARACTERS} characters are read)")
    return int(text)


def _float(text: str) -> float | _Refused:
    if len(text) > NUMBER_CHARACTERS:
        return _Refused(f"a number of {len(text):,} characters (at most {NUMBER_CHARACTERS} are read)")
    value = float(text)
    if not math.isfinite(value):
        return _Refused(f"{text} is beyond the range of a double")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    repeated = _Repeated(out)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            repeated.key = key
            break
        seen.add(key)
    return repeated


def parse(text: str, label: str, *, depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``text``, checked by :func:`check_value`; :class:`InputError` naming ``label`` and the
    field otherwise."""
    try:
        value = json.loads(
            text, parse_constant=_constant, parse_int=_integer, parse_float=_float, object_pairs_hook=_object
        )
    except RecursionError:  # thousands deep: the parser's own limit, before ours
        raise InputError(label, f"is nested deeper than {depth} levels", _deep_field(text, depth)) from None
    except json.JSONDecodeError as exc:
        raise InputError(label, f"is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None
    check_value(value, label, depth=depth)
    return value


def read_json(path: str | Path, *, limit: int, depth: int = MAX_DEPTH) -> Any:
    """The JSON value of the file at ``path`` (at most ``limit`` bytes of UTF-8), checked as the module says."""
    label = str(path)
    return parse(decode(read_bytes(path, limit), label), label, depth=depth)


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]')


def _deep_field(text: str, depth: int) -> str:
    """The path of the first value nested deeper than ``depth`` in the JSON ``text``, from a scan of its tokens that
    stops there (so it costs what the text before that point costs)."""
    stack: list[list[Any]] = []  # per open container: its kind, and the key or index of the value being read
    key = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            key = token
        elif token in "[{":
            if len(stack) >= depth:
                return pointer(place for _, place in stack)
            stack.append([token, 0 if token == "[" else None])
        elif token in "]}":
            if stack:
                stack.pop()
        elif token == "," and stack and stack[-1][0] == "[":
            stack[-1][1] += 1
        elif token == ":" and stack:
            try:
                stack[-1][1] = json.loads(key)
            except ValueError:
                stack[-1][1] = key
    return ""


# -- checking ---------------------------------------------------------------------------------------------------------

_SCALARS = (str, int, float, type(None))


def check_value(value: Any, label: str, *, depth: int = MAX_DEPTH) -> None:
    """Refuse, naming ``label`` and the field, the first part of ``value`` (in document order) that is not strict
    JSON: a value the parser refused, a key repeated in one object, a number that is not finite, nesting deeper than
    ``depth``, or (from Python callers) a value of no JSON type."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        item, at = stack.pop()
        if isinstance(item, _Refused):
            raise InputError(label, item.reason, pointer(at))
        if isinstance(item, float) and not math.isfinite(item):
            raise InputError(label, f"{item} is not a JSON number (JSON has no NaN or infinities)", pointer(at))
        if isinstance(item, _SCALARS):
            continue
        if not isinstance(item, (Mapping, list, tuple)):
            raise InputError(label, f"a {type(item).__name__} is not a JSON value", pointer(at))
        if len(at) >= depth:
            raise InputError(label, f"is nested deeper than {depth} levels", pointer(at))
        if isinstance(item, _Repeated):
            raise InputError(label, f"the key {json.dumps(item.key)[:200]} appears twice in one object", pointer(at))
        if isinstance(item, Mapping):
            children = [(child, (*at, key)) for key, child in item.items()]
        else:
            children = [(child, (*at, index)) for index, child in enumerate(item)]
        stack.extend(reversed(children))


@cache
def _registry() -> Any:
    from .._contract.protocol import schema_registry

    return schema_registry()


def validator(schema: Mapping[str, Any]) -> Any:
    """A bounded JSON Schema validator (:func:`~advisor_conformance._bounded.bounded_validator`) of ``schema``,
    which may refer to the protocol's definitions (``protocol-v1.json#/$defs/...``)."""
    import jsonschema

    from .._bounded import bounded_validator

    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return bounded_validator(cls)(schema, registry=_registry())


def check(checker: Any, value: Any, label: str) -> None:
    """Refuse ``value`` when it breaks the schema of ``checker`` (:func:`validator`), naming ``label``, the field of
    the most relevant error and what the schema wanted there (and how many more errors there are)."""
    lines = summarise_errors(checker.iter_errors(value), limit=1)
    if not lines:
        return
    where, _, what = lines[0].partition(": ")
    more = f" ({lines[1].lstrip('… ')})" if len(lines) > 1 else ""
    raise InputError(label, what + more, where)
