"""An implementation under test: an ``--impl`` target loaded onto its transport, and what it said about itself."""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._bounded import excerpt
from .protocol import (
    AREA_CAPABILITIES,
    AREA_OPERATIONS,
    AREA_PROVIDERS,
    CAPABILITIES,
    OPTION_DEFAULTS,
    PROVIDER_FIELDS,
    PROVIDERS,
    Adapter,
    ContractError,
    capability_probe,
    operation_probe,
    schema_errors,
)
from .transport import InProcessTransport, SubprocessTransport, Transport

BUILTIN_TARGETS = {"reference": "advisor_reference.adapter:adapter"}
#: The methods of :class:`~.protocol.Adapter` an object must have to load as one; it may leave the others out.
REQUIRED_OPERATIONS = ("describe",)


class TargetError(ValueError):
    """An ``--impl`` target that cannot be loaded."""


@dataclass(repr=False)
class Implementation:
    """An implementation under test: a transport, and what it said about itself."""

    target: str
    transport: Transport
    description: dict[str, Any] = field(default_factory=dict)
    #: While a conformance test runs: refuses, as a defect of the suite, a call the test does not declare it needs
    #: (:class:`~advisor_conformance._pytest_plugin.needs.Needs`).
    guard: Callable[[str, Mapping[str, Any]], None] | None = field(default=None, compare=False)
    #: While a conformance test runs: its last calls, each ``(op, params, answer, seconds)``, for the diagnosis of a
    #: failure by known mistakes (bounded: a deque with a maximum length).
    journal: deque[tuple[str, Any, Any, float]] | None = field(default=None, compare=False)

    def __repr__(self) -> str:  # short: hypothesis prints it in every falsifying example
        return f"<implementation {self.name} ({self.target})>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Hypothesis's pretty printer shows a dataclass field by field (the whole description): the short repr."""
        printer.text(repr(self))

    @property
    def name(self) -> str:
        return self.description.get("name", self.target)

    @property
    def strings(self) -> dict[str, str]:
        return self.description["strings"]

    @property
    def areas(self) -> set[str]:
        return set(self.description.get("areas", ()))

    def option(self, key: str, default: Any = None) -> Any:
        """A declared option's value; ``default`` (else the protocol's default, OPTION_DEFAULTS) when undeclared."""
        return self.description.get("options", {}).get(key, OPTION_DEFAULTS.get(key) if default is None else default)

    @property
    def capabilities(self) -> set[str]:
        """The capabilities the implementation offers: those describe declares true, and those a declared area needs
        (AREA_CAPABILITIES) unless describe declines them."""
        declared = self.description.get("capabilities", {})
        implied = {capability for area in self.areas for capability in AREA_CAPABILITIES.get(area, ())}
        return {capability for capability in CAPABILITIES if declared.get(capability, capability in implied)}

    def declined_but_needed(self) -> dict[str, list[str]]:
        """The declared areas that need a capability describe declines, each with the declined ones."""
        declined = {name for name, offered in self.description.get("capabilities", {}).items() if offered is False}
        return {
            area: [c for c in AREA_CAPABILITIES.get(area, ()) if c in declined]
            for area in sorted(self.areas)
            if declined & set(AREA_CAPABILITIES.get(area, ()))
        }

    @property
    def providers(self) -> list[str]:
        """The providers the implementation speaks: those describe declares, all of them when it says nothing (in
        the protocol's order)."""
        declared = self.description.get("providers")
        return [name for name in PROVIDERS if declared is None or name in declared]

    def _probe_provider(self) -> str:
        """The provider a probe speaks to: the first declared (the areas that need one are refused without)."""
        return (self.providers or list(PROVIDERS))[0]

    def without_providers(self) -> dict[str, list[str]]:
        """The declared areas whose tests speak to providers none of which is declared, each with those providers."""
        return {
            area: list(AREA_PROVIDERS[area])
            for area in sorted(self.areas)
            if area in AREA_PROVIDERS and not set(AREA_PROVIDERS[area]) & set(self.providers)
        }

    def missing_capabilities(self) -> list[str]:
        """The offered capabilities whose probe (:func:`~.protocol.capability_probe`) is answered unsupported_op, as a
        whole or for its one call (any other answer, even a wrong one, is left to the tests)."""
        from .loopback import refused_url

        missing = []
        for capability in sorted(self.capabilities):
            op, params = capability_probe(capability, refused_url(), self._probe_provider())
            if self._absent(op, params):
                missing.append(capability)
        return missing

    def missing_providers(self) -> dict[str, list[str]]:
        """The declared providers that their probes show absent, each with the probes: an encode for it (when a
        declared area's tests encode) and a call over HTTP to it (when http is offered), answered unsupported_op or
        refusing the provider as invalid input (any other answer, even a wrong one, is left to the tests)."""
        from .loopback import refused_url

        encodes = any("encode" in AREA_OPERATIONS.get(area, ()) for area in self.areas)
        missing: dict[str, list[str]] = {}
        for provider in self.providers:
            probes = [("encode", "encode", operation_probe("encode", provider))] if encodes else []
            if "http" in self.capabilities:
                probes.append(("a call over HTTP", *capability_probe("http", refused_url(), provider)))
            for label, op, params in probes:
                if self._absent(op, params, PROVIDER_FIELDS[op]):
                    missing.setdefault(provider, []).append(label)
        return missing

    def _absent(self, op: str, params: dict[str, Any], field: str | None = None) -> bool:
        """Whether a probe's answer shows what it needs absent: unsupported_op (as a whole, or for a call of a
        scenario), or, with ``field``, an invalid_input error at that field."""
        try:
            answer = self.transport.call(op, params)
        except ContractError:
            return False  # it answered, badly: the tests will say how
        outcomes = [answer]
        if isinstance(answer, dict) and isinstance(answer.get("calls"), list):
            outcomes += answer["calls"]
        return any(_unsupported(outcome) or (field is not None and _refused(outcome, field)) for outcome in outcomes)

    def call(self, op: str, params: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Send one operation; the answer is checked against the operation's result schema."""
        if self.guard is not None:
            self.guard(op, params)
        started = time.monotonic()
        answer = self.transport.call(op, params, **kwargs)
        if self.journal is not None:
            self.journal.append((op, params, answer, time.monotonic() - started))
        problems = schema_errors(f"{op}.result", answer)
        if problems:
            raise ContractError(
                f"{self.name}.{op} answered outside the protocol schema:\n  "
                + "\n  ".join(problems)
                + f"\n  answer: {excerpt(answer)}",
                answer,
            )
        return answer

    def describe(self) -> dict[str, Any]:
        self.description = self.call("describe", {})
        return self.description

    def close(self) -> None:
        self.transport.close()

    def missing_operations(self) -> dict[str, list[str]]:
        """The declared areas whose operations (:data:`~.protocol.AREA_OPERATIONS`) the implementation does not
        answer, each with the missing ones: one small valid call of each operation is sent, and an
        ``unsupported_op`` error is a missing operation (any other answer, even a wrong one, is left to the tests)."""
        needed = {op for area in self.areas for op in AREA_OPERATIONS.get(area, ())}
        missing = set()
        for op in sorted(needed):
            try:
                answer = self.transport.call(op, operation_probe(op, self._probe_provider()))
            except ContractError:
                continue  # it answered, badly: the tests will say how
            if _unsupported(answer):
                missing.add(op)
        return {
            area: [op for op in AREA_OPERATIONS.get(area, ()) if op in missing]
            for area in sorted(self.areas)
            if missing & set(AREA_OPERATIONS.get(area, ()))
        }


def _unsupported(answer: Any) -> bool:
    """Whether an answer is the error unsupported_op."""
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("error"), dict)
        and answer["error"].get("code") == "unsupported_op"
    )


