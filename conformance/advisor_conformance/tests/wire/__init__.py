"""Conformance tests of the Provider request encodings rules (wire.*)."""
