"""Conformance tests of the The handler: order of steps, uses and the returned note rules (handler.*)."""
