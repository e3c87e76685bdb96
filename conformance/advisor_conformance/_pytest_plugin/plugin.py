"""The suite's pytest plugin: loads the implementation and runs the conformance tests against it.

Registered by the thin entry-point module (``_advisor_conformance_pytestplugin``)
only when a run names an implementation. It loads the implementation once
per session, prints it in the report header, checks that every conformance
test names its rules, skips the tests of areas the implementation does not
declare or whose needs (capabilities, options: :mod:`.needs`) it does not meet, applies the expected failures of an
xfails file, and tallies
outcomes per rule (``--rule-summary`` prints the table, ``--rule-report FILE``
writes it as JSON).
"""

from __future__ import annotations

import functools
import json
import re
import unittest
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

from _advisor_conformance_pytestplugin import (
    Setting,
    named,
    project_configuration,
)

from .._contract.implementation import Implementation, TargetError, load_target
from .._contract.protocol import AREA_OPERATIONS, CAPABILITIES, PROVIDERS
from .._outputs import unwritable
from .._paths import TESTS_DIR
from ..catalogue import load_catalogue
from ..checks import RuleViolation, SnapshotReview
from . import collect as _collect
from . import commands as _commands
from . import explain as _explain
from . import markers as _markers
from . import needs as _needs
from . import settings as _settings
from . import snapshots as _snapshots
from . import terminal as _terminal
from . import xfails as _xfails
from .reporting import RuleTally, get_property, put_property
from .settings import read as read_setting

IMPLEMENTATION = pytest.StashKey[Implementation]()
ORIGIN = pytest.StashKey[str]()  # where the run named its implementation: the flag, the environment or an ini key
TARGET = pytest.StashKey[Setting]()  # the implementation as the run named it, and where
STRICT = pytest.StashKey[bool]()  # whether a failing `should` test fails the run
XFAILS = pytest.StashKey[list[_xfails.Entry]]()  # the entries of the xfails file, read and checked at configure
TALLY = pytest.StashKey[RuleTally]()
#: syrupy's warning when fewer xdist workers than configured sent it a snapshot report
SYRUPY_MISSING_WORKERS = r"syrupy. received \d+ of \d+ xdist worker snapshot reports"

# Namespaced so they never replace a profile of the project that runs us.
# ci: derandomized, so every run (and every xdist worker) draws the same examples;
# explore: random and many more examples, for hunting; noshrink: the ci examples
# without shrinking, for runs that only need to know whether a rule fails;
# mutation: fewer of them, for the many runs of mutation testing; explicit: the deterministic tests alone (the
# parametrized ones and every @example, no drawn example), which must catch every broken implementation.
CI_PROFILE = "advisor-conformance-ci"
EXPLORE_PROFILE = "advisor-conformance-explore"
NOSHRINK_PROFILE = "advisor-conformance-noshrink"
MUTATION_PROFILE = "advisor-conformance-mutation"
EXPLICIT_PROFILE = "advisor-conformance-explicit"


def register_profiles() -> None:
    """Register the suite's hypothesis profiles (idempotent)."""
    # print_blob off: hypothesis would advise a @reproduce_failure decorator on a test that lives in site-packages;
    # a failure's report gives the command that reruns the test with its example instead (rerun_command).
    common: dict[str, Any] = {
        "deadline": None,
        "print_blob": False,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    }
    settings.register_profile(CI_PROFILE, derandomize=True, database=None, max_examples=60, **common)
    settings.register_profile(EXPLORE_PROFILE, max_examples=1000, **common)
    settings.register_profile(
        NOSHRINK_PROFILE, parent=settings.get_profile(CI_PROFILE), phases=[Phase.explicit, Phase.reuse, Phase.generate]
    )
    # mutation: the ci examples, fewer of them and unshrunk: each mutant only needs one failing example.
    settings.register_profile(MUTATION_PROFILE, parent=settings.get_profile(NOSHRINK_PROFILE), max_examples=25)
    settings.register_profile(EXPLICIT_PROFILE, parent=settings.get_profile(CI_PROFILE), phases=[Phase.explicit])


