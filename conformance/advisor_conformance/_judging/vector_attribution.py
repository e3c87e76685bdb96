"""Golden vectors, attribution: from the differences of a failing case to the rules they break.

The case's ``pins`` decide first (the longest pattern that covers a difference); then what the differing region
shows (a declared string, a request field, the frame of a tool-call line, a separator, an elision marker, a call
ID) names the rule; a difference nothing explains is blamed on all the case's rules (:func:`attribute`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .vector_comparison import ORIGIN_ENCODING, TOOL_CALL_LINE, Difference
from .vector_loading import Case, parse_pattern


def covers(pattern: list[str | int], path: tuple[tuple[str | int, int], ...]) -> bool:
    """Whether a pins pattern covers a difference's path (the field itself, or something under it)."""
    if len(pattern) > len(path):
        return False
    for want, (step, length) in zip(pattern, path, strict=False):
        if want == "*":
            if not isinstance(step, int):
                return False
        elif isinstance(want, int):
            if not isinstance(step, int) or (want if want >= 0 else length + want) != step:
                return False
        elif want != step:
            return False
    return True


#: Declared strings and the rule each is declared for: a text that departs inside one of them breaks that rule,
#: whatever the case is about (a reworded system prompt is request.system-prompt's, not the files case's).
DECLARED_RULES = {
    "system_prompt": "request.system-prompt",
    "guidance_request": "request.guidance-request",
    "inflight_label": "inflight.block-layout",
    "advisor_note_prefix": "flatten.advisor-note",
    "deduped_file_notice": "dedupe.notice",
    "no_content_note": "handler.empty-answer-note",
    "token_limit_note": "handler.token-limit-note",
}


#: Declared strings whose absence (the text departs where one begins and holds it nowhere) is the rule of where it
#: stands rather than of its wording or layout: no in-flight block at all is inflight.label-at-head's, not the
#: block's layout.
PRESENCE_RULES = {"inflight_label": "inflight.label-at-head"}


def declared_rule(diff: Difference, strings: Mapping[str, str] | None) -> str | None:
    """The rule of the declared string a text departs inside (its first character to just past its end). A string
    that departs at its first character but stands whole elsewhere in the text was moved, not reworded: the rules
    of where it should stand decide (None)."""
    if diff.expected is None or diff.offset is None or not strings:
        return None
    for name, rule in DECLARED_RULES.items():
        value = strings.get(name)
        if not value:
            continue
        start = diff.expected.find(value)
        while start >= 0:
            if start <= diff.offset <= start + len(value):
                moved = diff.offset == start and diff.actual is not None and value in diff.actual
                # a fence where the deduped notice should stand: the file was sent whole, which is the case's
                # dedupe decision, not the notice's wording
                sent = (
                    name == "deduped_file_notice"
                    and diff.offset == start
                    and diff.actual is not None
                    and diff.actual.startswith("```\n", diff.offset)
                )
                if moved or sent:
                    return None
                absent = diff.offset == start and (diff.actual is None or value not in diff.actual)
                return PRESENCE_RULES.get(name, rule) if absent else rule
            start = diff.expected.find(value, start + 1)
    return None


#: The rules a field of an operation's answer pins whatever the vector is about, by operation: a scenario's
#: provider request carries its model and max tokens (handler.provider-request) whether the vector is about the
#: budget or the transport. A vector's own pins for the same field, or a longer one, take precedence; a pins
#: pattern that only covers the field from above (``provider_requests[*]``) does not.
FIELD_RULES: dict[str, dict[str, tuple[str, ...]]] = {
    "scenario": {
        "provider_requests[*].model": ("handler.provider-request",),
        "provider_requests[*].max_tokens": ("handler.provider-request",),
        "provider_requests[*].reasoning": ("handler.provider-request",),
        "provider_requests[*].tools": ("handler.provider-request",),
        "provider_requests[*].stream": ("streaming.non-streaming-default", "streaming.reasoning-streams"),
        "provider_requests[*].prompt_cache_key": ("transport.cache-key-store", "transport.fresh-key"),
        "provider_requests[*].transport_session": (
            "transport.main-session",
            "transport.subagent-session",
            "transport.no-session",
        ),
        "provider_requests[*].parent_session": (
            "transport.main-session",
            "transport.subagent-session",
            "transport.no-session",
        ),
        "provider_requests[*].advisor_cache_profile": ("transport.advisor-profile",),
    },
}


#: The areas whose blocks the final message of a request holds (the in-flight block, the files, the question, the
#: request for guidance): a departure in a final message that no segment or pin locates is theirs.
FINAL_MESSAGE_AREAS = ("request", "files", "question", "dedupe", "inflight")


