"""Precision across rules: each broken implementation against every deterministic test of the suite.

``tests/meta/test_broken.py`` runs each broken implementation against its own rule's tests (in CI). This runs each
against the whole suite (the explicit profile: the parametrized tests and every ``@example``, one per input class)
in one pytest session (``tests/support/matrix.py``), and sorts every failure by the rules it is blamed on:

* precise: only the broken rule, or what the same mistake cannot help breaking (``also`` in the registry);
* over-broad: the broken rule and rules it keeps;
* misattributed: only rules it keeps (a cascade: it tells a user that a rule they keep is broken);
* dependency: a test documented below as judging whole requests, which fails on any change by design.

    python3 -m tests.support.cross_rule            # about 12 minutes on 2 cores; exit 1 if a failure is misattributed
    python3 -m tests.support.cross_rule --save FILE       # ... and keep the outcomes
    python3 -m tests.support.cross_rule --outcomes FILE   # classify the outcomes of an earlier run
    python3 -m tests.support.cross_rule --tests conformance/advisor_conformance/tests/question/test_question.py  # one module
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from advisor_conformance._broken import BrokenImplementation, load_registry

from .matrix import REFERENCE_SNAPSHOTS, run_matrix_session
from .runner import SUITE

#: Tests that judge a whole rendered request or a whole session, so that any change of a request fails them by
#: design: a failure there is a documented dependency of every rule, not a cascade.
DEPENDENT_TESTS: dict[str, str] = {
    "flatten/test_snapshots.py::test_rendered_request_matches_snapshot": "the snapshot tests are the regression net "
    "of a user's own prompts: they fail on every change to a "
    "rendered request (here the broken implementations are held to the reference's snapshots)",
    "breakpoints/test_cache_efficiency.py::": "breakpoints.cache-efficiency measures the cache saving over whole sessions: any "
    "change that makes a request's prefix differ between calls lowers it",
}
KINDS = ("precise", "over-broad", "misattributed", "dependency")


def classify(record: dict[str, Any], entry: BrokenImplementation) -> str:
    """The kind of one failure of a broken implementation (see the module's docstring)."""
    if any(test in record["nodeid"] for test in DEPENDENT_TESTS):
        return "dependency"
    allowed = {entry.rule, *entry.also}
    blamed = set(record["failed_rules"])
    if blamed <= allowed:
        return "precise"
    return "over-broad" if blamed & allowed else "misattributed"


def run_matrix(out: Path, tests: list[str] | None = None) -> None:
    """Every broken implementation against every deterministic test of the suite (or of ``tests``: paths or node
    IDs); the outcomes into ``out``."""
    entries = sorted(load_registry().values(), key=lambda entry: entry.rule)
    run_matrix_session(
        [{"id": e.rule, "target": e.target, "rules": None} for e in entries],
        out,
        *(tests or [SUITE]),
        "-n",
        "0" if tests else "2",
        "--hypothesis-profile=advisor-conformance-explicit",
        REFERENCE_SNAPSHOTS,
        timeout=3600,
        progress=lambda line: print(line, file=sys.stderr),
        label="broken implementations",
    )


def summarise(outcomes: Path) -> tuple[str, int]:
    """The figures as text, and the number of misattributed failures."""
    registry = load_registry()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    for line in outcomes.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line else None
        if record is None or record["outcome"] != "failed":
            continue
        kind = classify(record, registry[record["entry"]])
        kinds[record["entry"]][kind] += 1
        if kind == "misattributed" and len(examples[record["entry"]]) < 3:
            test = re.sub(r"^.*?(test_\w+\.py::)", r"\1", record["nodeid"])
            examples[record["entry"]].append(f"{test} blamed on {record['failed_rules']}")
    total = Counter()
    for counts in kinds.values():
        total.update(counts)
    clean = [rule for rule in registry if not (kinds[rule]["misattributed"] or kinds[rule]["over-broad"])]
    lines = [
        f"broken implementations: {len(registry)}; failing only in their own rule (or its documented "
        f"dependencies): {len(clean)}",
        "failures: " + ", ".join(f"{total[kind]} {kind}" for kind in KINDS),
    ]
    for rule in sorted(kinds, key=lambda r: -kinds[r]["misattributed"]):
        if kinds[rule]["misattributed"]:
            lines.append(f"  {rule}: {kinds[rule]['misattributed']} misattributed, e.g. {'; '.join(examples[rule])}")
    return "\n".join(lines), total["misattributed"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tests.support.cross_rule",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--outcomes", type=Path, help="classify these matrix outcomes instead of running the matrix")
    parser.add_argument("--save", type=Path, help="keep the matrix outcomes (JSON lines) in this file")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="only these test files or node IDs")
    args = parser.parse_args(argv)
    if args.outcomes is None:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.save or Path(tmp) / "outcomes.jsonl"
            run_matrix(out, args.tests)
            text, misattributed = summarise(out)
    else:
        text, misattributed = summarise(args.outcomes)
    print(text)
    return 1 if misattributed else 0


if __name__ == "__main__":
    sys.exit(main())