def pytest_configure(config: pytest.Config) -> None:
    found = named(config)
    if found is None:
        return
    target, source = found.value, found.source
    config.addinivalue_line(
        "markers",
        "rule(id, area, level): the catalogue rule a conformance test checks (select with "
        "-m 'rule(id=\"elision.marker-format\")', -m 'rule(area=\"elision\")' or -m 'rule(level=\"must\")')",
    )
    origin = origin_of(config, found)
    config.stash[TARGET] = found
    _markers.check_expression(config)
    check_outputs(config)
    config.addinivalue_line("markers", _needs.MARKER)
    # every setting is checked before the implementation starts: a usage error names the setting and its file
    timeout = _settings.harness_timeout(config)
    config.stash[STRICT] = _settings.strict_should(config)
    config.stash[XFAILS] = read_xfails(config)
    if config.stash[XFAILS]:  # on the controller too: it judges the stale entries of a run under xdist
        config.pluginmanager.register(_xfails.Ledger(config.stash[XFAILS]), "advisor-conformance-xfails")
    config.stash[_SNAPSHOTS] = _settings.load(config, "conformance_snapshots")
    try:
        # a target the configuration file names imports from (and a harness starts in) that file's folder, as its
        # paths resolve from there; one named on the command line or in the environment, from where the run starts
        where = project_dir(config) if source in ("ini",) else config.invocation_params.dir
        implementation = load_target(target, harness_timeout=timeout, cwd=str(where), origin=origin)
    except TargetError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[IMPLEMENTATION] = implementation
    config.stash[ORIGIN] = origin
    check_areas(implementation)
    _collect.plan(config, target, "ini" if source == "override" else source, origin)  # -o collects as the ini key
    for module in (_collect, _markers, _terminal):
        config.pluginmanager.register(module, "advisor-conformance-" + module.__name__.rsplit(".", 1)[1].lstrip("_"))
    # syrupy expects a snapshot report from each xdist worker, also when --collect-only or a usage error runs none;
    # it then skips its detection of unused snapshots (which the suite does not use): not an error of the run under
    # `filterwarnings = error`
    config.addinivalue_line("filterwarnings", f"ignore:{SYRUPY_MISSING_WORKERS}:UserWarning")
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(EXPLICIT_PROFILE if config.getoption("conformance_quick", False) else CI_PROFILE)
    tally = RuleTally(
        load_catalogue(),
        config.stash[IMPLEMENTATION].description,
        target=target,
        arguments=list(config.invocation_params.args),
        strict=config.stash[STRICT],
    )
    config.stash[TALLY] = tally
    config.pluginmanager.register(tally, "advisor-conformance-tally")
    config.pluginmanager.register(CatalogueOrder(), "advisor-conformance-order")


def check_outputs(config: pytest.Config) -> None:
    """Refuse, before any test runs, a ``--rule-report`` path that cannot be written (a missing folder, a folder, a
    place that cannot be written to): a usage error naming the option and the path, not a traceback after the run."""
    path = config.getoption("rule_report")
    if path:
        reason = unwritable(config.invocation_params.dir / path)
        if reason:
            raise pytest.UsageError(f"--rule-report {path}: cannot be written: {reason}"[:1000])


_SNAPSHOTS = pytest.StashKey["Path | None"]()


def snapshots_setting(config: pytest.Config) -> Path | None:
    """The snapshot folder the run names (``--impl-snapshots``, ``conformance_snapshots``), resolved from where it was
    read and checked; None when the run names none."""
    return config.stash.get(_SNAPSHOTS, None)


def project_dir(config: pytest.Config) -> Path:
    """The project's folder: that of its configuration file (the one that names the implementation, under
    `advisor-conformance run` too), else the directory the run starts in. Default snapshots go under it."""
    inipath, _ = project_configuration(config)
    return inipath.parent if inipath is not None else config.invocation_params.dir


def origin_of(config: pytest.Config, found: Setting) -> str:
    """Where the run named its implementation, as the user wrote it: ``--impl=X``, ``ADVISOR_CONFORMANCE_IMPL=X``,
    ``-o conformance_impl=X``, ``conformance_impl = X (pyproject.toml)``, or the default of ``advisor-conformance
    run``."""
    return _settings.origin("conformance_impl", found, config.invocation_params.dir)


