"""Conformance tests of the flatten area: flattening of tool calls and results (flatten.* rules)."""
