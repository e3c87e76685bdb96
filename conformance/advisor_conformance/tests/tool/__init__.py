"""Conformance tests of the tool area: advisor tool and its input (tool.* rules)."""
