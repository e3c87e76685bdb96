"""What a provider failure scripted by the scenario reports (streaming.failure-report), with no HTTP: the protocol's
`provider_reply.error` is "the provider call fails with this message", the stand-in for an error body.
"""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import call, error_of, failure, run, scenario

RULE = "streaming.failure-report"
#: The scripted failure's message: short, so no excerpt cuts it, and holding no credential.
MESSAGE = "upstream overloaded: request 7f3a9c queued too long"


@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("reply", [failure(MESSAGE, 503), {"error": MESSAGE}], ids=["with-status", "no-status"])
def test_scripted_failure_reports_its_message(impl, reply):
    """A provider call scripted to fail with a message, with a status or none, is a provider_error whose message holds
    the scripted message."""
    params = scenario([{"call": call(provider=[reply])}])
    answer = run(impl, params, RULE)
    error = error_of(answer, 0, RULE, params)
    check_equal(error.get("code"), "provider_error", RULE, "a scripted provider failure is not a provider_error",
                input=params, actual=error)
    check(MESSAGE in str(error.get("message", "")), RULE, "the error does not say what happened: the scripted "
          "failure's message is not in it", input=params, expected=MESSAGE, actual=error)
