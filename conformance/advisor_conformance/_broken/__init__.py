"""Broken implementations, the catalogue of known mistakes: for every rule, the reference with exactly that rule
broken.

They ship with the suite: when a conformance test fails, the suite replays its input through the known mistakes of
the rules in question and names the one whose answer is the implementation's (``_judging.diagnosis``). They import
only the reference's public API, which ships in the same wheel.

Each is an adapter class registered with :func:`breaks`, saying which rule it
breaks and how a real implementation gets it wrong. ``tests/meta/test_broken.py``
runs that rule's conformance tests against each (``--impl=<module>:<class>``)
and expects them to fail with a message naming the rule; a rule with no broken
implementation fails the coverage test there.

The adapters live by area: :mod:`.shaping` (transcript, request, flatten,
elision), :mod:`.final` (files, question), :mod:`.context` (dedupe, inflight), :mod:`.runtime` (tool,
workspace, handler), :mod:`.budget` (budget, transport) and :mod:`.wire` (wire, streaming,
breakpoints); :mod:`.features` holds implementations that predate one newer feature of the spec.

A rule may have more broken implementations than its first: each further one is a *variant*
(``@breaks(rule, how, variant="...")``), another plausible way to get the same rule wrong, such as
the carriage mistakes of :mod:`.carriage` (a byte-order mark removed, Unicode normalised, line ends
changed), the event-stream readers of :mod:`.streams` and the documented edges and first uses of
:mod:`.edges`. ``tests/meta/test_broken.py`` runs every entry, variants included (:func:`load_entries`), against
its rule's tests.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from advisor_reference import AdvisorHandler, AdvisorRuntime, PathPolicy, RequestBuilder
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import HttpProvider


@dataclass(frozen=True)
class BrokenImplementation:
    rule: str
    how: str
    target: str  # the --impl target: module:class
    also: tuple[str, ...] = ()  # rules this mistake cannot help breaking too (``how`` says why)
    variant: str = ""  # empty for the rule's first broken implementation
    modules: tuple[str, ...] = ()  # the test modules (or module.py::test_function) it runs against (empty: all)

    @property
    def id(self) -> str:
        """The entry's name in runs and reports: the rule, and ``~variant`` for a variant."""
        return f"{self.rule}~{self.variant}" if self.variant else self.rule


REGISTRY: dict[str, BrokenImplementation] = {}
VARIANTS: dict[str, BrokenImplementation] = {}
MODULES = (
    "shaping",
    "final",
    "context",
    "runtime",
    "budget",
    "wire",
    "cache",
    "carriage",
    "streams",
    "edges",
    "features",
)


def reference_with(part: type) -> type[ReferenceAdapter]:
    """The reference adapter with ``part`` in the place of the reference's own (``part`` itself if it is an adapter),
    under ``part``'s name."""
    if issubclass(part, ReferenceAdapter):
        return part
    if issubclass(part, RequestBuilder):
        place = {"builder_class": part}
    elif issubclass(part, HttpProvider):
        place = {"http_provider_class": part}
    elif issubclass(part, AdvisorRuntime):
        place = {"runtime_class": part}
    elif issubclass(part, (AdvisorHandler, PathPolicy)):
        slot = "handler_class" if issubclass(part, AdvisorHandler) else "policy_class"
        place = {"runtime_class": type("runtime_class", (AdvisorRuntime,), {slot: part})}
    else:
        raise TypeError(f"{part.__qualname__} is neither an adapter nor a part of the reference")
    named = {"__module__": part.__module__, "__qualname__": part.__qualname__, "__doc__": part.__doc__}
    return type(part.__name__, (ReferenceAdapter,), {**place, **named})


def check_forgotten(part: type, check: str, answer: object = None) -> type:
    """``part`` (a part of the reference) with its ``check`` forgotten: the method answers ``answer``, whatever it is
    asked."""
    return type(part.__name__, (part,), {check: lambda self, *args, **options: answer})


def breaks(rule: str, how: str = "", also: tuple[str, ...] = (), variant: str = "", modules: tuple[str, ...] = ()):
    """Register an adapter class as the broken implementation of ``rule``, broken as ``how`` says (by default its
    docstring, white space folded); ``also``: the rules the same mistake
    necessarily breaks as well (a request that differs between calls differs in some message, whose own rule it
    breaks), which its failures may name instead. ``variant`` names a further way to break a rule that has its
    first broken implementation already; ``modules`` keeps a variant to the test modules of the input classes it
    is about (a variant of a rule with many slow HTTP tests), or to test functions of a module
    (``module.py::test_function``), its rule's other tests being run by the first. The class
    it decorates is an adapter or a part of the reference (:func:`reference_with`); its name is bound to the adapter."""

    def register(part):
        cls = reference_with(part)
        said = how or " ".join((part.__doc__ or "").split())
        if not said:
            raise ValueError(f"{part.__qualname__} says neither in breaks() nor in its docstring how it breaks {rule}")
        entry = BrokenImplementation(
            rule, said, f"{cls.__module__}:{cls.__qualname__}", tuple(also), variant, tuple(modules)
        )
        table = VARIANTS if variant else REGISTRY
        if entry.id in table:
            raise ValueError(f"{entry.id} already has a broken implementation: {table[entry.id].target}")
        cls.name = "broken-" + entry.id.replace(".", "-").replace("~", "-")
        table[entry.id] = entry
        return cls

    return register


def load_registry() -> dict[str, BrokenImplementation]:
    """The first broken implementation of every rule, by rule ID."""
    for module in MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return dict(REGISTRY)


def load_entries() -> list[BrokenImplementation]:
    """Every broken implementation, variants included, sorted by their IDs."""
    load_registry()
    return sorted([*REGISTRY.values(), *VARIANTS.values()], key=lambda entry: entry.id)
