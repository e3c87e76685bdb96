"""Fixtures of the conformance tests: the implementation under test and what it declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.loopback import LoopbackProvider, loopback, take_overrun
from advisor_conformance._pytest_plugin import snapshots
from advisor_conformance._pytest_plugin.plugin import IMPLEMENTATION, rules_of
from advisor_conformance.checks import violation


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
    """Where this implementation's syrupy snapshots live (the shipped ones only for the bundled reference itself)."""
    reason = snapshots.refusal(pytestconfig, impl)  # a usage error before the run, but under xdist
    if reason:
        pytest.fail(reason, pytrace=False)
    return snapshots.snapshot_dir(pytestconfig, impl)


@pytest.fixture(scope="session")
def loopback_server():
    """One loopback provider on 127.0.0.1 for the session (starting one costs half a second)."""
    with loopback() as provider:
        yield provider


@pytest.fixture
def lb(loopback_server: LoopbackProvider) -> LoopbackProvider:
    """The loopback provider with an empty script and no recorded requests."""
    return loopback_server.expect()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A test during which the implementation sent the loopback provider more than it takes (a body over its limit,
    more requests than it keeps) fails naming that, and the rules of the test, whatever else the test saw."""
    server = getattr(item, "funcargs", {}).get("loopback_server")
    if server is not None:
        server.server.reset()
    try:
        return (yield)
    finally:
        overrun = take_overrun(server.server, item.name) if server is not None else None
        if overrun is not None:
            raise violation(rules_of(item), overrun)
