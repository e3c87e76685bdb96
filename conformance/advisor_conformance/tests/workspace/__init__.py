"""Conformance tests of the workspace area: loading files from the workspace (workspace.* rules)."""
