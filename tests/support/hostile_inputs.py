"""Hostile inputs for the commands' own files: a valid document of each kind (a rule report, a cache-sim session, a
transcript for ``shape``), the fields each loader reads with the JSON types they allow, and one defect made at one
field (or in the whole file's encoding), with the field the command's message must then name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from advisor_conformance._tools.cachesim.loader import EXPANDED_CHARACTERS
from advisor_conformance._tools.cachesim.sessions import FORMAT

#: A value of each JSON type, to put where another type goes.
WRONG = {
    "object": {"k": 1},
    "array": [1],
    "string": "s",
    "integer": 7,
    "number": 1.5,
    "boolean": True,
    "null": None,
}

REPORT: dict[str, Any] = {
    "format": 1,
    "suite": {"name": "advisor-conformance", "version": "0.1.0", "protocol": 1, "catalogue": "cat1"},
    "implementation": {"name": "impl", "version": "1.0", "language": "python", "areas": ["alpha"]},
    "run": {
        "target": "cmd:impl",
        "arguments": ["-q"],
        "strict_should": False,
        "started": "2026-01-02T03:04:05+00:00",
        "duration_s": 2.5,
    },
    "counts": {"rules": {"failed": 1}, "tests": {"failed": 1, "passed": 1}},
    "rules": [
        {
            "id": "alpha.one",
            "area": "alpha",
            "level": "must",
            "tag": "SPEC",
            "outcome": "failed",
            "tests": 1,
            "failed": 1,
            "passed": 0,
        },
        {"id": "alpha.two", "area": "alpha", "level": "must", "tag": "SPEC", "outcome": "passed", "tests": 1},
    ],
    "tests": [
        {
            "nodeid": "alpha/test_a.py::one",
            "rules": ["alpha.one"],
            "outcome": "failed",
            "message": "[alpha.one] café",
            "failed_rules": ["alpha.one"],
            "checked_rules": [],
            "unknown_rules": [],
            "accept": "python -m pytest",
        },
        {"nodeid": "alpha/test_a.py::two", "rules": ["alpha.two"], "outcome": "passed"},
    ],
    "snapshots": {"changed": [], "not recorded": [], "accept": "python -m pytest --snapshot-update"},
    "unknown_rules": {},
    "collected": {"alpha.one": ["alpha/test_a.py::one"]},
}
_TEXT, _INT, _NUMBER, _ARRAY, _OBJECT = {"string"}, {"integer"}, {"number", "integer"}, {"array"}, {"object"}
REPORT_FIELDS: dict[tuple[Any, ...], set[str]] = {
    ("format",): _INT,
    ("suite",): _OBJECT,
    ("suite", "version"): {"string", "integer"},
    ("suite", "catalogue"): {"string", "integer"},
    ("implementation",): _OBJECT,
    **{("implementation", key): _TEXT for key in ("name", "version", "language")},
    ("implementation", "areas"): _ARRAY,
    ("implementation", "areas", 0): _TEXT,
    ("run",): _OBJECT,
    ("run", "target"): _TEXT,
    ("run", "arguments"): _ARRAY,
    ("run", "arguments", 0): _TEXT,
    ("run", "strict_should"): {"boolean"},
    ("run", "started"): _TEXT,
    ("run", "duration_s"): _NUMBER,
    ("counts",): _OBJECT,
    ("counts", "rules"): _OBJECT,
    ("counts", "tests"): _OBJECT,
    ("counts", "tests", "passed"): _INT,
    ("rules",): _ARRAY,
    ("rules", 0): _OBJECT,
    **{("rules", 0, key): _TEXT for key in ("id", "area", "level", "tag", "outcome")},
    **{("rules", 0, key): _INT for key in ("tests", "failed", "passed")},
    ("tests",): _ARRAY,
    ("tests", 0): _OBJECT,
    **{("tests", 0, key): _TEXT for key in ("nodeid", "outcome", "message", "accept")},
    **{("tests", 0, key): _ARRAY for key in ("rules", "failed_rules", "checked_rules", "unknown_rules")},
    ("tests", 0, "rules", 0): _TEXT,
    ("snapshots",): _OBJECT,
    ("snapshots", "changed"): _ARRAY,
    ("snapshots", "accept"): _TEXT,
    ("unknown_rules",): _OBJECT,
    ("collected",): _OBJECT,
    ("collected", "alpha.one"): _ARRAY,
}

_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": {"$text": {"seed": 2, "bytes": 100, "style": "prose"}}},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "advisor", "arguments": {}}]},
    {"role": "tool", "name": "advisor", "tool_call_id": "c1", "content": {"$concat": ["a", {"$repeat": ["b", 3]}]}},
    {"role": "user", "content": {"$read": {"path": "src/a.py", "seed": 1, "bytes": 200, "start": 1, "end": None}}},
    {"role": "user", "content": {"$file": {"path": "src/a.py"}}},
]
SESSION: dict[str, Any] = {
    "format": FORMAT,
    "name": "tiny",
    "description": "a café of one call",
    "session_id": "s-tiny",
    "model": "advisor-model",
    "workspace": {"src/a.py": {"seed": 1, "bytes": 200}},
    "conversations": [{"id": "main-1", "agent": None, "conversation": 1, "messages": _MESSAGES}],
    "calls": [
        {
            "at": 1.5,
            "conversation": "main-1",
            "turn": 1,
            "messages": 3,
            "input": {"question": "q", "files": ["src/a.py"]},
        }
    ],
}
_M = ("conversations", 0, "messages")
_REPEAT = (*_M, 3, "content", "$concat", 1, "$repeat")
SESSION_FIELDS: dict[tuple[Any, ...], set[str]] = {
    **{(key,): _TEXT for key in ("name", "description", "session_id", "model")},
    ("workspace",): _OBJECT,
    ("workspace", "src/a.py"): _OBJECT,
    ("workspace", "src/a.py", "seed"): _INT,
    ("workspace", "src/a.py", "bytes"): _INT,
    ("conversations",): _ARRAY,
    ("conversations", 0): _OBJECT,
    ("conversations", 0, "id"): _TEXT,
    ("conversations", 0, "agent"): {"string", "null"},
    ("conversations", 0, "conversation"): _INT,
    _M: _ARRAY,
    (*_M, 0): _OBJECT,
    (*_M, 0, "role"): _TEXT,
    (*_M, 0, "content"): {"string", "null"},
    (*_M, 2, "tool_calls"): _ARRAY,
    (*_M, 2, "tool_calls", 0): _OBJECT,
    (*_M, 2, "tool_calls", 0, "name"): _TEXT,
    (*_M, 2, "tool_calls", 0, "arguments"): _OBJECT,
    (*_M, 3, "name"): _TEXT,
    (*_M, 3, "tool_call_id"): _TEXT,
    (*_M, 1, "content", "$text"): _OBJECT,
    (*_M, 1, "content", "$text", "seed"): _INT,
    (*_M, 1, "content", "$text", "bytes"): _INT,
    (*_M, 1, "content", "$text", "style"): _TEXT,
    (*_M, 3, "content", "$concat"): _ARRAY,
    _REPEAT: _ARRAY,
    (*_REPEAT, 0): _TEXT,
    (*_REPEAT, 1): _INT,
    (*_M, 4, "content", "$read", "path"): _TEXT,
    (*_M, 4, "content", "$read", "bytes"): _INT,
    (*_M, 4, "content", "$read", "start"): _INT,
    (*_M, 4, "content", "$read", "end"): {"integer", "null"},
    (*_M, 5, "content", "$file", "path"): _TEXT,
    ("calls",): _ARRAY,
    ("calls", 0): _OBJECT,
    ("calls", 0, "at"): _NUMBER,
    ("calls", 0, "conversation"): _TEXT,
    ("calls", 0, "turn"): _INT,
    ("calls", 0, "messages"): _INT,
    ("calls", 0, "input"): _OBJECT,
    ("calls", 0, "input", "question"): _TEXT,
    ("calls", 0, "input", "files"): _ARRAY,
    ("calls", 0, "input", "files", 0): _TEXT,
}
#: The counts of a session that make text (a repeat count, a size): huge ones must be refused before they are made.
SESSION_COUNTS = (
    (*_REPEAT, 1),
    (*_M, 1, "content", "$text", "bytes"),
    (*_M, 4, "content", "$read", "bytes"),
    ("workspace", "src/a.py", "bytes"),
)

TRANSCRIPT: dict[str, Any] = {
    "description": "a fixture of the suite's form",
    "input": {
        "transcript": [
            {"role": "user", "content": "fix the café build", "metadata": {"source": "cli"}},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "read", "arguments": {}}]},
            {"role": "tool", "name": "read", "tool_call_id": "c1", "content": "ok"},
            {"role": "user", "content": "advise"},
        ],
        "question": "Is this safe?",
        "files": [{"path": "a.py", "content": "x = 1\n", "size": 6}],
    },
}
_T = ("input", "transcript")
TRANSCRIPT_FIELDS: dict[tuple[Any, ...], set[str]] = {
    ("input",): _OBJECT,
    _T: _ARRAY,
    (*_T, 0): _OBJECT,
    (*_T, 0, "role"): _TEXT,
    (*_T, 0, "content"): {"string", "null"},
    (*_T, 0, "metadata"): _OBJECT,
    (*_T, 1, "tool_calls"): _ARRAY,
    (*_T, 1, "tool_calls", 0): _OBJECT,
    (*_T, 1, "tool_calls", 0, "id"): _TEXT,
    (*_T, 1, "tool_calls", 0, "name"): _TEXT,
    (*_T, 1, "tool_calls", 0, "arguments"): _OBJECT,
    (*_T, 2, "name"): _TEXT,
    (*_T, 2, "tool_call_id"): _TEXT,
    ("input", "question"): _TEXT,
    ("input", "files"): _ARRAY,
    ("input", "files", 0): _OBJECT,
    ("input", "files", 0, "path"): _TEXT,
    ("input", "files", 0, "content"): _TEXT,
    ("input", "files", 0, "size"): _INT,
}

KINDS = {
    "report": (REPORT, REPORT_FIELDS),
    "session": (SESSION, SESSION_FIELDS),
    "transcript": (TRANSCRIPT, TRANSCRIPT_FIELDS),
}
#: Whole-file encodings that are not UTF-8, each with how the text is encoded.
ENCODINGS = {
    "latin-1": lambda text: text.encode("latin-1", "replace"),
    "utf-16": lambda text: text.encode("utf-16"),
    "utf-16-le": lambda text: text.encode("utf-16-le"),
    "utf-32": lambda text: text.encode("utf-32"),
}
_SENTINEL = "\x00hostile\x00"


def pointer(path: tuple[Any, ...]) -> str:
    """A field's path as the commands' messages write it."""
    return "/".join(str(part) for part in path)


@dataclass(frozen=True)
class Hostile:
    """One defect: ``kind`` (wrong-type, deep, digits, constant, beyond-double, repeated-key, huge-count, or an
    encoding of :data:`ENCODINGS`), at ``path`` (none for an encoding), with its ``detail`` (the wrong value, the
    depth, the number of digits, the constant, the count), and whether the file starts with a UTF-8 byte order mark
    (ignored by the reader: the defect must still be found)."""

    kind: str
    path: tuple[Any, ...] = ()
    detail: Any = None
    bom: bool = False


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``path``."""
    copy = json.loads(json.dumps(document))
    _at(copy, path[:-1])[path[-1]] = value
    return copy


