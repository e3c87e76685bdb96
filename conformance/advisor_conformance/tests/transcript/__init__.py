"""Conformance tests of the transcript area: transcript model (transcript.* rules)."""
