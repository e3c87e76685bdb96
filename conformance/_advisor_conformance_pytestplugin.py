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
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from _pytest.config.findpaths import load_config_dict_from_file, locate_config

ENVIRONMENT_VARIABLE = "ADVISOR_CONFORMANCE_IMPL"
#: Every environment variable of the suite; another ``ADVISOR_CONFORMANCE_*`` is a usage error naming these (a
#: misspelt ``ADVISOR_CONFORMANCE_IMP`` would otherwise leave the run to the configuration or the reference).
#: ``ADVISOR_CONFORMANCE_DIAGNOSIS=0`` turns off the diagnosis of failures by the known mistakes (see
#: :mod:`advisor_conformance._pytest_plugin.explain`).
KNOWN_VARIABLES = (ENVIRONMENT_VARIABLE, "ADVISOR_CONFORMANCE_DIAGNOSIS")
PREFIX = "ADVISOR_CONFORMANCE_"
#: The pytest configuration of `advisor-conformance run`, which names the reference when nothing else does: under
#: it, the project's own settings are read from the configuration file nearest the directory the run starts in.
RUN_INI = Path(__file__).resolve().parent / "advisor_conformance" / "pytest-run.ini"


class Setting(NamedTuple):
    """A setting's value and where it was read: ``source`` is ``flag`` (a command-line option), ``environment``,
    ``override`` (``-o name=value``), ``ini`` (the configuration ``file``) or ``default``."""

    value: Any
    source: str
    file: Path | None = None


def unknown_variables(environ: Any = None) -> list[str]:
    """The ``ADVISOR_CONFORMANCE_*`` variables of the environment that the suite does not know."""
    environ = os.environ if environ is None else environ
    return sorted(name for name in environ if name.upper().startswith(PREFIX) and name not in KNOWN_VARIABLES)


def environment_problem(environ: Any = None) -> str | None:
    """The usage error of an environment holding an unknown ``ADVISOR_CONFORMANCE_*`` variable, or None."""
    unknown = unknown_variables(environ)
    if not unknown:
        return None
    return (
        f"unknown environment variable{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: advisor-conformance "
        f"reads {', '.join(KNOWN_VARIABLES)} only (unset the others, or correct the name)"
    )


def nearest_configuration(directory: Path) -> tuple[Path | None, dict[str, Any]]:
    """The pytest configuration file nearest ``directory`` (as pytest finds it from there: ``pytest.ini``,
    ``pyproject.toml``, ``tox.ini``, ``setup.cfg``, ...) and its values, ``{}`` when there is none."""
    _, inipath, values, _ = locate_config(directory, [])
    return inipath, dict(values)


_PROJECT = pytest.StashKey[tuple[Path | None, dict[str, Any]]]()


def project_configuration(config: pytest.Config) -> tuple[Path | None, dict[str, Any]]:
    """The project's configuration file and its values: the run's own, or under `advisor-conformance run` (whose
    ini is the suite's) the one nearest the directory the run starts in."""
    if _PROJECT not in config.stash:
        inipath = config.inipath
        if inipath is not None and inipath.resolve() == RUN_INI:
            config.stash[_PROJECT] = nearest_configuration(config.invocation_params.dir)
        elif inipath is not None:
            config.stash[_PROJECT] = (inipath, dict(load_config_dict_from_file(inipath) or {}))
        else:
            config.stash[_PROJECT] = (None, {})
    return config.stash[_PROJECT]


def ini_setting(config: pytest.Config, name: str) -> Setting | None:
    """An ini key's value as the run reads it: ``-o name=value``, else the project's configuration file (under
    `advisor-conformance run`, the file nearest the starting directory), else the run's own ini (the default);
    None when none sets it. Values are as the file holds them (a string, or in TOML mode any TOML value)."""
    for item in reversed(config.option.override_ini or ()):
        key, sep, value = str(item).partition("=")
        if sep and key.strip() == name:
            return Setting(value, "override")
    inipath, values = project_configuration(config)
    if name in values:
        return Setting(getattr(values[name], "value", values[name]), "ini", inipath)
    if config.inipath is not None and config.inipath.resolve() == RUN_INI:
        own = dict(load_config_dict_from_file(RUN_INI) or {})
        if name in own:
            return Setting(getattr(own[name], "value", own[name]), "default", RUN_INI)
    return None


