"""Conformance tests of the Transport sessions and cache keys rules (transport.*)."""
