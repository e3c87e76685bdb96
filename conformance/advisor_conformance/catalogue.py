"""The rule catalogue: every rule of the spec as data (``rules.toml``).

Each rule has a stable ID ``area.rule-name``, a one-line statement, its tag
(SPEC, ORIGIN, WIRE or CHOICE) and the spec sentence it comes from.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
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
        out = {"id": self.id, "area": self.area, "level": self.level, "statement": self.statement, "tag": self.tag,
               "source": self.source}
        if self.why:
            out["why"] = self.why
        return out


@dataclass(frozen=True, slots=True)
class Catalogue:
    areas: dict[str, Area]
    rules: dict[str, Rule]
    version: str = ""

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
    for index, raw in enumerate(data.get("rule", [])):
        where = f"{origin}: rule[{index}] ({raw.get('id', '?')})"
        keys = {"id", "tag", "level", "statement", "source"}
        if not keys <= set(raw) <= keys | {"why"}:
            raise CatalogueError(f"{where}: expected the keys id, tag, level, statement, source (and why); "
                                 f"got {sorted(raw)}")
        rule_id = raw["id"]
        if not RULE_ID.match(rule_id):
            raise CatalogueError(f"{where}: the ID must look like area.rule-name")
        if rule_id in rules:
            raise CatalogueError(f"{where}: duplicate rule ID")
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
        rules[rule_id] = Rule(rule_id, area, raw["statement"], raw["tag"], raw["source"], raw["level"],
                              raw.get("why", "").strip())
    return Catalogue(areas, rules, fingerprint(rules))


def fingerprint(rules: dict[str, Rule]) -> str:
    """A short digest of every rule's ID, level, tag, statement and source: it changes with any of them."""
    import hashlib
    import json

    text = json.dumps([rule.to_json() for rule in rules.values()], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@cache
def load_catalogue(path: Path = RULES_FILE) -> Catalogue:
    """The catalogue shipped with the suite."""
    return parse_catalogue(path.read_text(encoding="utf-8"), origin=str(path.name))
