"""Differential testing, what is open: two answers with every choice the spec leaves to each implementation made
the same way, so that what still differs is a divergence (:func:`diverging`; ``diff`` runs the search)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

from .. import shaping, vectors

#: Strings of the declared wording that are templates, not text: matched by their own rules below.
TEMPLATES = ("budget_spent", "deduped_file_block")


def diverging(
    op: str,
    params: Mapping[str, Any],
    answers: tuple[Any, Any],
    descriptions: tuple[Mapping[str, Any], Mapping[str, Any]],
    *,
    files: Mapping[str, str] | None = None,
    work_dir: str | None = None,
) -> tuple[list[vectors.Difference], tuple[Any, Any]]:
    """Where two answers to ``params`` differ once every choice the spec leaves open is made the same way (A's side
    is the "expected" of each difference), and the two answers so normalised. What is open follows the
    catalogue's CHOICE rules (``advisor-conformance rules --json``, tag CHOICE) and ``clarifications §10``:

    1. **Declared strings** (request.system-prompt, request.guidance-request, inflight.block-layout,
       flatten.advisor-note, dedupe.notice, handler.empty-answer-note, handler.token-limit-note,
       budget.exhausted-result): every occurrence of an implementation's declared string in its own answer
       becomes ``{{name}}`` (longest first); the budget-spent note, a template, is matched by a pattern with
       ``{used}`` and ``{max}`` as numbers and becomes ``{{budget_spent:U:M}}``.
    2. **A deduped file's block** (dedupe.notice; clar. §10: the layout is open) becomes
       ``{{deduped:PATH}}`` on both sides: the declared layout (``deduped_file_block``) where there is one;
       otherwise the text from the start of the line that names one of the input's file paths to the end of
       the notice and the line breaks after it, provided it names the path, holds the notice and none of the
       file's content (else it is left as it is, and differs).
    3. **``<args-json>``** (flatten.args-json-origin-encoding) compares as a JSON value (numbers as float64),
       unless both implementations declare ``args_json: origin``: then as bytes.
    4. **Fresh cache keys** (transport.fresh-key): a string of 32 lower-case hex digits that is not in the
       input becomes ``{{key:N}}``, N counting distinct keys in order of first appearance (object keys sorted),
       so the same key in two places stays the same key.
    5. **Errors**: an error answer compares by ``code`` and ``at`` only (its message is open, clar. §10). The
       ``at`` of a scenario call's error names the field from the call (``input.files[0]``) or from the params
       (``steps[2].call.input.files[0]``): the suite pins only that it names the field (tool.wrong-type-error),
       so the ``steps[N].call.`` prefix is dropped.
    6. **The Anthropic thinking budget** (wire.reasoning): ``{"type": "enabled", "budget_tokens": N}`` with
       1024 <= N < ``max_tokens`` becomes ``{{thinking_budget}}``; anything else is compared as it is.
    7. **An empty user message on the Anthropic wire** (wire.anthropic-nonempty) may be left out or given a text
       of the implementation's own: given a text on both sides, the text becomes ``{{empty_user_message}}``;
       left out on one side only, the other side's message is dropped, and so are the ``cache_control``
       markers of every message on both sides (where they fall depends on the block count).
    8. The working directory of a scenario becomes ``{{work_dir}}``; an implementation that raised or answered
       outside the protocol compares as ``{"contract_error": ...}`` (the reason is open).
    9. **The token-limit note** (handler.token-limit-note): the white space before it becomes a blank line, and an
       empty answer's note, the token-limit note alone or after the no-content note, becomes the note alone.
    10. **A store without a key for the slot `advisor`** (transport.cache-key-store): it may give none or mint one
       on first use, so every cache key of such a scenario becomes ``{{store_or_fresh_key}}``.
    11. **Anthropic's cache breakpoints**, when one of the two does not declare the area breakpoints: the
       ``cache_control`` markers of the system and message blocks are dropped on both sides.
    """
    (a, b), (da, db) = answers, descriptions
    known = set(strings_in(params))
    if op == "encode" and params.get("provider") == "anthropic":
        a, b = _anthropic_open(params.get("request") or {}, a, b)
        if not all("breakpoints" in d.get("areas", ()) for d in descriptions):
            a, b = (_without_breakpoints(answer) for answer in (a, b))
    out = []
    for answer, described in ((a, da), (b, db)):
        strings = described.get("strings", {})
        answer = _errors_by_code_and_at(answer)
        if op == "scenario" and isinstance(answer, dict) and isinstance(answer.get("calls"), list):
            answer = {**answer, "calls": [_call_error_from_call(outcome) for outcome in answer["calls"]]}
        answer = _map_strings(
            answer, functools.partial(_text_open, strings=strings, files=files or {}, work_dir=work_dir)
        )
        if op == "scenario" and isinstance(answer, dict):
            answer = _scenario_open(params, answer)
        out.append(_fresh_keys(answer, known))
    origin = all(d.get("options", {}).get("args_json") == "origin" for d in descriptions)
    return vectors.differences(out[0], out[1], exact_args=origin), (out[0], out[1])


_CUT_NOTE = re.compile(r"\s*\{\{token_limit_note\}\}$")
_EMPTY_CUT_NOTE = re.compile(r"^(?:\{\{no_content_note\}\})?\s*\{\{token_limit_note\}\}$")


def _scenario_open(params: Mapping[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """Choices 9 and 10 of :func:`diverging` in a scenario's answer (its declared strings already placeholders)."""
    if isinstance(answer.get("calls"), list):
        answer = {**answer, "calls": [_cut_note_open(outcome) for outcome in answer["calls"]]}
    store = (params.get("runtime") or {}).get("cache_key_store") if isinstance(params, Mapping) else None
    if isinstance(store, Mapping) and "advisor" not in store and isinstance(answer.get("provider_requests"), list):
        answer = {
            **answer,
            "provider_requests": [
                {**request, "prompt_cache_key": "{{store_or_fresh_key}}"}
                if isinstance(request, dict) and isinstance(request.get("prompt_cache_key"), str)
                else request
                for request in answer["provider_requests"]
            ],
        }
    return answer


