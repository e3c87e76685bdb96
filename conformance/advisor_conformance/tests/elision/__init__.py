"""Conformance tests of the elision area: elision of tool-call argument strings (elision.* rules)."""