def resolve_target(flag: str | None, directory: Path, environ: Any = None) -> Setting | None:
    """The implementation a command outside pytest runs, resolved as a pytest run resolves it: ``flag``, else the
    environment variable, else ``conformance_impl`` of the configuration file nearest ``directory``; None when none
    names one; a ``ValueError`` naming the file when its value is not a string."""
    environ = os.environ if environ is None else environ
    if flag is not None and str(flag).strip():
        return Setting(str(flag).strip(), "flag")
    if str(environ.get(ENVIRONMENT_VARIABLE, "")).strip():
        return Setting(environ[ENVIRONMENT_VARIABLE].strip(), "environment")
    inipath, values = nearest_configuration(directory)
    value = values.get("conformance_impl")
    if value is None:
        return None
    raw = getattr(value, "value", value)
    if not isinstance(raw, str):
        raise ValueError(
            f"conformance_impl ({inipath}): expects a string naming the implementation, got {type(raw).__name__}: "
            f"{raw!r}"
        )
    return Setting(raw.strip(), "ini", inipath) if raw.strip() else None


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
        "in the project's folder, that of its configuration file, else where pytest runs; the reference uses the "
        "snapshots shipped with the suite); in the ini file, relative to the file's folder",
    )
    group.addoption(
        "--quick",
        dest="conformance_quick",
        action="store_true",
        default=False,
        help="the fast loop: the deterministic tests alone (the parametrized ones and every explicit example of the "
        "property tests; hypothesis profile advisor-conformance-explicit), no drawn example; a run without it draws "
        "them too",
    )
    group.addoption(
        "--rule-summary", action="store_true", default=False, help="end the run with a per-rule summary table"
    )
    group.addoption("--rule-report", metavar="FILE", default=None, help="write per-rule and per-test outcomes as JSON")
    group.addoption(
        "--xfails-file",
        metavar="FILE",
        default=None,
        help="expected failures: per line a rule ID, a test's node ID, or a node ID and a rule ID; '#' comments; "
        "an entry that can match no test of the suite, a listed test that passes, or a rule entry whose tests all "
        "pass is an error (in the ini file conformance_xfails_file, relative to the file's folder)",
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
        help="for a cmd: target, how long an operation may take before the harness is stopped (default 60; above 0, "
        "at most 86400)",
    )
    parser.addini("conformance_impl", "implementation the conformance suite runs against when --impl is not given")
    parser.addini("conformance_snapshots", "directory of the implementation's snapshots (see --impl-snapshots)")
    parser.addini("conformance_harness_timeout", "see --harness-timeout", default="60")
    parser.addini("conformance_xfails_file", "see --xfails-file")
    parser.addini("conformance_strict_should", "see --strict-should", default="false")


def named(config: pytest.Config) -> Setting | None:
    """The implementation this run tests and where it was named, in this order of precedence: ``--impl``,
    ``$ADVISOR_CONFORMANCE_IMPL``, ``-o conformance_impl=...``, the project's configuration file (``conformance_impl``;
    under `advisor-conformance run`, the file nearest the directory it starts in), the default of `advisor-conformance
    run` (the reference); None when the run does not ask for the suite."""
    flag = config.getoption("conformance_impl")
    if flag is not None and str(flag).strip():
        return Setting(str(flag).strip(), "flag")
    if os.environ.get(ENVIRONMENT_VARIABLE, "").strip():
        return Setting(os.environ[ENVIRONMENT_VARIABLE].strip(), "environment")
    found = ini_setting(config, "conformance_impl")
    if found is None:
        return None
    if not isinstance(found.value, str):
        raise pytest.UsageError(
            f"conformance_impl ({found.file or '-o'}): expects a string naming the implementation, got "
            f"{type(found.value).__name__}: {found.value!r}"
        )
    return found._replace(value=found.value.strip()) if found.value.strip() else None


def named_target(config: pytest.Config) -> tuple[str, str]:
    """The implementation this run tests and the kind of source that named it (``flag``, ``environment``,
    ``override``, ``ini`` or ``default``); ``("", "")`` when the run does not ask for the suite."""
    found = named(config)
    return (found.value, found.source) if found is not None else ("", "")


def target_of(config: pytest.Config) -> str:
    """The implementation this run tests, or an empty string when the run does not ask for the suite."""
    return named_target(config)[0]


@pytest.hookimpl(tryfirst=True)  # before hypothesis's plugin loads a --hypothesis-profile of ours
def pytest_configure(config: pytest.Config) -> None:
    problem = environment_problem()
    if problem:
        raise pytest.UsageError(problem)
    if not target_of(config):
        return
    from advisor_conformance._pytest_plugin import plugin as _plugin

    _plugin.register_profiles()
    if not config.pluginmanager.is_registered(_plugin):  # `-p advisor_conformance._pytest_plugin.plugin` did
        config.pluginmanager.register(_plugin, "advisor-conformance-suite")
