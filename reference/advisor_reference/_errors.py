"""Errors the reference raises for input it cannot take."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class AdvisorInputError(ValueError):
    """Input that does not fit the model; ``at`` names the offending field.

    ``code`` is one of the error codes of the conformance contract
    (``invalid_input``, ``too_many_files``, ...). ``at`` is a path such as
    ``transcript[3].tool_calls[0].arguments``.
    """

    def __init__(self, message: str, *, at: str = "", code: str = "invalid_input") -> None:
        self.code = code
        self.at = at
        self.detail = message
        super().__init__(f"{at}: {message}" if at else message)

    def to_json(self) -> dict[str, str]:
        error = {"code": self.code, "message": str(self)}
        if self.at:
            error["at"] = self.at
        return error


def reject_unknown_keys(raw: Mapping[str, Any], allowed: frozenset[str], at: str = "") -> None:
    """Fail on the first key (in sorted order) that ``allowed`` does not hold: nothing is ignored silently."""
    if allowed.issuperset(raw):  # the usual case, without building a set
        return
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise AdvisorInputError(f"unknown field {unknown[0]!r}", at=f"{at}.{unknown[0]}" if at else unknown[0])
