"""Conformance tests of the Flattening of tool calls and results rules (flatten.*)."""