def project_names_another(config: pytest.Config, found: Setting) -> str | None:
    """When the run names its implementation on the command line or in the environment and the project's
    configuration file names another: that file and what it names (a run of the reference in a project that names
    its own implementation is never silent)."""
    if found.source not in ("flag", "environment", "override"):
        return None
    inipath, values = project_configuration(config)
    value = values.get("conformance_impl")
    named_there = getattr(value, "value", value)
    if not isinstance(named_there, str) or not named_there.strip() or named_there.strip() == found.value:
        return None
    return f"{_settings.shown_path(inipath, config.invocation_params.dir)} names {named_there.strip()}"


def read_xfails(config: pytest.Config) -> list[_xfails.Entry]:
    """The entries of the run's xfails file, read and checked (a usage error names the setting and its file)."""
    loaded = _settings.load(config, "conformance_xfails_file")
    if loaded is None:
        return []
    path, text = loaded
    shown = _settings.shown_path(path, config.invocation_params.dir)
    return _xfails.parse(text, shown)


def check_areas(implementation: Implementation) -> None:
    """Refuse, before any test runs, areas the catalogue does not know and areas whose operations are missing."""
    catalogue = load_catalogue()
    unknown = sorted(implementation.areas - set(catalogue.areas))
    if unknown:
        raise pytest.UsageError(
            f"{implementation.name} declares the unknown area(s) {', '.join(unknown)}; the areas are: "
            f"{', '.join(catalogue.areas)}"
        )
    _refuse(
        f"{implementation.name} declares areas whose operations it does not answer (declare only the areas it "
        "implements, or add the operations)",
        [
            f"{area} needs {', '.join(AREA_OPERATIONS[area])}; {', '.join(ops)} answered unsupported_op"
            for area, ops in implementation.missing_operations().items()
        ],
    )
    check_capabilities(implementation)


def check_capabilities(implementation: Implementation) -> None:
    """Refuse, before any test runs, a declared area whose capability describe declines (streaming without http), an
    offered capability whose probe is answered unsupported_op, a declared area whose tests speak to providers none of
    which is declared, and a declared provider that its probes show absent."""
    _refuse(
        f"{implementation.name} declares areas whose capabilities its describe declines (leave the area out, or "
        "offer the capability)",
        [
            f"{area} needs the capability {', '.join(names)} ({'; '.join(CAPABILITIES[n] for n in names)})"
            for area, names in implementation.declined_but_needed().items()
        ],
    )
    _refuse(
        f"{implementation.name} offers capabilities it does not answer (declare them false in describe's "
        "capabilities, and leave out the areas that need them)",
        [
            f"{name} ({CAPABILITIES[name]}): the probe was answered unsupported_op"
            for name in implementation.missing_capabilities()
        ],
    )
    _refuse(
        f"{implementation.name} declares areas whose tests speak to providers it does not declare (declare the "
        "providers it speaks in describe's providers, or leave the area out)",
        [
            f"{area} needs one of the providers {', '.join(names)}; declared: "
            f"{', '.join(implementation.providers) or '(none)'}"
            for area, names in implementation.without_providers().items()
        ],
    )
    _refuse(
        f"{implementation.name} declares providers it does not speak (leave them out of describe's providers)",
        [
            f"{name} ({PROVIDERS[name]}): declared but absent: {' and '.join(probes)} for it answered unsupported_op "
            "or refused the provider"
            for name, probes in implementation.missing_providers().items()
        ],
    )


def _refuse(what: str, problems: list[str]) -> None:
    """A usage error saying ``what``, one line per problem, when there are any."""
    if problems:
        raise pytest.UsageError(what + ":\n" + "\n".join(f"  {line}" for line in problems))


def pytest_unconfigure(config: pytest.Config) -> None:
    implementation = config.stash.get(IMPLEMENTATION, None)
    if implementation is not None:
        implementation.close()


