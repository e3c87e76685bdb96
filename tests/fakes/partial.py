"""Implementations that declare more than they answer: the run must stop before any test, naming what is missing."""

from __future__ import annotations

from advisor_reference.adapter import ReferenceAdapter


class ToolWithoutScenario(ReferenceAdapter):
    """Declares every area, tool and the runtime ones included, but has no scenario operation."""

    name = "partial-advisor"
    scenario = None  # the in-process transport answers unsupported_op for a missing operation


class MisspelledArea(ReferenceAdapter):
    """Declares an area the catalogue does not know (a typo of `tool`)."""

    name = "partial-advisor"

    def describe(self, params=None):
        answer = super().describe(params or {})
        return {**answer, "areas": [*answer["areas"], "tols"]}


adapter = ToolWithoutScenario()


class OperationsOnly(ReferenceAdapter):
    """The reference with only the operations named in $ADVISOR_TEST_OPERATIONS (comma-separated), declaring exactly
    the areas whose operations (AREA_OPERATIONS) those cover: its run shows that the table names every operation the
    areas' tests call."""

    name = "partial-advisor"

    def __init__(self):
        import os

        from advisor_conformance._protocol import AREA_OPERATIONS

        super().__init__()
        self.kept = set(os.environ["ADVISOR_TEST_OPERATIONS"].split(","))
        self.areas = [area for area, ops in AREA_OPERATIONS.items() if set(ops) <= self.kept]
        for op in {"shape", "tool_definition", "scenario", "encode"} - self.kept:
            setattr(self, op, None)

    def describe(self, params=None):
        return {**super().describe(params or {}), "areas": self.areas}
