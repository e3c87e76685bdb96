"""What each conformance test needs of an implementation, declared in one place, and the skips and checks it gives.

test262's per-test ``features`` metadata, which its runners use to skip what an engine does not implement, is the
model. A test needs:

* the areas of its rules (its ``rule`` markers), and any area a ``needs`` marker adds (the cache-efficiency test's
  OpenAI and Codex legs encode for those providers: the wire area's encodings);
* the operations the tests of those areas call (:data:`~advisor_conformance._contract.protocol.AREA_OPERATIONS`),
  and any a ``needs`` marker adds (a test of one area that reaches through another area's operation: a dedupe
  through the workspace);
* the capabilities a ``needs`` marker names (:data:`~advisor_conformance._contract.protocol.CAPABILITIES`; ``http``:
  the test sends ``runtime.http_provider``, its calls go over HTTP to a loopback server; ``home_dir``: the test sends
  ``runtime.home_dir``, the home directory ``~`` stands for in blocked paths);
* the options a ``needs`` marker names, with the value it needs (``args_json="origin"``, ``confinement=True``).

::

    @pytest.mark.needs(capabilities=["http"])
    @pytest.mark.needs(areas=["wire"], operations=["scenario"], options={"confinement": True})

Markers add up, wherever they are (module ``pytestmark``, function, ``pytest.param(..., marks=...)``).
:func:`skip_unmet` skips, before the run, each test whose needs the implementation does not meet, with a reason that
names what is missing. While a test runs, :func:`guard` makes the implementation refuse a call the test did not
declare (another operation, a call over HTTP, a confined workspace, an encoding for a provider none of its areas
encodes for): a defect of the suite, which its own run against the reference (which declares everything) finds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from .._contract.implementation import Implementation
from .._contract.protocol import (
    AREA_OPERATIONS,
    CAPABILITIES,
    OPERATIONS,
    OPTION_DEFAULTS,
)

MARKER = (
    "needs(areas=[...], operations=[...], capabilities=[...], options={...}): what a conformance test needs of "
    "an implementation besides the areas of its rules; unmet, the test is skipped naming it"
)

#: The providers each area's tests encode for: breakpoints are Anthropic's; every other encoding is the wire area's.
AREA_PROVIDERS: dict[str, tuple[str, ...]] = {"wire": ("anthropic", "openai", "codex"), "breakpoints": ("anthropic",)}


class SuiteDefect(Exception):
    """A conformance test calls what it does not declare it needs (a defect of the suite, not of the implementation)."""


@dataclass(frozen=True)
class Needs:
    """What one test needs."""

    areas: frozenset[str]
    operations: frozenset[str]
    capabilities: frozenset[str]
    options: tuple[tuple[str, Any], ...]

    def admits(self, op: str, params: Mapping[str, Any]) -> str | None:
        """What of this call the test does not declare (the fix, as a ``needs`` argument), or None."""
        if op == "describe":
            return None
        if op not in self.operations:
            return f"operations=[{op!r}]"
        if op == "scenario" and isinstance(params, Mapping) and isinstance(params.get("runtime"), Mapping):
            runtime = params["runtime"]
            if runtime.get("http_provider") and "http" not in self.capabilities:
                return "capabilities=['http']"
            if "home_dir" in runtime and "home_dir" not in self.capabilities:
                return "capabilities=['home_dir']"
            if runtime.get("confine_to_work_dir") is True and ("confinement", True) not in self.options:
                return "options={'confinement': True}"
        if op == "encode" and isinstance(params, Mapping):
            providers = {provider for area in self.areas for provider in AREA_PROVIDERS.get(area, ())}
            if params.get("provider") in {p for ps in AREA_PROVIDERS.values() for p in ps} - providers:
                return "areas=['wire']"
        return None


#: Each conformance item's needs, for :func:`guard`.
NEEDS = pytest.StashKey[Needs]()


def _names(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or ())


def needs_of(item: pytest.Item, rules: Iterable[str]) -> Needs:
    """The needs of a test: the areas of ``rules`` (its rule IDs) and what its ``needs`` markers add."""
    areas = {rule.split(".", 1)[0] for rule in rules}
    operations: set[str] = set()
    capabilities: set[str] = set()
    options: dict[str, Any] = {}
    for mark in item.iter_markers("needs"):
        areas.update(_names(mark.kwargs.get("areas")))
        operations.update(_names(mark.kwargs.get("operations")))
        capabilities.update(_names(mark.kwargs.get("capabilities")))
        options.update(mark.kwargs.get("options") or {})
    operations.update(op for area in areas for op in AREA_OPERATIONS.get(area, ()))
    return Needs(frozenset(areas), frozenset(operations), frozenset(capabilities), tuple(sorted(options.items())))


def unknown(needs: Needs, areas: Iterable[str]) -> list[str]:
    """The names of a test's needs that the suite does not know (a defect of the suite)."""
    bad = [f"area {name!r}" for name in sorted(needs.areas - set(areas))]
    bad += [f"operation {name!r}" for name in sorted(needs.operations - set(OPERATIONS))]
    bad += [f"capability {name!r}" for name in sorted(needs.capabilities - set(CAPABILITIES))]
    bad += [f"option {name!r}" for name, _ in needs.options if name not in OPTION_DEFAULTS]
    return bad


def unmet(needs: Needs, implementation: Implementation) -> list[str]:
    """What of ``needs`` the implementation does not declare, each named (empty when the test can run)."""
    missing = []
    areas = sorted(needs.areas - implementation.areas)
    if areas:
        missing.append(f"the area(s) {', '.join(areas)}")
    offered = {op for area in implementation.areas for op in AREA_OPERATIONS.get(area, ())}
    missing += [
        f"an area whose tests call the operation {op!r}" for op in sorted(needs.operations - offered) if not areas
    ]  # a missing area already says it
    capabilities = implementation.capabilities
    missing += [f"the capability {name} ({CAPABILITIES[name]})" for name in sorted(needs.capabilities - capabilities)]
    missing += [f"the option {name}={value!r}" for name, value in needs.options if implementation.option(name) != value]
    return missing


def skip_unmet(item: pytest.Item, rules: Iterable[str], implementation: Implementation) -> list[str]:
    """Skip ``item`` when the implementation does not meet its needs, naming what is missing; the unknown names of its
    needs are returned (the caller refuses them)."""
    from ..catalogue import load_catalogue

    needs = needs_of(item, rules)
    bad = unknown(needs, load_catalogue().areas)
    missing = unmet(needs, implementation)
    if missing and not bad:
        item.add_marker(pytest.mark.skip(reason=f"{implementation.name} does not declare {'; '.join(missing)}"))
    item.stash[NEEDS] = needs
    return bad


def guard(item: pytest.Item) -> Callable[[str, Mapping[str, Any]], None] | None:
    """The check the implementation runs before each call while ``item`` runs (None for a test of another suite)."""
    needs = item.stash.get(NEEDS, None)
    if needs is None:
        return None

    def check(op: str, params: Mapping[str, Any]) -> None:
        fix = needs.admits(op, params)
        if fix is not None:
            raise SuiteDefect(
                f"suite defect: {item.nodeid} calls {op} beyond what it declares it needs; declare it "
                f"with @pytest.mark.needs({fix}) (advisor_conformance._pytest_plugin.needs)"
            )

    return check
