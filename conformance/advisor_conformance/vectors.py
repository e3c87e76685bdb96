"""Golden vectors: language-agnostic JSON cases of input and expected output (``fixtures/vectors``).

A vector file holds ``{"area", "description", "cases": [...]}``; each case is
``{"id", "description", "rules", "op", "input", "expect"}`` and optionally
``"requires": {"args_json": "origin"}`` and ``"pins"``. ``expect`` is the
operation's answer (``{"messages": [...]}``) or ``{"error": {"code": ...}}``.

**Attribution.** The answer is compared field by field and every difference
is collected (:func:`differences`). ``pins`` says which fields pin which of the
case's rules: ``{"calls[*].result": ["budget.shared-counter"],
"provider_requests[*].transport_session": ["transport.main-session"]}``; a
pattern is a path into the answer (keys, ``[N]``, ``[-N]`` from the end,
``[*]`` any index) and covers the field and everything under it; the longest
pattern that covers a difference decides its rules, and a difference no pattern
covers is attributed to all the case's rules. A failing case then names only
the rules its differences break (:func:`attribute`).

Two small notations keep big values readable (see ``fixtures/README.md``):

* matchers on the expected side: ``{"$hex32": "label"}`` (a fresh cache key),
  ``{"$between": [lo, hi]}`` (an integer in that range), ``{"$ignore": "why"}``
  (any value: a field the case does not pin, such as the shaped messages of a
  runtime case that is not about shaping), and ``{"$segments": [[text, [rules]],
  ...]}``: a string made of these texts in order, where a departure inside a
  segment is blamed on that segment's rules (the final message: its in-flight
  block, each file, the question, the request for guidance);
* a macro object with one ``$`` key, anywhere a string is expected:
  ``{"$repeat": ["ab", 3]}`` → ``"ababab"``; ``{"$concat": [a, b, ...]}``
  joins strings (which may be macros themselves);
* ``{{name}}`` in a string stands for the implementation's declared string
  ``name`` (``{{guidance_request}}``, ``{{inflight_label}}``, ...), so the
  expected output is compared byte for byte whatever the wording.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._paths import fixtures_dir
from .oracle import normalise_numbers

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)(?::(\d+):(\d+))?\}\}")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
_TOOL_CALL_LINE = re.compile(r"^\[tool_call: (?P<name>.*?) (?P<args>\{.*\})\]$")
MATCHERS = ("$hex32", "$between", "$ignore", "$segments")
_PATTERN_TOKEN = re.compile(r"\[(\*|-?\d+)\]|\.?([^.\[\]]+)")


class VectorError(ValueError):
    """A vector file that does not follow the format."""


@dataclass(frozen=True)
class Case:
    file: str
    id: str
    description: str
    rules: tuple[str, ...]
    op: str
    input: Any
    expect: Any
    requires: Mapping[str, str]
    workspace: Mapping[str, Any] | None = None
    pins: Mapping[str, tuple[str, ...]] | None = None

    @property
    def key(self) -> str:
        return f"{self.file}/{self.id}"

    def named_rules(self) -> set[str]:
        """Every rule the case names: its own, its pins' and its $segments parts'."""
        named = set(self.rules) | {rule for pinned in (self.pins or {}).values() for rule in pinned}

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                if set(value) == {"$segments"}:
                    named.update(rule for _, rules in value["$segments"] for rule in rules)
                    return
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(self.expect)
        return named


def expand(value: Any, where: str = "") -> Any:
    """Expand ``$repeat`` and ``$concat`` macros, recursively."""
    if isinstance(value, dict):
        macros = [key for key in value if key.startswith("$")]
        if len(value) == 1 and macros == ["$segments"]:
            return {"$segments": [[expand(text, f"{where}.$segments[{i}]"), rules]
                                  for i, (text, rules) in enumerate(value["$segments"])]}
        if len(value) == 1 and macros and macros[0] in MATCHERS:
            return value  # a matcher of the expected side, resolved by differences()
        if macros:
            if len(value) != 1:
                raise VectorError(f"{where}: a macro object has exactly one key, got {sorted(value)}")
            name, arg = next(iter(value.items()))
            if name == "$repeat":
                if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], int) and arg[1] >= 0):
                    raise VectorError(f"{where}: $repeat takes [text, count]")
                text = expand(arg[0], where)
                if not isinstance(text, str):
                    raise VectorError(f"{where}: $repeat repeats a string")
                return text * arg[1]
            if name == "$concat":
                if not isinstance(arg, list):
                    raise VectorError(f"{where}: $concat takes a list of strings")
                parts = [expand(part, f"{where}[{i}]") for i, part in enumerate(arg)]
                if not all(isinstance(part, str) for part in parts):
                    raise VectorError(f"{where}: $concat joins strings")
                return "".join(parts)
            raise VectorError(f"{where}: unknown macro {name!r}")
        return {key: expand(item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


_DEDUPED = re.compile(r"\{\{deduped:([^{}]+)\}\}")
_SLOT = re.compile("\ue000([^\ue001]*)\ue001")


def fill(value: Any, strings: Mapping[str, str]) -> Any:
    """Replace ``{{name}}`` placeholders by the declared strings (``{{budget_spent:U:M}}`` fills in used/max).

    ``{{deduped:PATH}}`` is a deduped file's block: the declared layout when the implementation declares one,
    else a slot the comparison checks by what it must hold (the path, the notice, none of the content).
    """
    if isinstance(value, str):
        from .shaping import deduped_text

        def deduped(match: re.Match[str]) -> str:
            declared = deduped_text(strings, match[1]) if "deduped_file_notice" in strings else None
            return declared if declared is not None else f"\ue000{match[1]}\ue001"

        value = _DEDUPED.sub(deduped, value)

        def replace(match: re.Match[str]) -> str:
            name = match[1]
            if name not in strings:
                raise VectorError(f"unknown placeholder {{{{{name}}}}}")
            if match[2] is not None:
                return strings[name].replace("{used}", match[2]).replace("{max}", match[3])
            return strings[name]

        return PLACEHOLDER.sub(replace, value)
    if isinstance(value, dict):
        return {key: fill(item, strings) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, strings) for item in value]
    return value


def canonical_tool_calls(content: str) -> str:
    """Rewrite each tool-call line with its arguments in one canonical JSON form (for semantic comparison)."""
    lines = content.split("\n")
    for index, line in enumerate(lines):
        match = _TOOL_CALL_LINE.match(line)
        if not match:
            continue
        try:
            arguments = json.loads(match["args"])
        except ValueError:
            continue
        canonical = json.dumps(normalise_numbers(arguments), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        lines[index] = f"[tool_call: {match['name']} {canonical}]"
    return "\n".join(lines)


@dataclass(frozen=True)
class Difference:
    """One field where the answer departs from the vector: its path, and what was expected and found there."""

    path: tuple[tuple[str | int, int], ...]  # (key or index, length of the list for an index, else 0)
    what: str
    rules: tuple[str, ...] = ()  # the rules a $segments part blames; empty: the pins decide
    expected: str | None = None  # for a text: the expected text (or the segment) where it departs ...
    offset: int | None = None  # ... and where, so a departure inside a declared string is blamed on its rule
    actual: str | None = field(default=None, compare=False)  # the text found (a declared string moved elsewhere)
    actual_offset: int | None = field(default=None, compare=False)  # where in ``actual`` it departs, when known
    whole: str | None = field(default=None, compare=False)  # the whole expected text (the segments joined)

    @property
    def where(self) -> str:
        out = "answer"
        for step, _ in self.path:
            out += f"[{step}]" if isinstance(step, int) else f".{step}"
        return out

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _show(value: Any, limit: int = 200) -> str:
    from ._bounded import excerpt

    return excerpt(value, limit)


def _text_difference(expected: str, actual: str) -> str:
    """Where two strings first differ, with their lengths, what each holds there and the region around it."""
    from ._excerpts import difference

    at, shown = difference(expected, actual)
    return f"strings differ at character {at} (expected {len(expected)} characters, got {len(actual)}) {shown}"


def differences(expected: Any, actual: Any, *, exact_args: bool, keys: dict[str, str] | None = None,
                path: tuple[tuple[str | int, int], ...] = (), strings: Mapping[str, str] | None = None,
                contents: Mapping[str, str] | None = None) -> list[Difference]:
    """Every field where ``actual`` departs from ``expected``.

    * ``{"$hex32": "label"}`` matches a fresh cache key (32 lower-case hex
      digits); every place with the same label holds the same key, and
      different labels hold different keys. ``{"$between": [lo, hi]}`` matches
      an integer in the range; ``{"$ignore": "why"}`` matches anything.
    * Under an ``error`` key, only the fields the vector gives are compared
      (usually just ``code``).
    * Tool-call lines compare as JSON values unless ``exact_args``.
    * Arrays of different lengths are one difference (their items are not paired).
    * A deduped file's slot (``{{deduped:PATH}}`` where no layout is declared) matches any block that names the
      path, carries the declared notice (``strings``) and none of the file's content (``contents``).
    """
    keys = {} if keys is None else keys
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)) in MATCHERS:
        (name, argument), = expected.items()
        if name == "$segments":
            return _segments(argument, actual, path, exact_args=exact_args, strings=strings, contents=contents)
        return [Difference(path, problem)] if (problem := _matcher(name, argument, actual, keys)) else []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [Difference(path, f"expected an object, got {_show(actual)}")]
        names = list(expected) if path and path[-1][0] == "error" else sorted(set(expected) | set(actual))
        found: list[Difference] = []
        for name in names:
            here = (*path, (name, 0))
            if name not in actual:
                found.append(Difference(here, f"missing (expected {_show(expected[name])})"))
            elif name not in expected:
                found.append(Difference(here, f"not expected (got {_show(actual[name])})"))
            else:
                found.extend(differences(expected[name], actual[name], exact_args=exact_args, keys=keys, path=here,
                                         strings=strings, contents=contents))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Difference(path, f"expected an array of {len(expected)} items, got {_show(actual)}")]
        if len(actual) != len(expected):
            return [Difference(path, f"expected {len(expected)} items, got {len(actual)}")]
        found = []
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found.extend(differences(want, got, exact_args=exact_args, keys=keys, path=(*path, (index, len(expected))),
                                     strings=strings, contents=contents))
        places = _permutation(expected, actual, exact_args=exact_args, keys=keys, strings=strings,
                              contents=contents) if len(found) > 1 else None
        if places is not None:  # the very same items, in another order: the list's own difference
            return [Difference(path, f"the {len(expected)} items are all there, in another order: the expected items "
                                     f"stand at {places}")]
        return found
    if isinstance(expected, str) and isinstance(actual, str) and not exact_args:
        expected, actual = canonical_tool_calls(expected), canonical_tool_calls(actual)
    if isinstance(expected, str) and isinstance(actual, str) and "\ue000" in expected and strings is not None:
        from .shaping import Deduped, match_parts

        pieces = _SLOT.split(expected)  # literal, path, literal, path, ..., literal
        parts: list[str | Deduped] = [piece if index % 2 == 0 else Deduped(piece, (contents or {}).get(piece, ""))
                                      for index, piece in enumerate(pieces)]
        problem = match_parts(actual, [part for part in parts if part != ""], strings)
        return [Difference(path, problem)] if problem else []
    if expected != actual or type(expected) is not type(actual):
        if isinstance(expected, str) and isinstance(actual, str):
            offset = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                          min(len(expected), len(actual)))
            return [Difference(path, _text_difference(expected, actual), _encoding_only(expected, actual, exact_args),
                               expected=expected, offset=offset, actual=actual, actual_offset=offset,
                               whole=expected)]
        return [Difference(path, f"expected {_show(expected)}, got {_show(actual)}")]
    return []


def _permutation(expected: list[Any], actual: list[Any], **options: Any) -> list[int] | None:
    """Where each expected item stands in ``actual`` when ``actual`` holds the very same items in another order;
    None otherwise."""
    places: list[int] = []
    for want in expected:
        place = next((index for index, got in enumerate(actual) if index not in places and not differences(
            want, got, **{**options, "keys": dict(options["keys"])})), None)
        if place is None:
            return None
        places.append(place)
    return places if places != sorted(places) else None


#: The rule of the exact form of tool-call arguments, for an implementation that declares it (option args_json).
ORIGIN_ENCODING = "flatten.args-json-origin-encoding"


def _encoding_only(expected: str, actual: str, exact_args: bool) -> tuple[str, ...]:
    """(:data:`ORIGIN_ENCODING`,) when two texts compared byte for byte (the implementation declares the origin's
    argument encoding) differ only in how tool-call arguments are written: as JSON values they are equal; else ()."""
    if exact_args and canonical_tool_calls(expected) == canonical_tool_calls(actual):
        return (ORIGIN_ENCODING,)
    return ()


def _segments(segments: list[list[Any]], actual: Any, path: tuple[tuple[str | int, int], ...], *, exact_args: bool,
              strings: Mapping[str, str] | None, contents: Mapping[str, str] | None) -> list[Difference]:
    """A string made of segments, each blamed on its own rules where the text departs inside it."""
    from .shaping import Deduped, locate_departure_at

    if not isinstance(actual, str):
        return [Difference(path, f"expected a string, got {_show(actual)}")]
    parts: list[str | Deduped] = []
    owner: list[tuple[str, ...]] = []
    for text, rules in segments:
        if not exact_args:
            text = canonical_tool_calls(text)
        for index, piece in enumerate(_SLOT.split(text)):
            if piece or index % 2:
                parts.append(piece if index % 2 == 0 else Deduped(piece, (contents or {}).get(piece, "")))
                owner.append(tuple(rules))
    if not exact_args:
        actual = canonical_tool_calls(actual)
    found = locate_departure_at(actual, parts, strings or {})
    if found is None:
        return []
    index, what, offset = found
    part = parts[min(index, len(parts) - 1)] if parts else ""
    rules = owner[min(index, len(owner) - 1)] if owner else ()
    texts = all(isinstance(piece, str) for piece in parts)  # no deduped slot: the whole expected text is known
    if texts:
        rules = _encoding_only("".join(parts), actual, exact_args) or rules  # type: ignore[arg-type]
    if isinstance(part, Deduped) and part.content and f"File: {part.path}\n```\n{part.content}" in actual:
        # the file was sent whole where it should be deduped: the dedupe decision the slot names, not the notice
        rules = tuple(rule for rule in rules if rule != "dedupe.notice") or rules
    elif isinstance(part, Deduped) and "dedupe.notice" in rules:
        rules = ("dedupe.notice",)  # the content is left out, as decided; the block itself is the notice's
    # (past the last part, the offset is inside the last part: text left over at the end)
    at = sum(len(part) for part in parts[:min(index, len(parts) - 1)] if isinstance(part, str)) + offset \
        if offset is not None and texts and parts else None  # texts: every part is a text
    return [Difference(path, what, rules, expected=part if isinstance(part, str) else None, offset=offset,
                       actual=actual, actual_offset=at, whole="".join(parts) if texts else None)]  # type: ignore[arg-type]


def _matcher(name: str, argument: Any, actual: Any, keys: dict[str, str]) -> str | None:
    if name == "$ignore":
        return None
    if name == "$between":
        low, high = argument
        if isinstance(actual, int) and not isinstance(actual, bool) and low <= actual <= high:
            return None
        return f"expected an integer from {low} to {high}, got {_show(actual)}"
    if not (isinstance(actual, str) and HEX32.match(actual)):
        return f"expected a fresh key (32 lower-case hex digits), got {_show(actual)}"
    if keys.setdefault(argument, actual) != actual:
        return f"expected the same key as the other {argument!r} places ({keys[argument]!r}), got {actual!r}"
    if list(keys.values()).count(actual) > 1:
        return f"the key of {argument!r} is the same as another label's ({actual!r})"
    return None


def difference(expected: Any, actual: Any, *, exact_args: bool, keys: dict[str, str], path: str = "answer"
               ) -> str | None:
    """The first difference as text, or None (see :func:`differences`)."""
    found = differences(expected, actual, exact_args=exact_args, keys=keys)
    return str(found[0]) if found else None


def parse_pattern(pattern: str, where: str = "pins") -> list[str | int]:
    """A pins pattern as steps: keys, integers (negative from the end), and ``"*"`` for any index."""
    steps: list[str | int] = []
    position = 0
    for match in _PATTERN_TOKEN.finditer(pattern):
        if match.start() != position:
            break
        index, key = match.groups()
        steps.append(key if key is not None else (index if index == "*" else int(index)))
        position = match.end()
    if position != len(pattern) or not steps:
        raise VectorError(f"{where}: {pattern!r} is not a path such as calls[*].result or messages[-1].content")
    return steps


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
                sent = name == "deduped_file_notice" and diff.offset == start and diff.actual is not None and \
                    diff.actual.startswith("```\n", diff.offset)
                return None if moved or sent else rule
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
        "provider_requests[*].transport_session": ("transport.main-session", "transport.subagent-session",
                                                   "transport.no-session"),
        "provider_requests[*].parent_session": ("transport.main-session", "transport.subagent-session",
                                                "transport.no-session"),
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
    from .shaping import flatten_rule

    if case.op != "shape" or not isinstance(case.input, dict) or not isinstance(case.input.get("transcript"), list):
        return []
    transcript = case.input["transcript"]
    kept = transcript[:-1] if transcript and isinstance(transcript[-1], dict) and \
        transcript[-1].get("role") == "assistant" else transcript
    out: list[tuple[list[str | int], tuple[str, ...]]] = [(["messages", 0], ("request.system-prompt",))]
    out += [(["messages", index + 1], (flatten_rule(message),)) for index, message in enumerate(kept)]
    final = tuple(rule for rule in case.rules if rule.split(".", 1)[0] in FINAL_MESSAGE_AREAS
                  and rule not in ("request.system-prompt", "request.no-tools", "request.message-sequence"))
    out.append((["messages", -1], final or ("request.final-message-order",)))
    return out


def _line_at(text: str, offset: int) -> tuple[int, str]:
    """Where the line holding ``offset`` starts in ``text``, and the line (without its newline)."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, text[start:len(text) if end < 0 else end]


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
        return ("transport.fresh-key",) if isinstance(want, dict) and "$hex32" in want else \
            ("transport.cache-key-store",) if isinstance(want, str) else None
    if name in ("transport_session", "parent_session"):
        session = request.get("transport_session")
        if request.get(name) is None:
            return ("transport.no-session",)
        if isinstance(session, str):
            return ("transport.subagent-session",) if session.endswith("-subagent-advisor") else \
                ("transport.main-session",)
    return None


