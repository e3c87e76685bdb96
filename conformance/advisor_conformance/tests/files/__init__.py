"""Conformance tests of the Caller files: count, caps and rendering rules (files.*)."""
