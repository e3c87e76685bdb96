"""Conformance tests of the The in-flight message rules (inflight.*)."""
