"""First-failure blame: what a user reads first when a run stops at its first failure (``pytest -x``).

For each broken implementation (``advisor_conformance._broken``: the reference with one rule broken) and each independently
written mistake (``tests/fakes/mistakes.py``), the suite runs in its shipped order (the catalogue's order of the
rules, ``_plugin.order_by_catalogue``) until that implementation's first failure, as ``pytest -x --impl=IT`` would;
the figure is how many of those first failures name the rule the implementation breaks (or one the same mistake
cannot help breaking, its ``also``). All implementations run in one pytest session (``tests/support/matrix.py``
with ``--matrix-first-failure``), each on one worker in the run's order.

    python3 -m tests.support.first_failure                 # the shipped profile (ci); exit 1 unless every one names its rule
    python3 -m tests.support.first_failure --profile advisor-conformance-explicit   # the deterministic examples alone
    python3 -m tests.support.first_failure --only files.render-format FilesReversed  # some implementations
    python3 -m tests.support.first_failure --save FILE     # ... and keep the outcomes (JSON lines)
    python3 -m tests.support.first_failure --outcomes FILE # judge the outcomes of an earlier run (one of
                                                           # `python3 -m tests.support.cross_rule --save FILE` too)

It also counts the first failures that name the matching known mistake (the diagnosis, ``docs/blame.md``): for the
catalogue's known mistakes (the goal: at least 90%), and apart, for the independently written mistakes, which the
catalogue does not hold.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor_conformance._broken import BrokenImplementation, load_entries

from ..fakes.mistakes import MISTAKES
from .matrix import REFERENCE_SNAPSHOTS, run_matrix_session
from .runner import SUITE

SHIPPED_PROFILE = "advisor-conformance-ci"
_RULE_NAMED = re.compile(r"\[([a-z][a-z0-9]*\.[a-z0-9-]+)(?:, [a-z][a-z0-9]*\.[a-z0-9-]+)*\]")


def entries() -> dict[str, BrokenImplementation]:
    """Every implementation judged, by its matrix ID: the catalogue's known mistakes (every rule's broken
    implementation and the variants) by their IDs, the independently written mistakes by name."""
    return {**{entry.id: entry for entry in load_entries()}, **MISTAKES}


#: The share of the catalogue whose first failure must name the matching known mistake.
MATCH_GOAL = 0.9


@dataclass(frozen=True)
class Verdict:
    """One implementation's first failure, and whether it names the rule it breaks."""

    id: str
    entry: BrokenImplementation
    first: dict[str, Any] | None  # the first failing outcome record, None when nothing failed

    @property
    def blamed(self) -> list[str]:
        return list(self.first["failed_rules"]) if self.first else []

    @property
    def named(self) -> bool:
        """The first failure names the broken rule or what the same mistake also breaks."""
        return bool(set(self.blamed) & {self.entry.rule, *self.entry.also})

    @property
    def only(self) -> bool:
        """... and names no rule the implementation keeps."""
        return self.named and set(self.blamed) <= {self.entry.rule, *self.entry.also}

    @property
    def diagnosis(self) -> list[dict[str, Any]]:
        return list(self.first.get("diagnosis") or []) if self.first else []

    @property
    def matched(self) -> bool:
        """The first failure names a known mistake of the rule the implementation breaks (or of what the same mistake
        also breaks) as the one its answer is: for a known mistake of the catalogue, itself or one that answers
        alike."""
        allowed = {self.entry.rule, *self.entry.also}
        return any(match.get("rule") in allowed for match in self.diagnosis)

    def line(self) -> str:
        if self.first is None:
            return f"{self.id}: no test failed ({self.entry.how})"
        test = re.sub(r"^.*?(test_\w+\.py::)", r"\1", self.first["nodeid"])
        return f"{self.id} (breaks {self.entry.rule}): first failure {test} blamed on {self.blamed}"


def run_matrix(out: Path, ids: list[str], profile: str, tests: list[str] | None = None, timeout: float = 7200) -> int:
    """The implementations ``ids`` against the suite, each stopping at its first failure; outcomes into ``out``."""
    known = entries()
    matrix = [{"id": key, "target": known[key].target, "rules": None, "until": known[key].rule} for key in ids]
    run = run_matrix_session(
        matrix,
        out,
        *(tests or [SUITE]),
        "--matrix-first-failure",
        "-n",
        "2",
        "--dist",
        "loadgroup",
        f"--hypothesis-profile={profile}",
        REFERENCE_SNAPSHOTS,
        timeout=timeout,
        progress=lambda line: print(line, file=sys.stderr),
        label="first failures",
    )
    return run.returncode


