"""Conformance tests of the Streaming, the stream-required retry and the result rules (streaming.*)."""
