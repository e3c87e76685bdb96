"""What each conformance test needs of an implementation, declared in one place, and the skips and checks it gives.

test262's per-test ``features`` metadata, which its runners use to skip what an engine does not implement, is the
model. A test needs:

* the areas of its rules (its ``rule`` markers), and any area a ``needs`` marker adds (the cache-efficiency test's
  OpenAI and Codex legs encode for those providers: the wire area's encodings), with the areas those rely on
  (:data:`AREA_NEEDS`: a request is read by the request's frame) and those a capability relies on
  (:data:`CAPABILITY_AREAS`: a call over HTTP is sent and read by the streaming rules);
* the operations the tests of those areas call (:data:`~advisor_conformance._contract.protocol.AREA_OPERATIONS`),
  and any a ``needs`` marker adds (a test of one area that reaches through another area's operation: a dedupe
  through the workspace);
* the capabilities a ``needs`` marker names (:data:`~advisor_conformance._contract.protocol.CAPABILITIES`; ``http``:
  the test sends ``runtime.http_provider``, its calls go over HTTP to a loopback server; ``home_dir``: the test sends
  ``runtime.home_dir``, the home directory ``~`` stands for in blocked paths);
* the providers it speaks to (:data:`~advisor_conformance._contract.protocol.PROVIDERS`: an ``encode`` for one, a call
  over HTTP to one): those a ``needs`` marker names, and the value of its ``provider`` parameter, when it has one;
* the options a ``needs`` marker names, with the value it needs (``args_json="origin"``, ``confinement=True``).

::

    @pytest.mark.needs(capabilities=["http"])
    @pytest.mark.needs(areas=["wire"], operations=["scenario"], options={"confinement": True})
    @pytest.mark.needs(providers=["anthropic"])

Markers add up, wherever they are (module ``pytestmark``, function, ``pytest.param(..., marks=...)``).
:func:`skip_unmet` skips, before the run, each test whose needs the implementation does not meet, with a reason that
names what is missing. While a test runs, :func:`guard` makes the implementation refuse a call the test did not
declare (another operation, a call over HTTP, a confined workspace, a provider it does not name, an encoding for a
provider none of its areas encodes for): a defect of the suite, which its own run against the reference (which
declares everything) finds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from .._contract.implementation import Implementation
from .._contract.protocol import (
    AREA_OPERATIONS,
    AREA_PROVIDERS,
    CAPABILITIES,
    OPERATIONS,
    OPTION_DEFAULTS,
    PROVIDERS,
)

MARKER = (
    "needs(areas=[...], operations=[...], capabilities=[...], providers=[...], options={...}): what a conformance "
    "test needs of an implementation besides the areas of its rules (and the provider of its provider parameter); "
    "unmet, the test is skipped naming it"
)


#: The areas every test of an area relies on besides its own. The parts of a request (its flattened messages, the
#: files, the question, the in-flight block, a deduped file) are found by the request's frame: every message a role
#: and a text, the system prompt first, the request for guidance last (the request area); an elided argument is read
#: in its tool-call line (flatten). A test of an area whose frame is not declared is skipped, naming it.
AREA_NEEDS: dict[str, tuple[str, ...]] = {
    "flatten": ("request",),
    "elision": ("request", "flatten"),
    "files": ("request",),
    "question": ("request",),
    "dedupe": ("request",),
    "inflight": ("request",),
}

#: The areas every test that needs a capability relies on: a call over HTTP is sent plain or as a stream, and its
#: answer read, by the streaming rules.
CAPABILITY_AREAS: dict[str, tuple[str, ...]] = {"http": ("streaming",)}


class SuiteDefect(Exception):
    """A conformance test calls what it does not declare it needs (a defect of the suite, not of the implementation)."""


@dataclass(frozen=True)
class Needs:
    """What one test needs."""

    areas: frozenset[str]
    operations: frozenset[str]
    capabilities: frozenset[str]
    options: tuple[tuple[str, Any], ...]
    providers: frozenset[str] = frozenset()

    def admits(self, op: str, params: Mapping[str, Any]) -> str | None:
        """What of this call the test does not declare (the fix, as a ``needs`` argument), or None."""
        if op == "describe":
            return None
        if op not in self.operations:
            return f"operations=[{op!r}]"
        if op == "scenario" and isinstance(params, Mapping) and isinstance(params.get("runtime"), Mapping):
            runtime = params["runtime"]
            http = runtime.get("http_provider")
            if http and "http" not in self.capabilities:
                return "capabilities=['http']"
            if "home_dir" in runtime and "home_dir" not in self.capabilities:
                return "capabilities=['home_dir']"
            kind = http.get("kind") if isinstance(http, Mapping) else None
            if kind in PROVIDERS and kind not in self.providers:
                return f"providers=[{kind!r}]"
            if runtime.get("confine_to_work_dir") is True and ("confinement", True) not in self.options:
                return "options={'confinement': True}"
        if op == "encode" and isinstance(params, Mapping) and params.get("provider") in PROVIDERS:
            provider = params["provider"]
            if provider not in self.providers:
                return f"providers=[{provider!r}]"
            # breakpoints encode for Anthropic; every other encoding is the wire area's
            encoders = [area for area in self.areas if "encode" in AREA_OPERATIONS.get(area, ())]
            if not any(provider in AREA_PROVIDERS.get(area, ()) for area in encoders):
                return "areas=['wire']"
        return None


#: Each conformance item's needs, for :func:`guard`.
NEEDS = pytest.StashKey[Needs]()


def _names(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or ())


def needs_of(item: pytest.Item, rules: Iterable[str]) -> Needs:
    """The needs of a test: the areas of ``rules`` (its rule IDs), what its ``needs`` markers add, and the provider
    its ``provider`` parameter names (a test parametrized by provider speaks to each in turn)."""
    areas = {rule.split(".", 1)[0] for rule in rules}
    operations: set[str] = set()
    capabilities: set[str] = set()
    providers: set[str] = set()
    options: dict[str, Any] = {}
    for mark in item.iter_markers("needs"):
        areas.update(_names(mark.kwargs.get("areas")))
        operations.update(_names(mark.kwargs.get("operations")))
        capabilities.update(_names(mark.kwargs.get("capabilities")))
        providers.update(_names(mark.kwargs.get("providers")))
        options.update(mark.kwargs.get("options") or {})
    areas.update(area for capability in capabilities for area in CAPABILITY_AREAS.get(capability, ()))
    for area in list(areas):
        areas.update(AREA_NEEDS.get(area, ()))
    parameter = getattr(getattr(item, "callspec", None), "params", {}).get("provider")
    if isinstance(parameter, str) and parameter in PROVIDERS:
        providers.add(parameter)
    operations.update(op for area in areas for op in AREA_OPERATIONS.get(area, ()))
    return Needs(
        frozenset(areas),
        frozenset(operations),
        frozenset(capabilities),
        tuple(sorted(options.items())),
        frozenset(providers),
    )


def unknown(needs: Needs, areas: Iterable[str]) -> list[str]:
    """The names of a test's needs that the suite does not know (a defect of the suite)."""
    bad = [f"area {name!r}" for name in sorted(needs.areas - set(areas))]
    bad += [f"operation {name!r}" for name in sorted(needs.operations - set(OPERATIONS))]
    bad += [f"capability {name!r}" for name in sorted(needs.capabilities - set(CAPABILITIES))]
    bad += [f"option {name!r}" for name, _ in needs.options if name not in OPTION_DEFAULTS]
    bad += [f"provider {name!r}" for name in sorted(needs.providers - set(PROVIDERS))]
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
    missing += [
        f"the provider {name} ({PROVIDERS[name]})"
        for name in PROVIDERS
        if name in needs.providers and name not in implementation.providers
    ]
    missing += [f"the option {name}={value!r}" for name, value in needs.options if implementation.option(name) != value]
    return missing


def skip_unmet(item: pytest.Item, rules: Iterable[str], implementation: Implementation) -> list[str]:
    """Skip ``item`` when the implementation does not meet its needs, naming what is missing; the unknown names of its
    needs are returned (the caller refuses them)."""
    from ..catalogue import load_catalogue

    needs = needs_of(item, rules)
    bad = unknown(needs, load_catalogue().areas)
    if not bad:
        skip_unless_met(item, needs, implementation)
    item.stash[NEEDS] = needs
    return bad


def skip_unless_met(item: pytest.Item, needs: Needs, implementation: Implementation) -> None:
    """Skip ``item`` when ``implementation`` does not meet ``needs``, with a reason that names what is missing."""
    missing = unmet(needs, implementation)
    if missing:
        item.add_marker(pytest.mark.skip(reason=f"{implementation.name} does not declare {'; '.join(missing)}"))


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