def _cut_note_open(outcome: Any) -> Any:
    if not isinstance(outcome, dict) or not isinstance(outcome.get("result"), str):
        return outcome
    note = outcome["result"]
    if _EMPTY_CUT_NOTE.match(note):
        return {**outcome, "result": "{{token_limit_note}}"}
    return {**outcome, "result": _CUT_NOTE.sub("\n\n{{token_limit_note}}", note)}


def _text_open(text: str, strings: Mapping[str, str], files: Mapping[str, str], work_dir: str | None) -> str:
    if work_dir:
        text = text.replace(work_dir, "{{work_dir}}")
    notice = strings.get("deduped_file_notice")
    if notice and notice in text:
        text = _deduped_blocks(text, strings, files)
    template = strings.get("budget_spent")
    if template and "{used}" in template and "{max}" in template:
        text = re.sub(_template_pattern(template), lambda m: f"{{{{budget_spent:{m['used']}:{m['max']}}}}}", text)
    plain = sorted(
        ((name, value) for name, value in strings.items() if name not in TEMPLATES and value),
        key=lambda item: -len(item[1]),
    )
    if plain:
        by_text = {value: name for name, value in reversed(plain)}
        alternation = "|".join(re.escape(value) for _, value in plain)
        text = re.sub(alternation, lambda m: f"{{{{{by_text[m[0]]}}}}}", text)
    return text


@cache
def _template_pattern(template: str) -> re.Pattern[str]:
    """A filled budget-spent note: ``{used}`` and ``{max}`` as numbers (the same number where one repeats)."""
    seen: set[str] = set()

    def part(piece: str) -> str:
        if piece in ("{used}", "{max}"):
            name = piece[1:-1]
            group = f"(?P={name})" if name in seen else rf"(?P<{name}>\d+)"
            seen.add(name)
            return group
        return re.escape(piece)

    return re.compile("".join(part(piece) for piece in re.split(r"(\{used\}|\{max\})", template) if piece))


def _deduped_blocks(text: str, strings: Mapping[str, str], files: Mapping[str, str]) -> str:
    """Each deduped file's block as ``{{deduped:PATH}}`` (choice 2 of :func:`diverging`)."""
    if strings.get("deduped_file_block"):
        for path in sorted(files, key=len, reverse=True):
            declared = shaping.deduped_text(strings, path)
            if declared:
                text = text.replace(declared, f"{{{{deduped:{path}}}}}")
        return text
    notice, out, position = strings["deduped_file_notice"], [], 0
    while (at := text.find(notice, position)) >= 0:
        found = [(text.rfind(path, position, at), path) for path in files]
        named = [(start + len(path), len(path), start, path) for start, path in found if start >= 0]
        end = at + len(notice)
        while end < len(text) and text[end] == "\n":
            end += 1
        if named:
            _, _, start, path = max(named)
            start = max(position, text.rfind("\n", position, start) + 1)
            slot = shaping.Deduped(path, files[path])
            if shaping.deduped_problem(text[start:end], slot, {"deduped_file_notice": notice}) is None:
                out.append(text[position:start] + f"{{{{deduped:{path}}}}}")
                position = end
                continue
        out.append(text[position:end])
        position = end
    return "".join(out) + text[position:]


