"""advisor_reference._redact: credentials out of error text, whatever form they come in."""

from __future__ import annotations

import pytest

from advisor_reference._redact import REDACTED, display_url, redact, url_secrets

KEY = "sk-ant-0123456789abcdef"


@pytest.mark.parametrize(
    "text, secret",
    [
        (f"invalid x-api-key {KEY} given", KEY),
        (f'{{"api_key": "{KEY}"}}', KEY),
        (f"Authorization: Bearer {KEY}", KEY),
        ("authorization=Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
        ("x-api-key: another-secret-value", "another-secret-value"),
        ("see https://bob:hunter22@gw.test/v1 now", "hunter22"),
        ("see https://gw.test/v1?api-version=1&key=qs-token-123 now", "qs-token-123"),
        ("token=abc123def; path=/", "abc123def"),
        (f"quoted {KEY[:12]}…", KEY[:12]),
        (f"'data: {KEY[:9]}'", KEY[:9]),
        (f"ends with {KEY[:6]}", KEY[:6]),
    ],
    ids=[
        "known-key",
        "json-field",
        "bearer",
        "basic",
        "header-echo",
        "url-user-info",
        "url-query",
        "token-field",
        "key-cut-before-ellipsis",
        "key-cut-before-quote",
        "key-cut-at-the-end",
    ],
)
def test_redact_removes_every_form_of_credential(text, secret):
    """A known key, a Bearer or Basic credential, a key field's value, a URL's user info or query, or a cut
    prefix of the key, is replaced by the redaction mark."""
    out = redact(text, [KEY])
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "anthropic answered HTTP 529: upstream overloaded",
        "max_tokens: 5000 > 4096, the maximum",
        "input tokens=12 output tokens=3",
        "https://api.anthropic.test/v1/messages",
        "Stream must be set to true",
    ],
)
def test_redact_keeps_text_without_credentials(text):
    """Text with no credential, URL paths and token counts included, comes back unchanged."""
    assert redact(text, [KEY]) == text


def test_short_secrets_are_not_searched_for_literally():
    """A secret of under four characters does not blot out ordinary words."""
    assert redact("the key was bad", ["the"]) == "the key was bad"


def test_url_secrets_and_display():
    """A URL's user info, user, password and query values are its secrets, and its display shows none of them."""
    url = "https://alice:pa%24s@gw.test:8443/v1?key=a%2Fb&x="
    assert {"alice:pa%24s", "alice", "pa%24s", "pa$s", "key=a%2Fb&x=", "a%2Fb", "a/b"} <= set(url_secrets(url))
    shown = display_url(url)
    assert "gw.test:8443/v1" in shown and "alice" not in shown and "a%2Fb" not in shown
    assert url_secrets("https://gw.test/v1") == [] and url_secrets("http://[::1") == []
