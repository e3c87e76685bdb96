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
import os
import re
import shlex
import unittest
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

from _advisor_conformance_pytestplugin import (
    ENVIRONMENT_VARIABLE,
    named_target,
    target_of,
)

from .._contract.implementation import Implementation, TargetError, load_target
from .._contract.protocol import AREA_OPERATIONS, CAPABILITIES, PROVIDERS
from .._paths import RUN_INI, TESTS_DIR
from ..catalogue import load_catalogue
from ..checks import RuleViolation, SnapshotReview
from . import collect as _collect
from . import markers as _markers
from . import needs as _needs
from . import terminal as _terminal
from . import xfails as _xfails
from .reporting import RuleTally, get_property, put_property

IMPLEMENTATION = pytest.StashKey[Implementation]()
ORIGIN = pytest.StashKey[str]()  # where the run named its implementation: the flag, the environment or an ini key
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
    target, source = named_target(config)
    if not target:
        return
    config.addinivalue_line(
        "markers",
        "rule(id, area, level): the catalogue rule a conformance test checks (select with "
        "-m 'rule(id=\"elision.marker-format\")', -m 'rule(area=\"elision\")' or -m 'rule(level=\"must\")')",
    )
    origin = origin_of(config, target, source)
    _markers.check_expression(config)
    config.addinivalue_line("markers", _needs.MARKER)
    timeout = config.getoption("harness_timeout") or float(config.getini("conformance_harness_timeout"))
    try:
        implementation = load_target(
            target, harness_timeout=timeout, cwd=str(config.invocation_params.dir), origin=origin
        )
    except TargetError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[IMPLEMENTATION] = implementation
    config.stash[ORIGIN] = origin
    check_areas(implementation)
    _collect.plan(config, target, source, origin)
    for module in (_collect, _markers, _terminal):
        config.pluginmanager.register(module, "advisor-conformance-" + module.__name__.rsplit(".", 1)[1].lstrip("_"))
    # syrupy expects a snapshot report from each xdist worker, also when --collect-only or a usage error runs none;
    # it then skips its detection of unused snapshots (which the suite does not use): not an error of the run under
    # `filterwarnings = error`
    config.addinivalue_line("filterwarnings", f"ignore:{SYRUPY_MISSING_WORKERS}:UserWarning")
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(CI_PROFILE)
    tally = RuleTally(
        load_catalogue(),
        config.stash[IMPLEMENTATION].description,
        target=target,
        arguments=list(config.invocation_params.args),
        strict=strict_should(config),
    )
    config.stash[TALLY] = tally
    config.pluginmanager.register(tally, "advisor-conformance-tally")
    config.pluginmanager.register(CatalogueOrder(), "advisor-conformance-order")


