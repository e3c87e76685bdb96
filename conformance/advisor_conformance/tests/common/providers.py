"""The providers a test speaks to, as ``needs`` markers (a test parametrized by ``provider`` needs no marker: the
plugin reads the parameter)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest


def speaks(provider: str) -> pytest.MarkDecorator:
    """The marker of a test that speaks to ``provider`` (an encode for it, a call over HTTP to it)."""
    return pytest.mark.needs(providers=[provider])


def by_provider(cases: Mapping[str, Sequence[Any]]) -> list[Any]:
    """The names of ``cases`` (each a tuple whose first item is its provider) as parameters, each marked with the
    provider it speaks to."""
    return [pytest.param(name, marks=[speaks(case[0])], id=name) for name, case in cases.items()]
