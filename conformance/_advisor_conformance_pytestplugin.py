"""The pytest entry point of advisor-conformance: options only, until a run asks for the suite.

pytest loads this module (the ``pytest11`` entry point) in every run of an
environment where advisor-conformance is installed, so it imports nothing but
pytest and registers nothing else: it adds the suite's command-line options
and ini keys. Only when a run names an implementation (``--impl``, the
``ADVISOR_CONFORMANCE_IMPL`` environment variable, or the ``conformance_impl``
ini key, in that order of precedence) does it import the suite's plugin
(:mod:`advisor_conformance._pytest_plugin.plugin`), register the suite's hypothesis profiles
and hand the run over to it. Hypothesis's own ``_hypothesis_pytestplugin`` is
the model.
"""

from __future__ import annotations

import os

import pytest

ENVIRONMENT_VARIABLE = "ADVISOR_CONFORMANCE_IMPL"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("advisor-conformance", "advisor conformance suite")
    group.addoption(
        "--impl",
        dest="conformance_impl",
        metavar="TARGET",
        default=None,
        help="run the advisor conformance suite against TARGET: 'reference', 'package.module[:object]' naming a "
        "Python adapter, or 'cmd:COMMAND LINE' starting a harness that speaks the protocol on stdin/stdout "
        f"(also ${ENVIRONMENT_VARIABLE}, or the ini key conformance_impl; this option wins over both)",
    )
    group.addoption(
        "--impl-snapshots",
        dest="conformance_snapshots",
        metavar="DIR",
        default=None,
        help="directory of the implementation's syrupy snapshots (default: snapshots/<implementation name>/ "
        "under the directory pytest runs in; the reference uses the snapshots shipped with the suite)",
    )
    group.addoption(
        "--rule-summary", action="store_true", default=False, help="end the run with a per-rule summary table"
    )
    group.addoption("--rule-report", metavar="FILE", default=None, help="write per-rule and per-test outcomes as JSON")
    group.addoption(
        "--xfails-file",
        metavar="FILE",
        default=None,
        help="expected failures: one rule ID or test node ID per line, '#' comments; an entry that matches no "
        "test, or a listed test that passes, is an error",
    )
    group.addoption(
        "--strict-should",
        action="store_true",
        default=False,
        help="a failing test of a `should` rule (our recommendation where the spec is silent) fails the run "
        "instead of warning (also the ini key conformance_strict_should = true)",
    )
    group.addoption(
        "--harness-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="for a cmd: target, how long an operation may take before the harness is stopped (default 60)",
    )
    parser.addini("conformance_impl", "implementation the conformance suite runs against when --impl is not given")
    parser.addini("conformance_snapshots", "directory of the implementation's snapshots (see --impl-snapshots)")
    parser.addini("conformance_harness_timeout", "see --harness-timeout", default="60")
    parser.addini("conformance_xfails_file", "see --xfails-file")
    parser.addini("conformance_strict_should", "see --strict-should", default="false")


def named_target(config: pytest.Config) -> tuple[str, str]:
    """The implementation this run tests and where it was named: ``("myadvisor.adapter", "flag")``, the source being
    ``flag`` (``--impl``), ``environment`` (``$ADVISOR_CONFORMANCE_IMPL``) or ``ini`` (``conformance_impl``), in that
    order of precedence; ``("", "")`` when the run does not ask for the suite."""
    for source, value in (
        ("flag", config.getoption("conformance_impl")),
        ("environment", os.environ.get(ENVIRONMENT_VARIABLE)),
        ("ini", config.getini("conformance_impl")),
    ):
        if value and str(value).strip():
            return str(value).strip(), source
    return "", ""


def target_of(config: pytest.Config) -> str:
    """The implementation this run tests, or an empty string when the run does not ask for the suite."""
    return named_target(config)[0]


@pytest.hookimpl(tryfirst=True)  # before hypothesis's plugin loads a --hypothesis-profile of ours
def pytest_configure(config: pytest.Config) -> None:
    if not target_of(config):
        return
    from advisor_conformance._pytest_plugin import plugin as _plugin

    _plugin.register_profiles()
    if not config.pluginmanager.is_registered(_plugin):  # `-p advisor_conformance._pytest_plugin.plugin` did
        config.pluginmanager.register(_plugin, "advisor-conformance-suite")
