"""Conformance tests of the dedupe area: dedupe of files against full reads (dedupe.* rules)."""
