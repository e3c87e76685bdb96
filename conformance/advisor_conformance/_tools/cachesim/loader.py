"""The loader of cache-sim sessions: a session file checked whole, and its macros expanded within a budget.

A session (``sessions.py`` has the format) is read with the commands' bounded JSON reader (:mod:`..inputs`), checked
against :data:`SESSION_SCHEMA` (every field the replay reads, with its type and range), then expanded: each macro's
argument is checked against its own schema, and every character the expansion makes is counted against
:data:`EXPANDED_CHARACTERS` *before* it is made, so ``{"$repeat": ["x", 1e11]}`` or ``"bytes": 1e11`` is refused at
once instead of asking for 100 GB or running until killed. The expanded messages must be transcript messages of the
protocol, every call must point into its conversation (an assistant message followed by the advisor's result), the
calls in time order, and the snapshots all the calls send at most :data:`REPLAYED_CHARACTERS`. A workspace path must
stay in the workspace (relative, no ``..``, not a folder of another file). Any defect is an
:class:`~advisor_conformance._tools.inputs.InputError` naming the file and the field; ``cache-sim`` exits 2 on it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from ..inputs import InputError, check, decode, parse, pointer, read_bytes, validator
from .sessions import FORMAT, Call, Conversation, Session, read_result, text

#: The largest session file read (the largest shipped one is 340 KB).
SESSION_BYTES = 16 * 1024 * 1024
#: The most characters a session's workspace and macros may make in all (the largest shipped one makes 5.5 million).
EXPANDED_CHARACTERS = 16 * 1024 * 1024
#: The most characters the snapshots of all its calls may hold in all, what the replay sends (shipped: 13 million).
REPLAYED_CHARACTERS = 64 * 1024 * 1024
MAX_CALLS = 5_000
_PATH_BYTES, _COMPONENT_BYTES = 4096, 255
_PROTOCOL = "https://advisor-conformance.invalid/schema/protocol-v1.json"

_NAME = {"type": "string", "minLength": 1, "maxLength": 200}
_SEED = {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}
_BYTES = {"type": "integer", "minimum": 0, "maximum": EXPANDED_CHARACTERS}
_COUNT = {"type": "integer", "minimum": 1, "maximum": 2**31}
#: The fields of a session file the replay reads, each with its type and range; others are let through.
SESSION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "name", "workspace", "conversations", "calls"],
    "properties": {
        "format": {"const": FORMAT},
        "name": _NAME,
        "description": {"type": "string"},
        "session_id": _NAME,
        "model": _NAME,
        "workspace": {
            "type": "object",
            "maxProperties": 10_000,
            "additionalProperties": {
                "type": "object",
                "required": ["seed", "bytes"],
                "properties": {"seed": _SEED, "bytes": _BYTES},
                "additionalProperties": False,
            },
        },
        "conversations": {
            "type": "array",
            "minItems": 1,
            "maxItems": 10_000,
            "items": {
                "type": "object",
                "required": ["id", "messages"],
                "properties": {
                    "id": _NAME,
                    "agent": {"type": ["string", "null"], "maxLength": 200},
                    "conversation": _COUNT,
                    "messages": {"type": "array", "minItems": 2, "items": {"type": "object"}},
                },
            },
        },
        "calls": {
            "type": "array",
            "maxItems": MAX_CALLS,
            "items": {
                "type": "object",
                "required": ["at", "conversation", "messages"],
                "properties": {
                    "at": {"type": "number", "minimum": 0, "maximum": 10**9},
                    "conversation": _NAME,
                    "turn": _COUNT,
                    "messages": _COUNT,
                    "input": {"type": "object"},
                },
            },
        },
    },
}
#: The schema of the expanded parts: messages of the protocol's transcript, a call's input as the advisor tool takes it.
EXPANDED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "conversations": {
            "items": {"properties": {"messages": {"items": {"$ref": f"{_PROTOCOL}#/$defs/transcript_message"}}}}
        },
        "calls": {
            "items": {
                "properties": {
                    "input": {
                        "type": "object",
                        "properties": {"question": {"type": "string"}, "files": {"type": "array", "items": _NAME}},
                    }
                }
            }
        },
    },
}
#: The argument of each macro (sessions.py and fixtures/README.md say what they make).
MACROS: dict[str, dict[str, Any]] = {
    "$text": {
        "type": "object",
        "required": ["seed", "bytes"],
        "properties": {"seed": _SEED, "bytes": _BYTES, "style": {"enum": ["code", "log", "prose"]}},
        "additionalProperties": False,
    },
    "$file": {
        "type": "object",
        "required": ["path"],
        "properties": {"path": {"type": "string"}},
        "additionalProperties": False,
    },
    "$read": {
        "type": "object",
        "required": ["path", "seed", "bytes"],
        "properties": {
            "path": {"type": "string", "maxLength": _PATH_BYTES},
            "seed": _SEED,
            "bytes": _BYTES,
            "start": _COUNT,
            "end": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31},
        },
        "additionalProperties": False,
    },
    "$repeat": {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "prefixItems": [{}, {"type": "integer", "minimum": 0, "maximum": EXPANDED_CHARACTERS}],
    },
    "$concat": {"type": "array"},
}


@cache
def _checker(name: str) -> Any:
    schemas = {"session": SESSION_SCHEMA, "expanded": EXPANDED_SCHEMA, **MACROS}
    return validator(schemas[name])


class _Expansion:
    """Macros expanded within a budget of characters, every part checked, every refusal naming its field."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.left = EXPANDED_CHARACTERS
        self.workspace: dict[str, str] = {}

    def refuse(self, reason: str, at: tuple[Any, ...]) -> InputError:
        return InputError(self.label, reason, pointer(at))

    def spend(self, characters: int, at: tuple[Any, ...]) -> None:
        """Count ``characters`` about to be made; refuse them past the budget, before they are made."""
        if characters > self.left:
            raise self.refuse(
                f"expands to more than {EXPANDED_CHARACTERS:,} characters in all (this part alone asks for "
                f"{characters:,})",
                at,
            )
        self.left -= characters

    def files(self, workspace: Mapping[str, Any]) -> dict[str, str]:
        for path, spec in workspace.items():
            at = ("workspace", path)
            problem = workspace_path_problem(path)
            if problem:
                raise self.refuse(problem, at)
            self.spend(int(spec["bytes"]), at)
            self.workspace[path] = text(int(spec["seed"]), int(spec["bytes"]), "code")
        folders = {str(parent) for path in self.workspace for parent in PurePosixPath(path).parents}
        for path in self.workspace:
            if path in folders:
                raise self.refuse("is a file, and a folder of another workspace file", ("workspace", path))
        return self.workspace

    def expand(self, value: Any, at: tuple[Any, ...]) -> Any:
        """``value`` with every macro expanded (a macro stands anywhere a string goes)."""
        if isinstance(value, list):
            return [self.expand(item, (*at, index)) for index, item in enumerate(value)]
        if isinstance(value, str):
            self.spend(len(value), at)
            return value
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key in MACROS:
                self._check_macro(key, arg, (*at, key))
                return self._MAKERS[key](self, arg, (*at, key))
        return {key: self.expand(item, (*at, key)) for key, item in value.items()}

    def _check_macro(self, key: str, arg: Any, at: tuple[Any, ...]) -> None:
        try:
            check(_checker(key), arg, self.label)
        except InputError as exc:
            field = exc.field if exc.field != "(top)" else ""
            raise self.refuse(exc.reason, (*at, *([field] if field else []))) from None

    def _string(self, value: Any, at: tuple[Any, ...]) -> str:
        made = self.expand(value, at)
        if not isinstance(made, str):
            raise self.refuse(f"expands to a {type(made).__name__}, where a string goes", at)
        return made

    def _text(self, arg: dict[str, Any], at: tuple[Any, ...]) -> str:
        self.spend(int(arg["bytes"]), at)
        return text(int(arg["seed"]), int(arg["bytes"]), arg.get("style", "code"))

    def _file(self, arg: dict[str, Any], at: tuple[Any, ...]) -> str:
        if arg["path"] not in self.workspace:
            raise self.refuse(f"names no workspace file ({arg['path'][:200]!r})", (*at, "path"))
        content = self.workspace[arg["path"]]
        self.spend(len(content), at)
        return content

    def _read(self, arg: dict[str, Any], at: tuple[Any, ...]) -> str:
        self.spend(int(arg["bytes"]), at)
        content = text(int(arg["seed"]), int(arg["bytes"]), "code")
        end = arg.get("end")
        result = read_result(arg["path"], content, int(arg.get("start", 1)), None if end is None else int(end))
        self.spend(len(result), at)
        return result

    def _repeat(self, arg: list[Any], at: tuple[Any, ...]) -> str:
        part, count = self._string(arg[0], (*at, 0)), int(arg[1])
        self.spend(len(part) * max(count - 1, 0), at)
        return part * count

    def _concat(self, arg: list[Any], at: tuple[Any, ...]) -> str:
        return "".join(self._string(item, (*at, index)) for index, item in enumerate(arg))

    _MAKERS: dict[str, Callable[..., str]] = {
        "$text": _text,
        "$file": _file,
        "$read": _read,
        "$repeat": _repeat,
        "$concat": _concat,
    }


