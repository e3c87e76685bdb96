"""What a failing conformance test adds to its blame: the known mistake its answer matches, and the wire it saw.

While a test runs, the implementation keeps a journal of the test's last calls (:func:`journal_on`); when the test
fails, :func:`explain` replays the pure ones through the known mistakes of the rules in question
(:mod:`advisor_conformance._judging.diagnosis`). A match is said first in the failure's message and narrows its
blame to the mistake's rule, unless that would change the test's verdict (a `should` test that would warn instead of
fail, an expected failure of the xfails file covered or no longer covered): the verdict is the checks' alone. A test
that went through the loopback provider shows the requests it received and the replies it sent
(:func:`~advisor_conformance._contract.loopback.wire_trace`). Nothing here runs for a test that passes.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Any

import pytest

from .._contract.implementation import Implementation
from .._contract.loopback import LoopbackProvider, wire_trace
from ..catalogue import load_catalogue
from .reporting import put_property

#: Set to 0 to blame failures by what differs alone, without replaying them through known mistakes (to measure the
#: attribution itself).
DIAGNOSIS_VARIABLE = "ADVISOR_CONFORMANCE_DIAGNOSIS"
JOURNAL = pytest.StashKey[deque[tuple[str, Any, Any, float]]]()
#: The calls a test's journal keeps: the last ones (the failing example's).
JOURNAL_LENGTH = 8


def implementation_of(item: pytest.Item, fallback: Implementation | None) -> Implementation | None:
    """The implementation a test runs against: its ``impl`` argument (a run of many implementations parametrizes
    it), else the run's."""
    funcargs = getattr(item, "funcargs", {})
    impl = funcargs.get("impl") if isinstance(funcargs, dict) else None
    return impl if isinstance(impl, Implementation) else fallback


def journal_on(item: pytest.Item, implementation: Implementation) -> None:
    """Start the test's journal of calls."""
    journal: deque[tuple[str, Any, Any, float]] = deque(maxlen=JOURNAL_LENGTH)
    item.stash[JOURNAL] = journal
    implementation.journal = journal


def journal_off(implementation: Implementation) -> None:
    implementation.journal = None


def explain(
    item: pytest.Item,
    report: pytest.TestReport,
    implementation: Implementation | None,
    rules: list[str],
    failed_rules: list[str],
    message: str,
    unchanged: Any,
) -> tuple[list[str], str]:
    """The blame and the message of a failed test once known mistakes have been tried: ``failed_rules`` and
    ``message`` as they are when none matches, or when narrowing the blame would change the verdict (``unchanged``:
    whether the verdict is the same with the narrowed blame as with ``failed_rules``). The wire trace is added as a
    section of the report either way."""
    _trace(item, report)
    journal = item.stash.get(JOURNAL, None)
    if implementation is None or not journal or os.environ.get(DIAGNOSIS_VARIABLE) == "0":
        return failed_rules, message
    try:
        from .._judging.diagnosis import Call, diagnose, narrowed

        declared = implementation.areas
        catalogue = load_catalogue()
        in_question = [rule for rule in [*failed_rules, *rules] if rule in catalogue]
        calls = [Call(*entry) for entry in journal]
        matches = [
            match
            for match in diagnose(calls, in_question, implementation.description)
            if catalogue[match.rule].area in declared
        ][:3]
    except Exception:  # a diagnosis that cannot be made is none: it never decides anything
        return failed_rules, message
    if not matches:
        return failed_rules, message
    put_property(report, "diagnosis", [match.to_json() for match in matches])
    put_property(report, "located_rules", failed_rules)
    # Several mistakes that answer alike: those of the rules the difference was located at are the ones it shows
    # most directly (a kept in-flight message of empty text is what both the removal's mistake and an implementation
    # without in-flight handling give: the removal's).
    direct = [match for match in matches if match.rule in failed_rules]
    blamed = narrowed(direct or matches, failed_rules)
    if not unchanged(blamed):
        blamed = list(dict.fromkeys([*blamed, *failed_rules]))
        if not unchanged(blamed):
            blamed = failed_rules
    said = "; or ".join(match.sentence() for match in matches)
    where = f" The difference was located at [{', '.join(failed_rules)}]:" if blamed != failed_rules else ""
    return blamed, f"[{', '.join(blamed)}] {said}.{where} {message}"


def _trace(item: pytest.Item, report: pytest.TestReport) -> None:
    funcargs = getattr(item, "funcargs", {})
    providers = (
        [value for name, value in funcargs.items() if name in ("lb", "loopback_server")]
        if isinstance(funcargs, dict)
        else []
    )
    for provider in providers[:1]:
        if isinstance(provider, LoopbackProvider):
            text = wire_trace(provider)
            report.sections.append(("the wire seen by the loopback provider", text))
            put_property(report, "wire", text)