def message_rules(case: Case) -> list[tuple[list[str | int], tuple[str, ...]]]:
    """The rules each message of a ``shape`` answer is rendered by, from the case's input: the system prompt's
    (messages[0]), each snapshot message's flattening rule (by its kind: a plain message, an assistant message with
    tool calls, a tool result, the advisor's note), and, for the final message, the case's rules of the areas whose
    blocks it holds. They pin a message the vector pins no closer (like :data:`FIELD_RULES`), so that a departure
    inside one message is never blamed on the rule of the list as a whole (the count of messages)."""
    from ..shaping import flatten_rule

    if case.op != "shape" or not isinstance(case.input, dict) or not isinstance(case.input.get("transcript"), list):
        return []
    transcript = case.input["transcript"]
    kept = (
        transcript[:-1]
        if transcript and isinstance(transcript[-1], dict) and transcript[-1].get("role") == "assistant"
        else transcript
    )
    out: list[tuple[list[str | int], tuple[str, ...]]] = [(["messages", 0], ("request.system-prompt",))]
    out += [(["messages", index + 1], (flatten_rule(message),)) for index, message in enumerate(kept)]
    final = tuple(
        rule
        for rule in case.rules
        if rule.split(".", 1)[0] in FINAL_MESSAGE_AREAS
        and rule not in ("request.system-prompt", "request.no-tools", "request.message-sequence")
    )
    out.append((["messages", -1], final or ("request.final-message-order",)))
    return out


def _inputs_end_with_assistant(value: Any) -> bool:
    """Whether a transcript or a snapshot of the case's input ends with an assistant message."""
    if isinstance(value, dict):
        return any(
            (
                name in ("transcript", "snapshot")
                and isinstance(item, list)
                and item
                and isinstance(item[-1], dict)
                and item[-1].get("role") == "assistant"
            )
            or _inputs_end_with_assistant(item)
            for name, item in value.items()
        )
    if isinstance(value, list):
        return any(_inputs_end_with_assistant(item) for item in value)
    return False


def unpaired_message_rules(case: Case, diff: Difference) -> tuple[str, ...] | None:
    """The rule of the one message a request holds too many or lacks (the others pair up in order), by what that
    message is: the trailing assistant message kept just before the final message is inflight.assistant-removed's;
    a snapshot message missing is its flattening rule's (:func:`message_rules`), and when it is the last one kept,
    also the in-flight rule of where it stands (an assistant message before a trailing one:
    inflight.last-message-only; another role last: inflight.other-role-stays). None for other arrays or items."""
    if not (diff.extra or diff.missing) or not diff.path or diff.path[-1][0] != "messages" or not diff.items:
        return None
    item = diff.items[0]
    role = item.get("role") if isinstance(item, dict) else None
    if diff.extra:
        if diff.extra[0] == diff.size - 2 and role == "assistant" and _inputs_end_with_assistant(case.input):
            return ("inflight.assistant-removed",)
        return None
    index = diff.missing[0]
    if case.op != "shape" or not 0 < index < diff.size - 1:
        return None
    rendered = dict((tuple(steps), rules) for steps, rules in message_rules(case))
    flatten = rendered.get(("messages", index))
    if flatten is None:
        return None
    if index == diff.size - 2:
        last = "inflight.last-message-only" if _inputs_end_with_assistant(case.input) else "inflight.other-role-stays"
        return (last, *flatten)
    return flatten


def _line_at(text: str, offset: int) -> tuple[int, str]:
    """Where the line holding ``offset`` starts in ``text``, and the line (without its newline)."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, text[start : len(text) if end < 0 else end]


def request_field_rule(case: Case, diff: Difference) -> tuple[str, ...] | None:
    """Of the :data:`FIELD_RULES` that name several rules, the one the expected value shows: a scenario request's
    session fields are the main agent's (``<session>-advisor``), a sub-agent's (``-subagent-advisor``) or absent
    (no session id); its cache key is the store's (a literal) or a fresh one (``$hex32``). None for other fields."""
    path = diff.path
    if case.op != "scenario" or len(path) != 3 or path[0][0] != "provider_requests" or not isinstance(path[1][0], int):
        return None
    requests = case.expect.get("provider_requests") if isinstance(case.expect, dict) else None
    index, name = path[1][0], path[2][0]
    if not isinstance(requests, list) or not 0 <= index < len(requests) or not isinstance(requests[index], dict):
        return None
    request = requests[index]
    if name == "prompt_cache_key":
        want = request.get(name)
        return (
            ("transport.fresh-key",)
            if isinstance(want, dict) and "$hex32" in want
            else ("transport.cache-key-store",)
            if isinstance(want, str)
            else None
        )
    if name in ("transport_session", "parent_session"):
        session = request.get("transport_session")
        if request.get(name) is None:
            return ("transport.no-session",)
        if isinstance(session, str):
            return (
                ("transport.subagent-session",)
                if session.endswith("-subagent-advisor")
                else ("transport.main-session",)
            )
    return None


