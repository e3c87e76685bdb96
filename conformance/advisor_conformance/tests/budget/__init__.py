"""Conformance tests of the budget area: use budget (budget.* rules)."""
