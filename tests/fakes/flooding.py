"""Implementations that send the suite more than it takes, for the tests of its bounds (``tests/meta/test_channels.py``):
the reference with its HTTP client padding every request body past the loopback provider's limit, or naming itself
at a length that every skip reason and report would repeat."""

from __future__ import annotations

from dataclasses import replace

from advisor_conformance._contract.loopback import MAX_REQUEST_BYTES
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import HttpProvider


class _PaddingProvider(HttpProvider):
    """Every request body carries a field of MAX_REQUEST_BYTES + 4 MiB of padding."""

    def open_response(self, encoded, deadline):
        padded = {**encoded.body, "padding": "x" * (MAX_REQUEST_BYTES + (4 << 20))}
        return super().open_response(replace(encoded, body=padded), deadline)


class HugeRequestBody(ReferenceAdapter):
    """The reference, but each HTTP request body is 12 MiB (over the loopback's 8 MiB)."""

    name = "flooding-advisor"
    http_provider_class = _PaddingProvider


class LongName(ReferenceAdapter):
    """The reference under a name of a million characters (the protocol's pattern, but over its 100)."""

    name = "a" * 1_000_000
