"""Conformance tests of the Anthropic cache breakpoints rules (breakpoints.*)."""
