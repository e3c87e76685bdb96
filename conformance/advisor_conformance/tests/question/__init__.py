"""Conformance tests of the question area: caller's question (question.* rules)."""
