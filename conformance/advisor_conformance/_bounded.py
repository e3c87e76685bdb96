"""Bounded text for failure messages: excerpts of JSON values and summaries of schema violations.

A failure message must say what differs without copying a 20 MB answer into
the report: every excerpt here has a size bound, whatever the value, and a
schema violation is described from the error's own fields (which property,
which path, why), never from jsonschema's ``message``, which quotes the
whole offending instance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

#: The longest line a failure message holds; longer lines are cut with a note of their length.
LINE_LIMIT = 1000
#: The most lines one section (input, answer, expected, actual) of a failure message holds.
SECTION_LINES = 60
_STRING = 160
_ITEMS = 12
_DEPTH = 12


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


def _json_type(value: Any) -> str:
    # The same table as the reference's _transcript._type_name: kept apart on purpose, the suite never imports
    # the reference (its checks must stand on their own).
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


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
    """Bounded descriptions of schema errors, the most relevant first (jsonschema's ``relevance``)."""
    from jsonschema.exceptions import relevance

    ranked = sorted(errors, key=relevance, reverse=True)
    lines = [describe_error(error) for error in ranked[:limit]]
    if len(ranked) > limit:
        lines.append(f"… and {len(ranked) - limit} more")
    return lines
