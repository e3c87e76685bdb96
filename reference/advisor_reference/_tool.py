"""The advisor tool: its definition and the decoding of its input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._errors import AdvisorInputError
from ._transcript import _type_name

TOOL_NAME = "advisor"

# Named advisor; optional question and files, nothing required, no extra properties (rule: tool.definition).
TOOL_DEFINITION: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": (
        "Ask a stronger model for a second opinion on your current approach. It sees this whole "
        "conversation; pass a focused question and up to 8 files that matter. Uses are limited."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "What you want advice on."},
            "files": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": 8,
                "description": "Paths of up to 8 files to show the advisor, relative to the working directory.",
            },
        },
        "additionalProperties": False,
    },
}


@dataclass(frozen=True, slots=True)
class ToolInput:
    """The decoded input of one advisor call."""

    question: str = ""
    files: tuple[str, ...] = ()


def decode_tool_input(raw: Any) -> ToolInput:
    """Decode the tool-call input: optional ``question`` (string) and ``files`` (array of strings).

    Unknown keys are ignored, as the origin does; a wrong type is an
    :class:`AdvisorInputError` naming the field. A missing or null input is a
    bare call. rules: tool.unknown-keys-ignored, tool.wrong-type-error
    """
    if raw is None:
        return ToolInput()
    if not isinstance(raw, Mapping):
        raise AdvisorInputError(f"the tool input must be an object, got {_type_name(raw)}", at="input")
    question = raw.get("question", "")
    if not isinstance(question, str):  # rule: tool.wrong-type-error
        raise AdvisorInputError(f"question must be a string, got {_type_name(question)}", at="input.question")
    files = raw.get("files", [])
    if not isinstance(files, list):  # rule: tool.wrong-type-error
        raise AdvisorInputError(f"files must be an array of strings, got {_type_name(files)}", at="input.files")
    for index, item in enumerate(files):
        if not isinstance(item, str):  # rule: tool.wrong-type-error
            raise AdvisorInputError(
                f"files must be an array of strings; item {index} is {_type_name(item)}", at=f"input.files[{index}]"
            )
    return ToolInput(question=question, files=tuple(files))
