"""What changed from one run to another: rules and tests whose outcome changed, appeared or disappeared.

Outcomes are ordered from worst to best, for rules::

    failed < warning < xfailed < skipped = no tests = not checked < passed

and for tests ``failed < warned < xfailed < skipped < passed``. A change down
that order is *worse* (so a rule that passed and is now skipped, its area no
longer declared, is worse: it is no longer checked), up it is *better*, and
between equals (``skipped`` and ``no tests``) merely *changed*. A snapshot whose
new outcome is ``changed`` or ``not recorded`` is a *review* item: a prompt that
changed on purpose, or was never recorded, is neither worse nor better; the
comparison lists it with the command that accepts it. A rule or test
present only in the new run *appeared*; when it fails (or warns) it counts as
worse, a new failure. One present only in the old run *disappeared*, which never
counts as worse (the suite dropped or renamed it). Tests are matched by node ID
without the folder of the suite (``node_key``), so a run started with
``advisor-conformance run`` and one with ``pytest`` in this repository compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..._pytest_plugin.reporting import REVIEW_OUTCOMES
from .runs import Run, clean_text, node_key

RULE_RANK = {"failed": 0, "warning": 1, "xfailed": 2, "skipped": 3, "no tests": 3, "not checked": 3, "passed": 4}
TEST_RANK = {"failed": 0, "warned": 1, "xfailed": 2, "skipped": 3, "passed": 4, "changed": 4, "not recorded": 4}
#: Outcomes that make a new rule or test count as worse.
BAD = frozenset({"failed", "warning", "warned"})
DIRECTIONS = ("worse", "better", "review", "changed", "appeared", "disappeared")


@dataclass(frozen=True)
class Change:
    """One rule or test whose outcome differs; ``old`` or ``new`` is None where it is absent."""

    kind: str  # "rule" or "test"
    id: str
    old: str | None
    new: str | None
    direction: str  # one of DIRECTIONS
    message: str = ""

    @property
    def worse(self) -> bool:
        return self.direction == "worse"

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "id": self.id, "old": self.old, "new": self.new, "direction": self.direction}
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class Comparison:
    old: Run
    new: Run
    rules: list[Change] = field(default_factory=list)
    tests: list[Change] = field(default_factory=list)
    compared_rules: int = 0
    compared_tests: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def worse(self) -> bool:
        """Whether some rule or test got worse (the ``compare`` command then exits 1)."""
        return any(change.worse for change in (*self.rules, *self.tests))

    @property
    def accept(self) -> str:
        """The command that accepts the new run's snapshots to review, when its report names one."""
        return self.new.reviews().get("accept", "")

    def by_direction(self, kind: str) -> dict[str, list[Change]]:
        changes = self.rules if kind == "rule" else self.tests
        return {direction: [c for c in changes if c.direction == direction] for direction in DIRECTIONS}

    def counts(self, kind: str) -> dict[str, int]:
        return {direction: len(changes) for direction, changes in self.by_direction(kind).items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old.path,
            "new": self.new.path,
            "worse": self.worse,
            "notes": self.notes,
            "rules": {
                "compared": self.compared_rules,
                "counts": self.counts("rule"),
                "changes": [change.to_json() for change in self.rules],
            },
            "tests": {
                "compared": self.compared_tests,
                "counts": self.counts("test"),
                "changes": [change.to_json() for change in self.tests],
            },
            "accept": self.accept,
        }


def _direction(old: str | None, new: str | None, rank: dict[str, int]) -> str | None:
    if old == new:
        return None
    if new in REVIEW_OUTCOMES:
        return "review"
    if old is None:
        return "worse" if new in BAD else "appeared"
    if new is None:
        return "disappeared"
    if rank[new] < rank[old]:
        return "worse"
    if rank[new] > rank[old]:
        return "better"
    return "changed"


def _reviewed_only(run: Run) -> set[str]:
    """The rules of ``run`` whose tests without a verdict (neither passed nor skipped) are all snapshots to review."""
    review: set[str] = set()
    other: set[str] = set()
    for test in run.tests:
        if test["outcome"] in ("passed", "skipped"):
            continue
        (review if test["outcome"] in REVIEW_OUTCOMES else other).update(
            clean_text(rule) for rule in test.get("rules", [])
        )
    return review - other


def _ordered_union(first: list[str], second: list[str]) -> list[str]:
    seen = dict.fromkeys(first)
    seen.update(dict.fromkeys(second))
    return list(seen)


