"""Conformance tests of the The use budget rules (budget.*)."""
