"""The suite in every run that names an implementation: collected wherever it is installed, or the run stops.

A run that names an implementation (``--impl``, ``$ADVISOR_CONFORMANCE_IMPL``,
or the ini key ``conformance_impl`` in ``pyproject.toml``, ``pytest.ini``,
``tox.ini`` or ``setup.cfg``) tests it, or says why it cannot; it is never
green without having run a test of the suite:

* ``--impl`` and the environment variable run the suite (alone when the run
  names no paths, beside the paths it names otherwise); the ini key adds the
  suite to what a plain ``pytest`` collects (its ``testpaths`` or the current
  directory), so the suite runs beside the project's own tests.
* An installed suite is collected wherever it lies, also inside a directory
  that pytest does not enter when it recurses, such as a virtual environment
  in the project (``.venv/``): the way down to the suite is opened, and
  nothing else in that directory is collected (:func:`pytest_ignore_collect`).
* When the run's tests hold none of the suite's tests (pytest's
  ``python_files`` or ``--ignore`` left them out; ``-k`` or ``-m`` deselected
  them all), the run stops with a usage error that says why and how to run
  the suite. One exception: with the implementation named only by the ini
  key, a run that names its own paths or selects its own tests runs them, and
  ends saying that the implementation was not tested.

Under pytest-xdist the workers collect: each worker decides, and a refusal
travels to the controller in the worker's output, where it stops the run.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .._paths import TESTS_DIR

SCOPE = pytest.StashKey["Scope"]()
_REFUSAL = "advisor_conformance_refusal"
_NOTE = "advisor_conformance_note"


@dataclass
class Scope:
    """What this run was asked to collect of the suite, and what came of it."""

    target: str
    source: str  # flag, environment or ini
    origin: str  # where the user named the target, for messages
    own_paths: bool  # the command line names paths that do not reach the suite (the ini key then leaves it out)
    way: list[Path] = field(default_factory=list)  # from below the run's path that holds the suite down to the suite,
    # as pytest walks it (symbolic links unresolved)
    hidden: Path | None = None  # the first directory of ``way`` that pytest's own rules would not enter
    searched: bool = False  # whether ``hidden`` was looked for (at the first directory pytest considers)
    collected: int | None = None  # the suite's tests collected, before -k, -m and --deselect
    note: str = ""


def plan(config: pytest.Config, target: str, source: str, origin: str) -> None:
    """Decide what the run collects of the suite (adding it to ``config.args`` when the run's paths do not reach it)."""
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    reaching = [arg for arg in config.args if _reaches_suite(config, arg)]
    scope = Scope(target, source, origin, own_paths=explicit and not reaching)
    config.stash[SCOPE] = scope
    if source != "ini" and not explicit:
        config.args = [_suite_arg(config)]  # the suite alone
    elif not reaching and not (source == "ini" and explicit):
        config.args = [*config.args, _suite_arg(config)]
    holding = [
        arg
        for arg in config.args
        if _arg_path(config, arg) != TESTS_DIR and TESTS_DIR.is_relative_to(_arg_path(config, arg))
    ]
    if holding:
        top = min(holding, key=lambda arg: len(_arg_path(config, arg).parts))
        below = TESTS_DIR.relative_to(_arg_path(config, top))
        walked = _arg_path(config, top, resolve=False)
        scope.way = [walked / part for part in [*reversed(below.parents), below][1:]]


def _suite_arg(config: pytest.Config) -> str:
    return "advisor_conformance.tests" if config.getoption("pyargs", False) else str(TESTS_DIR)


def _arg_path(config: pytest.Config, arg: str, *, resolve: bool = True) -> Path:
    """The file or directory a collection argument names (a module's, under ``--pyargs``), with its symbolic links
    resolved, or as pytest walks it (``resolve=False``)."""
    head = arg.split("::", 1)[0]
    path = config.invocation_params.dir / head
    if config.getoption("pyargs", False):
        try:
            spec = importlib.util.find_spec(head)
        except (ImportError, ValueError, AttributeError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            path = Path(next(iter(spec.submodule_search_locations)))
        elif spec is not None and spec.origin:
            path = Path(spec.origin)
    return path.resolve() if resolve else Path(os.path.abspath(path))


def _reaches_suite(config: pytest.Config, arg: str) -> bool:
    """Whether collecting ``arg`` reaches the suite: it lies in the suite, or holds it (the way down is opened)."""
    path = _arg_path(config, arg)
    return path.is_relative_to(TESTS_DIR) or TESTS_DIR.is_relative_to(path)


def whole_suite(config: pytest.Config) -> bool:
    """Whether the run collects the whole suite: one of its paths is the suite's folder or holds it (not a file or a
    test of it only)."""
    return any("::" not in arg and TESTS_DIR.is_relative_to(_arg_path(config, arg)) for arg in config.args)


def _hidden(config: pytest.Config, scope: Scope) -> Path | None:
    """The first directory on the way down to the suite that pytest's own rules (a virtual environment,
    ``norecursedirs``, ``--ignore``, ``collect_ignore``) would not enter; None when nothing hides it."""
    others = config.pluginmanager.subset_hook_caller("pytest_ignore_collect", remove_plugins=[sys.modules[__name__]])
    return next((directory for directory in scope.way if others(collection_path=directory, config=config)), None)


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Open the way down to a suite that lies in a directory pytest does not enter, and keep out the rest of it."""
    scope = config.stash.get(SCOPE, None)
    if scope is None:
        return None
    if not scope.searched:
        scope.hidden, scope.searched = _hidden(config, scope), True
    if (
        scope.hidden is None
        or not collection_path.is_relative_to(scope.hidden)
        or collection_path.is_relative_to(scope.way[-1])
    ):
        return None
    return collection_path not in scope.way  # a directory on the way down is entered; nothing else there is


def is_suite_path(config: pytest.Config, nodeid: str) -> bool:
    return (config.rootpath / nodeid.split("::", 1)[0]).resolve().is_relative_to(TESTS_DIR)


@pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    scope = config.stash.get(SCOPE, None)
    if scope is not None:
        scope.collected = sum(1 for item in items if Path(str(item.path)).resolve().is_relative_to(TESTS_DIR))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Stop a run that names an implementation but holds none of the suite's tests (or, for the ini key and a run of
    the project's own tests, say so at the end)."""
    config = session.config
    scope = config.stash.get(SCOPE, None)
    if scope is None:
        return
    selected = sum(1 for item in session.items if Path(str(item.path)).resolve().is_relative_to(TESTS_DIR))
    if selected:
        return
    refusal = _refusal(config, scope, len(session.items))
    if refusal is None:
        return
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is None:
        raise pytest.UsageError(refusal)
    workeroutput[_REFUSAL] = refusal  # an xdist worker: the controller stops the run (an error here would crash it)
    session.items.clear()


def _refusal(config: pytest.Config, scope: Scope, others: int) -> str | None:
    """The usage error of a run that holds none of the suite's tests; None (and a note) when the ini key named the
    implementation and the run chose the project's own tests."""
    fix = (
        f"run the suite with `python3 -m pytest --impl={scope.target}` (no paths) or "
        f"`advisor-conformance run --impl '{scope.target}'`"
    )
    if scope.own_paths:
        why = f"this run's paths ({' '.join(config.args)}) hold none of the suite's tests"
    elif scope.collected:
        why = f"this run's selection (-k, -m, --deselect, --lf) deselects all {scope.collected} of the suite's tests"
    else:
        why = (
            f"this run collected none of the suite's tests (installed in {TESTS_DIR}): its configuration keeps "
            "pytest from collecting them (python_files, python_functions, --ignore, collect_ignore or a conftest "
            "hook)"
        )
    if scope.source == "ini" and others and (scope.own_paths or scope.collected):
        scope.note = f"advisor-conformance: {scope.origin} was not tested: {why} ({fix})"
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_NOTE] = scope.note
        return None
    widen = (
        "; widen it (-m 'rule(area=\"elision\")' selects one area, -m 'rule(id=\"...\")' one rule)"
        if scope.collected and not scope.own_paths
        else ""
    )
    return f"{scope.origin} names the implementation to test, but {why}{widen}; or {fix}"


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ANN001 - xdist's WorkerController
    """On the xdist controller: a worker's refusal stops the run; its note is kept for the end."""
    output = getattr(node, "workeroutput", None) or {}
    if output.get(_REFUSAL):
        raise pytest.UsageError(output[_REFUSAL])
    scope = node.config.stash.get(SCOPE, None)
    if scope is not None and output.get(_NOTE):
        scope.note = output[_NOTE]


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # noqa: ANN001
    scope = config.stash.get(SCOPE, None)
    if scope is not None and scope.note:
        terminalreporter.write_line(scope.note, yellow=True, bold=True)
