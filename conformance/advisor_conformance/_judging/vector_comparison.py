"""Golden vectors, comparison: an expected value (with its matchers and slots) against an answer, field by field.

:func:`differences` collects every :class:`Difference` (its path, what was expected, what came); it knows the
matchers of the expected side (``$hex32``, ``$between``, ``$ignore``, ``$segments``) and compares the arguments of
tool-call lines by meaning unless the byte-exact encoding is declared. Which rules a difference breaks is the
business of :mod:`.vector_attribution`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..oracle import normalise_numbers
from .vector_loading import MATCHERS, SLOT

HEX32 = re.compile(r"^[0-9a-f]{32}$")
TOOL_CALL_LINE = re.compile(r"^\[tool_call: (?P<name>.*?) (?P<args>\{.*\})\]$")


def canonical_tool_calls(content: str) -> str:
    """Rewrite each tool-call line with its arguments in one canonical JSON form (for semantic comparison)."""
    lines = content.split("\n")
    for index, line in enumerate(lines):
        match = TOOL_CALL_LINE.match(line)
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
    #: for arrays of different lengths, when the others pair up in order: the answer's items too many and the
    #: expected items missing (indices), and the items themselves
    extra: tuple[int, ...] = field(default=(), compare=False)
    missing: tuple[int, ...] = field(default=(), compare=False)
    items: tuple[Any, ...] = field(default=(), compare=False)  # the extra items, then the missing ones
    size: int = field(default=0, compare=False)  # the length of the longer array

    @property
    def where(self) -> str:
        out = "answer"
        for step, _ in self.path:
            out += f"[{step}]" if isinstance(step, int) else f".{step}"
        return out

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _show(value: Any, limit: int = 200) -> str:
    from .._bounded import excerpt

    return excerpt(value, limit)


def _text_difference(expected: str, actual: str) -> str:
    """Where two strings first differ, with their lengths, what each holds there and the region around it."""
    from .._excerpts import difference

    at, shown = difference(expected, actual)
    return f"strings differ at character {at} (expected {len(expected)} characters, got {len(actual)}) {shown}"


def differences(
    expected: Any,
    actual: Any,
    *,
    exact_args: bool,
    keys: dict[str, str] | None = None,
    path: tuple[tuple[str | int, int], ...] = (),
    strings: Mapping[str, str] | None = None,
    contents: Mapping[str, str] | None = None,
) -> list[Difference]:
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
        ((name, argument),) = expected.items()
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
                found.extend(
                    differences(
                        expected[name],
                        actual[name],
                        exact_args=exact_args,
                        keys=keys,
                        path=here,
                        strings=strings,
                        contents=contents,
                    )
                )
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Difference(path, f"expected an array of {len(expected)} items, got {_show(actual)}")]
        if len(actual) != len(expected):
            options: dict[str, Any] = {"exact_args": exact_args, "keys": keys, "strings": strings, "contents": contents}
            located = _one_unpaired(expected, actual, options)
            if located is None:
                return [Difference(path, f"expected {len(expected)} items, got {len(actual)}")]
            left, changed = located
            extra = len(actual) > len(expected)
            item = actual[left] if extra else expected[left]
            found = [
                Difference(
                    path,
                    f"expected {len(expected)} items, got {len(actual)}: "
                    + (f"the answer's item {left} is one too many" if extra else f"the expected item {left} is missing")
                    + f" ({_show(item)})",
                    extra=(left,) if extra else (),
                    missing=() if extra else (left,),
                    items=(item,),
                    size=max(len(expected), len(actual)),
                )
            ]
            for i, j in changed:  # the other items, paired in order, that differ too
                found.extend(differences(expected[i], actual[j], path=(*path, (i, len(expected))), **options))
            return found
        found = []
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found.extend(
                differences(
                    want,
                    got,
                    exact_args=exact_args,
                    keys=keys,
                    path=(*path, (index, len(expected))),
                    strings=strings,
                    contents=contents,
                )
            )
        places = (
            _permutation(expected, actual, exact_args=exact_args, keys=keys, strings=strings, contents=contents)
            if len(found) > 1
            else None
        )
        if places is not None:  # the very same items, in another order: the list's own difference
            return [
                Difference(
                    path,
                    f"the {len(expected)} items are all there, in another order: the expected items stand at {places}",
                )
            ]
        return found
    if isinstance(expected, str) and isinstance(actual, str) and not exact_args:
        expected, actual = canonical_tool_calls(expected), canonical_tool_calls(actual)
    if isinstance(expected, str) and isinstance(actual, str) and "\ue000" in expected and strings is not None:
        from ..shaping import Deduped

        pieces = SLOT.split(expected)  # literal, path, literal, path, ..., literal
        parts: list[str | Deduped] = [
            piece if index % 2 == 0 else Deduped(piece, (contents or {}).get(piece, ""))
            for index, piece in enumerate(pieces)
        ]
        return _slotted(actual, [part for part in parts if part != ""], strings, path)
    if expected != actual or type(expected) is not type(actual):
        if isinstance(expected, str) and isinstance(actual, str):
            offset = next(
                (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                min(len(expected), len(actual)),
            )
            return [
                Difference(
                    path,
                    _text_difference(expected, actual),
                    _encoding_only(expected, actual, exact_args),
                    expected=expected,
                    offset=offset,
                    actual=actual,
                    actual_offset=offset,
                    whole=expected,
                )
            ]
        return [Difference(path, f"expected {_show(expected)}, got {_show(actual)}")]
    return []


#: The longest arrays for which :func:`_one_unpaired` looks for the one item too many or missing.
_PAIRING_LIMIT = 64


def _one_unpaired(
    expected: list[Any], actual: list[Any], options: dict[str, Any]
) -> tuple[int, list[tuple[int, int]]] | None:
    """For arrays whose lengths differ by one: the index of the one item of the longer array that, left out, pairs
    the others in order with the fewest differing pairs (each pair ``(expected index, actual index)`` that still
    differs is returned); None when the arrays are too long, no item stands out (several leave the same fewest
    differing pairs and are not the same item), or most pairs would still differ."""
    longer, shorter = (actual, expected) if len(actual) > len(expected) else (expected, actual)
    if len(longer) - len(shorter) != 1 or len(longer) > _PAIRING_LIMIT:
        return None

    def same(want: Any, got: Any) -> bool:
        return not differences(want, got, **{**options, "keys": dict(options["keys"])})

    def unlike(i: int, j: int) -> bool:  # not even the same kind of item: another type, other keys, another role
        want, got = expected[i], actual[j]
        if isinstance(want, dict) and isinstance(got, dict):
            return set(want) != set(got) or want.get("role") != got.get("role")
        return type(want) is not type(got)

    scored: list[tuple[tuple[int, int], int, list[tuple[int, int]]]] = []
    for left in range(len(longer)):
        rest = [index for index in range(len(longer)) if index != left]
        pairs = [(rest[k], k) if longer is expected else (k, rest[k]) for k in range(len(shorter))]
        changed = [(i, j) for i, j in pairs if not same(expected[i], actual[j])]
        scored.append(((len(changed), sum(unlike(i, j) for i, j in changed)), left, changed))
    fewest = min(score for score, _, _ in scored)
    best = [(left, changed) for score, left, changed in scored if score == fewest]
    if 2 * fewest[0] > len(shorter):
        return None
    if any(not same(longer[left], longer[best[0][0]]) for left, _ in best[1:]):
        return None  # two different items would do: which one is too many (or missing) cannot be told
    return best[-1]


def _slotted(
    actual: str, parts: list[Any], strings: Mapping[str, str], path: tuple[tuple[str | int, int], ...]
) -> list[Difference]:
    """A text with deduped files' slots in it (no layout declared): where it departs, and when that is inside a
    deduped block whose content was left out, the block's own rule (dedupe.notice); a file sent whole there, or a
    departure elsewhere, is left to the pins (the dedupe decision, the frame of the text around it)."""
    from ..shaping import Deduped, locate_departure_at

    found = locate_departure_at(actual, parts, strings)
    if found is None:
        return []
    index, what, _ = found
    part = parts[min(index, len(parts) - 1)] if parts else None
    sent = isinstance(part, Deduped) and part.content and f"File: {part.path}\n```\n{part.content}" in actual
    rules = ("dedupe.notice",) if isinstance(part, Deduped) and index < len(parts) and not sent else ()
    return [Difference(path, what, rules)]


def _permutation(expected: list[Any], actual: list[Any], **options: Any) -> list[int] | None:
    """Where each expected item stands in ``actual`` when ``actual`` holds the very same items in another order;
    None otherwise."""
    places: list[int] = []
    for want in expected:
        place = next(
            (
                index
                for index, got in enumerate(actual)
                if index not in places and not differences(want, got, **{**options, "keys": dict(options["keys"])})
            ),
            None,
        )
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


def _segments(
    segments: list[list[Any]],
    actual: Any,
    path: tuple[tuple[str | int, int], ...],
    *,
    exact_args: bool,
    strings: Mapping[str, str] | None,
    contents: Mapping[str, str] | None,
) -> list[Difference]:
    """A string made of segments, each blamed on its own rules where the text departs inside it."""
    from ..shaping import Deduped, locate_departure_at

    if not isinstance(actual, str):
        return [Difference(path, f"expected a string, got {_show(actual)}")]
    parts: list[str | Deduped] = []
    owner: list[tuple[str, ...]] = []
    for text, rules in segments:
        if not exact_args:
            text = canonical_tool_calls(text)
        for index, piece in enumerate(SLOT.split(text)):
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
    at = (
        sum(len(part) for part in parts[: min(index, len(parts) - 1)] if isinstance(part, str)) + offset
        if offset is not None and texts and parts
        else None
    )  # texts: every part is a text
    return [
        Difference(
            path,
            what,
            rules,
            expected=part if isinstance(part, str) else None,
            offset=offset,
            actual=actual,
            actual_offset=at,
            whole="".join(parts) if texts else None,  # type: ignore[arg-type]  # texts: every part is a text
        )
    ]


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


def difference(
    expected: Any, actual: Any, *, exact_args: bool, keys: dict[str, str], path: str = "answer"
) -> str | None:
    """The first difference as text, or None (see :func:`differences`)."""
    found = differences(expected, actual, exact_args=exact_args, keys=keys)
    return str(found[0]) if found else None
