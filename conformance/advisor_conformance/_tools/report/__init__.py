"""Reports across runs: the HTML matrix of rules by runs, and the comparison of two runs.

The input is the JSON rule report of a run (``--rule-report FILE``, format 1;
``_pytest_plugin/reporting.py`` describes it). ``runs`` reads and checks it, ``compare``
finds what changed between two runs, ``page`` builds the self-contained HTML
page (its CSS and JavaScript are the package data files ``page.css`` and
``page.js``, inlined: the page fetches nothing).

The commands are ``advisor-conformance report`` and ``advisor-conformance compare``
(``_tools/cli/report.py``, ``_tools/cli/compare.py``).
"""

from __future__ import annotations

from .compare import Change, Comparison, compare_runs, render_text
from .page import MESSAGE_BUDGET, MESSAGE_LIMIT, build_page
from .runs import ReportInputError, Run, load_run, parse_run

__all__ = [
    "MESSAGE_BUDGET",
    "MESSAGE_LIMIT",
    "Change",
    "Comparison",
    "ReportInputError",
    "Run",
    "build_page",
    "compare_runs",
    "load_run",
    "parse_run",
    "render_text",
]
