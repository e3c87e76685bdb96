"""Calling the ``shape`` operation and taking its answer apart, for the conformance tests."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._contract.implementation import Implementation
from ._excerpts import first_difference, parting, region
from .checks import answer_of, check, refusal, violation

Messages = list[dict[str, str]]

_TOOL_CALL = re.compile(r"^\[tool_call: (?P<name>.*?) (?P<args>\{.*\})\]$")


def params(transcript: list[Any], question: str | None = None, files: list[Any] | None = None) -> dict[str, Any]:
    """The params of one ``shape`` call."""
    out: dict[str, Any] = {"transcript": transcript}
    if question is not None:
        out["question"] = question
    if files is not None:
        out["files"] = files
    return out


def shape(
    impl: Implementation,
    request: Mapping[str, Any],
    rules: str | Iterable[str],
    *,
    accepts: bool = False,
    **kwargs: Any,
) -> Messages:
    """The messages for valid input; an error answer is a refusal, blamed on the rules of the test that made the call
    (:func:`~.checks.refusal`). With ``accepts``, the call is a control that the input is accepted at all, and an
    error breaks ``rules`` (transcript.roles for a well-formed transcript, say)."""
    __tracebackhide__ = True
    answer = answer_of(impl, "shape", request, rules, **kwargs)
    if "error" in answer:
        raise (violation if accepts else refusal)(
            rules, "shape answered an error for valid input", input=request, actual=answer["error"]
        )
    return answer["messages"]


def shape_error(impl: Implementation, request: Mapping[str, Any], rules: str | Iterable[str]) -> dict[str, Any]:
    """The error for input the spec rejects; an answer with messages fails the test naming ``rules``."""
    __tracebackhide__ = True
    answer = answer_of(impl, "shape", request, rules)
    check(
        "error" in answer,
        rules,
        "shape accepted input that must be rejected",
        input=request,
        actual=answer.get("messages"),
    )
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


def locate_departure_at(
    actual: str, parts: list[str | Deduped], strings: Mapping[str, str]
) -> tuple[int, str, int | None] | None:
    """:func:`locate_departure`, and the offset inside the part where the text departs (None for a deduped block;
    for text left over at the end, the end of the last part: what runs on is judged at its end)."""
    position = 0
    for index, part in enumerate(parts):
        if isinstance(part, str):
            if not actual.startswith(part, position):
                offset = next(
                    (i for i, (a, b) in enumerate(zip(actual[position:], part, strict=False)) if a != b),
                    min(len(part), len(actual) - position),
                )
                return index, _departure(actual, part, position), offset
            position += len(part)
            continue
        following = next((p for p in parts[index + 1 :] if isinstance(p, str) and p), None)
        end = len(actual) if following is None else actual.find(following, position)
        if following is not None and end < 0:
            return (
                index,
                (
                    f"after character {position}, the text that should follow the deduped block of "
                    f"{part.path!r} is not found: {following[:80]!r}"
                ),
                None,
            )
        problem = deduped_problem(actual[position:end], part, strings)
        if problem:
            return (
                index,
                (
                    f"the deduped block of {part.path!r} (characters {position} to {end}, "
                    f"{actual[position:end]!r:.300}): {problem}"
                ),
                None,
            )
        position = end
    if position != len(actual):
        last = parts[-1] if parts else None
        return (
            len(parts),
            f"{len(actual) - position} unexpected characters at the end: {actual[position : position + 120]!r}",
            len(last) if isinstance(last, str) else None,
        )
    return None


def check_segments(
    actual: str,
    segments: Iterable[tuple[str | Deduped, str | Iterable[str]]],
    strings: Mapping[str, str],
    what: str,
    /,
    order: tuple[str, list[str | tuple[str, str]]] | None = None,
    **context: Any,
) -> None:
    """Fail unless ``actual`` is the segments' texts in order (a :class:`Deduped` segment: a deduped file's block),
    naming the rules of the segment where the text departs: a wrong request for guidance is blamed on its rule,
    not on the rule of the file or question the test is about. With ``order = (rule, blocks)``, a text that is
    exactly those blocks in another order is blamed on that rule, with where each block stands; a block given as
    ``(text, kind)`` keeps its place among the blocks of the same kind by the rule ``kind`` (files in the order
    given: files.render-format), which is blamed instead when only blocks of one kind changed places."""
    __tracebackhide__ = True
    segments = list(segments)
    found = locate_departure(actual, [part for part, _ in segments], strings)
    if found is None:
        return
    if order is not None:
        rule, given = order
        blocks = [block[0] if isinstance(block, tuple) else block for block in given]
        kinds = [block[1] if isinstance(block, tuple) else None for block in given]
        if blocks and all(block in actual for block in blocks):
            where = [actual.find(block) for block in blocks]
            placed = sorted(zip(where, blocks, kinds, strict=True), key=lambda p: p[0])
            if "".join(block for _, block, _ in placed) == actual:  # the very same blocks, in another order
                # the places whose block changed; when the kinds still stand in their order, only blocks of one kind
                # changed places among themselves, which is that kind's rule
                changed = {kinds[i] for i in range(len(blocks)) if placed[i][1] != blocks[i]}
                same_kinds = [kind for _, _, kind in placed] == kinds and None not in changed
                blamed = sorted(kind for kind in changed if kind is not None) if same_kinds else rule
                raise violation(
                    blamed,
                    f"{what}: every block is there, but in another order: the blocks stand at "
                    f"characters {where} (in the expected order)",
                    **context,
                )
    index, problem = found
    missing = _missing_run(actual, segments, index, strings)
    if missing is not None:  # whole segments are missing, and the text goes on with what follows them
        start, end = missing
        named = [rule for _, owner in segments[start:end] for rule in ([owner] if isinstance(owner, str) else owner)]
        raise violation(
            list(dict.fromkeys(named)),
            f"{what}: {problem}; the text goes on with what should follow "
            f"{end - start} missing part(s)" + (" (it ends there)" if end == len(segments) else ""),
            **context,
        )
    raise violation(blame(segments, index, actual, strings), f"{what}: {problem}", **context)


def _missing_run(
    actual: str, segments: list[tuple[str | Deduped, Any]], index: int, strings: Mapping[str, str]
) -> tuple[int, int] | None:
    """When the text departs right where segment ``index`` begins and goes on with a later segment (or ends there),
    the segments in between are missing: ``(index, end)``; else None."""
    found = locate_departure_at(actual, [part for part, _ in segments], strings)
    prefix = [part for part, _ in segments[:index]]
    if found is None or found[2] != 0 or index >= len(segments) or not all(isinstance(p, str) for p in prefix):
        return None
    position = sum(len(part) for part in prefix if isinstance(part, str))  # all are
    for end in range(index + 1, len(segments) + 1):
        if end == len(segments):
            return (index, end) if position == len(actual) else None
        part = segments[end][0]
        if isinstance(part, str) and part and actual.startswith(part, position):
            return index, end
    return None


def blame(
    segments: list[tuple[str | Deduped, str | Iterable[str]]], index: int, actual: str, strings: Mapping[str, str]
) -> list[str]:
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
        # the text that ran on is the previous segment's alone when the segment after it cannot hold it (a space
        # before a blank line is no longer blank line: the question ran on)
        start = sum(len(part) for part, _ in segments[:index] if isinstance(part, str))  # all are
        part = segments[index][0]
        ran_on = actual[start : actual.find(part, start + 1)] if isinstance(part, str) and part else ""
        if ran_on and isinstance(part, str) and set(ran_on) - set(part):
            return rules_of(index - 1)
        named = [*rules_of(index - 1), *(rule for rule in named if rule not in rules_of(index - 1))]
    return named


def _starts_at_segment(
    segments: list[tuple[str | Deduped, Any]], index: int, actual: str, strings: Mapping[str, str]
) -> bool:
    """Whether the text departs exactly where segment ``index`` begins (the segments before it all matched) and that
    segment's text stands later on: something ran on before it, perhaps the previous segment. (A segment that is not
    found at all is simply wrong: its own rules alone.)"""
    prefix = [part for part, _ in segments[:index]]
    if any(isinstance(part, Deduped) for part in prefix):
        return False
    start = sum(len(part) for part in prefix if isinstance(part, str))  # all are
    part = segments[index][0]
    if not isinstance(part, str):
        return False
    if not part:
        return True
    return actual[start : start + 1] != part[:1] and actual.find(part, start + 1) >= 0


def file_segments(path: str, content: bytes, rules: str | Iterable[str]) -> list[tuple[str, Any]]:
    """A file block as segments: its frame (``File: <path>``, the fences, the blank line) is files.render-format's,
    its content is ``rules``' (a cap, the UTF-8 rule): a wrong fence is not blamed on the cap."""
    from .oracle import go_decode

    return [
        (f"File: {path}\n```\n", "files.render-format"),
        (go_decode(content), rules),
        ("\n```\n\n", "files.render-format"),
    ]


