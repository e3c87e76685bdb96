"""Conformance tests of the The advisor tool and its input rules (tool.*)."""
