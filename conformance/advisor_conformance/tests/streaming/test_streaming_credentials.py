"""The call's credentials stay out of the error of a failed call (streaming.failure-no-credentials, a `should`).

A provider's 401 often echoes the key it was sent (whole, or cut off by the provider itself), an excerpt may cut a
key in two, an error event inside a stream may quote it, and a refused connection may be reported with the base URL,
user info and query string included. The error goes back to the model and into logs, so no credential of 8
characters or more (the API key; the base URL's user name, password and query values) may be in it, whole or as the
start of one, 8 characters or more, where a text was cut (before its end, an ellipsis or a closing quote).

The keys here have no prefix shared with anything else in the exchange (no `sk-...`): the start of one appears in an
error only if the implementation put it there. Black-box: the implementation calls the suite's loopback provider on 127.0.0.1.
"""

from __future__ import annotations

import json

import pytest

from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import Reply, call, refused_url, scenario

from ..common.providers import speaks
from .calls import PROVIDERS
from .deltas import AFTER_FIRST_DELTA, TEXT, _stream, _with_event

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

RULE = "streaming.failure-no-credentials"
#: The API key each scenario sends (32 characters, no prefix shared with anything else in the exchange).
KEY = "k7Q2vN9xL4pR8mT1wY6zB3cD5fG0hJ2a"
#: The base URL's credentials, for the connection that is refused.
USER = "agentbot4Xq"
PASSWORD = "Pw8rT3nY6kL1zV5c"
QUERY_KEY = "Qk2M7sD9fH4jL6nP"
#: The shortest start of a cut credential the rule forbids.
PIECE = 8
#: What may follow the place where a text was cut: its end, an ellipsis, a closing quote.
CUT_ENDS = ("", "…", "...", '"', "'", '\\"')


def _leak(text: str, secrets) -> str | None:
    """A credential of ``secrets`` that ``text`` holds whole, or the start of one (PIECE characters or more) where a
    text was cut; None when there is none."""
    for secret in secrets:
        if secret in text:
            return secret
        for size in range(len(secret) - 1, PIECE - 1, -1):
            start = text.find(secret[:size])
            while start != -1:
                after = text[start + size:]
                if any(after.startswith(end) for end in CUT_ENDS if end) or not after:
                    return secret[:size]
                start = text.find(secret[:size], start + 1)
    return None


def _params(provider, base_url, reasoning):
    http = {"kind": provider, "base_url": base_url, "timeout_ms": 5000, "api_key": KEY}
    return scenario([{"call": call(provider=[])}], runtime={"http_provider": http, "reasoning": reasoning,
                                                              "session_id": "sess-keys"})


def _error(impl, params, shown, fails_by="streaming.failure-report"):
    """The error the failed call (or the refused scenario) answered: a failed call is a provider_error. A call that
    answers a note instead breaks ``fails_by``, the rule that makes this answer of the provider a failure (an error
    event inside a stream: the rule that reads the provider's stream)."""
    answer = answer_of(impl, "scenario", params, [RULE, "streaming.failure-report"])
    if "error" in answer:  # a scenario refused as a whole (a base URL with credentials, say): its error counts
        return answer["error"]
    calls = answer.get("calls") or []
    check(len(calls) == 1 and "error" in calls[0], fails_by, "the call answered a note, not an error",
          input=shown, actual=calls)
    error = calls[0]["error"]
    check_equal(error.get("code"), "provider_error", "streaming.failure-report", "the failed call is not a "
                "provider_error", input=shown, actual=error)
    return error


def _no_credentials(error, secrets, shown, what):
    text = json.dumps(error, ensure_ascii=False)
    piece = _leak(text, secrets)
    at = text.find(piece) if piece else -1
    check(piece is None, RULE, f"the error of {what} holds {piece!r}, a credential of the call or its cut start, "
          f"at offset {at} of the error: ...{text[max(0, at - 60):at + 60]}...", input=shown, actual=error)


# -- the provider echoes the key ---------------------------------------------------------------------------------------