def files_part(final_text: str, strings: Mapping[str, str], /, **context: Any) -> str:
    """The final message without its closing request for guidance (whose absence is request.guidance-request's)."""
    __tracebackhide__ = True
    guidance = strings["guidance_request"]
    check(
        final_text.endswith(guidance),
        "request.guidance-request",
        "the trailing message does not end with the declared request for guidance",
        actual=final_text,
        **context,
    )
    return final_text[: len(final_text) - len(guidance)]


def _departure(actual: str, part: str, position: int) -> str:
    """Where ``actual`` departs from ``part``, expected from character ``position`` on, and what each holds there."""
    offset = first_difference(part, actual[position:])
    at = position + offset
    return (
        f"the text departs at character {at} ({parting(part, actual[position:], offset)}): "
        f"{region('expected', part, offset - 40, offset + 60, shift=position)}, "
        f"{region('actual', actual, max(position, at - 40), at + 60)}"
    )


def final(messages: Messages) -> str:
    """The text of the trailing user message."""
    return messages[-1]["content"]


def body(messages: Messages) -> Messages:
    """The flattened snapshot: every message between the system prompt and the trailing user message."""
    return messages[1:-1]


def flatten_rule(message: Any) -> str:
    """The flattening rule a snapshot message of this kind is rendered by: a tool result's (the advisor's own note's),
    an assistant message with tool calls', or that of the plain messages kept as they are."""
    if not isinstance(message, Mapping):
        return "flatten.plain-messages-kept"
    if message.get("role") == "tool":
        return "flatten.advisor-note" if message.get("name") == "advisor" else "flatten.tool-result"
    if message.get("role") == "assistant" and message.get("tool_calls"):
        return "flatten.assistant-with-calls"
    return "flatten.plain-messages-kept"