def frame_rule(diff: Difference) -> tuple[str, ...] | None:
    """The flattening rule of the frame a text departs in: the ``[tool_call: <name> `` opening or the closing ``]``
    of a tool-call line (flatten.tool-call-line), or a ``[tool_result: <name>]`` header line (flatten.tool-result),
    whatever the message is about. A departure inside the arguments, or at the line's first character, is not the
    frame's (None)."""
    # the whole expected text where it is known (a segment may hold only part of a line)
    text, offset = (
        (diff.whole, diff.actual_offset)
        if diff.whole is not None and diff.actual_offset is not None
        else (diff.expected, diff.offset)
    )
    if text is None or offset is None:
        return None
    start, line = _line_at(text, offset)
    at = offset - start
    call = TOOL_CALL_LINE.match(line)
    # (at the line's very start the text departs before the line: what separates it from the text above)
    if call is not None and 0 < at and (at <= len("[tool_call: ") + len(call["name"]) or at >= len(line) - 1):
        return ("flatten.tool-call-line",)
    if line.startswith("[tool_result: ") and line.endswith("]") and 0 < at < len(line):
        return ("flatten.tool-result",)
    return None


def separator_rule(diff: Difference) -> tuple[str, ...] | None:
    """flatten.assistant-with-calls when the text departs only in the newlines around tool-call lines: a blank line
    where one newline should stand, none (the call line run onto the text above), or one after the last call line.
    None otherwise."""
    text = diff.whole if diff.whole is not None else diff.expected
    at = diff.actual_offset
    if text is None or diff.actual is None or at is None or at > len(text):
        return None
    want, got = text[at:], diff.actual[at:]
    if want.startswith("\n"):  # the newline missing: the call line follows the text at once
        line = want[1:].split("\n", 1)[0]
        if TOOL_CALL_LINE.match(line) and got.startswith(line):
            return ("flatten.assistant-with-calls",)
    if not want and got.startswith("\n") and TOOL_CALL_LINE.match(text[text.rfind("\n") + 1 :]):
        return ("flatten.assistant-with-calls",)  # a newline after the last call line
    line = want.split("\n", 1)[0]
    if (
        at > 0
        and text[at - 1] == "\n"
        and TOOL_CALL_LINE.match(line)
        and got.startswith("\n")
        and got.lstrip("\n").startswith(line)
    ):  # newlines too many before the call line
        return ("flatten.assistant-with-calls",)
    return None


def _inside_arguments(diff: Difference) -> bool:
    """Whether a text departs inside the ``<args-json>`` of a tool-call line (after its opening brace, before its
    closing one)."""
    text = diff.whole if diff.whole is not None else diff.expected
    at = diff.actual_offset if diff.actual_offset is not None else diff.offset
    if text is None or at is None:
        return False
    start, line = _line_at(text, at)
    call = TOOL_CALL_LINE.match(line)
    return call is not None and call.start("args") < at - start < call.end("args") - 1


_ARG_MARKER = re.compile(r"\u2026\[elided, \d+ bytes total\]")


def _strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings_in(item)]
    return []


def threshold_rule(diff: Difference) -> tuple[str, ...] | None:
    """elision.threshold when the tool-call line the text departs on shows the threshold itself: it holds an argument
    string over 1000 bytes of UTF-8 left whole although it has at most 1000 characters (the threshold counted in
    characters), or a string of at most 1000 bytes elided (its marker's N is 1000 or less); None otherwise (a long
    string left whole whatever its length is not told apart from a walk that misses it)."""
    text = diff.whole if diff.whole is not None else diff.expected
    at = diff.actual_offset if diff.actual_offset is not None else diff.offset
    if text is None or diff.actual is None or at is None:
        return None
    call = TOOL_CALL_LINE.match(_line_at(diff.actual, min(at, len(diff.actual)))[1])
    if call is None:
        return None
    try:
        strings = _strings_in(json.loads(call["args"]))
    except ValueError:
        return None
    for value in strings:
        size = len(value.encode("utf-8", "surrogatepass"))
        marker = re.search(r"\u2026\[elided, (\d+) bytes total\]$", value)
        if (size > 1000 and len(value) <= 1000 and marker is None) or (marker and int(marker[1]) <= 1000):
            return ("elision.threshold",)
    return None


def marker_rule(diff: Difference) -> tuple[str, ...] | None:
    """elision.marker-format when the text departs inside the elision marker of a tool-call argument (past its first
    character: a departure there is where the cut ends, the cut's business); None otherwise. A file's marker is not
    the argument's: its N is the files rules' business."""
    text = diff.whole if diff.whole is not None else diff.expected
    at = diff.actual_offset
    if text is None or at is None:
        return None
    line_start, line = _line_at(text, at)
    if not TOOL_CALL_LINE.match(line):
        return None
    for marker in _ARG_MARKER.finditer(line):
        if line_start + marker.start() < at < line_start + marker.end():
            return ("elision.marker-format",)
    return None