def frame_rule(diff: Difference) -> tuple[str, ...] | None:
    """The flattening rule of the frame a text departs in: the ``[tool_call: <name> `` opening or the closing ``]``
    of a tool-call line (flatten.tool-call-line), or a ``[tool_result: <name>]`` header line (flatten.tool-result),
    whatever the message is about. A departure inside the arguments, or at the line's first character, is not the
    frame's (None)."""
    # the whole expected text where it is known (a segment may hold only part of a line)
    text, offset = (diff.whole, diff.actual_offset) if diff.whole is not None and diff.actual_offset is not None \
        else (diff.expected, diff.offset)
    if text is None or offset is None:
        return None
    start, line = _line_at(text, offset)
    at = offset - start
    call = _TOOL_CALL_LINE.match(line)
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
        if _TOOL_CALL_LINE.match(line) and got.startswith(line):
            return ("flatten.assistant-with-calls",)
    if not want and got.startswith("\n") and _TOOL_CALL_LINE.match(text[text.rfind("\n") + 1:]):
        return ("flatten.assistant-with-calls",)  # a newline after the last call line
    line = want.split("\n", 1)[0]
    if at > 0 and text[at - 1] == "\n" and _TOOL_CALL_LINE.match(line) and got.startswith("\n") \
            and got.lstrip("\n").startswith(line):  # newlines too many before the call line
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
    call = _TOOL_CALL_LINE.match(line)
    return call is not None and call.start("args") < at - start < call.end("args") - 1


