"""Conformance tests of the request area: request shape (request.* rules)."""
