"""Differential testing: two implementations, the same drawn inputs, answers compared modulo what is open.

``advisor-conformance diff --impl A --impl B`` (``_cli/diff.py``) draws inputs for ``shape``, ``encode`` and
``scenario`` from the suite's strategies, sends each to both implementations, and compares the two answers
after :func:`open_choices` has normalised what the spec leaves to each implementation. The first input on
which they differ is shrunk by hypothesis to a minimal one, and reported with the paths where the answers
differ (:func:`advisor_conformance.vectors.differences`) and both answers' parts there.

A run is reproducible: the same seed draws the same inputs (``database=None``, ``@seed``), so a divergence
found in CI is found again on a laptop with the same command.

What is drawn, per operation:

* ``shape``: a transcript (:func:`strategies.transcripts`), a question (:func:`strategies.questions`, or
  none), up to 9 files (:func:`strategies.files`, as :func:`shaping.file_param`: the whole file, or as the
  schema has it a read capped at 32768 bytes with the file's true ``size``), sometimes a full or partial read
  of one of the files in the transcript (dedupe), and sometimes the assistant message in flight;
* ``encode``: a provider kind and a neutral request (:func:`wire.neutral_request`) around
  :func:`strategies.rendered_messages`, with its model, max tokens, reasoning, stream, cache key, sessions and
  cache profile drawn too;
* ``scenario``: a runtime (session id, caps, model, max tokens, reasoning, cache-key store, blocked paths,
  confinement when both implementations offer it) and a script of up to four steps: calls of the main agent
  and of children, by conversation and turn, with tool inputs (questions, file paths, unknown keys, wrong
  types), snapshots (a small one, a drawn transcript, a read of a workspace file, none) and scripted replies
  (answers, empty ones, the token limit, failures), and tool-list steps; half of them in a workspace
  (:func:`workspace.workspace`) of a few text files. Concurrent groups are not drawn (which call gets the
  last use is a race), nor scripted stream-required failures (the retry is a rule of black-box runs).
"""

from __future__ import annotations

import base64
import functools
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

from . import oracle, scenarios, shaping, strategies, vectors, wire
from ._bounded import abbreviate
from ._implementation import Implementation
from ._protocol import ContractError
from .workspace import workspace

OPERATIONS = ("shape", "encode", "scenario")
PROVIDERS = ("anthropic", "openai", "codex")
#: Strings of the declared wording that are templates, not text: matched by their own rules below.
TEMPLATES = ("budget_spent", "deduped_file_block")
_STORE_KEY = "fedcba9876543210fedcba9876543210"


# -- what the spec leaves open ------------------------------------------------------------------------------


def open_choices(op: str, params: Mapping[str, Any], answers: tuple[Any, Any],
                 descriptions: tuple[Mapping[str, Any], Mapping[str, Any]], *,
                 files: Mapping[str, str] | None = None, work_dir: str | None = None) -> tuple[Any, Any, bool]:
    """Both answers with every choice the spec leaves open made the same way, and whether ``<args-json>`` is
    compared as bytes. What is open follows the catalogue's CHOICE rules (``advisor-conformance rules --json``,
    tag CHOICE) and ``clarifications §10``:

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
    """
    (a, b), (da, db) = answers, descriptions
    known = set(_strings_in(params))
    if op == "encode" and params.get("provider") == "anthropic":
        a, b = _anthropic_open(params.get("request") or {}, a, b)
    out = []
    for answer, described in ((a, da), (b, db)):
        strings = described.get("strings", {})
        answer = _errors_by_code_and_at(answer)
        if op == "scenario" and isinstance(answer, dict) and isinstance(answer.get("calls"), list):
            answer = {**answer, "calls": [_call_error_from_call(outcome) for outcome in answer["calls"]]}
        answer = _map_strings(answer, functools.partial(_text_open, strings=strings, files=files or {},
                                                        work_dir=work_dir))
        if op == "scenario" and isinstance(answer, dict):
            answer = _scenario_open(params, answer)
        out.append(_fresh_keys(answer, known))
    origin = all(d.get("options", {}).get("args_json") == "origin" for d in descriptions)
    return out[0], out[1], origin


_CUT_NOTE = re.compile(r"\s*\{\{token_limit_note\}\}$")
_EMPTY_CUT_NOTE = re.compile(r"^(?:\{\{no_content_note\}\})?\s*\{\{token_limit_note\}\}$")


