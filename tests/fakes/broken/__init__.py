"""Broken implementations: for every rule of the catalogue, the reference with exactly that rule broken.

Each is an adapter class registered with :func:`breaks`, saying which rule it
breaks and how a real implementation gets it wrong. ``tests/meta/test_broken.py``
runs that rule's conformance tests against each (``--impl=<module>:<class>``)
and expects them to fail with a message naming the rule; a rule with no broken
implementation fails the coverage test there.

The adapters live by area: :mod:`.shaping` (transcript, request, flatten,
elision), :mod:`.final` (files, question), :mod:`.context` (dedupe, inflight), :mod:`.runtime` (tool,
workspace, handler), :mod:`.budget` (budget, transport) and :mod:`.wire` (wire, streaming,
breakpoints).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class BrokenImplementation:
    rule: str
    how: str
    target: str  # the --impl target: module:class
    also: tuple[str, ...] = ()  # rules this mistake cannot help breaking too (``how`` says why)


REGISTRY: dict[str, BrokenImplementation] = {}
MODULES = ("shaping", "final", "context", "runtime", "budget", "wire", "cache")


def breaks(rule: str, how: str, also: tuple[str, ...] = ()):
    """Register an adapter class as the broken implementation of ``rule``; ``also``: the rules the same mistake
    necessarily breaks as well (a request that differs between calls differs in some message, whose own rule it
    breaks), which its failures may name instead."""

    def register(cls):
        if rule in REGISTRY:
            raise ValueError(f"{rule} already has a broken implementation: {REGISTRY[rule].target}")
        cls.name = "broken-" + rule.replace(".", "-")
        REGISTRY[rule] = BrokenImplementation(rule, how, f"{cls.__module__}:{cls.__qualname__}", tuple(also))
        return cls

    return register


def load_registry() -> dict[str, BrokenImplementation]:
    """Every registered broken implementation, by rule ID."""
    for module in MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return dict(REGISTRY)
