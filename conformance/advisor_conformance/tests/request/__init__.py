"""Conformance tests of the Request shape rules (request.*)."""
