"""Conformance tests of the inflight area: in-flight message (inflight.* rules)."""
