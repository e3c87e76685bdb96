"""The canonical transcript model: JSON in, JSON out, with errors that name the field.

A transcript is a JSON array of messages::

    {"role": "system" | "user" | "assistant" | "tool",
     "content": "text",                      # optional, default "" (null means "")
     "tool_calls": [{"id": "c1", "name": "read", "arguments": {...}}],  # assistant only
     "name": "read", "tool_call_id": "c1",   # tool only, both required there
     "reasoning_content": "text",            # optional, any role
     "metadata": {...}}                      # optional opaque provider metadata, any role

Unknown keys are rejected rather than ignored, so a misspelt field never
disappears silently. Lone surrogates (legal as JSON escapes) become U+FFFD,
as the origin's JSON decoder writes them.

Tool-call arguments must be JSON the origin can decode: nested at most
:data:`MAX_ARGUMENT_DEPTH` levels (the flattening walks them recursively),
every number a finite float64 (the origin decodes them as float64, so
``1e400``, ``10**400`` and NaN cannot be), every key a string. Anything else
is an invalid_input error naming the offending value's path.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._errors import AdvisorInputError, reject_unknown_keys
from ._text import to_valid_unicode

ROLES = ("system", "user", "assistant", "tool")  # rule: transcript.roles

_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "name", "tool_call_id", "reasoning_content", "metadata"})
_TOOL_CALL_KEYS = frozenset({"id", "name", "arguments"})
#: Tool-call arguments nest at most this many objects and arrays deep. Real arguments nest a few levels; the
#: capping and the origin encoding walk them recursively, and 200 levels leave them most of Python's default
#: 1000-frame stack, whatever the caller's own depth.
MAX_ARGUMENT_DEPTH = 200


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of an assistant message; ``arguments`` is a JSON object."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Message:
    """One transcript message."""

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    name: str = ""
    tool_call_id: str = ""
    reasoning_content: str = ""
    metadata: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class RenderedMessage:
    """A message of the advisor request: a role and plain text, nothing else (rule: request.no-tools)."""

    role: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def _string(raw: Mapping[str, Any], key: str, at: str, *, required: bool = False, nullable: bool = False) -> str:
    if key not in raw:
        if required:
            raise AdvisorInputError("is required", at=f"{at}.{key}")
        return ""
    value = raw[key]
    if value is None and nullable:
        return ""
    if not isinstance(value, str):
        raise AdvisorInputError(f"must be a string, got {_type_name(value)}", at=f"{at}.{key}")
    return to_valid_unicode(value)


def parse_message(raw: Any, at: str, *, open_roles: bool = False) -> Message:
    """Parse one message; ``at`` is its path for error messages (``transcript[3]``).

    A role outside system, user, assistant and tool is refused, naming the field, and so are tool calls on a message
    that is not an assistant's: the reference's choice, since a provider would refuse such a message anyway. With
    ``open_roles`` (the origin's model: roles are open strings, clarifications §10) any role is kept with its role and
    content, and any role may carry tool calls (clarifications §1 says only that assistant messages may).
    """
    if not isinstance(raw, Mapping):
        raise AdvisorInputError(f"must be an object, got {_type_name(raw)}", at=at)
    reject_unknown_keys(raw, _MESSAGE_KEYS, at)
    role = _string(raw, "role", at, required=True)
    if role not in ROLES and (not open_roles or not role):  # rule: transcript.malformed-rejected
        raise AdvisorInputError(f"must be one of {', '.join(ROLES)}, got {role!r}", at=f"{at}.role")
    content = _string(raw, "content", at, nullable=True)  # null content reads as "" (rule: transcript.roles)
    reasoning = _string(raw, "reasoning_content", at, nullable=True)
    metadata = raw.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise AdvisorInputError(f"must be an object, got {_type_name(metadata)}", at=f"{at}.metadata")

    tool_calls: tuple[ToolCall, ...] = ()
    if "tool_calls" in raw and raw["tool_calls"] is not None:
        if role != "assistant" and not open_roles:  # the reference's choice (rule: transcript.malformed-rejected)
            raise AdvisorInputError(
                f"only assistant messages carry tool calls, this is {role!r}", at=f"{at}.tool_calls"
            )
        tool_calls = _parse_tool_calls(raw["tool_calls"], f"{at}.tool_calls")

    name = tool_call_id = ""
    if role == "tool":  # tool messages carry the tool name and tool_call_id (rule: transcript.roles)
        name = _string(raw, "name", at, required=True)
        tool_call_id = _string(raw, "tool_call_id", at, required=True)
    else:
        for key in ("name", "tool_call_id"):
            if key in raw:
                raise AdvisorInputError(f"only tool messages carry {key}, this is {role!r}", at=f"{at}.{key}")

    return Message(
        role=role,
        content=content,
        tool_calls=tool_calls,
        name=name,
        tool_call_id=tool_call_id,
        reasoning_content=reasoning,
        metadata=metadata,
    )


def _parse_tool_calls(raw: Any, at: str) -> tuple[ToolCall, ...]:
    if not isinstance(raw, list):
        raise AdvisorInputError(f"must be an array, got {_type_name(raw)}", at=at)
    calls = []
    for index, item in enumerate(raw):
        item_at = f"{at}[{index}]"
        if not isinstance(item, Mapping):
            raise AdvisorInputError(f"must be an object, got {_type_name(item)}", at=item_at)
        reject_unknown_keys(item, _TOOL_CALL_KEYS, item_at)
        name = _string(item, "name", item_at, required=True)
        if not name:
            raise AdvisorInputError("must not be empty", at=f"{item_at}.name")
        if "arguments" not in item:
            raise AdvisorInputError("is required", at=f"{item_at}.arguments")
        arguments = item["arguments"]
        if not isinstance(arguments, Mapping):  # rule: transcript.malformed-rejected
            raise AdvisorInputError(f"must be an object, got {_type_name(arguments)}", at=f"{item_at}.arguments")
        check_json_value(arguments, f"{item_at}.arguments")
        calls.append(ToolCall(id=_string(item, "id", item_at), name=name, arguments=arguments))
    return tuple(calls)


def _bad_json_value(value: Any, depth: int) -> str | None:
    """Why one value (not its contents) cannot be tool-call arguments, or None."""
    if isinstance(value, (str, bool)) or value is None:
        return None
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            return "is a number outside float64's range (the origin decodes arguments as float64)"
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not a finite number (the origin decodes arguments as float64)"
    if isinstance(value, (dict, list)):
        if depth > MAX_ARGUMENT_DEPTH:
            return f"nests deeper than {MAX_ARGUMENT_DEPTH} levels"
        if isinstance(value, dict) and not all(isinstance(key, str) for key in value):
            return "has a key that is not a string"
        return None
    return f"is not a JSON value ({type(value).__name__})"


def _path(at: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{at}[{key}]"
    return f"{at}.{key}" if key.isidentifier() else f"{at}[{json.dumps(key)}]"


def _is_plain_json(value: Any) -> bool:
    """Whether ``value`` surely passes :func:`check_json_value`: a fast walk that only says yes or no."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict:
            if depth > MAX_ARGUMENT_DEPTH:
                return False
            for key, child in item.items():
                if type(key) is not str:
                    return False
                if type(child) is not str:
                    push((child, depth + 1))
        elif kind is list:
            if depth > MAX_ARGUMENT_DEPTH:
                return False
            for child in item:
                if type(child) is not str:
                    push((child, depth + 1))
        elif (
            kind is not str
            and item is not None
            and kind is not bool
            and (isinstance(item, (dict, list)) or _bad_json_value(item, depth) is not None)
        ):
            return False  # a problem, or a subclass of dict or list: the full walk decides
    return True


def check_json_value(value: Any, at: str) -> None:
    """Fail, naming the path of an offending value, unless ``value`` is JSON the origin decodes.

    The walks are iterative, so no depth crashes them; paths are built only when something is wrong.
    """
    if _is_plain_json(value):
        return
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]  # value, depth, (parent crumb, key) for its path
    while stack:
        item, depth, crumb = stack.pop()
        problem = _bad_json_value(item, depth)
        if problem is not None:
            path = at
            if depth <= MAX_ARGUMENT_DEPTH:  # too deep: the field is named, not a path hundreds of levels long
                keys = []
                while crumb is not None:
                    crumb, key = crumb
                    keys.append(key)
                for key in reversed(keys):
                    path = _path(path, key)
            raise AdvisorInputError(problem, at=path)
        if isinstance(item, dict):
            stack.extend((child, depth + 1, (crumb, key)) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, depth + 1, (crumb, index)) for index, child in enumerate(item))


def parse_transcript(raw: Any, at: str = "transcript", *, open_roles: bool = False) -> tuple[Message, ...]:
    """Parse a JSON transcript (a list of message objects) into messages.

    Raises :class:`AdvisorInputError` naming the message index and field of
    the first problem. The input is not mutated. rule: transcript.malformed-rejected
    """
    if not isinstance(raw, list):
        raise AdvisorInputError(f"must be an array of messages, got {_type_name(raw)}", at=at)
    return tuple(parse_message(item, f"{at}[{index}]", open_roles=open_roles) for index, item in enumerate(raw))


def message_to_json(message: Message) -> dict[str, Any]:
    """The canonical JSON form of a message (fields at their defaults are left out)."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": call.id, "name": call.name, "arguments": call.arguments} for call in message.tool_calls
        ]
    if message.role == "tool":
        out["name"] = message.name
        out["tool_call_id"] = message.tool_call_id
    if message.reasoning_content:
        out["reasoning_content"] = message.reasoning_content
    if message.metadata is not None:
        out["metadata"] = message.metadata
    return out


def transcript_to_json(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The canonical JSON form of a transcript."""
    return [message_to_json(message) for message in messages]
