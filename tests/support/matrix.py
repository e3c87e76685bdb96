"""A pytest plugin of our own meta-tests: one session runs the conformance tests against many implementations.

Loaded with ``-p tests.support.matrix --matrix=FILE --matrix-report=OUT`` next to an
ordinary ``--impl=reference`` run of the suite. ``FILE`` is a JSON list of
``{"id", "target", "rules"}``: each implementation (an ``--impl`` target)
runs the conformance tests that carry one of its ``rules`` (every test when
``rules`` is null); an optional ``"modules"`` (test module file names, or
``module.py::test_function`` for one test function of a module) keeps it to
the tests of those. A test whose needs (``_pytest_plugin.needs``) an
implementation does not declare is skipped for it, naming what is missing, as in a
run of that implementation alone. Instead of one pytest process per implementation (a
second or two of start-up and collection each), the suite is collected once
and each test function is parametrized over the implementations it applies
to: the ``impl`` fixture of the conformance tests is overridden by direct
parametrization at session scope, so the fixtures built on it (``strings``,
``snapshot_dir``) follow.

``OUT`` receives one JSON line per test outcome: ``{"entry", "nodeid",
"rules", "failed_rules", "outcome", "message", "position"}`` (``failed_rules``: the rules a
failure is attributed to, else the test's own; ``position``: the test's place in the
run's order). Works under pytest-xdist (the controller writes the report).

With ``--matrix-first-failure`` each implementation stops at its first failure, as
``pytest -x`` would stop a run of it alone: its later tests are skipped. Each
implementation's tests then form one xdist group (``--dist loadgroup``), so one
worker runs them in the run's order. An entry's ``"until"`` (a rule ID) leaves out
the tests that run after the last test of that rule in the suite's order
(``_plugin.catalogue_key``): a broken implementation fails its own rule's tests, so its
first failure is never later.

:func:`run_matrix_session` starts such a session in a subprocess; :func:`read_outcomes` reads its ``OUT``.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from advisor_conformance._contract.implementation import Implementation, load_target
from advisor_conformance._pytest_plugin.needs import NEEDS, skip_unless_met
from advisor_conformance._pytest_plugin.plugin import catalogue_key
from advisor_conformance._pytest_plugin.reporting import get_property, put_property

from .runner import ROOT, Run, run_pytest

_ENTRIES = pytest.StashKey[list[dict[str, Any]]]()
_LOADED = pytest.StashKey[dict[str, Implementation]]()
_OUT = pytest.StashKey[Any]()
_MESSAGE_LIMIT = 20_000
#: A broken implementation is the reference with one rule broken: its rendered requests are held to the reference's
#: snapshots, so a snapshot test fails only where the breakage changes a request.
REFERENCE_SNAPSHOTS = f"--impl-snapshots={ROOT / 'snapshots' / 'reference'}"


def run_matrix_session(
    matrix: list[dict[str, Any]],
    out: Path,
    *args: str,
    timeout: float = 900,
    progress: Callable[[str], None] | None = None,
    label: str = "",
) -> Run:
    """One quiet pytest session of the tests in ``args`` (paths and further options) with this plugin, against the
    implementations of ``matrix`` (the entries described above); their outcomes are written to ``out``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "matrix.json"
        path.write_text(json.dumps(matrix), encoding="utf-8")
        return run_pytest(
            *args,
            "--impl=reference",
            "-p",
            "tests.support.matrix",
            f"--matrix={path}",
            f"--matrix-report={out}",
            "-q",
            timeout=timeout,
            progress=progress,
            label=label,
        )


