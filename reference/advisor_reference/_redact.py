"""Credentials out of error text: every message the HTTP client builds passes through :func:`redact`.

A provider's error body may echo the request's credential (``invalid x-api-key sk-...``, ``Authorization: Bearer
...``), and a base URL may carry user info (``https://user:pass@host``) or a query string (``?key=...``). None of
that may reach an error message, and through it a scenario's answer, a report or a snapshot. :func:`redact`
removes:

* each known secret (the API key, the base URL's user info, password and query string) wherever it appears, and
  a prefix of one that an excerpt cut off (``sk-live-12…``);
* the value of any ``Bearer`` credential and of any ``x-api-key``, ``api-key``, ``authorization`` or ``token``
  field, whatever the secret;
* the user info and the query string of any URL.

Over-redaction is harmless (a message loses a word); a leak is not, so the patterns are broad. The rule
(streaming.failure-no-credentials, a should) asks for the known secrets and their cut starts; the patterns go further.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

#: What a removed credential is written as.
REDACTED = "[redacted]"
#: A secret shorter than this is not searched for literally (it would blot out ordinary words); the patterns
#: below still catch it in a header, a field or a URL.
MIN_SECRET = 4

_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)(?!\[redacted\])[^\s\"'<>,;]+")
_FIELD = re.compile(
    r"(?i)\b(x-api-key|api[-_]?key|authorization|access[-_]?token|token|secret|password)"
    r"(\"?'?\s*[:=]\s*\"?'?)(?!\[redacted\]|bearer\b|basic\b)([^\s\"'<>,;&]+)"
)
_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/?#@\"'<>]*@)?([^\s?#\"'<>]*)(\?[^\s#\"'<>]*)?")
#: The characters that may end an excerpt right after a cut secret.
_CUT_ENDS = frozenset("…'\"")


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that are credentials: its user info, user name, password and query string."""
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:  # a malformed port or bracket: nothing can be taken apart, so nothing is known
        return []
    found = []
    if "@" in parts.netloc:
        found.append(parts.netloc.rpartition("@")[0])
    found += [part for part in (username, password) if part]
    found += [unquote(part) for part in (username, password) if part and unquote(part) != part]
    if parts.query:
        found.append(parts.query)
        for pair in parts.query.split("&"):
            value = pair.partition("=")[2]
            if value:
                found += [value, unquote(value)]
    return found


def display_url(url: str) -> str:
    """A URL fit for a message: without its user info and with its query string redacted."""
    return redact(url)


def _url(match: re.Match[str]) -> str:
    scheme, userinfo, rest, query = match.groups()
    return scheme + (REDACTED + "@" if userinfo else "") + rest + ("?" + REDACTED if query else "")


def _drop_cut_prefixes(text: str, secret: str) -> str:
    """Replace a prefix of ``secret`` (at least MIN_SECRET long) that ends the text or an excerpt.

    rule: streaming.failure-no-credentials
    """
    for size in range(len(secret) - 1, MIN_SECRET - 1, -1):
        prefix = secret[:size]
        start = text.find(prefix)
        while start != -1:
            end = start + size
            if end == len(text) or text[end] in _CUT_ENDS:
                text = text[:start] + REDACTED + text[end:]
                start = text.find(prefix, start + len(REDACTED))
            else:
                start = text.find(prefix, start + 1)
    return text


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without the given secrets, without any Bearer or key-field value, and without URL credentials."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        text = _drop_cut_prefixes(text, secret)
    text = _URL.sub(_url, text)
    text = _BEARER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    return _FIELD.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
