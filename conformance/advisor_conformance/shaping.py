"""Calling the ``shape`` operation and taking its answer apart, for the conformance tests."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .checks import answer_of, check, violation
from ._implementation import Implementation

Messages = list[dict[str, str]]

_TOOL_CALL = re.compile(r"^\[tool_call: (?P<name>.*?) (?P<args>\{.*\})\]$")


def params(transcript: list[dict[str, Any]], question: str | None = None,
           files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The params of one ``shape`` call."""
    out: dict[str, Any] = {"transcript": transcript}
    if question is not None:
        out["question"] = question
    if files is not None:
        out["files"] = files
    return out


def shape(impl: Implementation, request: Mapping[str, Any], rules: str | Iterable[str], **kwargs: Any) -> Messages:
    """The messages for valid input; an error answer fails the test naming ``rules``."""
    answer = answer_of(impl, "shape", request, rules, **kwargs)
    if "error" in answer:
        raise violation(rules, "shape answered an error for valid input", input=request, actual=answer["error"])
    return answer["messages"]


def shape_error(impl: Implementation, request: Mapping[str, Any], rules: str | Iterable[str]) -> dict[str, Any]:
    """The error for input the spec rejects; an answer with messages fails the test naming ``rules``."""
    answer = answer_of(impl, "shape", request, rules)
    check("error" in answer, rules, "shape accepted input that must be rejected", input=request,
          actual=answer.get("messages"))
    return answer["error"]


def final(messages: Messages) -> str:
    """The text of the trailing user message."""
    return messages[-1]["content"]


def body(messages: Messages) -> Messages:
    """The flattened snapshot: every message between the system prompt and the trailing user message."""
    return messages[1:-1]


def tool_call_lines(content: str) -> list[tuple[str, str]]:
    """``(name, args-json)`` of each tool-call line of a flattened assistant message."""
    out = []
    for line in content.split("\n"):
        match = _TOOL_CALL.match(line)
        if match:
            out.append((match["name"], match["args"]))
    return out


def parse_args(text: str, rules: str | Iterable[str], request: Any) -> Any:
    """The arguments a tool-call line's JSON parses to; unparsable JSON fails naming ``rules``."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise violation(rules, f"the <args-json> of a tool-call line is not JSON ({exc})", input=request,
                        actual=text) from None


def file_param(path: str, data: bytes | str, size: int | None = None) -> dict[str, Any]:
    """A loaded file for ``shape``: text content when it is UTF-8, else base64."""
    out: dict[str, Any] = {"path": path}
    if isinstance(data, str):
        out["content"] = data
    else:
        try:
            out["content"] = data.decode("utf-8")
        except UnicodeDecodeError:
            out["content_base64"] = base64.b64encode(data).decode("ascii")
    if size is not None:
        out["size"] = size
    return out


def with_tool_call(arguments: Any, name: str = "edit", content: str = "") -> list[dict[str, Any]]:
    """A transcript whose one assistant message calls ``name`` with ``arguments`` and has its result.

    The tool result comes last, so the assistant message stays in the
    transcript instead of being taken out as the in-flight message.
    """
    return [
        {"role": "user", "content": "please fix the build"},
        {"role": "assistant", "content": content, "tool_calls": [{"id": "call_1", "name": name, "arguments": arguments}]},
        {"role": "tool", "name": name, "tool_call_id": "call_1", "content": "done"},
    ]


def rendered_arguments(impl: Implementation, arguments: Any, rules: str | Iterable[str]) -> tuple[str, Any]:
    """Shape a transcript with one tool call; return its ``<args-json>`` text and what it parses to."""
    request = params(with_tool_call(arguments))
    messages = shape(impl, request, rules)
    assistants = [message for message in body(messages) if message["role"] == "assistant"]
    check(len(assistants) == 1, rules, "the snapshot's one assistant message is not rendered as one assistant message",
          input=request, actual=body(messages))
    lines = tool_call_lines(assistants[0]["content"])
    check(len(lines) == 1, rules, "the assistant message does not hold exactly one tool-call line",
          input=request, actual=assistants[0]["content"])
    text = lines[0][1]
    return text, parse_args(text, rules, request)
