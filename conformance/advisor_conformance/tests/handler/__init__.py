"""Conformance tests of the handler area: handler: order of steps, uses and the returned note (handler.* rules)."""