def _errors_by_code_and_at(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"error"} and isinstance(value["error"], dict) and "code" in value["error"]:
            return {"error": {"code": value["error"]["code"], "at": value["error"].get("at")}}
        if set(value) == {"contract_error"}:
            return {"contract_error": "(the reason is open)"}
        return {key: _errors_by_code_and_at(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_errors_by_code_and_at(item) for item in value]
    return value


_STEP_PREFIX = re.compile(r"^steps\[\d+\]\.(?:call|concurrent\[\d+\])\.")


def _call_error_from_call(outcome: Any) -> Any:
    if (
        isinstance(outcome, dict)
        and isinstance(outcome.get("error"), dict)
        and isinstance(outcome["error"].get("at"), str)
    ):
        return {"error": {**outcome["error"], "at": _STEP_PREFIX.sub("", outcome["error"]["at"])}}
    return outcome


def _map_strings(value: Any, function: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return function(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, function) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, function) for item in value]
    return value


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def _fresh_keys(value: Any, known: set[str]) -> Any:
    labels: dict[str, str] = {}

    def walk(item: Any) -> Any:
        if isinstance(item, str) and vectors.HEX32.match(item) and item not in known:
            return labels.setdefault(item, f"{{{{key:{len(labels) + 1}}}}}")
        if isinstance(item, dict):
            return {key: walk(item[key]) for key in sorted(item)}
        if isinstance(item, list):
            return [walk(element) for element in item]
        return item

    return walk(value)


def _anthropic_open(request: Mapping[str, Any], a: Any, b: Any) -> tuple[Any, Any]:
    """Choices 6 and 7 of :func:`diverging`, on two Anthropic encodings of ``request``."""
    bodies = [
        answer["body"] if isinstance(answer, dict) and isinstance(answer.get("body"), dict) else None
        for answer in (a, b)
    ]
    if None in bodies:
        return a, b
    opened = [_thinking_open(body) for body in bodies if body is not None]  # none is, as checked
    choices = [_empty_user_choice(request, body) for body in opened]
    if choices[0][0] == choices[1][0] == "text":
        opened = [_retext(body, indexes) for body, (_, indexes) in zip(opened, choices, strict=True)]
    elif {choices[0][0], choices[1][0]} == {"text", "left out"}:
        opened = [_unmarked(_without(body, indexes)) for body, (_, indexes) in zip(opened, choices, strict=True)]
    return {**a, "body": opened[0]}, {**b, "body": opened[1]}


def _thinking_open(body: dict[str, Any]) -> dict[str, Any]:
    thinking, limit = body.get("thinking"), body.get("max_tokens")
    if (
        isinstance(thinking, dict)
        and set(thinking) == {"type", "budget_tokens"}
        and thinking["type"] == "enabled"
        and isinstance(limit, int)
        and isinstance(thinking["budget_tokens"], int)
        and 1024 <= thinking["budget_tokens"] < limit
    ):
        return {**body, "thinking": {"type": "enabled", "budget_tokens": "{{thinking_budget}}"}}
    return body


def _empty_user_choice(request: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[str | None, list[int]]:
    """How a body treats the request's empty user messages: ``left out``, ``text`` (with the indexes of those
    messages on the wire) or None (no empty user message, or a wire that lines up with neither)."""
    kept = [
        m
        for m in request.get("messages", ())
        if m["role"] != "system" and not (m["role"] == "assistant" and m["content"] == "")
    ]
    empties = [index for index, m in enumerate(kept) if m["role"] == "user" and m["content"] == ""]
    wire_messages = body.get("messages")
    if not empties or not isinstance(wire_messages, list):
        return None, []
    if len(wire_messages) == len(kept):
        return "text", empties
    if len(wire_messages) == len(kept) - len(empties):
        return "left out", []
    return None, []


def _retext(body: dict[str, Any], indexes: list[int]) -> dict[str, Any]:
    messages = [dict(m) for m in body["messages"]]
    for index in indexes:
        content = messages[index].get("content")
        if isinstance(content, list):
            messages[index]["content"] = [
                {**block, "text": "{{empty_user_message}}"} if isinstance(block, dict) and "text" in block else block
                for block in content
            ]
    return {**body, "messages": messages}


def _without(body: dict[str, Any], indexes: list[int]) -> dict[str, Any]:
    return {**body, "messages": [m for index, m in enumerate(body["messages"]) if index not in set(indexes)]}


def _unmarked(body: dict[str, Any]) -> dict[str, Any]:
    def strip(message: Any) -> Any:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            return {
                **message,
                "content": [
                    {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
                    for block in message["content"]
                ],
            }
        return message

    return {**body, "messages": [strip(m) for m in body["messages"]]}


def _without_breakpoints(answer: Any) -> Any:
    """An Anthropic encoding without its cache_control markers (system and message blocks)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("body"), dict):
        return answer
    body = answer["body"]
    if isinstance(body.get("messages"), list):
        body = _unmarked(body)
    if isinstance(body.get("system"), list):
        body = {
            **body,
            "system": [
                {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
                for block in body["system"]
            ],
        }
    return {**answer, "body": body}
