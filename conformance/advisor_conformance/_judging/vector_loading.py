"""Golden vectors, loading: the vector files, their cases, the macros and the placeholders of declared strings.

The format is described in :mod:`advisor_conformance.vectors`; this module reads it (:func:`load_all`), expands
the ``$repeat``/``$concat`` macros (:func:`expand`), checks ``pins`` patterns (:func:`parse_pattern`) and fills the
``{{name}}`` placeholders with an implementation's declared strings (:func:`fill`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._paths import fixtures_dir

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)(?::(\d+):(\d+))?\}\}")
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
            return {
                "$segments": [
                    [expand(text, f"{where}.$segments[{i}]"), rules]
                    for i, (text, rules) in enumerate(value["$segments"])
                ]
            }
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
SLOT = re.compile("\ue000([^\ue001]*)\ue001")


def fill(value: Any, strings: Mapping[str, str]) -> Any:
    """Replace ``{{name}}`` placeholders by the declared strings (``{{budget_spent:U:M}}`` fills in used/max).

    ``{{deduped:PATH}}`` is a deduped file's block: the declared layout when the implementation declares one,
    else a slot the comparison checks by what it must hold (the path, the notice, none of the content).
    """
    if isinstance(value, str):
        from ..shaping import deduped_text

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
                if not (
                    isinstance(segment, list) and len(segment) == 2 and isinstance(segment[1], list) and segment[1]
                ):
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
