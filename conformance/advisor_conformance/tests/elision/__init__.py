"""Conformance tests of the Elision of tool-call argument strings rules (elision.*)."""