def read_outcomes(out: Path) -> dict[str, list[dict[str, Any]]]:
    """The outcome records a session wrote to ``out``, by matrix entry (none when it wrote nothing)."""
    outcomes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in out.read_text(encoding="utf-8").split("\n") if out.exists() else []:
        if line:
            record = json.loads(line)
            outcomes[record["entry"]].append(record)
    return outcomes


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--matrix", metavar="FILE", help="JSON list of {id, target, rules} to run the suite against")
    parser.addoption("--matrix-report", metavar="FILE", help="where to write the matrix outcomes (JSON lines)")
    parser.addoption(
        "--matrix-first-failure",
        action="store_true",
        help="stop each implementation at its first failure (as -x would), skipping its later tests",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("matrix")
    if not path:
        return
    config.stash[_ENTRIES] = json.loads(Path(path).read_text(encoding="utf-8"))
    config.stash[_LOADED] = {}
    if config.getoption("matrix_first_failure"):
        config.pluginmanager.register(_FirstFailure(), "matrix-first-failure")
    report = config.getoption("matrix_report")
    if report and not hasattr(config, "workerinput"):
        config.stash[_OUT] = open(report, "w", encoding="utf-8")  # noqa: SIM115 - closed at unconfigure
        config.pluginmanager.register(_Writer(config.stash[_OUT]), "matrix-writer")


def pytest_unconfigure(config: pytest.Config) -> None:
    out = config.stash.get(_OUT, None)
    if out is not None:
        out.close()
    for implementation in config.stash.get(_LOADED, {}).values():
        implementation.close()


def _implementation(config: pytest.Config, entry: dict[str, Any]) -> Implementation:
    loaded = config.stash[_LOADED]
    if entry["id"] not in loaded:
        loaded[entry["id"]] = load_target(entry["target"], cwd=str(config.invocation_params.dir))
    return loaded[entry["id"]]


def _rules(marks: Any) -> set[str]:
    return {mark.kwargs.get("id", mark.args[0] if mark.args else "") for mark in marks if mark.name == "rule"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    entries = metafunc.config.stash.get(_ENTRIES, None)
    if entries is None or "impl" not in metafunc.fixturenames:
        return
    rules = _rules(metafunc.definition.iter_markers("rule"))
    for marks in _param_marks(metafunc):
        rules |= _rules(marks)
    module = metafunc.module.__name__.rpartition(".")[2] + ".py"
    function = f"{module}::{metafunc.function.__name__}"
    wanted = [
        entry
        for entry in entries
        if (entry["rules"] is None or rules & set(entry["rules"]))
        and ("modules" not in entry or module in entry["modules"] or function in entry["modules"])
    ]
    if wanted:  # a test no implementation applies to keeps the plain fixture, and is deselected below
        grouped = metafunc.config.getoption("matrix_first_failure")
        metafunc.parametrize(
            "impl",
            [
                pytest.param(
                    _implementation(metafunc.config, entry),
                    id=entry["id"],
                    marks=[pytest.mark.xdist_group(entry["id"])] if grouped else [],
                )
                for entry in wanted
            ],
            scope="session",
        )


def _param_marks(metafunc: pytest.Metafunc) -> list[list[Any]]:
    """The marks of the parametrize sets already declared on the function (golden vectors carry rules there)."""
    out = []
    for mark in metafunc.definition.iter_markers("parametrize"):
        for value in mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues", []):
            if hasattr(value, "marks"):
                out.append(list(value.marks))
    return out


@pytest.hookimpl(trylast=True)  # after the suite's plugin has checked and marked the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    entries = config.stash.get(_ENTRIES, None)
    if entries is None:
        return
    loaded = config.stash[_LOADED]
    entry_of = {id(loaded[entry["id"]]): entry for entry in entries if entry["id"] in loaded}
    keep, drop = [], []
    last = _last_keys(items, [entry["until"] for entry in entries if entry.get("until")])
    for item in items:
        callspec = getattr(item, "callspec", None)
        entry = entry_of.get(id(callspec.params.get("impl"))) if callspec is not None else None
        if (
            entry is None
            or (entry["rules"] is not None and not _rules(item.iter_markers("rule")) & set(entry["rules"]))
            or (entry.get("until") and catalogue_key(item) > last.get(entry["until"], ()))
        ):
            drop.append(item)
            continue
        put_property(item, "matrix_entry", entry["id"])
        needs = item.stash.get(NEEDS, None)
        if needs is not None:  # the suite's plugin judged the needs against the session's implementation, not this one
            skip_unless_met(item, needs, loaded[entry["id"]])
        keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """Each test's place in the run's order (after every plugin has ordered the tests)."""
    if session.config.stash.get(_ENTRIES, None) is None:
        return
    for position, item in enumerate(session.items):
        put_property(item, "matrix_position", position)


def _last_keys(items: list[pytest.Item], rules: list[str]) -> dict[str, tuple[int, ...]]:
    """For each rule, the order key of the last test that carries it."""
    last: dict[str, tuple[int, ...]] = {}
    wanted = set(rules)
    for item in items:
        for rule in _rules(item.iter_markers("rule")) & wanted:
            last[rule] = max(last.get(rule, ()), catalogue_key(item))
    return last


class _Writer:
    """Writes one JSON line per test outcome (on the xdist controller, from the workers' reports)."""

    def __init__(self, out: Any) -> None:
        self.out = out

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = get_property(report, "matrix_entry")
        if entry is None or not (report.when == "call" or report.failed or report.skipped):
            return
        # a snapshot to review has its own outcome (changed, not recorded): not a rule failure
        outcome = "xfailed" if hasattr(report, "wasxfail") else get_property(report, "review") or report.outcome
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else (str(report.longrepr) if report.longrepr else "")
        if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
            message = str(report.longrepr[2])
        rules = get_property(report, "rules", [])
        record = {
            "entry": entry,
            "nodeid": report.nodeid,
            "rules": rules,
            "failed_rules": get_property(report, "failed_rules", rules),
            "outcome": outcome,
            "when": report.when,
            "message": message[:_MESSAGE_LIMIT],
            "position": get_property(report, "matrix_position"),
            "diagnosis": get_property(report, "diagnosis"),
            "located_rules": get_property(report, "located_rules"),
        }
        self.out.write(json.dumps(record) + "\n")  # ASCII: no character splits a line
        self.out.flush()


class _FirstFailure:
    """Skips an implementation's tests once one of them failed (on the worker that runs them all, in order)."""

    def __init__(self) -> None:
        self.failed: set[str] = set()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        entry = get_property(item, "matrix_entry")
        if entry in self.failed:
            pytest.skip(f"{entry} already failed (a -x run stops at its first failure)")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = get_property(report, "matrix_entry")
        if entry is not None and report.failed:
            self.failed.add(entry)
