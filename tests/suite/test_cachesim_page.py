"""``docs/cache-efficiency.md`` and the known-limits line of ``docs/measured.md`` agree with the simulator's figures
(the page's first table is compared with what ``advisor-conformance cache-sim`` prints in
``tests/meta/test_cache_sim_cli.py``)."""

from __future__ import annotations

import pytest

from advisor_conformance._contract.implementation import load_target
from advisor_conformance._tools.cachesim.page import Run, render
from advisor_conformance._tools.cachesim.replay import Settings
from advisor_conformance._tools.cachesim.report import pct

from ..support.runner import ROOT

PAGE = ROOT / "docs" / "cache-efficiency.md"
MEASURED = ROOT / "docs" / "measured.md"


@pytest.fixture(scope="module")
def run():
    impl = load_target("reference")
    yield Run(impl)
    impl.close()


def test_the_page_is_what_the_simulator_gives(run):
    """docs/cache-efficiency.md is, byte for byte, the page the simulator writes from the reference's figures
    (python3 -m advisor_conformance._tools.cachesim.page docs/cache-efficiency.md rewrites it)."""
    assert PAGE.read_text(encoding="utf-8") == render(run), (
        "stale: python3 -m advisor_conformance._tools.cachesim.page docs/cache-efficiency.md"
    )


def test_the_known_limits_line_gives_the_pages_figures_and_links_it(run):
    """The known-limits line of docs/measured.md states the share of the optimum's saving the spec's placement
    reaches on Anthropic (at least that share when the optimum is a lower bound), the OpenAI and Codex share, and
    links the page."""
    _, anthropic = run.measure("anthropic", Settings())
    openai = [run.measure(provider, Settings())[1].share for provider in ("openai", "codex")]
    lines = [
        line
        for line in MEASURED.read_text(encoding="utf-8").splitlines()
        if "](cache-efficiency.md)" in line and line.startswith("Known limits")
    ]
    assert len(lines) == 1, "one Known limits line of docs/measured.md links cache-efficiency.md"
    line = lines[0]
    expected = ("at least " if not anthropic.optimum.exact else "") + pct(anthropic.share)
    assert expected in line, (expected, line)
    assert all(pct(share) in line for share in openai), (openai, line)
    assert pct(anthropic.share) in PAGE.read_text(encoding="utf-8")
