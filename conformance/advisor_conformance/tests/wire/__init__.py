"""Conformance tests of the wire area: provider request encodings (wire.* rules)."""
