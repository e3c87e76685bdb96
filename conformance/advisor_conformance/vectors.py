"""Golden vectors: language-agnostic JSON cases of input and expected output (``fixtures/vectors``).

A vector file holds ``{"area", "description", "cases": [...]}``; each case is
``{"id", "description", "rules", "op", "input", "expect"}`` and optionally
``"requires": {"args_json": "origin"}``. ``expect`` is the operation's answer
(``{"messages": [...]}``) or ``{"error": {"code": ...}}``.

Two small notations keep big values readable (see ``fixtures/README.md``):

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._paths import fixtures_dir
from .oracle import normalise_numbers

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)(?::(\d+):(\d+))?\}\}")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
_TOOL_CALL_LINE = re.compile(r"^\[tool_call: (?P<name>.*?) (?P<args>\{.*\})\]$")


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

    @property
    def key(self) -> str:
        return f"{self.file}/{self.id}"


def expand(value: Any, where: str = "") -> Any:
    """Expand ``$repeat`` and ``$concat`` macros, recursively."""
    if isinstance(value, dict):
        macros = [key for key in value if key.startswith("$")]
        if macros == ["$hex32"] and len(value) == 1:
            return value  # a matcher of the expected side, resolved by difference()
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


def fill(value: Any, strings: Mapping[str, str]) -> Any:
    """Replace ``{{name}}`` placeholders by the declared strings (``{{budget_spent:U:M}}`` fills in used/max)."""
    if isinstance(value, str):
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


def difference(expected: Any, actual: Any, *, exact_args: bool, keys: dict[str, str], path: str = "answer"
               ) -> str | None:
    """Where ``actual`` first departs from ``expected``, or None.

    * ``{"$hex32": "label"}`` matches a fresh cache key (32 lower-case hex
      digits); every place with the same label holds the same key, and
      different labels hold different keys.
    * Under an ``error`` key, only the fields the vector gives are compared
      (usually just ``code``).
    * Tool-call lines compare as JSON values unless ``exact_args``.
    """
    if isinstance(expected, dict) and set(expected) == {"$hex32"}:
        label = expected["$hex32"]
        if not (isinstance(actual, str) and HEX32.match(actual)):
            return f"{path}: expected a fresh key (32 lower-case hex digits), got {actual!r}"
        if keys.setdefault(label, actual) != actual:
            return f"{path}: expected the same key as the other {label!r} places ({keys[label]!r}), got {actual!r}"
        if list(keys.values()).count(actual) > 1:
            return f"{path}: the key of {label!r} is the same as another label's ({actual!r})"
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {actual!r}"
        names = expected if path.endswith("error") else sorted(set(expected) | set(actual))
        for name in names:
            if name not in actual or name not in expected:
                return f"{path}.{name}: {'missing' if name not in actual else 'not expected'}"
            found = difference(expected[name], actual[name], exact_args=exact_args, keys=keys, path=f"{path}.{name}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {len(expected)} items, got {len(actual) if isinstance(actual, list) else actual!r}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = difference(want, got, exact_args=exact_args, keys=keys, path=f"{path}[{index}]")
            if found:
                return found
        return None
    if isinstance(expected, str) and isinstance(actual, str) and not exact_args:
        expected, actual = canonical_tool_calls(expected), canonical_tool_calls(actual)
    if expected != actual or type(expected) is not type(actual):
        return f"{path}: expected {expected!r:.300}, got {actual!r:.300}"
    return None


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
        extra = set(raw) - {"id", "description", "rules", "op", "input", "expect", "requires", "workspace"}
        if missing or extra:
            raise VectorError(f"{where}: missing {sorted(missing)}, unknown {sorted(extra)}")
        if raw["id"] in seen:
            raise VectorError(f"{where}: duplicate id {raw['id']!r}")
        seen.add(raw["id"])
        if not raw["rules"]:
            raise VectorError(f"{where}: a case names at least one rule")
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
            )
        )
    return cases


def vector_files(directory: Path | None = None) -> list[Path]:
    return sorted((directory or fixtures_dir() / "vectors").glob("*.json"))


def load_all(directory: Path | None = None) -> Iterator[Case]:
    for path in vector_files(directory):
        yield from load_file(path)
