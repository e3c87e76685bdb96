"""Conformance tests of the files area: caller files: count, caps and rendering (files.* rules)."""
