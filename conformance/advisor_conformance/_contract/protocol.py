"""The protocol: its operations, its version, and the JSON Schemas every message is checked against.

An implementation answers a handful of coarse operations at the spec's
observable boundaries. Every operation takes one JSON object (``params``) and
returns one JSON object; a failure the spec calls an error is answered as
``{"error": {"code": ..., "message": ..., "at": ...}}``, never raised. The
operations and their JSON Schemas are in ``schema/protocol-v1.json``:

``describe``         ``{}`` → name, version, language, protocol, areas, declared strings, options, capabilities,
                     providers.
``shape``            a snapshot, a question and loaded files → the messages of the advisor request.
``tool_definition``  ``{}`` → the advisor tool as offered to the model (name, description, input schema).
``scenario``         a runtime, a working directory and a script of calls (main or child agent, turn,
                     conversation, tool input, snapshot, scripted provider replies) → each call's
                     note or error, the tool lists, and every provider-neutral request made; with
                     ``runtime.http_provider`` the calls go over real HTTP to a loopback server the
                     suite scripts (black-box mode).
``encode``           a provider kind and a provider-neutral request → the HTTP request (method, path,
                     headers without credentials, JSON body).

The same operations travel two ways (:mod:`.transport`): in process to a
Python adapter (:class:`Adapter`, one method per operation), and as JSON lines
to a harness process (``schema/harness-v1.json``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Protocol, runtime_checkable

import jsonschema
from referencing import Registry, Resource

from .._bounded import bounded_validator, summarise_errors
from .._paths import SCHEMA_DIR

PROTOCOL_VERSION = 1
OPERATIONS = ("describe", "shape", "tool_definition", "scenario", "encode")

#: The operations the tests of each area call (``describe`` aside): an implementation that declares an area must
#: answer them. tests/suite/test_catalogue.py keeps this true (every catalogue area is here; every golden vector's
#: operation is one of its rules' areas'); the plugin checks it before a run (:func:`missing_operations`).
AREA_OPERATIONS: dict[str, tuple[str, ...]] = {
    "transcript": ("shape",),
    "request": ("shape",),
    "flatten": ("shape",),
    "elision": ("shape",),
    "files": ("shape",),
    "question": ("shape",),
    "dedupe": ("shape",),
    "inflight": ("shape",),
    "tool": ("tool_definition", "scenario"),
    "workspace": ("scenario", "shape"),  # a loaded file is compared with what shape renders for the same bytes
    "handler": ("scenario", "shape"),  # a call's request is compared with what shape renders
    "budget": ("scenario",),
    "transport": ("scenario",),
    "wire": ("encode",),
    "streaming": ("scenario",),
    # breakpoints.cache-efficiency replays sessions through scenario and encodes their requests
    "breakpoints": ("encode", "scenario"),
}

#: A small valid call of each operation: what the start-of-run check sends to learn whether it is answered.
PROBES: dict[str, dict[str, Any]] = {
    "shape": {"transcript": [{"role": "user", "content": "Is the plan sound?"}]},
    "tool_definition": {},
    "scenario": {
        "runtime": {},
        "steps": [
            {
                "call": {
                    "agent": None,
                    "conversation": 1,
                    "turn": 1,
                    "input": {},
                    "snapshot": [{"role": "user", "content": "Is the plan sound?"}],
                    "provider": [{"answer": "Yes.", "finish_reason": "stop"}],
                }
            }
        ],
    },
    "encode": {
        "provider": "anthropic",
        "request": {
            "model": "m",
            "messages": [{"role": "user", "content": "Is the plan sound?"}],
            "tools": [],
            "max_tokens": 1024,
            "reasoning": None,
            "stream": False,
            "prompt_cache_key": "k",
            "transport_session": None,
            "parent_session": None,
            "advisor_cache_profile": False,
        },
    },
}


#: The options describe may declare (``options``), each with the value an implementation that declares nothing has.
OPTION_DEFAULTS: dict[str, Any] = {"args_json": "semantic", "confinement": False}

#: The optional capabilities describe may declare (``capabilities``: each true, offered, or false, declined), with
#: what each is. A test that needs one (a ``needs`` marker, :mod:`advisor_conformance._pytest_plugin.needs`) is
#: skipped when it is not offered.
CAPABILITIES: dict[str, str] = {
    "http": "black-box HTTP: scenario with runtime.http_provider makes real HTTP calls to its base_url and reads the "
    "providers' answers, plain and streamed",
    "home_dir": "runtime.home_dir: scenario takes it as the home directory that a blocked path written ~ or starting "
    "~/ stands for, so the suite tests ~ without the machine's real home",
}

#: The capabilities the tests of an area need: declaring the area offers them unless describe declines them, and
#: declining one that a declared area needs stops the run before any test (every test of streaming goes over HTTP).
AREA_CAPABILITIES: dict[str, tuple[str, ...]] = {"streaming": ("http",)}

#: The providers describe may declare (``providers``: the ones the implementation speaks, all three when it says
#: nothing), with what each is. A test that speaks to one (an ``encode`` for it, a call over HTTP to it: a ``needs``
#: marker or its ``provider`` parameter, :mod:`advisor_conformance._pytest_plugin.needs`) is skipped when it is not
#: declared.
PROVIDERS: dict[str, str] = {
    "anthropic": "the Anthropic Messages API",
    "openai": "OpenAI chat completions",
    "codex": "the Responses API of Codex",
}

#: The providers the tests of an area speak: an implementation that declares the area declares at least one of them
#: (breakpoints are Anthropic's), or the run stops before any test.
AREA_PROVIDERS: dict[str, tuple[str, ...]] = {
    "wire": tuple(PROVIDERS),
    "streaming": tuple(PROVIDERS),
    "breakpoints": ("anthropic",),
}

#: Where each probe names the provider: an answer refusing the value there as invalid input shows it absent.
PROVIDER_FIELDS = {"encode": "provider", "scenario": "runtime.http_provider.kind"}


def operation_probe(op: str, provider: str = "anthropic") -> dict[str, Any]:
    """The small valid call of ``op`` (:data:`PROBES`); an encode is for ``provider``."""
    return {**PROBES[op], "provider": provider} if op == "encode" else PROBES[op]


def capability_probe(capability: str, refused_url: str, provider: str = "openai") -> tuple[str, dict[str, Any]]:
    """A small call that needs ``capability``: an implementation without it answers unsupported_op; one with it
    answers anything else. The http probe sends one call to ``refused_url``, a loopback address where nothing
    listens, as ``provider`` would be called, so an implementation with an HTTP client fails that call at once (a
    provider_error). The home_dir probe is the scenario probe with a home directory (the root, which every system
    has) and ``~`` blocked."""
    if capability == "home_dir":
        return "scenario", {**PROBES["scenario"], "runtime": {"home_dir": "/", "blocked_paths": ["~"]}}
    if capability != "http":
        raise KeyError(capability)
    call = {**PROBES["scenario"]["steps"][0]["call"], "provider": []}
    return "scenario", {
        "runtime": {"http_provider": {"kind": provider, "base_url": refused_url, "timeout_ms": 2000}},
        "steps": [{"call": call}],
    }


class ContractError(Exception):
    """The implementation broke the contract: it crashed, or answered outside the schema (``answer``: what it
    answered, when it answered at all)."""

    def __init__(self, message: str, answer: Any = None) -> None:
        super().__init__(message)
        self.answer = answer


@runtime_checkable
class Adapter(Protocol):
    """A Python adapter: what ``--impl=package.module[:object]`` names, one method per operation of
    :data:`OPERATIONS`.

    Each method takes the operation's ``params`` (a fresh JSON object, which it must not keep) and returns its
    answer, a JSON object; a failure the spec calls an error is an answer (``{"error": {...}}``), never an
    exception. An object that leaves an operation out still loads (only ``describe`` is required): the suite
    answers the missing one ``unsupported_op``, so the tests of the areas that need it cannot run. A type checker
    checks a full adapter against this protocol (``adapter: Adapter = MyAdapter()``); at run time
    ``isinstance(obj, Adapter)`` says whether ``obj`` has every method (not their signatures).
    """

    def describe(self, params: dict[str, Any]) -> dict[str, Any]:
        """``{}`` → name, version, language, protocol, areas, declared strings, options, capabilities, providers."""
        ...

    def shape(self, params: dict[str, Any]) -> dict[str, Any]:
        """A snapshot, a question and loaded files → the messages of the advisor request."""
        ...

    def tool_definition(self, params: dict[str, Any]) -> dict[str, Any]:
        """``{}`` → the advisor tool as offered to the model."""
        ...

    def scenario(self, params: dict[str, Any]) -> dict[str, Any]:
        """A runtime, a working directory and a script of calls → what each call did and every request made."""
        ...

    def encode(self, params: dict[str, Any]) -> dict[str, Any]:
        """A provider kind and a provider-neutral request → the HTTP request."""
        ...


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMA_DIR / "protocol-v1.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return bounded_validator(cls)(schema)


def schema_errors(definition: str, value: Any) -> list[str]:
    """How ``value`` breaks the schema definition ``definition``, the most relevant first (empty when valid).

    Each line names the path and what the schema wanted there, bounded in size
    whatever the value (:func:`~advisor_conformance._bounded.describe_error`); the summary is bounded
    in time and memory whatever the number of errors (:func:`~advisor_conformance._bounded.bounded_validator`).
    """
    validator = _validator()
    sub = validator.evolve(schema={"$ref": f"#/$defs/{definition}", "$defs": validator.schema["$defs"]})
    return summarise_errors(sub.iter_errors(value))


#: The schema files of the protocol (``schema/``): the operations, and the harness's JSON lines.
SCHEMAS = ("protocol-v1.json", "harness-v1.json")


@cache
def schema_registry() -> Registry:
    """The protocol's and the harness's schemas by their ``$id``, for a schema that refers to their definitions."""
    schemas = [json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8")) for name in SCHEMAS]
    return Registry().with_resources([(schema["$id"], Resource.from_contents(schema)) for schema in schemas])


@cache
def _message_validator() -> Any:
    harness = json.loads((SCHEMA_DIR / "harness-v1.json").read_text(encoding="utf-8"))
    return bounded_validator(jsonschema.Draft202012Validator)(harness, registry=schema_registry())


def message_errors(definition: str, message: Any) -> list[str]:
    """How a harness ``message`` breaks the harness schema's ``definition`` (request, answer, start_result)."""
    validator = _message_validator()
    sub = validator.evolve(schema={"$ref": f"{validator.schema['$id']}#/$defs/{definition}"})
    return summarise_errors(sub.iter_errors(message), limit=5)
