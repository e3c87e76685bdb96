"""Every channel from the implementation under test to the suite is bounded, through real runs: a request body over
the loopback provider's limit fails the test that sent it, with a bounded message naming what happened, and a name
too long for the protocol stops the run before any test (the bounds themselves: tests/suite/test_loopback.py;
harness lines: tests/suite/test_transport.py)."""

from __future__ import annotations

import pytest

from advisor_conformance._contract.implementation import TargetError, load_target
from advisor_conformance._contract.loopback import MAX_REQUEST_BYTES

from ..support.runner import SUITE, run_pytest


def test_a_request_body_over_the_loopbacks_limit_fails_its_test_naming_it():
    """An implementation whose HTTP requests carry a 12 MiB body fails the handler test over HTTP (its OpenAI case):
    the failure names the loopback's limit, the 413 and the test's own rule, in a bounded message."""
    run = run_pytest(
        f"{SUITE}/handler/test_handler_notes.py",
        "--impl=tests.fakes.flooding:HugeRequestBody",
        "-q",
        "-k",
        "test_answer_over_http_is_trimmed and openai",
    )
    failed = run.failed_tests()
    assert run.report is not None and failed, run.stdout[-2000:] + run.stderr[-2000:]
    for test in failed:
        message = test["message"]
        assert test["failed_rules"] == ["handler.note-trimmed"], test
        assert "loopback" in message and str(MAX_REQUEST_BYTES) in message and "413" in message, message[:2000]
        assert len(message) < 20_000, len(message)


def test_a_name_longer_than_the_protocol_allows_stops_the_run_in_a_bounded_message():
    """An implementation that names itself in a million characters (shown in the header, every skip reason and the
    reports) is refused when it describes itself (a usage error, in process as through a harness), in a message far
    shorter than the name."""
    with pytest.raises(TargetError) as refused:
        load_target("tests.fakes.flooding:LongName")
    assert "name" in str(refused.value) and len(str(refused.value)) < 5_000, str(refused.value)[:5_000]