def left_out(transcript: Any, flat: Messages) -> list[int]:
    """The indices of the snapshot messages missing from the flattened snapshot ``flat`` (:func:`body`), when
    leaving out just those explains it: the others are found in order, each as a message of the role it renders
    with that holds its text. Empty when that does not explain what was rendered (a merge, a message too many)."""
    if not isinstance(transcript, list):
        return []
    kept = (
        transcript[:-1]
        if transcript and isinstance(transcript[-1], Mapping) and transcript[-1].get("role") == "assistant"
        else transcript
    )
    missing, at = [], 0
    for index, message in enumerate(kept):
        if not isinstance(message, Mapping):
            return []
        role = "user" if message.get("role") == "tool" else message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        here = flat[at] if at < len(flat) else None
        if here is not None and here.get("role") == role and text in str(here.get("content", "")):
            at += 1
        else:
            missing.append(index)
    if at != len(flat) or len(kept) - len(missing) != len(flat):
        return []
    # a missing message whose text stands in another message may have been merged into it, not left out
    texts = [str(message.get("content", "")) for message in flat]
    if any(
        isinstance(kept[index].get("content"), str)
        and kept[index]["content"]
        and any(kept[index]["content"] in text for text in texts)
        for index in missing
    ):
        return []
    return missing


def check_none_left_out(impl: Implementation, transcript: Any, messages: Messages, /, **context: Any) -> None:
    """Fail naming the flattening rule of each snapshot message that is missing from the request, when leaving those
    out explains the request (:func:`left_out`) and each is left out wherever it stands (a control puts it between two
    other messages). A message kept there is left out for its place (in-flight handling, say): the caller's rules."""
    __tracebackhide__ = True
    missing = left_out(transcript, body(messages))
    for index in missing:
        message = transcript[index]
        first = {"role": "assistant" if message.get("role") == "user" else "user", "content": "look at this"}
        control = {"transcript": [first, message, {"role": "user", "content": "go on"}]}
        if len(body(shape(impl, control, flatten_rule(message)))) == 3:
            return
    if missing:
        described = ", ".join(f"{index} ({transcript[index].get('role')!r})" for index in missing)
        raise violation(
            list(dict.fromkeys(flatten_rule(transcript[index]) for index in missing)),
            f"the snapshot's message(s) {described} are not in the request (every other message is, in "
            "order), nor between two other messages",
            actual=[message.get("role") for message in messages],
            **context,
        )


