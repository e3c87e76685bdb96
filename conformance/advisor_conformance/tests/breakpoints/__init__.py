"""Conformance tests of the breakpoints area: Anthropic cache breakpoints (breakpoints.* rules)."""
