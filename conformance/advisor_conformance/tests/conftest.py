"""Fixtures of the conformance tests: the implementation under test and what it declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.loopback import LoopbackProvider, loopback
from advisor_conformance._paths import reference_snapshots_dir
from advisor_conformance._pytest_plugin.plugin import IMPLEMENTATION, project_dir, snapshots_setting


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test (``--impl``)."""
    implementation = pytestconfig.stash.get(IMPLEMENTATION, None)
    if implementation is None:
        pytest.fail("the conformance suite needs an implementation: run pytest with --impl=<target>", pytrace=False)
    return implementation


@pytest.fixture(scope="session")
def strings(impl: Implementation) -> dict[str, str]:
    """The implementation's declared strings (system prompt, labels, notices)."""
    return impl.strings


@pytest.fixture(scope="session")
def snapshot_dir(pytestconfig: pytest.Config, impl: Implementation) -> Path:
    """Where this implementation's syrupy snapshots live."""
    configured = snapshots_setting(pytestconfig)  # from the folder of the file that names it, checked
    if configured is not None:
        return configured
    if impl.name == "reference":  # the reference, in process or through its harness
        return reference_snapshots_dir()
    return project_dir(pytestconfig) / "snapshots" / impl.name


@pytest.fixture(scope="session")
def loopback_server():
    """One loopback provider on 127.0.0.1 for the session (starting one costs half a second)."""
    with loopback() as provider:
        yield provider


@pytest.fixture
def lb(loopback_server: LoopbackProvider) -> LoopbackProvider:
    """The loopback provider with an empty script and no recorded requests."""
    return loopback_server.expect()
