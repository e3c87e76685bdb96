"""Fixtures of the conformance tests: the implementation under test and what it declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.loopback import LoopbackProvider, Reply, loopback, take_overrun
from advisor_conformance._pytest_plugin import snapshots
from advisor_conformance._pytest_plugin.plugin import IMPLEMENTATION, rules_of
from advisor_conformance.checks import violation
from advisor_conformance.event_streams import StreamForm, form_for


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


def test_id(nodeid: str) -> str:
    """A test's ID inside the suite (``area/test_module.py::test_name[params]``), wherever the suite is installed."""
    path, sep, rest = nodeid.partition("::")
    return path.rpartition("tests/")[2] + sep + rest


@pytest.fixture
def stream_form(request: pytest.FixtureRequest) -> StreamForm:
    """The form this test serves its event streams in (``advisor_conformance.event_streams.form_for``), for a test's
    own server: the loopback provider (``lb``) serves every stream in it by itself."""
    form = form_for(test_id(request.node.nodeid))
    request.node.add_report_section(
        "setup", "event streams", f"every event stream of this test is served as {form.name} (framing/reads)"
    )
    return form


@pytest.fixture
def lb(loopback_server: LoopbackProvider, stream_form: StreamForm) -> LoopbackProvider:
    """The loopback provider with an empty script and no recorded requests. Every event stream it serves in this test
    comes in the test's form (``advisor_conformance.event_streams.form_for``): written in one of the framings the
    format allows and cut into reads at adversarial places, which a reader of the standard reads alike; a failing
    test's report names the form."""

    def deliver(reply: Reply) -> list[bytes]:
        return stream_form.serve(reply.body, reframed=not reply.framed)

    loopback_server.deliver = deliver
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
