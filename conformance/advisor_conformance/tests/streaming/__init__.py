"""Conformance tests of the streaming area: streaming, the stream-required retry and the result (streaming.* rules)."""