def first_line(config: pytest.Config) -> str:
    """The run's first line: the suite, its catalogue, the implementation under test and where the run named it
    (and the implementation the project's configuration file names, when the run tests another)."""
    from .. import __version__

    d = config.stash[IMPLEMENTATION].description
    line = (
        f"advisor-conformance {__version__}, catalogue {load_catalogue().version}: implementation under test: "
        f"{d['name']} {d['version']} ({d['language']}), from {config.stash[ORIGIN]}"
    )
    other = project_names_another(config, config.stash[TARGET])
    return f"{line}; {other}, not tested by this run" if other else line


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    implementation = config.stash.get(IMPLEMENTATION, None)
    if implementation is None:
        return None
    d = implementation.description
    catalogue = load_catalogue().version
    lines = [
        f"advisor-conformance: declared areas: {', '.join(d.get('areas', [])) or '(none)'}; capabilities: "
        f"{', '.join(sorted(implementation.capabilities)) or '(none)'}; providers: "
        f"{', '.join(implementation.providers) or '(none)'}",
    ]
    if d.get("catalogue") and d["catalogue"] != catalogue:
        lines.append(
            f"advisor-conformance: {d['name']} was last checked against catalogue {d['catalogue']}; the rules "
            f"changed since (advisor-conformance rules --json lists them, CHANGELOG.md says what changed)"
        )
    return lines


def is_conformance_item(item: pytest.Item) -> bool:
    return Path(str(item.path)).resolve().is_relative_to(TESTS_DIR)


def strict_should(config: pytest.Config) -> bool:
    """Whether a failing test of a `should` rule fails the run (``--strict-should``) instead of warning."""
    if STRICT not in config.stash:
        config.stash[STRICT] = _settings.strict_should(config)
    return config.stash[STRICT]


