"""The rule catalogue: every rule of the spec as data (``rules.toml``).

Each rule has a stable ID ``area.rule-name``, a one-line statement, its tag
(SPEC, ORIGIN, WIRE or CHOICE), its level (must or should) and the spec
sentence it comes from. A rule is never renamed or deleted: it is retired
(``retired = true``), so its ID is never reused.

The catalogue's version (:attr:`Catalogue.version`) is a digest of every rule,
retired ones included: it changes whenever a rule is added, changed or retired.
:func:`markdown` renders the rules document (``docs/rules.md``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ._paths import RULES_FILE

TAGS = ("SPEC", "ORIGIN", "WIRE", "CHOICE")
LEVELS = ("must", "should")
RULE_ID = re.compile(r"^[a-z][a-z0-9]*\.[a-z0-9]+(?:-[a-z0-9]+)*$")


class CatalogueError(ValueError):
    """The catalogue file is not well formed."""


@dataclass(frozen=True, slots=True)
class Area:
    id: str
    title: str
    covered: bool


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    area: str
    statement: str
    tag: str
    source: str
    level: str = "must"
    why: str = ""

    def to_json(self) -> dict[str, str]:
        out = {
            "id": self.id,
            "area": self.area,
            "level": self.level,
            "statement": self.statement,
            "tag": self.tag,
            "source": self.source,
        }
        if self.why:
            out["why"] = self.why
        return out


@dataclass(frozen=True, slots=True)
class Catalogue:
    areas: dict[str, Area]
    rules: dict[str, Rule]
    version: str = ""
    retired: dict[str, Rule] = field(default_factory=dict)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def in_area(self, area: str) -> list[Rule]:
        return [rule for rule in self.rules.values() if rule.area == area]

    def covered_rules(self) -> list[Rule]:
        return [rule for rule in self.rules.values() if self.areas[rule.area].covered]


def parse_catalogue(text: str, origin: str = "rules.toml") -> Catalogue:
    """Parse and check the catalogue: unique well-formed IDs, known areas and tags, no empty fields."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{origin}: {exc}") from None
    areas: dict[str, Area] = {}
    for index, raw in enumerate(data.get("area", [])):
        where = f"{origin}: area[{index}]"
        if set(raw) != {"id", "title", "covered"}:
            raise CatalogueError(f"{where}: expected the keys id, title, covered; got {sorted(raw)}")
        if raw["id"] in areas:
            raise CatalogueError(f"{where}: duplicate area {raw['id']!r}")
        areas[raw["id"]] = Area(raw["id"], raw["title"], bool(raw["covered"]))
    rules: dict[str, Rule] = {}
    retired: dict[str, Rule] = {}
    for index, raw in enumerate(data.get("rule", [])):
        where = f"{origin}: rule[{index}] ({raw.get('id', '?')})"
        keys = {"id", "tag", "level", "statement", "source"}
        if not keys <= set(raw) <= keys | {"why", "retired"}:
            raise CatalogueError(
                f"{where}: expected the keys id, tag, level, statement, source (and why, retired); got {sorted(raw)}"
            )
        if not isinstance(raw.get("retired", False), bool):
            raise CatalogueError(f"{where}: retired is true or false")
        rule_id = raw["id"]
        if not RULE_ID.match(rule_id):
            raise CatalogueError(f"{where}: the ID must look like area.rule-name")
        if rule_id in rules or rule_id in retired:
            raise CatalogueError(f"{where}: duplicate rule ID (a retired rule's ID is never reused)")
        area = rule_id.split(".", 1)[0]
        if area not in areas:
            raise CatalogueError(f"{where}: unknown area {area!r}")
        if raw["tag"] not in TAGS:
            raise CatalogueError(f"{where}: tag must be one of {', '.join(TAGS)}")
        if raw["level"] not in LEVELS:
            raise CatalogueError(f"{where}: level must be one of {', '.join(LEVELS)}")
        if (raw["level"] == "should") != bool(raw.get("why", "").strip()):
            raise CatalogueError(f"{where}: a should rule says why in `why`, and only a should rule has one")
        for key in ("statement", "source"):
            if not raw[key].strip():
                raise CatalogueError(f"{where}: {key} is empty")
        rule = Rule(
            rule_id, area, raw["statement"], raw["tag"], raw["source"], raw["level"], raw.get("why", "").strip()
        )
        (retired if raw.get("retired", False) else rules)[rule_id] = rule
    return Catalogue(areas, rules, fingerprint(rules, retired), retired)


