"""Calling the ``shape`` operation and taking its answer apart, for the conformance tests."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._excerpts import first_difference, parting, region
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
    __tracebackhide__ = True
    answer = answer_of(impl, "shape", request, rules, **kwargs)
    if "error" in answer:
        raise violation(rules, "shape answered an error for valid input", input=request, actual=answer["error"])
    return answer["messages"]


def shape_error(impl: Implementation, request: Mapping[str, Any], rules: str | Iterable[str]) -> dict[str, Any]:
    """The error for input the spec rejects; an answer with messages fails the test naming ``rules``."""
    __tracebackhide__ = True
    answer = answer_of(impl, "shape", request, rules)
    check("error" in answer, rules, "shape accepted input that must be rejected", input=request,
          actual=answer.get("messages"))
    return answer["error"]


@dataclass(frozen=True)
class Deduped:
    """The place of a deduped file's block in an expected text: its layout is the implementation's choice."""

    path: str
    content: str = ""


def deduped_text(strings: Mapping[str, str], path: str) -> str | None:
    """A deduped file's block as the implementation declared its layout, or None when it declares none."""
    layout = strings.get("deduped_file_block")
    if layout is None:
        return None
    values = {"path": path, "notice": strings["deduped_file_notice"]}
    return re.sub(r"\{(path|notice)\}", lambda match: values[match[1]], layout)


def deduped_problem(block: str, slot: Deduped, strings: Mapping[str, str]) -> str | None:
    """What is wrong with a deduped file's block, or None: it names the path, carries the declared notice (which
    says where the content is) and none of the file's content (dedupe.notice)."""
    declared = deduped_text(strings, slot.path)
    if declared is not None:
        return None if block == declared else f"the block is not the declared layout: expected {declared!r}"
    notice = strings["deduped_file_notice"]
    if slot.path not in block:
        return f"the block does not name the path {slot.path!r}"
    if notice not in block:
        return "the block does not carry the declared deduped-file notice"
    content = slot.content.strip()
    # Only content long enough not to be a word of the block's own layout tells the content was sent.
    if len(content) >= 16 and content not in slot.path + notice and content in block:
        return "the block carries the file's content"
    return None


def match_parts(actual: str, parts: list[str | Deduped], strings: Mapping[str, str]) -> str | None:
    """Whether ``actual`` is the exact texts of ``parts`` in order, each :class:`Deduped` part a deduped block
    between them; None when it is, else where it departs."""
    found = locate_departure(actual, parts, strings)
    return None if found is None else found[1]


def locate_departure(actual: str, parts: list[str | Deduped], strings: Mapping[str, str]) -> tuple[int, str] | None:
    """Where ``actual`` departs from ``parts``: the index of the part at which it does (``len(parts)`` for text
    left over at the end) and what differs there; None when it matches."""
    found = locate_departure_at(actual, parts, strings)
    return None if found is None else found[:2]


def locate_departure_at(actual: str, parts: list[str | Deduped],
                        strings: Mapping[str, str]) -> tuple[int, str, int | None] | None:
    """:func:`locate_departure`, and the offset inside the part where the text departs (None for a deduped block;
    for text left over at the end, the end of the last part: what runs on is judged at its end)."""
    position = 0
    for index, part in enumerate(parts):
        if isinstance(part, str):
            if not actual.startswith(part, position):
                offset = next((i for i, (a, b) in enumerate(zip(actual[position:], part, strict=False)) if a != b),
                              min(len(part), len(actual) - position))
                return index, _departure(actual, part, position), offset
            position += len(part)
            continue
        following = next((p for p in parts[index + 1:] if isinstance(p, str) and p), None)
        end = len(actual) if following is None else actual.find(following, position)
        if end < 0:
            return index, (f"after character {position}, the text that should follow the deduped block of "
                           f"{part.path!r} is not found: {following[:80]!r}"), None
        problem = deduped_problem(actual[position:end], part, strings)
        if problem:
            return index, (f"the deduped block of {part.path!r} (characters {position} to {end}, "
                           f"{actual[position:end]!r:.300}): {problem}"), None
        position = end
    if position != len(actual):
        last = parts[-1] if parts else None
        return len(parts), f"{len(actual) - position} unexpected characters at the end: " \
                           f"{actual[position:position + 120]!r}", len(last) if isinstance(last, str) else None
    return None


def check_segments(actual: str, segments: Iterable[tuple[str | Deduped, str | Iterable[str]]],
                   strings: Mapping[str, str], what: str, /, order: tuple[str, list[str]] | None = None,
                   **context: Any) -> None:
    """Fail unless ``actual`` is the segments' texts in order (a :class:`Deduped` segment: a deduped file's block),
    naming the rules of the segment where the text departs: a wrong request for guidance is blamed on its rule,
    not on the rule of the file or question the test is about. With ``order = (rule, blocks)``, a text that is
    exactly those blocks in another order is blamed on that rule, with where each block stands."""
    __tracebackhide__ = True
    segments = list(segments)
    found = locate_departure(actual, [part for part, _ in segments], strings)
    if found is None:
        return
    if order is not None:
        rule, blocks = order
        if blocks and all(block in actual for block in blocks):
            where = [actual.find(block) for block in blocks]
            reordered = "".join(block for _, block in sorted(zip(where, blocks, strict=True), key=lambda p: p[0]))
            if reordered == actual:  # the very same blocks, in another order
                raise violation(rule, f"{what}: every block is there, but in another order: the blocks stand at "
                                      f"characters {where} (in the expected order)", **context)
    index, problem = found
    raise violation(blame(segments, index, actual, strings), f"{what}: {problem}", **context)