def _violations(error: BaseException) -> list[RuleViolation]:
    """The rule violations of a failure: the one raised, or every leaf of an exception group when each leaf is one
    (several explicit examples of a property failing); empty when any part of the failure is not a violation."""
    if isinstance(error, RuleViolation):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        parts = [_violations(part) for part in error.exceptions]
        return [leaf for part in parts for leaf in part] if parts and all(parts) else []
    return []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Attribute a failure to the rules it breaks, apply the xfails file, and warn (not fail) for should rules."""
    report = yield
    if not is_conformance_item(item):
        return report
    if report.when != "call":
        crash = getattr(report.longrepr, "reprcrash", None)
        if report.failed and crash is not None:  # an error around the test (a fixture): named by its rules too
            _set_message(report, f"[{', '.join(rules_of(item))}] error in the test's {report.when}: {crash.message}")
        return report
    if report.failed and call.excinfo is not None and isinstance(call.excinfo.value, unittest.SkipTest):
        # a skip raised as unittest's (hypothesis does, in some versions, for a profile that runs no example of
        # a test): a skip, as newer pytest reports it
        path, line, _ = item.location
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {call.excinfo.value}")
        return report
    rules = rules_of(item)
    failed_rules = rules
    blamed: list[list[list[str]]] = [[rules]]  # for each violation: the rules the summary names, and its own
    error = call.excinfo.value if report.failed and call.excinfo is not None else None
    if isinstance(error, SnapshotReview):
        review(item, report, error)
        _xfails.judge(item, report, [])
        return report
    violations = _violations(error) if error is not None else []
    if violations:
        # A failure may be blamed on a rule the test does not carry: a precondition the test relies on (the
        # request for guidance at the end of the final message, say) checked under that rule's own name. Several
        # explicit examples failing at once (an exception group) are blamed on the rules of each of them.
        # A rule of an area the implementation does not declare is never blamed: the test's own rules are.
        declared = item.config.stash[IMPLEMENTATION].areas
        blames = [blame_of(violation, rules, declared) for violation in violations]
        failed_rules = list(dict.fromkeys(rule for named, _ in blames for rule in named))
        catalogue = load_catalogue()
        blamed = [
            [named, [rule for rule in violation.rules if rule in catalogue]]
            for (named, _), violation in zip(blames, violations, strict=True)
        ]
        unknown = list(dict.fromkeys(rule for _, strangers in blames for rule in strangers))
        put_property(report, "failed_rules", failed_rules)
        if unknown:
            put_property(report, "unknown_rules", unknown)
        checked = {rule for rule in violations[0].checked if rule in rules}
        for violation in violations[1:]:
            checked &= set(violation.checked)
        put_property(report, "checked_rules", [rule for rule in rules if rule in checked])
        more = f" (and {len(violations) - 1} more failing examples)" if len(violations) > 1 else ""
        strangers = (
            (
                f" (blamed on rule IDs the catalogue does not know: {', '.join(unknown)}; counted against "
                f"{', '.join(blames[0][0])})"
            )
            if unknown
            else ""
        )
        # the short summary shows "[rule] what", not the exception's dotted type name
        _set_message(report, f"[{', '.join(blames[0][0])}] {_without_rules(str(violations[0]))}{more}{strangers}")
    elif error is not None:
        # not a rule violation (a crash of the test, an assertion of another kind): named by the test's own rules
        crash = getattr(report.longrepr, "reprcrash", None)
        first = crash.message if crash is not None else f"{type(error).__name__}: {error}"
        _set_message(report, f"[{', '.join(rules)}] {first}")
    if report.failed and error is not None:
        failed_rules = _diagnose(item, report, rules, failed_rules)
    if report.failed:
        command = rerun_command(item)
        if command:
            report.sections.append(("rerun this test with the same examples", command))
    _xfails.judge(item, report, blamed if report.failed else [])
    if report.failed and not hasattr(report, "wasxfail") and not strict_should(item.config):
        catalogue = load_catalogue()
        if all(rule in catalogue and catalogue[rule].level == "should" for rule in failed_rules):
            report.outcome = "passed"
            put_property(report, "should_failed", True)
    return report


def _diagnose(item: pytest.Item, report: pytest.TestReport, rules: list[str], failed_rules: list[str]) -> list[str]:
    """The blame of a failed test once its calls have been replayed through the known mistakes of the rules in
    question (:mod:`._explain`): narrowed to a matching mistake's rule, the message saying so, when that leaves the
    verdict as it is."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None:
        return failed_rules
    verdict = functools.partial(_verdict, item)
    blamed, message = _explain.explain(
        item,
        report,
        _explain.implementation_of(item, item.config.stash.get(IMPLEMENTATION, None)),
        rules,
        failed_rules,
        _without_rules(crash.message),
        lambda narrowed: verdict(narrowed) == verdict(failed_rules),
    )
    if blamed != failed_rules or get_property(report, "diagnosis") is not None:
        report.user_properties[:] = [(key, value) for key, value in report.user_properties if key != "failed_rules"]
        put_property(report, "failed_rules", blamed)
        _set_message(report, message)
    return blamed


def _verdict(item: pytest.Item, blamed: list[str]) -> tuple[bool, bool]:
    """What decides a failed test's outcome besides failing: whether only `should` rules are blamed (a warning in a
    run that is not strict), and whether an entry of the xfails file covers the blame."""
    catalogue = load_catalogue()
    should = not strict_should(item.config) and all(
        rule in catalogue and catalogue[rule].level == "should" for rule in blamed
    )
    expectation = item.stash.get(_xfails.ITEM, None)
    return should, expectation is not None and expectation.covering(blamed) is not None


def blame_of(violation: RuleViolation, rules: list[str], declared: Iterable[str]) -> tuple[list[str], list[str]]:
    """The catalogue rules one violation is blamed on, and the rule IDs it names that the catalogue does not know.

    A refusal (an operation answered an error where the test expected an answer) is blamed on the rules of the test
    that made the call; so is a violation that names no catalogue rule of a ``declared`` area at all (the unknown IDs
    are reported, never dropped; a rule of an area not declared is never blamed)."""
    catalogue, declared = load_catalogue(), set(declared)
    known = [rule for rule in violation.rules if rule in catalogue and catalogue[rule].area in declared]
    unknown = [rule for rule in violation.rules if rule not in catalogue]
    if violation.refused or not known:
        return rules, unknown
    return list(dict.fromkeys(known)), unknown


_RULES_HEAD = re.compile(r"^\[[^\]\n]*\] ")


