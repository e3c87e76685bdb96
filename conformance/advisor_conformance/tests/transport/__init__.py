"""Conformance tests of the transport area: transport sessions and cache keys (transport.* rules)."""