def fingerprint(rules: dict[str, Rule], retired: dict[str, Rule] | None = None) -> str:
    """A short digest of every rule's ID, level, tag, statement and source, and of the retired rules: it changes
    when a rule is added, changed or retired."""
    import hashlib
    import json

    text = json.dumps(
        [[rule.to_json() for rule in rules.values()], [rule.id for rule in (retired or {}).values()]],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def markdown(catalogue: Catalogue, suite_version: str) -> str:
    """The rules document: every rule by area with its ID, level, tag, statement, source sentence and input
    classes (``partitions/``)."""
    from .partition import load_mistakes, load_partitions

    partitions = load_partitions()
    mistakes = load_mistakes()

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    counts = {level: sum(rule.level == level for rule in catalogue.rules.values()) for level in LEVELS}
    lines = [
        "# The rules of the advisor spec",
        "",
        "<!-- Generated from the rule catalogue (conformance/advisor_conformance/rules.toml) by",
        "     `advisor-conformance rules --markdown > docs/rules.md`; tests/suite/test_catalogue.py keeps it current. -->",
        "",
        f"Catalogue version `{catalogue.version}` (advisor-conformance {suite_version}): {len(catalogue.rules)} rules, "
        f"{counts['must']} `must` and {counts['should']} `should`, in {len(catalogue.areas)} areas.",
        "",
        "Each rule has a stable ID (tests, reports, xfails files, golden vectors and the broken implementations key on",
        "it), a **level** (`must`: the spec, the origin's observable behaviour or a provider API's documented rule, and",
        "a failing test fails the run; `should`: our recommendation where the spec is silent, and a failing test",
        "warns unless the run is `--strict-should`), a **tag** (SPEC: follows from the spec text; ORIGIN: how the",
        "origin behaves; WIRE: a fact of a provider's HTTP API; CHOICE: left to each implementation, which declares",
        'its value), and the **source**: the spec or clarification sentence it comes from ("spec" is the advisor',
        'spec, "clar. §N" its clarifications). `advisor-conformance where RULE` shows a rule\'s tests and code.',
        "Each rule ends with its **input classes**: the equivalence classes and boundaries of its inputs, each pinned",
        "by at least one deterministic test of the suite (`advisor-conformance rules --json` names the tests); a",
        "class taken from a provider's documents names its sentence (*source*); a",
        "class the rule's property tests cannot draw says why (*not drawn*). Then the **plausible mistakes** of a port",
        "in Go, JavaScript, Rust or Python (a library default or a hand-written shortcut), each with how many tests",
        "fail it, or why none is pinned.",
        "",
        "## Areas",
        "",
    ]
    for area in catalogue.areas.values():
        count = len(catalogue.in_area(area.id))
        lines.append(f"- [{area.title}](#{area.id}) (`{area.id}`): {count} rule{'s' if count != 1 else ''}")
    for area in catalogue.areas.values():
        lines += ["", f"## {area.title}", "", f'<a id="{area.id}"></a>', ""]
        for rule in catalogue.in_area(area.id):
            lines += [f"### `{rule.id}`", "", f"**{rule.level}** · {rule.tag}", "", cell(rule.statement), ""]
            if rule.why:
                lines += [f"*Why (a recommendation):* {cell(rule.why)}", ""]
            lines += [f"> Source: {cell(rule.source)}", ""]
            classes = partitions.get(rule.id, ())
            if classes:
                lines += ["Input classes:", ""]
                lines += [
                    f"- `{input_class.id}`: {cell(input_class.what)}"
                    + (f" (*source:* {cell(input_class.source)})" if input_class.source else "")
                    + (f" (*not drawn:* {cell(input_class.unreachable)})" if input_class.unreachable else "")
                    for input_class in classes
                ]
                lines.append("")
            listed = mistakes.get(rule.id, ())
            if listed:
                lines += ["Plausible mistakes of a port:", ""]
                for mistake in listed:
                    if mistake.caught:
                        tests = len(mistake.caught)
                        verdict = f"failed by {tests} test{'s' if tests != 1 else ''}" + (
                            f", shown by the broken implementation `{mistake.broken}`" if mistake.broken else ""
                        )
                    else:
                        verdict = f"not pinned: {cell(mistake.open)}"
                    lines.append(f"- {cell(mistake.mistake)} ({verdict})")
                lines.append("")
    if catalogue.retired:
        lines += ["", "## Retired rules", "", "Their IDs are never reused.", ""]
        lines += [f"- `{rule.id}`: {cell(rule.statement)}" for rule in catalogue.retired.values()]
    return "\n".join(lines).rstrip() + "\n"


@cache
def load_catalogue(path: Path = RULES_FILE) -> Catalogue:
    """The catalogue shipped with the suite."""
    return parse_catalogue(path.read_text(encoding="utf-8"), origin=str(path.name))