def workspace_path_problem(path: str) -> str | None:
    """Why ``path`` cannot be a workspace file (it would be written outside the workspace, or cannot be), or None."""
    if not path or "\x00" in path or "\\" in path:
        return "is not a workspace path (empty, or holding NUL or a backslash)"
    size = len(path.encode("utf-8", "surrogatepass"))
    parts = path.split("/")
    if path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return "is not a relative path inside the workspace (no leading /, no empty, . or .. part)"
    if size > _PATH_BYTES or any(len(part.encode("utf-8", "surrogatepass")) > _COMPONENT_BYTES for part in parts):
        return f"is longer than a path may be ({_PATH_BYTES} bytes, {_COMPONENT_BYTES} a part)"
    return None


def _size(value: Any) -> int:
    """The characters of the strings in a message (what the replay sends of it), iteratively."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def _check_calls(label: str, calls: list[Call], conversations: dict[str, Conversation]) -> None:
    """Every call points into its conversation, on an assistant message followed by the advisor's result; the calls
    are in time order; and the snapshots they send are within :data:`REPLAYED_CHARACTERS`."""
    sizes = {
        cid: list(itertools.accumulate(_size(message) for message in c.messages)) for cid, c in conversations.items()
    }
    sent = 0
    for call, before in zip(calls, [None, *calls], strict=False):
        at = ("calls", call.index)
        if call.conversation not in conversations:
            raise InputError(
                label, f"names no conversation ({call.conversation[:200]!r})", pointer((*at, "conversation"))
            )
        messages = conversations[call.conversation].messages
        if (
            not (0 < call.messages < len(messages))
            or messages[call.messages - 1].get("role") != "assistant"
            or messages[call.messages].get("name") != "advisor"
        ):
            raise InputError(
                label,
                "does not end on an assistant message followed by the advisor's result",
                pointer((*at, "messages")),
            )
        if before is not None and call.at < before.at:
            raise InputError(label, "the calls are not in time order", pointer((*at, "at")))
        sent += sizes[call.conversation][call.messages - 1]
        if sent > REPLAYED_CHARACTERS:
            raise InputError(
                label,
                f"the snapshots of the calls up to this one hold more than {REPLAYED_CHARACTERS:,} characters, "
                "what a replay may send",
                pointer(at),
            )


def load(path: str | Path) -> Session:
    """Read, check and expand the session file at ``path``; :class:`InputError` naming the file and the field."""
    label = str(path)
    raw = decode(read_bytes(path, SESSION_BYTES), label)
    data = parse(raw, label)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise InputError(label, f"is not a session file (format {str(found)[:60]!r}, expected {FORMAT!r})", "format")
    check(_checker("session"), data, label)
    expansion = _Expansion(label)
    workspace = expansion.files(data["workspace"])
    messages = [
        expansion.expand(raw_conversation["messages"], ("conversations", index, "messages"))
        for index, raw_conversation in enumerate(data["conversations"])
    ]
    inputs = [
        expansion.expand(raw_call.get("input", {}), ("calls", index, "input"))
        for index, raw_call in enumerate(data["calls"])
    ]
    check(
        _checker("expanded"),
        {"conversations": [{"messages": m} for m in messages], "calls": [{"input": i} for i in inputs]},
        label,
    )
    conversations: dict[str, Conversation] = {}
    for index, raw_conversation in enumerate(data["conversations"]):
        cid = raw_conversation["id"]
        if cid in conversations:
            raise InputError(
                label, f"conversation {cid[:200]!r} appears twice", pointer(("conversations", index, "id"))
            )
        conversations[cid] = Conversation(
            cid, raw_conversation.get("agent"), int(raw_conversation.get("conversation", 1)), messages[index]
        )
    calls = [
        Call(
            index,
            float(raw_call["at"]),
            raw_call["conversation"],
            int(raw_call.get("turn", 1)),
            int(raw_call["messages"]),
            inputs[index],
        )
        for index, raw_call in enumerate(data["calls"])
    ]
    _check_calls(label, calls, conversations)
    return Session(
        data["name"],
        str(data.get("description", "")),
        str(data.get("session_id", data["name"])),
        str(data.get("model", "advisor-model")),
        workspace,
        conversations,
        calls,
        Path(path),
        len(raw),
    )
