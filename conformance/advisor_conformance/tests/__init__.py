"""The conformance tests: one module per area of the spec; each test names its catalogue rules."""