def blame(segments: list[tuple[str | Deduped, str | Iterable[str]]], index: int, actual: str,
          strings: Mapping[str, str]) -> list[str]:
    """The rules of the segment where the text departs; at the very start of a segment the text before may have
    run on (a question left untrimmed, say), so the previous segment's rules are named too."""
    def rules_of(i: int) -> list[str]:
        owner = segments[i][1]
        return [owner] if isinstance(owner, str) else list(owner)

    if not segments:
        return []
    index = min(index, len(segments) - 1)
    named = rules_of(index)
    if index > 0 and _starts_at_segment(segments, index, actual, strings):
        named = [*rules_of(index - 1), *(rule for rule in named if rule not in rules_of(index - 1))]
    return named


def _starts_at_segment(segments: list[tuple[str | Deduped, Any]], index: int, actual: str,
                       strings: Mapping[str, str]) -> bool:
    """Whether the text departs exactly where segment ``index`` begins (the segments before it all matched) and that
    segment's text stands later on: something ran on before it, perhaps the previous segment. (A segment that is not
    found at all is simply wrong: its own rules alone.)"""
    prefix = [part for part, _ in segments[:index]]
    if any(isinstance(part, Deduped) for part in prefix):
        return False
    start = sum(len(part) for part in prefix)
    part = segments[index][0]
    if not isinstance(part, str):
        return False
    if not part:
        return True
    return actual[start:start + 1] != part[:1] and actual.find(part, start + 1) >= 0


def file_segments(path: str, content: bytes, rules: str | Iterable[str]) -> list[tuple[str, Any]]:
    """A file block as segments: its frame (``File: <path>``, the fences, the blank line) is files.render-format's,
    its content is ``rules``' (a cap, the UTF-8 rule): a wrong fence is not blamed on the cap."""
    from .oracle import go_decode

    return [(f"File: {path}\n```\n", "files.render-format"), (go_decode(content), rules),
            ("\n```\n\n", "files.render-format")]


def files_part(final_text: str, strings: Mapping[str, str], /, **context: Any) -> str:
    """The final message without its closing request for guidance (whose absence is request.guidance-request's)."""
    __tracebackhide__ = True
    guidance = strings["guidance_request"]
    check(final_text.endswith(guidance), "request.guidance-request",
          "the trailing message does not end with the declared request for guidance", actual=final_text, **context)
    return final_text[: len(final_text) - len(guidance)]


def _departure(actual: str, part: str, position: int) -> str:
    """Where ``actual`` departs from ``part``, expected from character ``position`` on, and what each holds there."""
    offset = first_difference(part, actual[position:])
    at = position + offset
    return (f"the text departs at character {at} ({parting(part, actual[position:], offset)}): "
            f"{region('expected', part, offset - 40, offset + 60, shift=position)}, "
            f"{region('actual', actual, max(position, at - 40), at + 60)}")


def final(messages: Messages) -> str:
    """The text of the trailing user message."""
    return messages[-1]["content"]


def body(messages: Messages) -> Messages:
    """The flattened snapshot: every message between the system prompt and the trailing user message."""
    return messages[1:-1]


def check_last_message_stays(impl: Implementation, last: Any) -> None:
    """A control for tests that count a request's messages: a transcript ending in ``last`` (a tool, user or system
    message) keeps it in the flattened snapshot (inflight.other-role-stays); an assistant message is not checked."""
    __tracebackhide__ = True
    if not isinstance(last, Mapping) or last.get("role") == "assistant":
        return
    # the message before ``last`` is of another role, so that a merge of consecutive same-role messages (a
    # request.message-sequence mistake) cannot pass for the last message being taken out
    first = {"role": "assistant" if last.get("role") == "user" else "user", "content": "look at this"}
    request = {"transcript": [first, last]}
    messages = shape(impl, request, "inflight.other-role-stays")
    if len(body(messages)) != 2:
        raise violation("inflight.other-role-stays", f"a transcript of 2 messages ending in a {last.get('role')!r} "
                        f"message was flattened to {len(body(messages))} message(s)", input=request,
                        actual=[message.get("role") for message in messages])


def flattened(messages: Messages, index: int, rules: str | Iterable[str], /, **context: Any) -> dict[str, Any]:
    """Message ``index`` of the flattened snapshot (:func:`body`); a request too short to hold it fails naming
    ``rules``, with how many messages it has and their roles."""
    __tracebackhide__ = True
    flat = body(messages)
    if not -len(flat) <= index < len(flat):
        raise violation(rules, f"the flattened snapshot has {len(flat)} message(s) between the system prompt and the "
                               f"final message, so its message {index} is missing",
                        actual=[message.get("role") for message in messages], **context)
    return flat[index]


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
    __tracebackhide__ = True
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
    __tracebackhide__ = True
    request = params(with_tool_call(arguments))
    messages = shape(impl, request, rules)
    # What the test relies on is checked under the rule that asks for it, so a broken rendering of the line is
    # blamed on the line's rule, not on the elision rule the test is about.
    assistants = [message for message in body(messages) if message["role"] == "assistant"]
    check(len(assistants) == 1, "flatten.assistant-with-calls",
          f"the snapshot's one assistant message is rendered as {len(assistants)} assistant message(s)",
          input=request, actual=body(messages))
    lines = tool_call_lines(assistants[0]["content"])
    check(len(lines) == 1, "flatten.tool-call-line",
          f"the assistant message holds {len(lines)} line(s) of the form [tool_call: <name> <args-json>], not 1",
          input=request, actual=assistants[0]["content"])
    text = lines[0][1]
    return text, parse_args(text, "flatten.args-json", request)
