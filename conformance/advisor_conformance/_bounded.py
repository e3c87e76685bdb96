"""Bounded text for failure messages: excerpts of JSON values and summaries of schema violations.

A failure message must say what differs without copying a 20 MB answer into
the report: every excerpt here has a size bound, whatever the value, and a
schema violation is described from the error's own fields (which property,
which path, why), never from jsonschema's ``message``, which quotes the
whole offending instance.

What the implementation under test sends the suite is bounded before it is decoded: :func:`json_values` counts,
without decoding, at most how many values a JSON text holds (a decoded value costs some 70 bytes, so 32 MiB of
``{},{},...`` decodes to 850 MB).

Summarising a bad answer is bounded too, in time and memory, whatever its
size: :func:`summarise_errors` stops taking errors once it has a window of
them, and :func:`bounded_validator` gives a jsonschema validator class whose
``oneOf``/``anyOf`` keep a few errors of each form instead of every one (an
array of four million bad items is four million errors), whose
``uniqueItems`` is linear (jsonschema's compares every pair of items it
cannot sort), and whose keywords never quote the instance in a message
(jsonschema's ``repr`` of a four-million-item array costs seconds).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

#: The longest line a failure message holds; longer lines are cut with a note of their length.
LINE_LIMIT = 1000
#: The most lines one section (input, answer, expected, actual) of a failure message holds.
SECTION_LINES = 60
_STRING = 160
_ITEMS = 12
_DEPTH = 12
#: The most errors a summary takes from a validator: it ranks these and shows the first few.
SUMMARY_WINDOW = 100
#: The most errors of each form a ``oneOf``/``anyOf`` error keeps to explain itself.
FORM_ERRORS = 20


def json_values(text: bytes) -> int:
    """At most how many values the JSON ``text`` holds, counted without decoding it: one, and one more for each comma,
    brace and bracket (those inside strings too, so the count is never under the truth). Linear and cheap (a few
    milliseconds for 32 MiB)."""
    return 1 + text.count(b",") + text.count(b"{") + text.count(b"[")


def abbreviate(value: Any, limit: int = _STRING, *, items: int = _ITEMS, depth: int = _DEPTH) -> Any:
    """A copy of a JSON value small enough to show: long strings keep a head and a tail and say their size,
    long arrays and objects keep their first ``items`` entries and say how many more there are, and
    structures nested deeper than ``depth`` are summarised."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        head, tail = value[: limit // 2], value[-limit // 4 :]
        return f"{head}<… {len(value.encode('utf-8', 'surrogatepass'))} bytes in all …>{tail}"
    if isinstance(value, Mapping):
        if depth <= 0:
            return f"<an object of {len(value)} keys>"
        out = {}
        for index, (key, item) in enumerate(value.items()):
            if index == items:
                out["<…>"] = f"{len(value) - items} more keys"
                break
            out[abbreviate(str(key), limit)] = abbreviate(item, limit, items=items, depth=depth - 1)
        return out
    if isinstance(value, (list, tuple)):
        if depth <= 0:
            return f"<an array of {len(value)} items>"
        shown = [abbreviate(item, limit, items=items, depth=depth - 1) for item in value[:items]]
        if len(value) > items:
            shown.append(f"<… {len(value) - items} more items>")
        return shown
    return value


def cap_line(line: str, limit: int = LINE_LIMIT) -> str:
    """One line, cut to ``limit`` characters with a note of its full length."""
    if len(line) <= limit:
        return line
    return line[:limit] + f"… ({len(line)} characters in all)"


def cap_lines(text: str, lines: int = SECTION_LINES, width: int = LINE_LIMIT) -> str:
    """Text with every line capped and at most ``lines`` lines kept."""
    kept = text.split("\n")
    out = [cap_line(line, width) for line in kept[:lines]]
    if len(kept) > lines:
        out.append(f"… ({len(kept) - lines} more lines)")
    return "\n".join(out)


def show(value: Any, limit: int = _STRING) -> str:
    """Bounded JSON text of a value for a failure message (indented, long parts abbreviated)."""
    text = json.dumps(abbreviate(value, limit), ensure_ascii=False, indent=1, default=repr)
    return cap_lines(text)


def excerpt(value: Any, limit: int = 600) -> str:
    """One bounded line of a JSON value."""
    text = json.dumps(abbreviate(value, 80, items=6, depth=6), ensure_ascii=False, default=repr)
    return cap_line(text, limit)