def check_kept_count(
    impl: Implementation,
    transcript: Any,
    messages: Messages,
    count: int,
    rules: str | Iterable[str],
    what: str,
    /,
    subjects: Iterable[int] = (),
    **context: Any,
) -> None:
    """Fail unless the flattened snapshot holds ``count`` messages. When fewer are there and leaving out some snapshot
    messages explains it (:func:`left_out`), none of them the test's ``subjects`` (indices into ``transcript``), the
    failure names the rules that render those messages; else ``rules``, with the counts and the messages missing."""
    __tracebackhide__ = True
    flat = body(messages)
    if len(flat) == count:
        return
    missing = left_out(transcript, flat) if len(flat) < count else []
    if missing and not set(missing) & set(subjects):
        check_none_left_out(impl, transcript, messages, **context)
    shown = f"; the snapshot's message(s) {missing} are not in it" if missing else ""
    raise violation(
        rules,
        f"{what}: the flattened snapshot holds {len(flat)} message(s), not {count}{shown}",
        actual=[message.get("role") for message in messages],
        **context,
    )


def check_in_flight_block(
    impl: Implementation, strings: Mapping[str, str], got: str, missing: str, /, **context: Any
) -> None:
    """A control for tests of the in-flight block: when the final message ``got`` holds no declared in-flight label
    at all, a plain in-flight text ("next I rewrite parse()") decides whose rule that is. No block for it either is
    inflight.label-at-head's (and inflight.assistant-removed's when the message stayed in the transcript: an
    implementation without in-flight handling), never the block's layout; a block for it is the test's ``missing``
    rule (the text was taken for blank: inflight.empty-dropped)."""
    __tracebackhide__ = True
    label = strings["inflight_label"]
    if label in got:
        return
    control = params(
        [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "next I rewrite parse()"}]
    )
    messages = shape(impl, control, "inflight.label-at-head")
    if label in final(messages):
        raise violation(
            missing,
            "no in-flight block was written for this text, though one is for a plain text",
            actual=got,
            **context,
        )
    kept = len(body(messages)) == 2
    raise violation(
        ["inflight.label-at-head", *(["inflight.assistant-removed"] if kept else [])],
        "no in-flight block is written, not even for a plain text ('next I rewrite parse()')"
        + (": the trailing assistant message stays in the transcript" if kept else ""),
        input=[context.get("input"), control] if "input" in context else control,
        actual=messages,
    )


