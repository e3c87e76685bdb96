"""Fixtures of the conformance tests: the implementation under test and what it declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.loopback import LoopbackProvider, Reply, loopback
from advisor_conformance._paths import reference_snapshots_dir
from advisor_conformance._pytest_plugin.plugin import IMPLEMENTATION
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
    """Where this implementation's syrupy snapshots live."""
    configured = pytestconfig.getoption("conformance_snapshots") or pytestconfig.getini("conformance_snapshots")
    if configured:
        return (pytestconfig.invocation_params.dir / configured).resolve()
    if impl.name == "reference":  # the reference, in process or through its harness
        return reference_snapshots_dir()
    return pytestconfig.invocation_params.dir / "snapshots" / impl.name


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
