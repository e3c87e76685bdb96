"""Precision across rules, in CI: every broken implementation against every golden vector.

The golden vectors are where one difference most easily cascades (a vector names many rules and pins whole
messages or sessions), so CI holds them to no misattribution at all; the whole suite is measured by
``python3 -m tests.support.cross_rule`` (outside CI for its length; docs/measured.md gives the figure).
"""

from __future__ import annotations

import pytest

from ..support.cross_rule import run_matrix, summarise
from ..support.runner import SUITE

pytestmark = pytest.mark.slow


def test_no_vector_failure_is_blamed_only_on_rules_the_broken_implementation_keeps(tmp_path):
    """Each broken implementation's golden-vector failures name its own rule (or what the same mistake also
    breaks), never only rules it keeps."""
    outcomes = tmp_path / "outcomes.jsonl"
    run_matrix(outcomes, [f"{SUITE}/test_vectors.py"])
    text, misattributed = summarise(outcomes)
    assert "failures: 0 precise" not in text, f"the matrix ran no failing vector:\n{text}"
    assert misattributed == 0, text
