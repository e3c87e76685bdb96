"""The scores of a mutmut run, raw and judged, from `mutmut results` and `.ci/mutation-survivors.toml`.

    python3 .ci/mutation_score.py SECTION [RESULTS]   # SECTION: all or conformance-only; RESULTS: a saved listing

Run by `.ci/mutation` in its staging directory after `mutmut run` (the listing comes from `mutmut results --all true`
when no file is given). Every surviving mutant must be categorised in the survivors file (docs/mutation.md): named
by a [[survivor]] group, or matched by an [[outside]] glob. Prints the raw score (detected / checked) and the judged
one (detected / (checked - equivalent - open - outside)), each with Wilson's 95% interval when the checked mutants
are a sample; exits 1 when a survivor has no category or the goal is not met (the judged score for
--conformance-only, the raw score for the full run: at least 95%).
"""

from __future__ import annotations

import fnmatch
import math
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SURVIVORS = Path(__file__).with_name("mutation-survivors.toml")
CATEGORIES = ("equivalent", "open", "outside", "gap")
JUDGED_OUT = ("equivalent", "open", "outside")  # left out of the judged score's denominator when they survive
SURVIVED = ("survived", "no tests", "suspicious", "skipped")
DETECTED = ("killed", "timeout")
GOAL = 0.95


@dataclass(frozen=True)
class Judgement:
    """How the survivors file judges every mutant it names or matches."""

    named: dict[str, str]  # mutant -> category
    globs: tuple[str, ...]  # outside the contract

    def category(self, name: str) -> str | None:
        if name in self.named:
            return self.named[name]
        return "outside" if any(fnmatch.fnmatchcase(name, glob) for glob in self.globs) else None


def load(path: Path = SURVIVORS) -> Judgement:
    """The survivors file as a judgement; a malformed entry raises ValueError naming it."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    globs = tuple(entry["glob"] for entry in data.get("outside", []))
    named: dict[str, str] = {}
    for index, entry in enumerate(data.get("survivor", [])):
        category = entry.get("category")
        if category not in CATEGORIES:
            raise ValueError(f"survivor[{index}]: category {category!r} is not one of {', '.join(CATEGORIES)}")
        for name in entry.get("mutants", []):
            if named.get(name, category) != category:
                raise ValueError(f"survivor[{index}]: {name} is categorised twice ({named[name]} and {category})")
            named[name] = category
    return Judgement(named, globs)


def parse_results(listing: str) -> dict[str, str]:
    """``mutmut results --all true`` as mutant -> status."""
    return {
        name.strip(): state.strip()
        for name, sep, state in (line.rpartition(":") for line in listing.splitlines())
        if sep and "__mutmut_" in name
    }


def interval(detected: int, n: int) -> str:
    """Wilson's 95% interval for a proportion measured on a uniform sample of n."""
    z, p = 1.96, detected / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f" (95% interval {centre - half:.1%} to {centre + half:.1%})"


@dataclass(frozen=True)
class Score:
    checked: int
    detected: int
    survivors: tuple[str, ...]
    categories: dict[str, str]  # survivor -> category, for the categorised ones
    sampled: bool

    @property
    def uncategorised(self) -> list[str]:
        return [name for name in self.survivors if name not in self.categories]

    @property
    def judged_total(self) -> int:
        return self.checked - sum(category in JUDGED_OUT for category in self.categories.values())

    @property
    def raw(self) -> float:
        return self.detected / self.checked if self.checked else 0.0

    @property
    def judged(self) -> float:
        return self.detected / self.judged_total if self.judged_total else 1.0

    def lines(self) -> list[str]:
        counts = Counter(self.categories.values())
        raw = f"raw score: {self.detected} of {self.checked} detected, {self.raw:.1%}"
        judged = (
            f"judged score: {self.detected} of {self.judged_total} detected, {self.judged:.1%} (left out: "
            + ", ".join(f"{counts[category]} {category}" for category in JUDGED_OUT)
            + ")"
        )
        if self.sampled and self.checked:
            raw += interval(self.detected, self.checked)
            judged += interval(self.detected, self.judged_total) if self.judged_total else ""
        other = self.checked - self.detected - len(self.survivors)
        return [
            raw + (f"; {other} other (errors)" if other else ""),
            judged,
            f"survivors: {len(self.survivors)} ({counts['gap']} gap, {len(self.uncategorised)} without a category)",
        ]


def score(status: dict[str, str], judgement: Judgement) -> Score:
    """The raw and judged score of the checked mutants (a named or sampled run leaves the others "not checked")."""
    checked = [name for name, state in status.items() if state != "not checked"]
    detected = sum(status[name] in DETECTED for name in checked)
    survivors = tuple(sorted(name for name in checked if status[name] in SURVIVED))
    categories = {name: category for name in survivors if (category := judgement.category(name)) is not None}
    return Score(len(checked), detected, survivors, categories, sampled=len(checked) < len(status))


def main(argv: list[str]) -> int:
    section = argv[1] if len(argv) > 1 else "all"
    listing = (
        Path(argv[2]).read_text(encoding="utf-8")
        if len(argv) > 2
        else subprocess.run(
            [sys.executable, "-m", "mutmut", "results", "--all", "true"], capture_output=True, text=True, check=True
        ).stdout
    )
    result = score(parse_results(listing), load())
    print(f"\n{section}")
    if not result.checked:
        print("  no mutant checked")
        return 1
    for line in result.lines():
        print("  " + line)
    for name in result.survivors:
        category = result.categories.get(name)
        if category is None:
            print(f"  without a category in .ci/mutation-survivors.toml: {name}")
        elif category == "gap":
            print(f"  gap: {name}")
    figure = result.judged if section == "conformance-only" else result.raw
    print(
        f"  goal: the {'judged' if section == 'conformance-only' else 'raw'} score at least {GOAL:.0%}: "
        f"{'met' if figure >= GOAL else 'not met'}"
    )
    return 0 if figure >= GOAL and not result.uncategorised else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