def _without_rules(message: str) -> str:
    """A violation's message without the ``[rule, ...]`` it starts with."""
    return _RULES_HEAD.sub("", message, count=1)


def _set_message(report: pytest.TestReport, message: str) -> None:
    """The failure's own message: what the short summary line and the rule report show."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        crash.message = message


def review(item: pytest.Item, report: pytest.TestReport, error: SnapshotReview) -> None:
    """A snapshot to review: the test gets the outcome ``changed`` or ``not recorded`` and the command that accepts
    the snapshot; no rule is blamed. The run fails until the snapshot is reviewed (and accepted, or the
    implementation mended): a review gate, not a rule failure. A changed snapshot's report stays failed (its diff is
    the failure's text); one not yet recorded is reported apart (``R``), so it does not stop ``-x``, and the run's
    exit status is set at its end (:func:`pytest_sessionfinish`)."""
    command = accept_command(item)
    put_property(report, "review", error.outcome)
    put_property(report, "accept", command)
    put_property(report, "accept_all", accept_command(item, every=True))
    put_property(report, "failed_rules", [])
    put_property(report, "checked_rules", [])
    message = f"[snapshot {error.outcome}] {error}\naccept it (after review): {command}"
    _set_message(report, message)
    if error.outcome == "not recorded":
        path, line, _ = item.location
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, message)


def _impl_options(config: pytest.Config) -> list[str]:
    found = config.stash[TARGET]
    return _commands.impl_options(found.value, found.source)


def accept_command(item: pytest.Item, every: bool = False) -> str:
    """The command that records (accepts) the snapshot of ``item`` (``every``: all the snapshots of its module) for
    the implementation under test, run from the project's folder."""
    config = item.config
    words = _impl_options(config)
    snapshots = read_setting(config, "conformance_snapshots")
    if snapshots is not None and snapshots.source == "flag":  # else the configuration file names the folder
        words.append(f"--impl-snapshots={snapshots.value}")
    node = suite_node_id(item)
    return _commands.pytest_command(
        [*words, "--snapshot-update"], _commands.pyargs_id(node.split("::")[0] if every else node)
    )


def rerun_command(item: pytest.Item) -> str | None:
    """For a hypothesis test: the command that runs it again with the same examples, from the project's folder (the
    ci profile draws the same ones every time; the explore profile replays a failure from its example database)."""
    if not getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        return None
    config = item.config
    words = _impl_options(config)
    for option, flag in (("hypothesis_profile", "--hypothesis-profile"), ("hypothesis_seed", "--hypothesis-seed")):
        value = config.getoption(option, None)
        if value is not None:
            words.append(f"{flag}={value}")
    if config.getoption("conformance_quick", False):
        words.append("--quick")
    return _commands.pytest_command(words, _commands.pyargs_id(suite_node_id(item)))


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """A failing `should` test is reported as warned (W), and a snapshot not yet recorded as not recorded (R), apart
    from the passes and failures."""
    if report.when == "call" and get_property(report, "should_failed", False):
        return "warned", "W", ("WARNED", {"yellow": True})
    if report.when == "call" and report.skipped and get_property(report, "review") == "not recorded":
        return "not recorded", "R", ("NOT RECORDED", {"yellow": True})
    return None