def compare_runs(old: Run, new: Run) -> Comparison:
    """The changes from ``old`` to ``new``, rules in the new run's order, tests by node ID."""
    result = Comparison(old, new)
    old_rules, new_rules = old.rule_outcomes(), new.rule_outcomes()
    reviewed = _reviewed_only(new)
    for rule_id in _ordered_union(list(new_rules), list(old_rules)):
        direction = _direction(old_rules.get(rule_id), new_rules.get(rule_id), RULE_RANK)
        if direction == "worse" and new_rules.get(rule_id) == "not checked" and rule_id in reviewed:
            direction = "review"  # its only tests that gave no verdict are snapshots to review
        if rule_id in old_rules and rule_id in new_rules:
            result.compared_rules += 1
        if direction:
            result.rules.append(Change("rule", rule_id, old_rules.get(rule_id), new_rules.get(rule_id), direction))
    old_tests = {node_key(test["nodeid"]): test for test in old.tests}
    new_tests = {node_key(test["nodeid"]): test for test in new.tests}
    for key in sorted(set(old_tests) | set(new_tests)):
        before, after = old_tests.get(key), new_tests.get(key)
        if before is not None and after is not None:
            result.compared_tests += 1
        was = before["outcome"] if before is not None else None
        now = after["outcome"] if after is not None else None
        direction = _direction(was, now, TEST_RANK)
        if direction:
            shown = after if after is not None else before  # the new run's test, else the old one's
            assert shown is not None
            result.tests.append(
                Change("test", clean_text(shown["nodeid"]), was, now, direction, clean_text(shown.get("message", "")))
            )
    if old.suite.get("version") != new.suite.get("version"):
        result.notes.append(
            f"the runs used different suite versions ({old.suite.get('version')} and "
            f"{new.suite.get('version')}): tests may have been added, removed or changed"
        )
    if old.catalogue != new.catalogue:
        result.notes.append(
            f"the runs used different rule catalogues ({old.catalogue or '?'} and "
            f"{new.catalogue or '?'}): rules may have been added or reworded"
        )
    return result


def _first_line(text: str, width: int = 160) -> str:
    line = text.strip().split("\n", 1)[0].replace("\u2028", " ").replace("\u2029", " ")
    return line if len(line) <= width else line[: width - 1] + "…"


def _outcome(value: str | None) -> str:
    return "(absent)" if value is None else value


def render_text(comparison: Comparison, *, limit: int | None = 50) -> str:
    """The comparison as text: both runs, the changed rules, the changed tests and the verdict.

    ``limit`` caps the lines listed per kind and direction (None: all of them).
    """
    lines = [f"old: {comparison.old.describe()}", f"new: {comparison.new.describe()}"]
    lines += [f"note: {note}" for note in comparison.notes]
    for kind, changes, compared in (
        ("rule", comparison.rules, comparison.compared_rules),
        ("test", comparison.tests, comparison.compared_tests),
    ):
        counts = comparison.counts(kind)
        summary = ", ".join(f"{counts[direction]} {direction}" for direction in DIRECTIONS)
        lines.append("")
        lines.append(f"{kind}s: {summary} ({compared} in both runs)")
        width = max((len(change.id) for change in changes), default=0) if kind == "rule" else 0
        for direction, group in comparison.by_direction(kind).items():
            shown = group if limit is None else group[:limit]
            for change in shown:
                outcomes = f"{_outcome(change.old)} -> {_outcome(change.new)}"
                lines.append(f"  {direction:<11} {change.id:<{width}}  {outcomes}")
                if change.message and change.new in BAD | {"xfailed", *REVIEW_OUTCOMES}:
                    lines.append(f"              {_first_line(change.message)}")
            if len(shown) < len(group):
                lines.append(f"  {direction:<11} ... and {len(group) - len(shown)} more (--all lists them)")
    worse_rules = sum(change.worse for change in comparison.rules)
    worse_tests = sum(change.worse for change in comparison.tests)
    reviews = comparison.counts("test")["review"]
    if reviews:
        lines.append("")
        lines.append(
            f"snapshots to review: {reviews} (a changed prompt is not a worse rule; the run fails until it is "
            "accepted)" + (f"; accept them with: {comparison.accept}" if comparison.accept else "")
        )
    lines.append("")
    if comparison.worse:
        lines.append(
            f"worse: {worse_rules} rule{'s' * (worse_rules != 1)} and {worse_tests} "
            f"test{'s' * (worse_tests != 1)} got worse"
        )
    else:
        lines.append("nothing got worse")
    return "\n".join(lines) + "\n"