_ARG_MARKER = re.compile(r"\u2026\[elided, \d+ bytes total\]")


def marker_rule(diff: Difference) -> tuple[str, ...] | None:
    """elision.marker-format when the text departs inside the elision marker of a tool-call argument (past its first
    character: a departure there is where the cut ends, the cut's business); None otherwise. A file's marker is not
    the argument's: its N is the files rules' business."""
    text = diff.whole if diff.whole is not None else diff.expected
    at = diff.actual_offset
    if text is None or at is None:
        return None
    line_start, line = _line_at(text, at)
    if not _TOOL_CALL_LINE.match(line):
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
    return any(len(re.findall(rf"(?<![\w-]){re.escape(one)}(?![\w-])", got_line))
               > len(re.findall(rf"(?<![\w-]){re.escape(one)}(?![\w-])", expected_line)) for one in ids)


def attribute(case: Case, found: list[Difference],
              strings: Mapping[str, str] | None = None) -> dict[Difference, tuple[str, ...]]:
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
        separator = separator_rule(diff) or marker_rule(diff)
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
        best = max(((len(steps), rules) for steps, rules in parsed if covers(steps, diff.path)), default=None,
                   key=lambda pair: pair[0])
        field_best = max(((len(steps), rules) for steps, rules in fields if covers(steps, diff.path)), default=None,
                         key=lambda pair: pair[0])
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