@pytest.hookimpl(tryfirst=True)  # before the JUnit XML file is written, and before the terminal's summary
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A run with snapshots not yet recorded fails (they are review items, reported apart so that ``-x`` goes on);
    the JUnit XML file leaves out hypothesis's statistics of the suite's tests (base64 blobs, one global property per
    test; a project's own tests keep theirs)."""
    tally = session.config.stash.get(TALLY, None)
    if tally is None or hasattr(session.config, "workerinput"):
        return
    if tally.snapshots()["not recorded"] and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest without it
        return
    xml = session.config.stash.get(xml_key, None)
    if xml is not None:
        ours = {f"hypothesis-statistics-{nodeid}" for nodeid in tally.tests}
        xml.global_properties[:] = [(name, value) for name, value in xml.global_properties if name not in ours]


def rules_of(item: pytest.Item) -> list[str]:
    return [mark.kwargs.get("id", mark.args[0] if mark.args else "") for mark in item.iter_markers("rule")]


def suite_node_id(item: pytest.Item) -> str:
    """A node ID that does not depend on where the suite is installed: ``test_elision.py::test_x[1001]``."""
    return Path(str(item.path)).resolve().relative_to(TESTS_DIR).as_posix() + "::" + item.nodeid.split("::", 1)[1]


@pytest.hookimpl(tryfirst=True)  # before -m and -k deselect anything
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.stash.get(IMPLEMENTATION, None) is None:
        return
    check_rules(config, items)
    apply_xfails(config, items)


class CatalogueOrder:
    """Orders the collected tests last, after pytest's own reordering (which groups tests by the parameters of
    fixtures of a wider scope) and the selection by ``-m`` and ``-k``."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        order_by_catalogue(items)


def order_by_catalogue(items: list[pytest.Item]) -> None:
    """Run the conformance tests in the catalogue's order of their rules, the simplest areas first (the transcript
    model, then the request, flattening, ...), so that ``-x`` stops at the simplest rule that fails (see
    :func:`catalogue_key`). Tests of the same key keep their collected order; the other tests of the run (a project's
    own) keep their places."""
    slots = [index for index, item in enumerate(items) if is_conformance_item(item)]
    ordered = [
        items[position] for position in sorted(slots, key=lambda position: (catalogue_key(items[position]), position))
    ]
    for slot, item in zip(slots, ordered, strict=True):
        items[slot] = item


def catalogue_key(item: pytest.Item) -> tuple[int, int, int]:
    """Where a conformance test runs: after the tests of every rule it names (by the latest of its rules in the
    catalogue), a test of one rule before one that names more, and the snapshots (review items that judge whole
    requests, not one rule) after every rule's tests."""
    order = _catalogue_order()
    ranks = [order.get(rule_id, len(order)) for rule_id in rules_of(item)]
    return int("snapshot" in getattr(item, "fixturenames", ())), max(ranks, default=len(order)), len(ranks)


@functools.cache
def _catalogue_order() -> dict[str, int]:
    return {rule_id: index for index, rule_id in enumerate(load_catalogue().rules)}


