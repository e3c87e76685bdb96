"""Flattening: tool calls and tool results become plain text messages.

The advisor model receives no tools, so every tool structure in the snapshot
is rendered as text; reasoning content and provider metadata are dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from ._transcript import Message, ToolCall

#: The tool name whose results are rendered as the advisor's own earlier note.
ADVISOR_TOOL_NAME = "advisor"
EMPTY_RESULT = "(empty)"


def render_assistant(message: Message, tool_call_line: Callable[[ToolCall], str]) -> str:
    """An assistant message's text: its content, then one line per tool call, no trailing newline.

    rule: flatten.assistant-with-calls
    """
    lines = [tool_call_line(call) for call in message.tool_calls]
    if message.content:
        lines.insert(0, message.content)
    return "\n".join(lines)


def render_tool_result(message: Message, advisor_note_prefix: str) -> str:
    """A tool result as text: ``[tool_result: <name>]`` (or the advisor-note prefix), a newline, the content."""
    # The content is sent whole, whatever its size (rule: flatten.tool-result-uncapped).
    content = message.content or EMPTY_RESULT  # rule: flatten.empty-tool-result
    if message.name == ADVISOR_TOOL_NAME:  # rule: flatten.advisor-note
        return f"{advisor_note_prefix}\n{content}"
    return f"[tool_result: {message.name}]\n{content}"  # rule: flatten.tool-result
