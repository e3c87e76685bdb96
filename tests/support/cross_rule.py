"""Precision across rules: each known mistake against every deterministic test of the suite.

``tests/meta/test_broken.py`` runs each broken implementation against its own rule's tests (in CI). This runs each
of the catalogue (``advisor_conformance._broken``: every rule's broken implementation and every variant) against
the whole suite (the explicit profile: the parametrized tests and every ``@example``, one per input class) in one
pytest session (``tests/support/matrix.py``), and sorts every failure by the rules it is blamed on:

* precise: only the broken rule, or what the same mistake cannot help breaking (``also`` in the registry);
* over-broad: the broken rule and rules it keeps;
* misattributed: only rules it keeps (a cascade: it tells a user that a rule they keep is broken);
* dependency: a test documented below as judging whole requests, which fails on any change by design.

An implementation is **isolated** when every failure of the run (not only the first) is precise or a documented
dependency. The figure is the share of isolated implementations (the goal: at least 95%); each one that is not
must be listed in :data:`EXCEPTIONS` with the reason its rule cannot be observed without another. A failure whose
answer a known mistake reproduced (the diagnosis, ``docs/blame.md``) is counted too.

    python3 -m tests.support.cross_rule            # the whole catalogue; exit 1 under 95% or an exception unlisted
    python3 -m tests.support.cross_rule --save FILE       # ... and keep the outcomes
    python3 -m tests.support.cross_rule --outcomes FILE   # classify the outcomes of an earlier run
    python3 -m tests.support.cross_rule --only dedupe.notice~predates-notice      # some implementations
    python3 -m tests.support.cross_rule --tests conformance/advisor_conformance/tests/question/test_question.py  # one module
    python3 -m tests.support.cross_rule --sample   # the fixed sample CI runs (tests/meta/test_cross_rule.py)
    python3 -m tests.support.cross_rule --with-mistakes --save FILE  # ... and tests/fakes/mistakes.py, whose first
                                                   # failures `python3 -m tests.support.first_failure --outcomes FILE` judges
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

from advisor_conformance._broken import BrokenImplementation, load_entries

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
#: Known mistakes whose failures cannot all be blamed on their own rules, each with the reason its rule cannot be
#: observed without another (the figure of isolation counts them as not isolated; an entry not isolated and not
#: listed here fails the command).
EXCEPTIONS: dict[str, str] = {
    "dedupe.full-read-definition": "on the golden vector line-numbers-as-strings-not-full, a read whose line numbers "
    "are strings counts as full both under this mistake (line numbers coerced) and under "
    "dedupe.undecodable-never-full's, which give the same answer there: the difference cannot show which rule the "
    "implementation breaks, so the failure names both mistakes and both rules",
    "dedupe.undecodable-never-full": "the same vector as dedupe.full-read-definition's exception, from the other side",
    "budget.child-default-cap": "on the golden vector runtime-budget/zero-cap (the main agent's cap is 0), a child "
    "that inherits the main cap and a child that counts against the main counter are both refused at once: the "
    "answer is budget.child-store's mistake's as well, and the failure names both",
    "budget.child-store": "the same vector as budget.child-default-cap's exception, from the other side",
    "files.max-count": "on the golden vectors runtime-handler/validation-consumes-none and step-order, nine files with "
    "a bad one fail on the bad file both when nine pass the count (this mistake) and when the files are loaded before "
    "they are counted (handler.file-count-first's): the failure names both",
    "handler.file-count-first": "the same vectors as files.max-count's exception, from the other side",
    "budget.no-provider-call": "on the golden vector runtime-budget/shared-within-and-across-handlers, a call past "
    "the cap that is answered shows a counter that let it through as much as a budget check that still called the "
    "provider: the difference is located at both budget.no-provider-call and budget.shared-counter",
}
#: The fixed sample CI runs against the whole suite (tests/meta/test_cross_rule.py): one known mistake of each kind
#: of failure the attribution must tell apart (a message too many, a block without its notice, the threshold
#: counted in characters, a session field, a stream reader), cheap enough for CI.
SAMPLE = (
    "inflight.assistant-removed",
    "dedupe.notice",
    "elision.threshold~characters",
    "elision.byte-cut",
    "transport.subagent-session",
    "question.trim",
)
#: The share of the catalogue that must be isolated.
GOAL = 0.95
KINDS = ("precise", "over-broad", "misattributed", "dependency")


def entries() -> dict[str, BrokenImplementation]:
    """Every known mistake of the catalogue (variants included), by its ID."""
    return {entry.id: entry for entry in load_entries()}


def classify(record: dict[str, Any], entry: BrokenImplementation) -> str:
    """The kind of one failure of a broken implementation (see the module's docstring)."""
    if any(test in record["nodeid"] for test in DEPENDENT_TESTS):
        return "dependency"
    allowed = {entry.rule, *entry.also}
    blamed = set(record["failed_rules"])
    if blamed <= allowed:
        return "precise"
    return "over-broad" if blamed & allowed else "misattributed"


def run_matrix(
    out: Path, tests: list[str] | None = None, ids: list[str] | None = None, workers: int = 2, mistakes: bool = False
) -> None:
    """The known mistakes ``ids`` (default: all) against every deterministic test of the suite (or of ``tests``:
    paths or node IDs); with ``mistakes``, the independently written mistakes of ``tests/fakes/mistakes.py`` too (by
    class name: ``python3 -m tests.support.first_failure --outcomes`` judges their first failures from the same
    outcomes); the outcomes into ``out``."""
    from ..fakes.mistakes import MISTAKES

    known = entries()
    chosen = [known[key] for key in (ids or sorted(known))]
    matrix = [{"id": e.id, "target": e.target, "rules": None} for e in chosen]
    matrix += [{"id": name, "target": e.target, "rules": None} for name, e in MISTAKES.items()] if mistakes else []
    run_matrix_session(
        matrix,
        out,
        *(tests or [SUITE]),
        "-n",
        str(workers),
        "--hypothesis-profile=advisor-conformance-explicit",
        REFERENCE_SNAPSHOTS,
        timeout=4 * 3600,
        progress=lambda line: print(line, file=sys.stderr),
        label="known mistakes",
    )


def tally(outcomes: Path) -> tuple[dict[str, Counter[str]], dict[str, list[str]], Counter[str]]:
    """Each implementation's failures by kind, up to three examples of each that is not precise, and per
    implementation the failures a known mistake's answer reproduced."""
    known = entries()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    diagnosed: Counter[str] = Counter()
    for line in outcomes.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line else None
        if record is None or record["entry"] not in known:
            continue
        kinds[record["entry"]]  # every implementation that ran is counted, failing or not
        if record["outcome"] != "failed":
            continue
        kind = classify(record, known[record["entry"]])
        kinds[record["entry"]][kind] += 1
        if record.get("diagnosis"):
            diagnosed[record["entry"]] += 1
        if kind in ("misattributed", "over-broad") and len(examples[record["entry"]]) < 3:
            test = re.sub(r"^.*?(test_\w+\.py::)", r"\1", record["nodeid"])
            examples[record["entry"]].append(f"{test} blamed on {record['failed_rules']}")
    return kinds, examples, diagnosed


def isolated(counts: Counter[str]) -> bool:
    """Every failure precise, or a documented dependency."""
    return not (counts["misattributed"] or counts["over-broad"])


def summarise(outcomes: Path) -> tuple[str, int]:
    """The figures as text, and the number of problems: failures misattributed, implementations not isolated that
    :data:`EXCEPTIONS` does not list, and a share of isolated implementations under :data:`GOAL`."""
    kinds, examples, diagnosed = tally(outcomes)
    total: Counter[str] = Counter()
    for counts in kinds.values():
        total.update(counts)
    clean = [key for key in kinds if isolated(kinds[key])]
    share = len(clean) / len(kinds) if kinds else 0.0
    failures = sum(total[kind] for kind in KINDS)
    lines = [
        f"known mistakes run: {len(kinds)}; isolated (every failure blamed only on its own rules, or a documented "
        f"dependency): {len(clean)} ({100 * share:.1f}%, goal {100 * GOAL:.0f}%)",
        "failures: " + ", ".join(f"{total[kind]} {kind}" for kind in KINDS),
        f"failures whose answer a known mistake reproduced: {sum(diagnosed.values())} of {failures}",
    ]
    unlisted = []
    for key in sorted(kinds, key=lambda k: (-kinds[k]["misattributed"], -kinds[k]["over-broad"], k)):
        if isolated(kinds[key]):
            continue
        reason = EXCEPTIONS.get(key)
        if reason is None:
            unlisted.append(key)
        counts = kinds[key]
        lines.append(
            f"  {'exception' if reason else 'NOT ISOLATED'} {key}: {counts['misattributed']} misattributed, "
            f"{counts['over-broad']} over-broad, e.g. {'; '.join(examples[key])}" + (f" ({reason})" if reason else "")
        )
    problems = total["misattributed"] + len(unlisted) + (1 if share < GOAL else 0)
    return "\n".join(lines), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tests.support.cross_rule",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--outcomes", type=Path, help="classify these matrix outcomes instead of running the matrix")
    parser.add_argument("--save", type=Path, help="keep the matrix outcomes (JSON lines) in this file")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="only these test files or node IDs")
    parser.add_argument("--only", nargs="+", metavar="ID", help="only these known mistakes (rule or rule~variant)")
    parser.add_argument("--sample", action="store_true", help="only the fixed sample CI runs")
    parser.add_argument(
        "--with-mistakes",
        action="store_true",
        help="run the independently written mistakes (tests/fakes/mistakes.py) too, for the first-failure figure",
    )
    args = parser.parse_args(argv)
    ids = list(SAMPLE) if args.sample else args.only
    unknown = sorted(set(ids or ()) - set(entries()))
    if unknown:
        parser.error(f"unknown known mistakes: {', '.join(unknown)}")
    if args.outcomes is None:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.save or Path(tmp) / "outcomes.jsonl"
            run_matrix(out, args.tests, ids, workers=0 if args.tests else 2, mistakes=args.with_mistakes)
            text, problems = summarise(out)
    else:
        text, problems = summarise(args.outcomes)
    print(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