def _call_ids(value: Any) -> set[str]:
    """The ids of every tool call in an operation's input (its transcript or a scenario's snapshots)."""
    ids: set[str] = set()
    if isinstance(value, dict):
        for call in value.get("tool_calls") or () if isinstance(value.get("tool_calls"), list) else ():
            if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"].strip():
                ids.add(call["id"])
        for item in value.values():
            ids |= _call_ids(item)
    elif isinstance(value, list):
        for item in value:
            ids |= _call_ids(item)
    return ids


def _shows_call_id(diff: Difference, ids: set[str]) -> bool:
    """Whether the text departs on a line that shows a tool call's id where the expected line does not (the ids
    must stay hidden: flatten.call-ids-hidden), e.g. ``[tool_call: bash {...} id=c1]``."""
    if diff.whole is None or diff.actual is None or diff.actual_offset is None or not ids:
        return False
    at = diff.actual_offset  # the texts are equal up to here
    expected_line, got_line = _line_at(diff.whole, at)[1], _line_at(diff.actual, at)[1]
    return any(
        len(re.findall(rf"(?<![\w-]){re.escape(one)}(?![\w-])", got_line))
        > len(re.findall(rf"(?<![\w-]){re.escape(one)}(?![\w-])", expected_line))
        for one in ids
    )


def attribute(
    case: Case, found: list[Difference], strings: Mapping[str, str] | None = None
) -> dict[Difference, tuple[str, ...]]:
    """The rules each difference breaks: the declared string's rule when a text departs inside one, the flattening
    rule when it departs in a tool call's or result's frame (:func:`frame_rule`); else those of
    its $segments part, or of the longest pins pattern covering it (the operation's :data:`FIELD_RULES`, and for
    ``shape`` the rule each message is rendered by (:func:`message_rules`), when they name the field more closely);
    else all the case's rules."""
    parsed = [(parse_pattern(pattern), rules) for pattern, rules in (case.pins or {}).items()]
    fields = [(parse_pattern(pattern, "FIELD_RULES"), rules) for pattern, rules in FIELD_RULES.get(case.op, {}).items()]
    fields += message_rules(case)
    ids = _call_ids(case.input)
    out: dict[Difference, tuple[str, ...]] = {}
    for diff in found:
        if diff.rules == (ORIGIN_ENCODING,):
            out[diff] = diff.rules
            continue
        if _shows_call_id(diff, ids):
            out[diff] = ("flatten.call-ids-hidden",)
            continue
        separator = threshold_rule(diff) or separator_rule(diff) or marker_rule(diff)
        if separator is not None:
            out[diff] = separator
            continue
        declared = declared_rule(diff, strings)
        if declared is not None:
            out[diff] = (declared,)
            continue
        frame = frame_rule(diff)
        if frame is not None:
            out[diff] = frame
            continue
        if diff.rules:
            out[diff] = diff.rules
            continue
        unpaired = unpaired_message_rules(case, diff)
        if unpaired is not None:
            out[diff] = unpaired
            continue
        best = max(
            ((len(steps), rules) for steps, rules in parsed if covers(steps, diff.path)),
            default=None,
            key=lambda pair: pair[0],
        )
        field_best = max(
            ((len(steps), rules) for steps, rules in fields if covers(steps, diff.path)),
            default=None,
            key=lambda pair: pair[0],
        )
        if field_best is not None and (best is None or field_best[0] > best[0]):
            best = (field_best[0], request_field_rule(case, diff) or field_best[1])
        if best is not None and best[1] == ("flatten.assistant-with-calls",) and _inside_arguments(diff):
            best = (best[0], ("flatten.args-json",))  # the message's frame holds; the text departs in a call's JSON
        out[diff] = best[1] if best else case.rules
    return out


def refused(found: list[Difference], expected: Any, answer: Any) -> tuple[list[Difference], tuple[str, ...] | None]:
    """When the answer is an error the vector does not expect, only that difference (the rest of the answer is missing
    because of it), and the rules it breaks when they do not depend on the case: a message of the transcript refused
    (``at`` names ``transcript[i]``) breaks transcript.roles, for the vector's messages fit the message model; else
    None (the pins decide)."""
    if not (isinstance(answer, dict) and "error" in answer and isinstance(expected, dict) and "error" not in expected):
        return found, None
    found = [diff for diff in found if diff.path[:1] == (("error", 0),)]
    error = answer["error"]
    at = error.get("at") if isinstance(error, dict) else None
    return found, ("transcript.roles",) if isinstance(at, str) and at.startswith("transcript[") else None
