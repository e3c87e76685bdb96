"""Snapshots of the full rendered request for every transcript in fixtures/transcripts (syrupy).

These are the regression net for prompt changes: each implementation's
snapshots live in a directory of their own (``--impl-snapshots``; by default
``snapshots/<implementation name>/`` where pytest runs). Record them once with
``--snapshot-update``; from then on every change to a rendered request fails
with a diff.

A snapshot is a review item, not a rule failure: a rendered request that differs from its snapshot gets the outcome
``changed``, a transcript without one ``not recorded`` (:class:`~advisor_conformance.checks.SnapshotReview`); the
plugin names the command that accepts it and blames no rule. Both still fail the run, until the change is reviewed
and accepted (or mended).
"""

from __future__ import annotations

import json
import re

import pytest

from advisor_conformance._bounded import cap_lines
from advisor_conformance._paths import fixtures_dir
from advisor_conformance._pytest_plugin.snapshots import extension, recorded
from advisor_conformance.checks import SnapshotReview, answer_of, violation
from advisor_conformance.vectors import fill

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
TRANSCRIPTS = sorted((fixtures_dir() / "transcripts").glob("*.json"))


@pytest.fixture
def request_snapshot(snapshot, snapshot_dir):
    """The syrupy snapshot fixture, storing into this implementation's snapshot directory (written whole or not at
    all, any text recorded so that it reads back equal: ``_pytest_plugin/snapshots.py``)."""
    return snapshot.use_extension(extension(str(snapshot_dir)))


def _require_recorded(request, snapshot_dir, name):
    """Fail with the way to record them when this implementation has no snapshot for ``name`` yet."""
    if request.config.getoption("update_snapshots", False):
        return
    if not recorded(snapshot_dir, name):
        raise SnapshotReview(f"no snapshot of {name} is recorded for this implementation in {snapshot_dir.name}/: "
                             "record its snapshots once with --snapshot-update (and commit them); from then on a "
                             "change fails here", "not recorded")


@pytest.mark.rule(id="flatten.deterministic")
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[path.stem for path in TRANSCRIPTS])
def test_rendered_request_matches_snapshot(impl, strings, request_snapshot, snapshot_dir, request, path):
    """The rendered request for a recorded transcript is byte-identical to its recorded snapshot."""
    fixture = json.loads(path.read_text(encoding="utf-8"))
    params = fill(fixture["input"], strings)  # e.g. the read tool's declared line-truncation marker
    answer = answer_of(impl, "shape", params, "flatten.deterministic")
    if "error" in answer:
        raise violation("flatten.deterministic", f"shape answered an error for the transcript {path.name}",
                        input=params, actual=answer["error"])
    _require_recorded(request, snapshot_dir, path.stem)
    recorded = request_snapshot(name=path.stem)
    if not recorded == answer:
        diff = _ANSI.sub("", "\n".join(recorded.get_assert_diff()))  # syrupy colours each character
        raise SnapshotReview(f"the rendered request of fixtures/transcripts/{path.name} changed from its recorded "
                             f"snapshot (- recorded, + now):\n" + cap_lines(diff, lines=60), "changed")