def _refused(answer: Any, field: str) -> bool:
    """Whether an answer is the error invalid_input at ``field``."""
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("error"), dict)
        and answer["error"].get("code") == "invalid_input"
        and answer["error"].get("at") == field
    )


def importable_from(directory: str) -> None:
    """Put ``directory`` first on ``sys.path`` unless it is there: a ``package.module`` target in the directory a
    command runs in imports as it does under ``python -m`` (the current directory first on the path)."""
    entries = {os.path.abspath(entry or os.curdir) for entry in sys.path}
    if os.path.abspath(directory) not in entries:
        sys.path.insert(0, directory)


def load_target(
    target: str, *, harness_timeout: float = 60.0, cwd: str | None = None, origin: str | None = None
) -> Implementation:
    """Load an ``--impl`` target: ``reference``, ``package.module[:object]`` or ``cmd:<command line>``.

    The object (``adapter`` when not named) is an adapter instance (:class:`~.protocol.Adapter`), or a class
    or factory that makes one when called without arguments; it is imported
    with ``cwd`` (when given) on the path, as ``python -m`` would. A ``cmd:``
    target is a harness process speaking the protocol over stdin and stdout,
    started in ``cwd``. ``origin`` says where the target was named in errors
    (``--impl=...`` when not given: ``ADVISOR_CONFORMANCE_IMPL=...``, an ini
    key), so an error never names a flag the user did not pass.
    """
    origin = origin or f"--impl={target}"
    if target.startswith("cmd:"):
        try:
            transport = SubprocessTransport(target[4:].strip(), timeout=harness_timeout, cwd=cwd)
        except ValueError as exc:
            raise TargetError(f"{origin}: {exc}") from None
        implementation = Implementation(target=target, transport=transport)
        try:
            implementation.description = transport.start()
        except ContractError as exc:
            raise TargetError(str(exc)) from None
        return implementation
    spec = BUILTIN_TARGETS.get(target, target)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not all(part.isidentifier() for part in module_name.split(".")):
        raise TargetError(f"{target!r} ({origin}) is not 'reference', 'package.module[:object]' or 'cmd:COMMAND'")
    if cwd is not None:
        importable_from(cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r} for {origin}: {exc}") from exc
    attribute = attribute or "adapter"
    obj: Any = module
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{module_name!r} has no attribute {attribute!r} ({origin})") from None
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "describe")):
        obj = obj()
    missing = [op for op in REQUIRED_OPERATIONS if not callable(getattr(obj, op, None))]
    if missing:
        raise TargetError(f"{spec} ({origin}) is not an adapter: it has no {', '.join(missing)} method")
    adapter: Adapter = obj  # a partial adapter too: an operation it leaves out is answered unsupported_op
    implementation = Implementation(target=target, transport=InProcessTransport(adapter, label=spec))
    try:
        implementation.describe()
    except ContractError as exc:  # it raised, or described itself outside the protocol (a usage error, as a harness)
        raise TargetError(str(exc)) from None
    return implementation