def load_file(path: Path) -> list[Case]:
    """The cases of one vector file, macros expanded (placeholders stay until the strings are known)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise VectorError(f"{path.name}: not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise VectorError(f"{path.name}: expected an object with a list of cases")
    cases, seen = [], set()
    for index, raw in enumerate(data["cases"]):
        where = f"{path.name}: cases[{index}]"
        missing = {"id", "description", "rules", "op", "input", "expect"} - set(raw)
        extra = set(raw) - {"id", "description", "rules", "op", "input", "expect", "requires", "workspace", "pins"}
        if missing or extra:
            raise VectorError(f"{where}: missing {sorted(missing)}, unknown {sorted(extra)}")
        if raw["id"] in seen:
            raise VectorError(f"{where}: duplicate id {raw['id']!r}")
        seen.add(raw["id"])
        if not raw["rules"]:
            raise VectorError(f"{where}: a case names at least one rule")
        _check_segments(raw["expect"], f"{where}.expect")
        pins = raw.get("pins", {})
        for pattern, pinned in pins.items():
            parse_pattern(pattern, f"{where}.pins")
            if not pinned or not all(isinstance(rule, str) for rule in pinned):
                raise VectorError(f"{where}.pins[{pattern!r}]: pins name rules, got {pinned}")
        cases.append(
            Case(
                file=path.stem,
                id=raw["id"],
                description=raw["description"],
                rules=tuple(raw["rules"]),
                op=raw["op"],
                input=expand(raw["input"], f"{where}.input"),
                expect=expand(raw["expect"], f"{where}.expect"),
                requires=raw.get("requires", {}),
                workspace=expand(raw.get("workspace"), f"{where}.workspace"),
                pins={pattern: tuple(pinned) for pattern, pinned in pins.items()},
            )
        )
    return cases


def _check_segments(value: Any, where: str) -> None:
    """Every $segments part is [text, [rules]] (the catalogue test checks that the rules exist)."""
    if isinstance(value, dict):
        if set(value) == {"$segments"}:
            for index, segment in enumerate(value["$segments"]):
                if not (isinstance(segment, list) and len(segment) == 2 and isinstance(segment[1], list)
                        and segment[1]):
                    raise VectorError(f"{where}.$segments[{index}]: a segment is [text, [rules]]")
            return
        for key, item in value.items():
            _check_segments(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_segments(item, f"{where}[{index}]")


def vector_files(directory: Path | None = None) -> list[Path]:
    return sorted((directory or fixtures_dir() / "vectors").glob("*.json"))


def load_all(directory: Path | None = None) -> Iterator[Case]:
    for path in vector_files(directory):
        yield from load_file(path)