def judge(outcomes: Path, ids: list[str] | None = None) -> list[Verdict]:
    """Each implementation's first failure (the failing outcome earliest in the run's order)."""
    known = entries()
    first: dict[str, dict[str, Any]] = {}
    ran: set[str] = set()
    for line in outcomes.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line else None
        if record is not None:
            ran.add(record["entry"])
        if record is None or record["outcome"] != "failed":
            continue
        seen = first.get(record["entry"])
        if seen is None or (record.get("position") or 0) < (seen.get("position") or 0):
            first[record["entry"]] = record
    return [Verdict(key, known[key], first.get(key)) for key in (ids or [key for key in known if key in ran])]


def names_a_rule(message: str) -> bool:
    """Whether a failure's message starts by naming at least one catalogue rule: ``[rule.id, ...] what``."""
    from advisor_conformance.catalogue import load_catalogue

    head = _RULE_NAMED.match(message)
    return head is not None and bool(
        set(re.findall(r"[a-z][a-z0-9]*\.[a-z0-9-]+", head[0])) & set(load_catalogue().rules)
    )


def unnamed_failures(outcomes: Path) -> list[dict[str, Any]]:
    """The failures whose message names no catalogue rule."""
    records = [json.loads(line) for line in outcomes.read_text(encoding="utf-8").splitlines() if line]
    return [record for record in records if record["outcome"] == "failed" and not names_a_rule(record["message"])]


def summarise(verdicts: list[Verdict]) -> str:
    named = [verdict for verdict in verdicts if verdict.named]
    only = [verdict for verdict in named if verdict.only]
    catalogue = [verdict for verdict in verdicts if verdict.id not in MISTAKES]
    held_out = [verdict for verdict in verdicts if verdict.id in MISTAKES]
    lines = [
        f"implementations: {len(verdicts)}; first failure names the broken rule (or what the same mistake also "
        f"breaks): {len(named)}; of them naming no rule the implementation keeps: {len(only)}"
    ]
    for label, group in (("the catalogue's known mistakes", catalogue), ("independently written mistakes", held_out)):
        if group:
            matched = sum(verdict.matched for verdict in group)
            lines.append(
                f"{label}: {len(group)}; first failure names the matching known mistake: {matched} "
                f"({100 * matched / len(group):.1f}%)"
            )
    lines += [f"  MISSED {verdict.line()}" for verdict in verdicts if not verdict.named]
    lines += [f"  also names a kept rule: {verdict.line()}" for verdict in named if not verdict.only]
    lines += [f"  no matching mistake named: {verdict.line()}" for verdict in catalogue if not verdict.matched]
    return "\n".join(lines)


def matched_share(verdicts: list[Verdict]) -> float:
    """The share of the catalogue's known mistakes whose first failure names the matching known mistake."""
    catalogue = [verdict for verdict in verdicts if verdict.id not in MISTAKES]
    return sum(verdict.matched for verdict in catalogue) / len(catalogue) if catalogue else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tests.support.first_failure",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--profile", default=SHIPPED_PROFILE, help=f"the hypothesis profile (default {SHIPPED_PROFILE})"
    )
    parser.add_argument("--only", nargs="+", metavar="ID", help="only these implementations (rule IDs, mistake names)")
    parser.add_argument("--outcomes", type=Path, help="judge these outcomes instead of running the matrix")
    parser.add_argument("--save", type=Path, help="keep the outcomes (JSON lines) in this file")
    parser.add_argument("--timeout", type=float, default=7200, help="seconds the run may take (default 7200)")
    args = parser.parse_args(argv)
    ids = args.only or list(entries())
    unknown = sorted(set(ids) - set(entries()))
    if unknown:
        parser.error(f"unknown implementations: {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.outcomes or args.save or Path(tmp) / "outcomes.jsonl"
        if args.outcomes is None:
            run_matrix(out, ids, args.profile, timeout=args.timeout)
        verdicts = judge(out, args.only if args.outcomes is not None else ids)
        silent = unnamed_failures(out)
    print(summarise(verdicts))
    for record in silent[:10]:
        print(f"  a failure names no rule: {record['entry']} {record['nodeid']}: {record['message'][:200]!r}")
    good = all(verdict.named for verdict in verdicts) and matched_share(verdicts) >= MATCH_GOAL
    return 0 if good and not silent else 1


if __name__ == "__main__":
    sys.exit(main())
