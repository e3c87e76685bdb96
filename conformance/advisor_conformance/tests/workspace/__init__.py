"""Conformance tests of the Loading files from the workspace rules (workspace.*)."""