def _raw(kind: str, detail: Any, original: Any) -> str:
    """The JSON text of the defect put in place of a field's value."""
    if kind == "deep":
        return "[" * detail + "]" * detail
    if kind == "digits":
        return "9" * detail
    if kind in ("constant", "beyond-double"):
        return detail
    if kind == "repeated-key":
        pairs = list(original.items())
        return "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in [pairs[0], *pairs]) + "}"
    raise ValueError(kind)


def render(base: Any, hostile: Hostile) -> tuple[bytes, str | None]:
    """The file's bytes with the defect, and the field its message must name (``path`` and, for a nesting too deep,
    the first level of it); None for an encoding (the message names the file and where the text stops being
    UTF-8)."""
    if hostile.kind in ENCODINGS:
        return ENCODINGS[hostile.kind](json.dumps(base, ensure_ascii=False)), None
    if hostile.kind in ("wrong-type", "huge-count"):
        text = json.dumps(_replaced(base, hostile.path, hostile.detail), ensure_ascii=False)
    else:
        original = _at(base, hostile.path)
        text = json.dumps(_replaced(base, hostile.path, _SENTINEL), ensure_ascii=False)
        text = text.replace(json.dumps(_SENTINEL, ensure_ascii=False), _raw(hostile.kind, hostile.detail, original))
    field = pointer(hostile.path) + ("/0" if hostile.kind == "deep" else "")
    return ("\ufeff" if hostile.bom else "").encode("utf-8") + text.encode("utf-8"), field


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return type(value) is {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}[kind]


