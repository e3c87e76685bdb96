"""Conformance tests of the Dedupe of files against full reads rules (dedupe.*)."""
