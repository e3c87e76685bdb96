"""Selecting the suite's tests by rule: ``-m 'rule(id="...")'``, ``-m 'rule(area="...")'``, ``-m 'rule(level="...")'``.

Every conformance test carries ``@pytest.mark.rule(id="area.rule-name")``.
Before pytest's ``-m`` selects, each of those marks is given the rule's area
and level as well, so ``rule(area="elision")`` selects one area's tests and
``rule(level="must")`` the tests of ``must`` rules. A ``rule(...)`` in the
``-m`` expression that names no rule, area or level of the catalogue (or a
keyword other than ``id``, ``area`` and ``level``) is a usage error with the
closest names, checked before anything is collected: a typo never deselects
everything in silence.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from .._paths import TESTS_DIR
from ..catalogue import load_catalogue

LEVELS = ("must", "should")
#: ``rule(...)`` in a marker expression, and its ``key=value`` arguments (pytest's grammar: a value is a quoted string
#: or a bare word such as a number, True, False or None).
_CALL = re.compile(r"\brule\s*\(([^()]*)\)")
_ARGUMENT = re.compile(r"\s*(\w+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,\s]+)\s*(?:,|$)")


def rule_selections(expression: str) -> list[tuple[str, str]]:
    """The ``(keyword, value)`` pairs of every ``rule(...)`` in a marker expression; a malformed argument list gives
    the pair ``("", text)``."""
    pairs = []
    for call in _CALL.finditer(expression):
        body, position = call[1], 0
        while position < len(body.rstrip()):
            argument = _ARGUMENT.match(body, position)
            if argument is None:
                pairs.append(("", body.strip()))
                break
            value = argument[2]
            pairs.append((argument[1], value[1:-1] if value[:1] in "'\"" else value))
            position = argument.end()
    return pairs


def _suggest(value: str, known: list[str]) -> str:
    close = difflib.get_close_matches(value, known, n=3, cutoff=0.5)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def problems(expression: str) -> list[str]:
    """What is wrong with the ``rule(...)`` selections of a marker expression, one line each (empty when nothing)."""
    catalogue = load_catalogue()
    known = {"id": list(catalogue.rules), "area": list(catalogue.areas), "level": list(LEVELS)}
    found = []
    for key, value in rule_selections(expression):
        if not key:
            found.append(f'rule({value}): the arguments are not key="value" pairs')
        elif key not in known:
            found.append(f"rule({key}=...): rule() selects by id, area or level{_suggest(key, list(known))}")
        elif value in catalogue.retired and key == "id":
            found.append(f"rule(id={value!r}): the rule is retired (advisor-conformance rules --json lists it)")
        elif value not in known[key]:
            listing = "`advisor-conformance rules` lists them" if key == "id" else ", ".join(known[key])
            found.append(
                f"rule({key}={value!r}): the catalogue has no such {key}{_suggest(value, known[key])} ({listing})"
            )
    return found


def check_expression(config: pytest.Config) -> None:
    """Refuse a ``-m`` expression whose ``rule(...)`` names nothing of the catalogue, before any collection."""
    expression = config.option.markexpr or ""
    found = problems(expression)
    if found:
        raise pytest.UsageError(f"-m {expression!r}:\n" + "\n".join(f"  {line}" for line in found))


@pytest.hookimpl(tryfirst=True)  # before -m selects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each rule mark of the suite's tests the rule's area and level, so ``-m`` can select by them."""
    catalogue = load_catalogue()
    for item in items:
        if not Path(str(item.path)).resolve().is_relative_to(TESTS_DIR):
            continue
        for index, mark in enumerate(item.own_markers):
            rule_id = mark.kwargs.get("id", mark.args[0] if mark.args else None) if mark.name == "rule" else None
            if isinstance(rule_id, str) and rule_id in catalogue:
                item.own_markers[index] = pytest.mark.rule(
                    *mark.args, **{**mark.kwargs, "area": catalogue[rule_id].area, "level": catalogue[rule_id].level}
                ).mark
