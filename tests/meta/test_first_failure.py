"""First-failure blame: the first failure of a ``-x`` run in the shipped order names the rule the implementation
breaks, for every broken implementation and every independently written mistake (``tests/support/first_failure.py``).
"""

from __future__ import annotations

import json

import pytest

from advisor_conformance._contract.protocol import AREA_OPERATIONS

from ..fakes.mistakes import MISTAKES
from ..support.first_failure import MATCH_GOAL, entries, judge, matched_share, run_matrix, summarise, unnamed_failures

#: The areas tested through `shape` alone: their broken implementations fail first within the first third of the
#: suite. Those of the later areas run most of the suite before their first failure (10 to 30 minutes on 2 cores for
#: all of them), so CI holds the shaping areas and every mistake; `python3 -m tests.support.first_failure` all.
SHAPING = {area for area, operations in AREA_OPERATIONS.items() if operations == ("shape",)}


@pytest.mark.slow
def test_every_first_failure_names_the_rule_its_implementation_breaks(tmp_path):
    """Each known mistake of a shaping rule and each independently written mistake, run in the suite's order until its
    first failure (the deterministic examples), fails first on a test blamed on the rule it breaks (or one the same
    mistake cannot help breaking), at least 90% of the known mistakes' first failures name the matching known
    mistake, and every failure names a catalogue rule."""
    outcomes = tmp_path / "outcomes.jsonl"
    ids = [key for key, entry in entries().items() if key in MISTAKES or entry.rule.split(".")[0] in SHAPING]
    assert len(ids) > 60
    run_matrix(outcomes, ids, "advisor-conformance-explicit")
    verdicts = judge(outcomes, ids)
    assert all(verdict.named for verdict in verdicts), summarise(verdicts)
    assert matched_share(verdicts) >= MATCH_GOAL, summarise(verdicts)
    silent = unnamed_failures(outcomes)
    assert not silent, [f"{record['entry']} {record['nodeid']}: {record['message'][:200]}" for record in silent[:5]]


def test_the_first_failure_is_the_earliest_in_the_run_and_judged_by_its_blame(tmp_path):
    """The judge takes each implementation's failing outcome earliest in the run's order, and counts it as naming
    the rule when it is blamed on the rule or on what the same mistake also breaks; a failure whose message names no
    catalogue rule is reported."""
    known = entries()
    rule = "request.prefix-stable-across-calls"
    also = known[rule].also[0]
    records = [
        {
            "entry": rule,
            "nodeid": "a",
            "outcome": "failed",
            "failed_rules": ["flatten.args-json"],
            "position": 9,
            "message": "[flatten.args-json] later",
        },
        {
            "entry": rule,
            "nodeid": "b",
            "outcome": "failed",
            "failed_rules": [also],
            "position": 3,
            "message": f"[{also}] first",
        },
        {"entry": rule, "nodeid": "c", "outcome": "passed", "failed_rules": [], "position": 1, "message": ""},
        {
            "entry": "flatten.args-json",
            "nodeid": "d",
            "outcome": "failed",
            "failed_rules": ["question.cap"],
            "position": 2,
            "message": "KeyError: 'messages'",
        },
    ]
    path = tmp_path / "outcomes.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    first, other = judge(path, [rule, "flatten.args-json"])
    assert first.first["nodeid"] == "b" and first.named and first.only
    assert other.first["nodeid"] == "d" and not other.named
    assert [record["nodeid"] for record in unnamed_failures(path)] == ["d"]
    assert "1 of them" not in summarise([first, other]) and "MISSED flatten.args-json" in summarise([first, other])