#: The JSON type of a Python value, first match wins (bool before int: a bool is an int in Python). The suite's own
#: table: it never imports the reference's, whose checks it judges.
_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (Mapping, "object"),
    ((list, tuple), "array"),
)


def _json_type(value: Any) -> str:
    return next((name for kinds, name in _JSON_TYPES if isinstance(value, kinds)), type(value).__name__)


def _unexpected_keys(error: Any) -> list[str]:
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    allowed = set(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    return [key for key in instance if key not in allowed and not any(re.search(p, key) for p in patterns)]


def _closest_branch_errors(context: Iterable[Any], limit: int = 4) -> list[Any]:
    """The errors that best explain why a value fits none of a oneOf/anyOf: those of the form it comes
    closest to (the fewest errors on the value itself, such as a missing key of that form), deepest first."""
    branches: dict[Any, list[Any]] = {}
    for error in context or ():
        branches.setdefault(error.relative_schema_path[0] if error.relative_schema_path else None, []).append(error)
    if not branches:
        return []

    def distance(errors: list[Any]) -> tuple[int, int]:
        at_top = sum(1 for error in errors if not error.relative_path)
        return at_top, len(errors)

    best = min(branches.values(), key=distance)
    return sorted(best, key=lambda error: -len(error.relative_path))[:limit]


def describe_error(error: Any) -> str:
    """One bounded line for a jsonschema ``ValidationError``: where, and what the schema wanted there."""
    where = "/".join(str(part) for part in error.absolute_path) or "(top)"
    kind, wanted, instance = error.validator, error.validator_value, error.instance
    if kind == "additionalProperties" and wanted is False:
        keys = _unexpected_keys(error)
        what = "unexpected key" + ("s " if len(keys) != 1 else " ") + ", ".join(repr(k)[:80] for k in keys[:10])
    elif kind == "required":
        missing = [key for key in wanted if isinstance(instance, Mapping) and key not in instance]
        what = "missing required key" + ("s " if len(missing) != 1 else " ") + ", ".join(repr(k) for k in missing)
    elif kind == "type":
        what = f"expected {wanted if isinstance(wanted, str) else ' or '.join(wanted)}, got {_json_type(instance)}"
    elif kind in ("enum", "const"):
        what = f"expected {'one of ' if kind == 'enum' else ''}{excerpt(wanted, 200)}, got {excerpt(instance, 200)}"
    elif kind in ("oneOf", "anyOf"):
        closest = _closest_branch_errors(error.context)
        what = f"fits none of the {len(wanted)} allowed forms"
        if closest:
            what += "; closest: " + "; ".join(describe_error(inner) for inner in closest)
    elif kind in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"):
        size = len(instance) if hasattr(instance, "__len__") else instance
        what = f"{kind} is {wanted}, got {size}"
    elif kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        what = f"{kind} is {wanted}, got {excerpt(instance, 100)}"
    elif kind == "pattern":
        what = f"does not match the pattern {wanted!r:.200}: got {excerpt(instance, 200)}"
    else:
        what = f"{kind}: {excerpt(wanted, 200)} does not hold for {excerpt(instance, 200)}"
    return cap_line(f"{where}: {what}", 600)


def summarise_errors(errors: Iterable[Any], limit: int = 10) -> list[str]:
    """Bounded descriptions of schema errors, the most relevant first (jsonschema's ``relevance``) among the first
    :data:`SUMMARY_WINDOW` errors: no more are taken from ``errors`` (a lazy ``iter_errors``), so the time and memory
    of a summary do not grow with the number of errors."""
    from jsonschema.exceptions import relevance

    taken = list(islice(errors, SUMMARY_WINDOW + 1))
    ranked = sorted(taken[:SUMMARY_WINDOW], key=relevance, reverse=True)
    lines = [describe_error(error) for error in ranked[:limit]]
    if len(taken) > SUMMARY_WINDOW:
        lines.append(f"… and more (the first {SUMMARY_WINDOW} errors were ranked)")
    elif len(taken) > limit:
        lines.append(f"… and {len(taken) - limit} more")
    return lines


# -- a validator whose every keyword costs what its input does -------------------------------------------------------


def _error(message: str, context: list[Any] | None = None) -> Any:
    from jsonschema.exceptions import ValidationError

    return ValidationError(message, context=context or ())


def _forms(kind: str) -> Callable[..., Iterator[Any]]:
    """``oneOf``/``anyOf`` keeping at most FORM_ERRORS errors of each form that does not fit (jsonschema's keep
    every one), and taking one error at most of a form once another fits."""

    def keyword(validator: Any, forms: list[Any], instance: Any, schema: Any) -> Iterator[Any]:
        context: list[Any] = []
        fits: list[int] = []
        for index, form in enumerate(forms):
            errors = list(islice(validator.descend(instance, form, schema_path=index), 1 if fits else FORM_ERRORS))
            if not errors:
                fits.append(index)
                if kind == "anyOf":
                    break
            elif not fits:
                context.extend(errors)
        if not fits:
            yield _error(f"fits none of the {len(forms)} allowed forms", context)
        elif len(fits) > 1:
            yield _error(f"fits {len(fits)} of the allowed forms (forms {fits}), where exactly one may fit")

    return keyword


def _normal(value: Any) -> Any:
    """``value`` with every integral float an int: JSON Schema calls 1 and 1.0 equal, and json.dumps does not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _normal(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal(item) for item in value]
    return value


def _key(value: Any) -> str | None:
    """A text equal for two JSON values exactly when JSON Schema calls them equal (1 and 1.0, not 1 and true; keys in
    any order), or None for a value that has none (nested too deep, or not JSON). One string, not a tree of tuples:
    keys of a hundred thousand items then cost the garbage collector nothing."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
        if "." in text or "e" in text or "E" in text:  # it may hold a float written another way than its int
            text = json.dumps(_normal(value), sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None
    return text


def _family(value: Any) -> str:
    kind = _json_type(value)
    return "number" if kind == "integer" else kind


def _same(value: Any, other: Any) -> bool:
    if _family(value) != _family(other):  # no text of a value of another type (a huge array against a constant)
        return False
    key = _key(value)
    return key is not None and key == _key(other)


def _unique_items(validator: Any, unique: bool, instance: Any, schema: Any) -> Iterator[Any]:
    """``uniqueItems`` in one pass over the items, with a set (jsonschema compares every pair of unsortable items)."""
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[str] = set()
    for index, item in enumerate(instance):
        key = _key(item)
        if key is None:  # nested too deep to compare: not called a duplicate
            continue
        if key in seen:
            yield _error(f"item {index} repeats an earlier item")
            return
        seen.add(key)


def _predicate(kind: str, holds: Callable[[Any, Any, Any], bool], message: str) -> Callable[..., Iterator[Any]]:
    """A keyword that applies to instances of JSON type ``kind`` (to any when empty) and fails where ``holds`` (of
    the validator, the keyword's value and the instance) does not, with a message that does not quote the instance
    as jsonschema's do (the ``repr`` of a four-million-item array costs seconds, and a copy of the answer)."""

    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if (not kind or validator.is_type(instance, kind)) and not holds(validator, value, instance):
            yield _error(message)

    return keyword


def _of_type(validator: Any, types: Any, instance: Any) -> bool:
    return any(validator.is_type(instance, kind) for kind in ([types] if isinstance(types, str) else types))


#: The keywords whose jsonschema messages quote the instance, checked the same way without quoting it.
_UNQUOTED = {
    "type": _predicate("", _of_type, "has another type"),
    "const": _predicate("", lambda v, const, i: _same(i, const), "is not the constant"),
    "enum": _predicate("", lambda v, enum, i: any(_same(i, item) for item in enum), "is none of the allowed values"),
    "minLength": _predicate("string", lambda v, n, i: len(i) >= n, "is too short"),
    "maxLength": _predicate("string", lambda v, n, i: len(i) <= n, "is too long"),
    "minItems": _predicate("array", lambda v, n, i: len(i) >= n, "has too few items"),
    "maxItems": _predicate("array", lambda v, n, i: len(i) <= n, "has too many items"),
    "minProperties": _predicate("object", lambda v, n, i: len(i) >= n, "has too few properties"),
    "maxProperties": _predicate("object", lambda v, n, i: len(i) <= n, "has too many properties"),
    "pattern": _predicate("string", lambda v, pattern, i: re.search(pattern, i) is not None, "does not match"),
    "uniqueItems": _unique_items,
}


def bounded_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with the bounded ``oneOf`` and ``anyOf``, the linear ``uniqueItems``
    and the keywords above that do not quote the instance: a summary of any answer then costs at most one pass over
    the answer, and otherwise time and memory in proportion to what it shows."""
    from jsonschema import validators

    return validators.extend(cls, {**_UNQUOTED, "oneOf": _forms("oneOf"), "anyOf": _forms("anyOf")})
