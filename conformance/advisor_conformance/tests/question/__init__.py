"""Conformance tests of the The caller's question rules (question.*)."""