def _scenario_open(params: Mapping[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """Choices 9 and 10 of :func:`open_choices` in a scenario's answer (its declared strings already placeholders)."""
    if isinstance(answer.get("calls"), list):
        answer = {**answer, "calls": [_cut_note_open(outcome) for outcome in answer["calls"]]}
    store = (params.get("runtime") or {}).get("cache_key_store") if isinstance(params, Mapping) else None
    if isinstance(store, Mapping) and "advisor" not in store and isinstance(answer.get("provider_requests"), list):
        answer = {**answer, "provider_requests": [
            {**request, "prompt_cache_key": "{{store_or_fresh_key}}"}
            if isinstance(request, dict) and isinstance(request.get("prompt_cache_key"), str) else request
            for request in answer["provider_requests"]]}
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
    plain = sorted(((name, value) for name, value in strings.items() if name not in TEMPLATES and value),
                   key=lambda item: -len(item[1]))
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
    """Each deduped file's block as ``{{deduped:PATH}}`` (choice 2 of :func:`open_choices`)."""
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
    if isinstance(outcome, dict) and isinstance(outcome.get("error"), dict) \
            and isinstance(outcome["error"].get("at"), str):
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


def _strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_in(item)


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
    """Choices 6 and 7 of :func:`open_choices`, on two Anthropic encodings of ``request``."""
    bodies = [answer["body"] if isinstance(answer, dict) and isinstance(answer.get("body"), dict) else None
              for answer in (a, b)]
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
    if (isinstance(thinking, dict) and set(thinking) == {"type", "budget_tokens"} and thinking["type"] == "enabled"
            and isinstance(limit, int) and isinstance(thinking["budget_tokens"], int)
            and 1024 <= thinking["budget_tokens"] < limit):
        return {**body, "thinking": {"type": "enabled", "budget_tokens": "{{thinking_budget}}"}}
    return body


def _empty_user_choice(request: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[str | None, list[int]]:
    """How a body treats the request's empty user messages: ``left out``, ``text`` (with the indexes of those
    messages on the wire) or None (no empty user message, or a wire that lines up with neither)."""
    kept = [m for m in request.get("messages", ()) if m["role"] != "system"
            and not (m["role"] == "assistant" and m["content"] == "")]
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
            messages[index]["content"] = [{**block, "text": "{{empty_user_message}}"} if isinstance(block, dict)
                                          and "text" in block else block for block in content]
    return {**body, "messages": messages}


def _without(body: dict[str, Any], indexes: list[int]) -> dict[str, Any]:
    return {**body, "messages": [m for index, m in enumerate(body["messages"]) if index not in set(indexes)]}


def _unmarked(body: dict[str, Any]) -> dict[str, Any]:
    def strip(message: Any) -> Any:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            return {**message, "content": [{k: v for k, v in block.items() if k != "cache_control"}
                                           if isinstance(block, dict) else block for block in message["content"]]}
        return message

    return {**body, "messages": [strip(m) for m in body["messages"]]}


# -- what is drawn --------------------------------------------------------------------------------------------
# Strategies are built once (a recursive strategy costs more to build than to draw from).


def _file_text(item: Mapping[str, Any]) -> str:
    """A shape file's content as text (for telling whether a deduped block carries it)."""
    if "content" in item:
        return item["content"]
    return base64.b64decode(item["content_base64"]).decode("utf-8", "replace")


def _weighted(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` about three times in four, else ``rare``; shrinking moves towards ``usual``."""
    return st.integers(0, 3).flatmap(lambda n: rare if n == 3 else usual)


@cache
def _shape_parts() -> dict[str, st.SearchStrategy[Any]]:
    return {"transcript": strategies.transcripts(max_size=6),
            "question": st.one_of(st.none(), strategies.questions()),
            "files": strategies.files(max_size=8),
            "in_flight": st.one_of(strategies.short_text(80), st.just(""))}


@st.composite
def _shape(draw: st.DrawFn) -> dict[str, Any]:
    parts = _shape_parts()
    transcript, question, pairs = draw(parts["transcript"]), draw(parts["question"]), draw(parts["files"])
    if len(pairs) == 8 and draw(st.booleans()):  # one too many
        pairs.append(pairs[0])
    files = []
    for path, data in pairs:
        # The content is the whole file, or (as the schema has it) a read capped at 32768 bytes with the true size.
        if len(data) > 32768 and draw(st.booleans()):
            files.append(shaping.file_param(path, data[:32768], len(data)))
        else:
            files.append(shaping.file_param(path, data))
    if pairs and draw(st.booleans()):  # a read of one of the files: full (dedupe) or from line 2 (no dedupe)
        path, data = pairs[draw(st.integers(0, len(pairs) - 1))]
        content = oracle.read_result(path, data, start=draw(st.sampled_from([1, 2])),
                                     output=data.decode("utf-8", "replace"))
        read = {"role": "tool", "name": "read", "tool_call_id": "call_read", "content": content}
        transcript.insert(draw(st.integers(0, len(transcript))), read)
    if draw(st.booleans()):  # the call in flight: the assistant message that asks for this advice
        transcript.append({"role": "assistant", "content": draw(parts["in_flight"]),
                           "tool_calls": [{"id": "call_adv", "name": "advisor", "arguments": {"question": "?"}}]})
    return shaping.params(transcript, question, files)


@cache
def shape_inputs() -> st.SearchStrategy[dict[str, Any]]:
    return _shape()


@cache
def encode_inputs() -> st.SearchStrategy[dict[str, Any]]:
    fields = st.fixed_dictionaries({
        "model": st.sampled_from(["advisor-model", "claude-sonnet-4-5"]),
        "max_tokens": st.sampled_from([4096, 32000, 8192, 2048, 1025, 1024, 600]),
        "reasoning": st.sampled_from([None, "minimal", "low", "medium", "high"]),
        "stream": st.booleans(),
        "prompt_cache_key": st.sampled_from(["0123456789abcdef0123456789abcdef", ""]),
        "transport_session": st.sampled_from(["s-advisor", "s-subagent-advisor", None]),
        "parent_session": st.sampled_from(["s", None]),
        "advisor_cache_profile": st.booleans(),
    })
    requests = st.builds(lambda messages, extra: wire.neutral_request(messages, **extra),
                         strategies.rendered_messages(max_size=50), fields)
    return st.fixed_dictionaries({"provider": st.sampled_from(PROVIDERS), "request": requests})


_WORKSPACE_FILES = ("src/app.py", "docs/notes.md", "secret.txt", "../outside/other.txt")
_MALFORMED_INPUTS = [{"question": 7}, {"files": "src/app.py"}, {"files": [1]}, ["question"]]


def _snapshot_with_read(texts: Mapping[str, str], path: str) -> list[dict[str, Any]]:
    """A snapshot whose agent read ``path`` in full before it called the advisor."""
    read = oracle.read_result(path, texts[path].encode("utf-8"))
    return [{"role": "user", "content": "read it"},
            {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": read}, *scenarios.SNAPSHOT[1:]]


@cache
def _scenario_parts(in_workspace: bool, confinement: bool) -> dict[str, st.SearchStrategy[Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {
        "session_id": st.sampled_from(["s", None, "", "run-7"]),
        "max_uses_per_run": st.integers(0, 3),
        "child_max_uses": st.integers(0, 2),
        "model": st.just("model-b"),
        "max_tokens": st.sampled_from([2048, 1024]),
        "reasoning": st.sampled_from([None, "low", "high"]),
        "cache_key_store": st.sampled_from([None, {}, {"advisor": _STORE_KEY}, {"advisor": ""}, {"other": _STORE_KEY}]),
    }
    # File paths only with a working directory: a runtime without one is the harness's, not the spec's.
    inputs: dict[str, st.SearchStrategy[Any]] = {"question": strategies.questions(), "unknown": st.just(True)}
    if in_workspace:
        optional["blocked_paths"] = st.sampled_from([[], ["secret.txt"], ["docs"]])
        if confinement:
            optional["confine_to_work_dir"] = st.booleans()
        inputs["files"] = st.lists(st.sampled_from([*_WORKSPACE_FILES, "missing.txt", "./src/app.py"]), max_size=3)
    reply = _weighted(
        st.builds(scenarios.reply, st.one_of(st.text(max_size=30), st.sampled_from(["", " \n"])),
                  st.sampled_from(["stop", "length"])),
        st.builds(scenarios.failure, st.sampled_from(["upstream returned 500", "overloaded"]),
                  st.sampled_from([500, 429, 400])),
    )
    return {
        "runtime": st.fixed_dictionaries({}, optional=optional),
        "agent": st.sampled_from([None, "child-1", "child-2"]),
        "input": _weighted(st.fixed_dictionaries({}, optional=inputs), st.sampled_from(_MALFORMED_INPUTS)),
        # a small snapshot, a drawn one, none, or one with a full read of a workspace file (twice as likely)
        "snapshot": st.integers(0, 4),
        "transcript": strategies.transcripts(max_size=4),
        "replies": _weighted(st.lists(reply, min_size=1, max_size=2), st.just([])),
        "texts": st.fixed_dictionaries({path: st.text(max_size=60) for path in _WORKSPACE_FILES}),
    }


@st.composite
def _scenario(draw: st.DrawFn, confinement: bool) -> dict[str, Any]:
    in_workspace = draw(st.booleans())
    parts = _scenario_parts(in_workspace, confinement)
    texts = draw(parts["texts"])
    runtime = draw(parts["runtime"])
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 4)) == 4:
            steps.append({"tools": {"agent": draw(st.sampled_from([None, "child-1"]))}})
            continue
        kind = draw(parts["snapshot"])
        snapshot = (scenarios.SNAPSHOT if kind == 0 else draw(parts["transcript"]) if kind == 1 else None if kind == 2
                    else _snapshot_with_read(texts, draw(st.sampled_from(_WORKSPACE_FILES[:2]))))
        steps.append({"call": scenarios.call(agent=draw(parts["agent"]), conversation=draw(st.integers(1, 2)),
                                             turn=draw(st.integers(1, 3)), input=draw(parts["input"]),
                                             snapshot=snapshot, provider=draw(parts["replies"]))})
    spec = {path: {"text": text} for path, text in texts.items()} if in_workspace else None
    return {"workspace": spec, "params": scenarios.scenario(steps, runtime)}


@cache
def scenario_inputs(confinement: bool) -> st.SearchStrategy[dict[str, Any]]:
    """``{"workspace": spec or None, "params": scenario params without work_dir}``."""
    return _scenario(confinement)


# -- running a pair -------------------------------------------------------------------------------------------


@dataclass
class Divergence:
    """The shrunk input on which two implementations differ, and where their answers do."""

    op: str
    input: Any
    differences: list[vectors.Difference]
    answers: tuple[Any, Any]  # after open_choices: what was compared

    def parts(self) -> list[dict[str, Any]]:
        """Each difference: its path, what differs, and both answers' values there."""
        return [{"path": diff.where, "what": diff.what, "a": _at(self.answers[0], diff.path),
                 "b": _at(self.answers[1], diff.path)} for diff in self.differences]

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "input": abbreviate(self.input),
                "differences": [{**part, "a": abbreviate(part["a"]), "b": abbreviate(part["b"])}
                                for part in self.parts()[:20]]}


@dataclass
class Outcome:
    """One operation's result: how many inputs ran, the divergence found (shrunk), or why it was skipped."""

    op: str
    inputs: int = 0
    seconds: float = 0.0
    divergence: Divergence | None = None
    skipped: str | None = None
    found_after: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "inputs": self.inputs, "seconds": round(self.seconds, 2), "skipped": self.skipped,
                "found_after": self.found_after,
                "divergence": None if self.divergence is None else self.divergence.to_json()}


def _at(value: Any, path: tuple[tuple[str | int, int], ...]) -> Any:
    for step, _ in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return "(absent)"
    return value


class _Diverged(Exception):
    def __init__(self, divergence: Divergence) -> None:
        super().__init__(f"{divergence.op}: {len(divergence.differences)} differences")
        self.divergence = divergence


def _answer(impl: Implementation, op: str, params: Mapping[str, Any]) -> Any:
    try:
        return impl.call(op, params)
    except ContractError as exc:
        return {"contract_error": str(exc)}


@contextmanager
def _materialised(drawn: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], Mapping[str, str], str | None]]:
    """The params to send for a drawn scenario (its workspace created), the files it holds, the work dir."""
    if drawn.get("workspace") is None:
        yield dict(drawn["params"]), {}, None
        return
    with workspace(drawn["workspace"]) as work:
        files = {path: entry["text"] for path, entry in drawn["workspace"].items()}
        yield {**drawn["params"], "work_dir": str(work)}, files, str(work)


def compare(op: str, drawn: Any, pair: tuple[Implementation, Implementation]) -> Divergence | None:
    """Send one drawn input to both implementations; the divergence, or None when the answers agree."""
    descriptions = (pair[0].description, pair[1].description)
    if op == "scenario":
        with _materialised(drawn) as (params, files, work_dir):
            raw = (_answer(pair[0], op, params), _answer(pair[1], op, params))
        shown: Any = {"workspace": drawn["workspace"], "params": {**drawn["params"], **(
            {"work_dir": "{{work_dir}}"} if work_dir else {})}}
    else:
        params, work_dir, shown = drawn, None, drawn
        files = {item["path"]: _file_text(item) for item in drawn.get("files") or []} if op == "shape" else {}
        raw = (_answer(pair[0], op, params), _answer(pair[1], op, params))
    found, compared = diverging(op, params, raw, descriptions, files=files, work_dir=work_dir)
    return Divergence(op, shown, found, compared) if found else None


def diverging(op: str, params: Mapping[str, Any], answers: tuple[Any, Any],
              descriptions: tuple[Mapping[str, Any], Mapping[str, Any]], *, files: Mapping[str, str] | None = None,
              work_dir: str | None = None) -> tuple[list[vectors.Difference], tuple[Any, Any]]:
    """Where two answers to ``params`` differ once :func:`open_choices` has normalised them (A's side is the
    "expected" of each difference), and the normalised answers."""
    a, b, exact = open_choices(op, params, answers, descriptions, files=files, work_dir=work_dir)
    return vectors.differences(a, b, exact_args=exact), (a, b)


def strategy_for(op: str, pair: tuple[Implementation, Implementation]) -> st.SearchStrategy[Any]:
    if op == "shape":
        return shape_inputs()
    if op == "encode":
        return encode_inputs()
    return scenario_inputs(all(impl.option("confinement", False) is True for impl in pair))


_PROBES: dict[str, dict[str, Any]] = {
    "shape": {"transcript": []},
    "encode": {"provider": "openai", "request": wire.neutral_request([{"role": "user", "content": "x"}])},
    "scenario": {"steps": []},
}


def _unsupported(op: str, pair: Sequence[Implementation]) -> str | None:
    for impl in pair:
        answer = _answer(impl, op, _PROBES[op])
        if isinstance(answer, dict) and answer.get("error", {}).get("code") == "unsupported_op":
            return f"{impl.name} does not answer {op}"
    return None


def search(op: str, pair: tuple[Implementation, Implementation], *, examples: int, seed: int = 0) -> Outcome:
    """Draw up to ``examples`` inputs of ``op``; the first divergence, shrunk, or none."""
    outcome = Outcome(op)
    started = time.monotonic()
    outcome.skipped = _unsupported(op, pair)
    if outcome.skipped:
        return outcome
    declared = {text for impl in pair for name, text in impl.strings.items() if text and name not in TEMPLATES}
    declared |= {re.split(r"\{(?:used|max)\}", impl.strings.get("budget_spent", ""))[0] for impl in pair} - {""}

    @seeded(seed)
    @settings(database=None, max_examples=examples, derandomize=False, deadline=None,
              phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)
    @given(strategy_for(op, pair))
    def probe(drawn: Any) -> None:
        # An input that holds a declared string would be normalised on one side only (hypothesis draws the
        # string constants of the code it runs, declared strings included): such an input is not drawn.
        assume(not any(text in value for value in _strings_in(drawn) for text in declared))
        outcome.inputs += 1
        found = compare(op, drawn, pair)
        if found is not None:
            if outcome.found_after is None:
                outcome.found_after = outcome.inputs
            raise _Diverged(found)

    try:
        probe()
    except _Diverged as exc:
        outcome.divergence = exc.divergence
    except BaseExceptionGroup as group:  # a divergence that did not reproduce the same way while shrinking
        diverged = [exc for exc in _leaves(group) if isinstance(exc, _Diverged)]
        if not diverged:
            raise
        outcome.divergence = diverged[-1].divergence
    outcome.seconds = time.monotonic() - started
    return outcome


def _leaves(group: BaseExceptionGroup) -> Iterator[BaseException]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


@dataclass
class Report:
    pair: tuple[Implementation, Implementation]
    seed: int
    examples: int
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def diverged(self) -> bool:
        return any(outcome.divergence is not None for outcome in self.outcomes)


def run(pair: tuple[Implementation, Implementation], ops: Sequence[str] = OPERATIONS, *, examples: int = 200,
        seed: int = 0, progress: Callable[[Outcome], None] | None = None) -> Report:
    """Search every operation of ``ops`` in turn."""
    report = Report(pair, seed, examples)
    for op in ops:
        outcome = search(op, pair, examples=examples, seed=seed)
        report.outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return report
