"""The adapter contract: JSON operations, and the transports that carry them.

An implementation answers a handful of coarse operations at the spec's
observable boundaries. Every operation takes one JSON object (``params``) and
returns one JSON object; a failure the spec calls an error is answered as
``{"error": {"code": ..., "message": ..., "at": ...}}``, never raised. The
operations and their JSON Schemas are in ``schema/protocol-v1.json``:

``describe``         ``{}`` → name, version, language, protocol, areas, declared strings, options.
``shape``            a snapshot, a question and loaded files → the messages of the advisor request.
``tool_definition``  ``{}`` → the advisor tool as offered to the model (name, description, input schema).
``scenario``         a runtime, a working directory and a script of calls (main or child agent, turn,
                     conversation, tool input, snapshot, scripted provider replies) → each call's
                     note or error, the tool lists, and every provider-neutral request made; with
                     ``runtime.http_provider`` the calls go over real HTTP to a loopback server the
                     suite scripts (black-box mode).
``encode``           a provider kind and a provider-neutral request → the HTTP request (method, path,
                     headers without credentials, JSON body).

A Python adapter is any object with one method per operation, each taking
the params ``dict`` and returning the result ``dict``. The in-process
transport passes the params through a JSON round trip both ways, so an
adapter sees and returns exactly what a subprocess harness would.
"""

from __future__ import annotations

import importlib
import json
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

import jsonschema

from ._bounded import cap_lines, excerpt, summarise_errors
from ._paths import SCHEMA_DIR

PROTOCOL_VERSION = 1
OPERATIONS = ("describe", "shape", "tool_definition", "scenario", "encode")
BUILTIN_TARGETS = {"reference": "reference.adapter:adapter"}


class ContractError(Exception):
    """The implementation broke the contract: it crashed, or answered outside the schema."""


class TargetError(ValueError):
    """An ``--impl`` target that cannot be loaded."""


class Transport(Protocol):
    """Carries one operation to an implementation and its answer back."""

    def call(self, op: str, params: Mapping[str, Any]) -> Any: ...

    def close(self) -> None: ...


def _json_round_trip(value: Any, what: str) -> Any:
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ContractError(f"{what} is not JSON: {exc}") from None


class InProcessTransport:
    """Calls a Python adapter object's methods, with a JSON round trip on both sides."""

    def __init__(self, adapter: Any, label: str) -> None:
        self.adapter = adapter
        self.label = label

    def call(self, op: str, params: Mapping[str, Any], *, check_mutation: bool = False) -> Any:
        method = getattr(self.adapter, op, None)
        if method is None:
            return {"error": {"code": "unsupported_op", "message": f"{self.label} has no {op!r} operation"}}
        text = json.dumps(params, allow_nan=False)
        sent = json.loads(text)
        try:
            answer = method(sent)
        except Exception as exc:  # the adapter crashed: report it, do not hide it
            detail = cap_lines("".join(traceback.format_exception(exc)).rstrip(), lines=40)
            raise ContractError(f"{self.label}.{op} raised instead of answering:\n{detail}") from None
        if check_mutation and json.dumps(sent, allow_nan=False) != text:
            raise ContractError(f"{self.label}.{op} mutated its params")
        return _json_round_trip(answer, f"the answer of {self.label}.{op}")

    def close(self) -> None:
        pass


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMA_DIR / "protocol-v1.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_errors(definition: str, value: Any) -> list[str]:
    """How ``value`` breaks the schema definition ``definition``, the most relevant first (empty when valid).

    Each line names the path and what the schema wanted there, bounded in size
    whatever the value (:func:`describe_error`).
    """
    validator = _validator()
    sub = validator.evolve(schema={"$ref": f"#/$defs/{definition}", "$defs": validator.schema["$defs"]})
    return summarise_errors(sub.iter_errors(value))


@dataclass
class Implementation:
    """An implementation under test: a transport, and what it said about itself."""

    target: str
    transport: Transport
    description: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.description.get("name", self.target)

    @property
    def strings(self) -> dict[str, str]:
        return self.description["strings"]

    @property
    def areas(self) -> set[str]:
        return set(self.description.get("areas", ()))

    def option(self, key: str, default: str) -> str:
        return self.description.get("options", {}).get(key, default)

    def call(self, op: str, params: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Send one operation; the answer is checked against the operation's result schema."""
        answer = self.transport.call(op, params, **kwargs)
        problems = schema_errors(f"{op}.result", answer)
        if problems:
            raise ContractError(
                f"{self.name}.{op} answered outside the protocol schema:\n  "
                + "\n  ".join(problems)
                + f"\n  answer: {excerpt(answer)}"
            )
        return answer

    def describe(self) -> dict[str, Any]:
        self.description = self.call("describe", {})
        return self.description

    def close(self) -> None:
        self.transport.close()


def load_target(target: str, *, harness_timeout: float = 60.0, cwd: str | None = None) -> Implementation:
    """Load an ``--impl`` target: ``reference``, ``package.module[:object]`` or ``cmd:<command line>``.

    The object (``adapter`` when not named) is an adapter instance, or a class
    or factory that makes one when called without arguments. A ``cmd:``
    target is a harness process speaking the protocol over stdin and stdout.
    """
    if target.startswith("cmd:"):
        from .harness import SubprocessTransport

        try:
            transport = SubprocessTransport(target[4:].strip(), timeout=harness_timeout, cwd=cwd)
        except ValueError as exc:
            raise TargetError(f"{target!r}: {exc}") from None
        implementation = Implementation(target=target, transport=transport)
        try:
            implementation.description = transport.start()
        except ContractError as exc:
            raise TargetError(str(exc)) from None
        return implementation
    spec = BUILTIN_TARGETS.get(target, target)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not all(part.isidentifier() for part in module_name.split(".")):
        raise TargetError(f"{target!r} is not 'reference' or 'package.module[:object]'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r} for --impl={target}: {exc}") from exc
    attribute = attribute or "adapter"
    obj: Any = module
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{module_name!r} has no attribute {attribute!r} (--impl={target})") from None
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "describe")):
        obj = obj()
    missing = [op for op in ("describe",) if not callable(getattr(obj, op, None))]
    if missing:
        raise TargetError(f"{spec} is not an adapter: it has no {', '.join(missing)} method")
    implementation = Implementation(target=target, transport=InProcessTransport(obj, label=spec))
    implementation.describe()
    return implementation
