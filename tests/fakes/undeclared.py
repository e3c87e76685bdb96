"""For each area, the reference with every rule of that area broken, declaring every other area.

``tests.fakes.undeclared:without_files`` declares every area but ``files`` and gets the files rules wrong: its broken
implementations (``advisor_conformance._broken``, variants included) combined into one adapter. A test of a declared area must
never fail on it (``tests/meta/test_areas_alone.py``): where its input needs the undeclared area's behaviour, it
avoids that behaviour or skips naming the area.

The broken implementations are combined part by part: the request builders into one class (each the reference's
with one step overridden, so the overrides chain through ``super()``), the HTTP providers, the runtimes and their
handlers and path policies likewise, and the adapters' own methods through the combined adapter's method order.
Two hooks that replace rather than chain are composed by hand: the Anthropic body ``rewrite`` of the breakpoint
mistakes (each applied in turn) and the declared strings a request mistake renders differently (``rendered``).
Where two mistakes override the same step without calling ``super()``, the first of them wins: the area is still
broken, by one of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from advisor_conformance._broken import load_entries
from advisor_reference import AdvisorRuntime
from advisor_reference.adapter import AREAS, ReferenceAdapter

#: The adapter's parts a broken implementation may replace (the runtime's own parts are combined inside it).
_SLOTS = ("builder_class", "http_provider_class", "runtime_class")
_RUNTIME_SLOTS = ("handler_class", "policy_class")


def _combined(name: str, classes: list[type], base: type, extra: dict[str, Any] | None = None) -> type:
    """One class whose method order runs through every class of ``classes`` that differs from ``base`` (a class
    already below another in the list is left out: it is in that one's order)."""
    distinct = [cls for cls in dict.fromkeys(classes) if cls is not base]
    kept = [cls for cls in distinct if not any(other is not cls and issubclass(other, cls) for other in distinct)]
    if not kept and not extra:
        return base
    return type(name, tuple(kept) or (base,), dict(extra or {}))


def _runtime(name: str, runtimes: list[type[AdvisorRuntime]]) -> type:
    parts = {
        slot: _combined(f"{name}_{slot}", [getattr(r, slot) for r in runtimes], getattr(AdvisorRuntime, slot))
        for slot in _RUNTIME_SLOTS
    }
    return _combined(f"{name}_runtime", runtimes, AdvisorRuntime, parts)


def broken(areas: Iterable[str], declared: Iterable[str], name: str) -> type[ReferenceAdapter]:
    """The reference adapter with the broken implementations of every rule of ``areas`` combined, declaring the
    areas ``declared``."""
    broken_areas = set(areas)
    adapters: list[type[ReferenceAdapter]] = []
    for entry in load_entries():
        if entry.rule.split(".", 1)[0] in broken_areas:
            module, _, attribute = entry.target.partition(":")
            adapters.append(getattr(importlib.import_module(module), attribute))
    parts: dict[str, Any] = {
        "builder_class": _combined(
            f"{name}_builder", [a.builder_class for a in adapters], ReferenceAdapter.builder_class
        ),
        "http_provider_class": _combined(
            f"{name}_http", [a.http_provider_class for a in adapters], ReferenceAdapter.http_provider_class
        ),
        "runtime_class": _runtime(name, [a.runtime_class for a in adapters]),
    }
    rewriters = [a for a in adapters if "rewrite" in _own(a)]
    if len(rewriters) > 1:
        parts["rewrite"] = lambda self, body, request: [r.rewrite(self, body, request) for r in rewriters] and None
    rendered = [a.rendered for a in adapters if "rendered" in _own(a)]
    if rendered:
        parts["rendered"] = {key: change for table in reversed(rendered) for key, change in table.items()}
    kept = [area for area in AREAS if area in set(declared)]

    def describe(self: ReferenceAdapter, params: Any = None) -> dict[str, Any]:
        answer = super(cls, self).describe(params)
        return {**answer, "areas": kept}

    parts["describe"] = describe
    parts["name"] = name
    # the adapters' own methods (an encode_request, a shape, a scenario that chain) through the method order
    own = [a for a in adapters if own_methods(a)]
    cls = _combined(name, [*own, ReferenceAdapter], ReferenceAdapter, parts)
    cls.__module__ = __name__
    return cls


def without(area: str) -> type[ReferenceAdapter]:
    """Every area declared but ``area``, whose rules it gets wrong."""
    return broken([area], [name for name in AREAS if name != area], f"without-{area}")


def parts(adapter: type[ReferenceAdapter]) -> tuple[type, ...]:
    """An adapter class and its parts: builder, HTTP provider, runtime, the runtime's handler and path policy."""
    runtime = adapter.runtime_class
    return (
        adapter,
        adapter.builder_class,
        adapter.http_provider_class,
        runtime,
        *(getattr(runtime, slot) for slot in _RUNTIME_SLOTS),
    )


def own_methods(adapter: type[ReferenceAdapter]) -> set[str]:
    """What an adapter class defines below the reference's adapter besides its parts and name."""
    return {key for key in _own(adapter) if key not in _SLOTS and key != "name"}


def _own(adapter: type) -> set[str]:
    """The attributes an adapter class and its bases define below the reference's adapter."""
    return {
        key
        for cls in adapter.__mro__
        if cls not in (ReferenceAdapter, object)
        for key in vars(cls)
        if not key.startswith("__")
    }


def __getattr__(name: str) -> type[ReferenceAdapter]:
    """``tests.fakes.undeclared:without_AREA``, as an ``--impl`` target."""
    kind, _, area = name.partition("_")
    if kind != "without" or area not in AREAS:
        raise AttributeError(name)
    return without(area)