def check_last_message_stays(impl: Implementation, last: Any) -> None:
    """A control for tests that count a request's messages: a transcript ending in ``last`` (a tool, user or system
    message) keeps it in the flattened snapshot (inflight.other-role-stays); an assistant message is not checked.

    When it does not, what was observed decides the rule: the same message left out between two others as well is
    its flattening rule's (:func:`flatten_rule`), its text standing in the final message instead is
    request.message-sequence's, and a message left out only when it comes last is inflight.other-role-stays'."""
    __tracebackhide__ = True
    if not isinstance(last, Mapping) or last.get("role") == "assistant":
        return
    # the message before ``last`` is of another role, so that a merge of consecutive same-role messages (a
    # request.message-sequence mistake) cannot pass for the last message being taken out
    first = {"role": "assistant" if last.get("role") == "user" else "user", "content": "look at this"}
    request = {"transcript": [first, last]}
    messages = shape(impl, request, "inflight.other-role-stays")
    if len(body(messages)) == 2:
        return
    roles = [message.get("role") for message in messages]
    middle = {"transcript": [first, last, {"role": "user", "content": "go on"}]}
    if len(body(shape(impl, middle, flatten_rule(last)))) < 3:
        raise violation(
            flatten_rule(last),
            f"a {last.get('role')!r} message is left out of the flattened snapshot "
            "wherever it stands: last of 2 messages, and between 2 others",
            input=[request, middle],
            actual=roles,
        )
    # the final message differs from that of the first message alone, and holds the last message's text
    text, alone = last.get("content"), final(shape(impl, {"transcript": [first]}, "inflight.other-role-stays"))
    if isinstance(text, str) and text.strip() and final(messages) != alone and text in final(messages):
        raise violation(
            "request.message-sequence",
            f"a transcript of 2 messages ending in a {last.get('role')!r} "
            f"message was flattened to {len(body(messages))} message(s), and the last message's text "
            "stands in the final message",
            input=request,
            actual=messages,
        )
    raise violation(
        "inflight.other-role-stays",
        f"a transcript of 2 messages ending in a {last.get('role')!r} "
        f"message was flattened to {len(body(messages))} message(s) (between 2 others, it stays)",
        input=request,
        actual=roles,
    )


def flattened(messages: Messages, index: int, rules: str | Iterable[str], /, **context: Any) -> dict[str, Any]:
    """Message ``index`` of the flattened snapshot (:func:`body`); a request too short to hold it fails naming
    ``rules``, with how many messages it has and their roles."""
    __tracebackhide__ = True
    flat = body(messages)
    if not -len(flat) <= index < len(flat):
        raise violation(
            rules,
            f"the flattened snapshot has {len(flat)} message(s) between the system prompt and the "
            f"final message, so its message {index} is missing",
            actual=[message.get("role") for message in messages],
            **context,
        )
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
        raise violation(
            rules, f"the <args-json> of a tool-call line is not JSON ({exc})", input=request, actual=text
        ) from None


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
        {
            "role": "assistant",
            "content": content,
            "tool_calls": [{"id": "call_1", "name": name, "arguments": arguments}],
        },
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
    check(
        len(assistants) == 1,
        "flatten.assistant-with-calls",
        f"the snapshot's one assistant message is rendered as {len(assistants)} assistant message(s)",
        input=request,
        actual=body(messages),
    )
    lines = tool_call_lines(assistants[0]["content"])
    check(
        len(lines) == 1,
        "flatten.tool-call-line",
        f"the assistant message holds {len(lines)} line(s) of the form [tool_call: <name> <args-json>], not 1",
        input=request,
        actual=assistants[0]["content"],
    )
    text = lines[0][1]
    return text, parse_args(text, "flatten.args-json", request)