def hostile(kind_name: str) -> st.SearchStrategy[Hostile]:
    """A defect of every class in a document of kind ``kind_name`` (:data:`KINDS`)."""
    base, fields = KINDS[kind_name]
    paths = sorted(fields, key=pointer)
    objects = [path for path in paths if isinstance(_at(base, path), dict) and _at(base, path)]
    wrong = st.sampled_from(paths).flatmap(
        lambda path: st.sampled_from(
            [name for name, value in WRONG.items() if not any(_is(value, kind) for kind in fields[path])]
        ).map(lambda name: Hostile("wrong-type", path, WRONG[name]))
    )
    strategies = [
        wrong,
        st.builds(Hostile, st.just("deep"), st.sampled_from(paths), st.integers(65, 3000)),
        st.builds(Hostile, st.just("digits"), st.sampled_from(paths), st.integers(41, 6000)),
        st.builds(
            Hostile, st.just("constant"), st.sampled_from(paths), st.sampled_from(["NaN", "Infinity", "-Infinity"])
        ),
        st.builds(Hostile, st.just("beyond-double"), st.sampled_from(paths), st.sampled_from(["1e400", "-1e309"])),
        st.builds(Hostile, st.just("repeated-key"), st.sampled_from(objects)),
        st.sampled_from(sorted(ENCODINGS)).map(Hostile),
    ]
    if kind_name == "session":
        huge = st.one_of(st.integers(EXPANDED_CHARACTERS + 1, 10**15), st.sampled_from([1e11, 1e15, 1e300]))
        strategies.append(st.builds(Hostile, st.just("huge-count"), st.sampled_from(SESSION_COUNTS), huge))
    return st.builds(
        lambda case, bom: Hostile(case.kind, case.path, case.detail, bom and case.kind not in ENCODINGS),
        st.one_of(strategies),
        st.booleans(),
    )