ECHOES = {
    "json-message": (401, json.dumps({"error": {"type": "authentication_error",
                                                "message": f"Incorrect API key provided: {KEY}. Check your key."}})),
    "plain-text": (403, f"forbidden: invalid x-api-key {KEY} for this organisation"),
    # The words of the authentication schemes before ordinary words (a redactor of `Bearer <token>` meets them) and
    # the key itself after a header name.
    "scheme-words": (401, f"Bearer authentication failed; Basic auth is not accepted; Authorization: Bearer {KEY}"),
    "json-message-cut-by-the-provider": (401, json.dumps({"error": {"message": f"Incorrect API key: {KEY[:20]}…"}},
                                                         ensure_ascii=False)),
    "plain-text-ending-in-a-cut-key": (401, f"unauthorized; the key begins {KEY[:14]}"),
    # The start of the key once where nothing was cut (the rule leaves that one alone), then seven cut copies, one
    # of them a character short of the whole key: every cut copy must go, however many there are.
    "several-cut-copies": (401, f"key {KEY[:20]} is not valid; tried " + " then ".join([f"{KEY[:20]}…"] * 6)
                           + f" and {KEY[:-1]}…"),
}


@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("reasoning", [None, "low"], ids=["plain-call", "stream"])
@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_an_error_body_that_echoes_the_key_keeps_it_out_of_the_error(impl, lb, provider, reasoning, echo):
    """An HTTP error whose body quotes the API key, whole or cut off by the provider, fails the call with an error that
    holds neither the key nor its cut start, on a plain call and on a stream, whatever the body's shape."""
    status, body = ECHOES[echo]
    lb.expect(Reply(status, body, "application/json" if body.startswith("{") else "text/plain"))
    params = _params(provider, lb.base_url, reasoning)
    shown = {"scenario": params, "answered": f"HTTP {status}: {body}"}
    _no_credentials(_error(impl, params, shown), [KEY], shown, f"an HTTP {status} that echoes the key")


@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("provider, reasoning", [("openai", None), ("anthropic", "low")], ids=["plain-call", "stream"])
@pytest.mark.parametrize("pad", [0, 11, 22])
def test_a_key_cut_by_the_excerpt_leaves_no_piece_of_it(impl, lb, provider, reasoning, pad):
    """An HTTP error whose long body repeats the key, shifted by a pad, leaves neither the key nor its cut start in the
    error, wherever the implementation cuts its excerpt (of three pads 11 characters apart, one cuts a key 8 or more
    characters in)."""
    body = "z" * pad + f"{KEY} " * 300  # about 10 KB: an excerpt of it ends inside some key
    lb.expect(Reply(500, body, "text/plain"))
    params = _params(provider, lb.base_url, reasoning)
    shown = {"scenario": params, "answered": f"HTTP 500, {len(body)} characters: {pad} z, then the key and a space, "
                                             f"300 times"}
    _no_credentials(_error(impl, params, shown), [KEY], shown, "an HTTP 500 whose long body repeats the key")


# -- an error event inside a stream quotes the key ---------------------------------------------------------------------

def _error_event(provider):
    message = f"invalid api key {KEY}"
    if provider == "anthropic":
        return "event: error\ndata: " + json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                                              "message": message}}) + "\n\n"
    if provider == "openai":
        return "data: " + json.dumps({"error": {"type": "invalid_request_error", "message": message}}) + "\n\n"
    return "event: error\ndata: " + json.dumps({"type": "error", "code": "invalid_api_key", "message": message}) + "\n\n"


@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_error_event_that_quotes_the_key_keeps_it_out_of_the_error(impl, lb, provider):
    """An error event inside a stream that quotes the API key fails the call with an error that does not hold it."""
    answered = _with_event(_stream(provider, TEXT), _error_event(provider), AFTER_FIRST_DELTA[provider])
    lb.expect(answered)
    params = _params(provider, lb.base_url, "high")
    shown = {"scenario": params, "answered": answered.body[:3000]}
    reader = "streaming.anthropic-events" if provider == "anthropic" else "streaming.openai-chunks"
    _no_credentials(_error(impl, params, shown, reader), [KEY], shown, "a stream whose error event quotes the key")


# -- the base URL carries credentials ----------------------------------------------------------------------------------

@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("where", ["user-info", "query"])
@speaks("anthropic")
def test_a_base_url_with_credentials_keeps_them_out_of_the_error(impl, where):
    """A call to a base URL that carries a user name and password, or a key in its query string, and on which the
    connection is refused, fails with an error (or the scenario is refused) that holds none of them."""
    refused = refused_url()
    if where == "user-info":
        base_url, secrets = refused.replace("http://", f"http://{USER}:{PASSWORD}@"), [USER, PASSWORD, KEY]
    else:
        base_url, secrets = f"{refused}/v1?key={QUERY_KEY}", [QUERY_KEY, KEY]
    params = _params("anthropic", base_url, None)
    shown = {"scenario": params, "answered": "nothing listens at the base URL: the connection is refused"}
    _no_credentials(_error(impl, params, shown), secrets, shown, f"a refused connection to a base URL with {where}")