def origin_of(config: pytest.Config, target: str, source: str) -> str:
    """Where the run named its implementation, as the user wrote it: ``--impl=X``, ``ADVISOR_CONFORMANCE_IMPL=X``,
    ``conformance_impl = X (pyproject.toml)``, ``-o conformance_impl=X``, or the default of ``advisor-conformance
    run``."""
    if source == "flag":
        return f"--impl={target}"
    if source == "environment":
        return f"{ENVIRONMENT_VARIABLE}={target}"
    if any(str(value).split("=", 1)[0].strip() == "conformance_impl" for value in config.option.override_ini or ()):
        return f"-o conformance_impl={target}"
    inipath = config.inipath
    if inipath is not None and inipath.resolve() == RUN_INI:
        return f"the default of advisor-conformance run ({target})"
    return f"conformance_impl = {target} ({inipath.name if inipath else 'the ini file'})"


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


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    implementation = config.stash.get(IMPLEMENTATION, None)
    if implementation is None:
        return None
    from .. import __version__

    d = implementation.description
    catalogue = load_catalogue().version
    lines = [
        f"advisor-conformance {__version__}, catalogue {catalogue}: implementation under test: {d['name']} "
        f"{d['version']} ({d['language']}), from {config.stash[ORIGIN]}",
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
    ini = str(config.getini("conformance_strict_should")).strip().lower()
    return bool(config.getoption("strict_should")) or ini in ("1", "true", "yes", "on")


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
    if report.failed:
        command = rerun_command(item)
        if command:
            report.sections.append(("rerun this test with the same examples", command))
    _xfails.judge(item, report, failed_rules if report.failed else [])
    if report.failed and not hasattr(report, "wasxfail") and not strict_should(item.config):
        catalogue = load_catalogue()
        if all(rule in catalogue and catalogue[rule].level == "should" for rule in failed_rules):
            report.outcome = "passed"
            put_property(report, "should_failed", True)
    return report


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
    the snapshot; no rule is blamed. The report stays failed, so the run fails until the snapshot is reviewed (and
    accepted, or the implementation mended): a review gate, not a rule failure."""
    command = accept_command(item)
    put_property(report, "review", error.outcome)
    put_property(report, "accept", command)
    put_property(report, "accept_all", accept_command(item, every=True))
    put_property(report, "failed_rules", [])
    put_property(report, "checked_rules", [])
    _set_message(report, f"[snapshot {error.outcome}] {error}\naccept it (after review): {command}")


def accept_command(item: pytest.Item, every: bool = False) -> str:
    """The command that records (accepts) the snapshot of ``item`` (``every``: all the snapshots of its module) for
    the implementation under test."""
    config = item.config
    path = os.path.relpath(str(item.path), str(config.invocation_params.dir))
    words = ["python", "-m", "pytest", f"--impl={target_of(config)}"]
    snapshots = config.getoption("conformance_snapshots", None) or config.getini("conformance_snapshots")
    if snapshots:
        words.append(f"--impl-snapshots={snapshots}")
    return shlex.join([*words, "--snapshot-update", path if every else f"{path}::{item.nodeid.split('::', 1)[1]}"])


def rerun_command(item: pytest.Item) -> str | None:
    """For a hypothesis test: the command that runs it again with the same examples (the ci profile draws the same
    ones every time; the explore profile replays a failure from its example database)."""
    if not getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        return None
    config = item.config
    path = os.path.relpath(str(item.path), str(config.invocation_params.dir))
    words = ["python", "-m", "pytest", f"--impl={target_of(config)}", f"{path}::{item.nodeid.split('::', 1)[1]}"]
    for option, flag in (("hypothesis_profile", "--hypothesis-profile"), ("hypothesis_seed", "--hypothesis-seed")):
        value = config.getoption(option, None)
        if value is not None:
            words.insert(-1, f"{flag}={value}")
    return shlex.join(words)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """A failing `should` test is reported as warned (W), apart from the passes and failures."""
    if report.when == "call" and get_property(report, "should_failed", False):
        return "warned", "W", ("WARNED", {"yellow": True})
    return None


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
    """Attach the xfails file's entries to their tests; refuse entries that match no collected test."""
    option = config.getoption("xfails_file") or config.getini("conformance_xfails_file")
    if not option:
        return
    path = config.invocation_params.dir / option
    if not path.is_file():
        raise pytest.UsageError(f"--xfails-file {option}: no such file")
    entries = _xfails.read(path, option)
    suite_items = [item for item in items if is_conformance_item(item)]
    if not suite_items:  # a run of other tests (the project's own): nothing of the suite to expect
        return
    stale = _xfails.apply(entries, suite_items, suite_node_id, rules_of)
    if stale:
        raise pytest.UsageError(
            "entries of the xfails file match no test (remove or fix them):\n"
            + "\n".join(f"  {entry}" for entry in stale)
        )
    config.pluginmanager.register(_xfails.Ledger(entries), "advisor-conformance-xfails")


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
    try:
        return (yield)
    finally:
        implementation.guard = None


def pytest_collection_finish(session: pytest.Session) -> None:
    tally = session.config.stash.get(TALLY, None)
    if tally is not None:
        tally.collected((item.nodeid, rules_of(item)) for item in session.items if is_conformance_item(item))


def pytest_sessionstart(session: pytest.Session) -> None:
    """JUnit XML (``--junitxml``) names the suite, its catalogue version and the implementation, as JSON values."""
    try:
        from _pytest.junitxml import (
            xml_key,  # the LogXML object; no public way to add suite properties from a plugin
        )
    except ImportError:  # pragma: no cover - a pytest without it
        return
    xml = session.config.stash.get(xml_key, None)
    implementation = session.config.stash.get(IMPLEMENTATION, None)
    if xml is None or implementation is None:
        return
    from .. import __version__

    d = implementation.description
    xml.add_global_property("advisor_conformance_suite", __version__)
    xml.add_global_property("advisor_conformance_catalogue", load_catalogue().version)
    xml.add_global_property(
        "advisor_conformance_implementation", json.dumps({key: d.get(key) for key in ("name", "version", "language")})
    )
