"""Conformance tests of the Transcript model rules (transcript.*)."""