def apply_xfails(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Attach the xfails file's entries to their tests; refuse entries that can match no test of the suite, and, when
    the run collected the whole suite, entries that match no collected test."""
    entries = config.stash.get(XFAILS, [])
    suite_items = [item for item in items if is_conformance_item(item)]
    if not entries or not suite_items:  # a run of other tests (the project's own): nothing of the suite to expect
        return
    matched = _xfails.apply(entries, suite_items, suite_node_id, rules_of)
    config.stash[_CARRIED] = matched.carried
    catalogue = load_catalogue()
    whole = _collect.whole_suite(config)
    stale = [entry for entry in matched.unmatched if whole or not _could_match(entry, catalogue)]
    bad_checks = [entry for entry in entries if entry.rule and entry.rule not in catalogue]
    if stale or bad_checks:
        raise pytest.UsageError(
            "entries of the xfails file match no test of the suite (remove or fix them):\n"
            + "\n".join(f"  {entry}" for entry in dict.fromkeys([*stale, *bad_checks]))
        )


_CARRIED = pytest.StashKey[dict[int, int]]()


def _could_match(entry: _xfails.Entry, catalogue: Any) -> bool:
    """Whether an entry names something the suite has: a catalogue rule, or a test file of the suite (a run of part
    of the suite leaves the entries of its other parts alone)."""
    if not entry.is_node:
        return entry.text in catalogue
    path = entry.text.split("::", 1)[0]
    return bool(path) and ".." not in Path(path).parts and (TESTS_DIR / path).is_file()


def check_rules(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every conformance test names catalogue rules and known needs; a test whose needs (the areas of its rules, its
    ``needs`` markers: :mod:`.needs`) the implementation does not declare is skipped, naming what is missing."""
    implementation = config.stash[IMPLEMENTATION]
    catalogue = load_catalogue()
    unnamed: list[str] = []
    unknown: list[str] = []
    needs: list[str] = []
    for item in items:
        if not is_conformance_item(item):
            continue
        ids = rules_of(item)
        if not ids:
            unnamed.append(item.nodeid)
        unknown.extend(f"{item.nodeid}: {rule_id!r}" for rule_id in ids if rule_id not in catalogue)
        put_property(item, "rules", ids)
        # what the test needs (its rules' areas, its needs markers) and the implementation does not declare: a skip
        needs.extend(f"{item.nodeid}: {name}" for name in _needs.skip_unmet(item, ids, implementation))
    if unnamed or unknown or needs:
        lines = [f"  no rule marker: {nodeid}" for nodeid in unnamed] + [f"  unknown rule: {u}" for u in unknown]
        lines += [f"  unknown need: {need}" for need in needs]
        raise pytest.UsageError("conformance tests must name catalogue rules and known needs:\n" + "\n".join(lines))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """While a conformance test runs, the implementation refuses a call the test does not declare it needs."""
    implementation = item.config.stash.get(IMPLEMENTATION, None)
    if implementation is None or not is_conformance_item(item):
        return (yield)
    implementation.guard = _needs.guard(item)
    used = _explain.implementation_of(item, implementation)
    if used is not None:
        _explain.journal_on(item, used)
    try:
        return (yield)
    finally:
        implementation.guard = None
        if used is not None:
            _explain.journal_off(used)


def pytest_collection_finish(session: pytest.Session) -> None:
    carried = session.config.stash.get(_CARRIED, None)
    if carried is not None:  # after -k, -m and --deselect: the rule entries whose every test runs
        _xfails.judgeable(session.items, carried)
    tally = session.config.stash.get(TALLY, None)
    if tally is not None:
        tally.collected((item.nodeid, rules_of(item)) for item in session.items if is_conformance_item(item))
    check_snapshot_dir(session)


def check_snapshot_dir(session: pytest.Session) -> None:
    """Refuse, before any test runs, a run of the snapshot tests whose snapshot directory is the suite's own data and
    the implementation not the bundled reference, or whose ``--snapshot-update`` would write into the suite's own
    data (:func:`.snapshots.refusal`); only when a snapshot test is selected. (An xdist worker does not stop its
    session, which xdist cannot report: its snapshot tests fail at their setup naming the reason.)"""
    implementation = session.config.stash.get(IMPLEMENTATION, None)
    if (
        implementation is None
        or hasattr(session.config, "workerinput")
        or not any(
            "snapshot_dir" in getattr(item, "fixturenames", ()) for item in session.items if is_conformance_item(item)
        )
    ):
        return
    reason = _snapshots.refusal(session.config, implementation)
    if reason:
        raise pytest.UsageError(reason)


@pytest.hookimpl(tryfirst=True)  # before the terminal's banner: the first line says what is tested
def pytest_sessionstart(session: pytest.Session) -> None:
    """The run's first line names the implementation under test and where the run named it (with ``-q`` too); JUnit
    XML (``--junitxml``) names the suite, its catalogue version and the implementation, as JSON values."""
    implementation = session.config.stash.get(IMPLEMENTATION, None)
    if implementation is None:
        return
    reporter = session.config.pluginmanager.getplugin("terminalreporter")
    scope = session.config.stash.get(_collect.SCOPE, None)
    leaves_out = scope is not None and scope.source == "ini" and scope.own_paths  # the project's own tests alone
    if reporter is not None and not hasattr(session.config, "workerinput") and not leaves_out:
        other = project_names_another(session.config, session.config.stash[TARGET])
        reporter.write_line(first_line(session.config), yellow=bool(other), bold=bool(other))
    try:
        from _pytest.junitxml import (
            xml_key,  # the LogXML object; no public way to add suite properties from a plugin
        )
    except ImportError:  # pragma: no cover - a pytest without it
        return
    xml = session.config.stash.get(xml_key, None)
    if xml is None:
        return
    from .. import __version__

    d = implementation.description
    xml.add_global_property("advisor_conformance_suite", __version__)
    xml.add_global_property("advisor_conformance_catalogue", load_catalogue().version)
    xml.add_global_property(
        "advisor_conformance_implementation", json.dumps({key: d.get(key) for key in ("name", "version", "language")})
    )
