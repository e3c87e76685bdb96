"""Differential testing, what is drawn: the hypothesis strategies of the inputs of ``shape``, ``encode`` and
``scenario`` (what each draws is listed in ``diff``'s documentation), from the areas and providers both
implementations declare (:class:`Scope`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hypothesis import strategies as st

from .. import oracle, scenarios, shaping, strategies, wire
from .._contract.implementation import Implementation
from .._contract.protocol import AREA_OPERATIONS, PROVIDERS

#: The areas whose tests call only shape: drawing shape inputs needs one of them declared by both.
SHAPE_AREAS = frozenset(area for area, ops in AREA_OPERATIONS.items() if ops == ("shape",))
#: The areas of the runtime whose behaviour a scripted scenario (no HTTP) shows.
SCENARIO_AREAS = frozenset({"tool", "workspace", "handler", "budget", "transport"})
#: What a transcript with tool calls and long arguments exercises besides the request's frame.
_TOOL_CALL_AREAS = frozenset({"flatten", "elision"})


@dataclass(frozen=True)
class Scope:
    """What both implementations declare: the areas and the providers (in the protocol's order)."""

    areas: frozenset[str]
    providers: tuple[str, ...]

    @classmethod
    def of(cls, pair: tuple[Implementation, Implementation]) -> Scope:
        areas = frozenset(pair[0].areas & pair[1].areas)
        return cls(areas, tuple(name for name in PROVIDERS if all(name in impl.providers for impl in pair)))

    def undeclared(self, op: str, pair: tuple[Implementation, Implementation]) -> str | None:
        """Why ``op`` draws nothing for this pair (no area of it declared by both; no provider for encode), or None."""
        names = " and ".join(impl.name for impl in pair)
        wanted = {"shape": SHAPE_AREAS, "encode": frozenset({"wire"}), "scenario": SCENARIO_AREAS}[op]
        if not self.areas & wanted:
            return f"{names} do not both declare an area of {op} ({', '.join(sorted(wanted))})"
        if op == "encode" and not self.providers:
            return f"{names} declare no provider in common"
        return None

    def has(self, *areas: str) -> bool:
        return set(areas) <= self.areas


def _plain(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A transcript's system, user and assistant messages as plain text (no tool calls, results or reasoning)."""
    return [
        {"role": message["role"], "content": message["content"]}
        for message in transcript
        if message["role"] in ("system", "user", "assistant")
    ]


def _transcripts(scope: Scope, max_size: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Drawn transcripts; plain ones unless both declare flattening and elision."""
    drawn = strategies.transcripts(max_size=max_size)
    return drawn if scope.areas >= _TOOL_CALL_AREAS else drawn.map(_plain)


_STORE_KEY = "fedcba9876543210fedcba9876543210"

# Strategies are built once (a recursive strategy costs more to build than to draw from).


def _weighted(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` about three times in four, else ``rare``; shrinking moves towards ``usual``."""
    return st.integers(0, 3).flatmap(lambda n: rare if n == 3 else usual)


@cache
def _shape_parts(scope: Scope) -> dict[str, st.SearchStrategy[Any]]:
    return {
        "transcript": _transcripts(scope, 6),
        "question": st.one_of(st.none(), strategies.questions()) if scope.has("question") else st.none(),
        "files": strategies.files(max_size=8) if scope.has("files") else st.just([]),
        "in_flight": st.one_of(strategies.short_text(80), st.just("")),
    }


@st.composite
def _shape(draw: st.DrawFn, scope: Scope) -> dict[str, Any]:
    parts = _shape_parts(scope)
    transcript, question, pairs = draw(parts["transcript"]), draw(parts["question"]), list(draw(parts["files"]))
    if len(pairs) == 8 and draw(st.booleans()):  # one too many
        pairs.append(pairs[0])
    files = []
    for path, data in pairs:
        # The content is the whole file, or (as the schema has it) a read capped at 32768 bytes with the true size.
        if len(data) > 32768 and draw(st.booleans()):
            files.append(shaping.file_param(path, data[:32768], len(data)))
        else:
            files.append(shaping.file_param(path, data))
    if pairs and scope.has("dedupe") and draw(st.booleans()):  # a read of one of the files: full or from line 2
        path, data = pairs[draw(st.integers(0, len(pairs) - 1))]
        content = oracle.read_result(
            path, data, start=draw(st.sampled_from([1, 2])), output=data.decode("utf-8", "replace")
        )
        read = {"role": "tool", "name": "read", "tool_call_id": "call_read", "content": content}
        transcript.insert(draw(st.integers(0, len(transcript))), read)
    if scope.has("inflight") and draw(st.booleans()):  # the call in flight: the message that asks for this advice
        transcript.append(
            {
                "role": "assistant",
                "content": draw(parts["in_flight"]),
                "tool_calls": [{"id": "call_adv", "name": "advisor", "arguments": {"question": "?"}}],
            }
        )
    return shaping.params(transcript, question, files)


@cache
def shape_inputs(scope: Scope) -> st.SearchStrategy[dict[str, Any]]:
    return _shape(scope)


@cache
def encode_inputs(providers: tuple[str, ...] = tuple(PROVIDERS)) -> st.SearchStrategy[dict[str, Any]]:
    fields = st.fixed_dictionaries(
        {
            "model": st.sampled_from(["advisor-model", "claude-sonnet-4-5"]),
            "max_tokens": st.sampled_from([4096, 32000, 8192, 2048, 1025, 1024, 600]),
            "reasoning": st.sampled_from([None, "minimal", "low", "medium", "high"]),
            "stream": st.booleans(),
            "prompt_cache_key": st.sampled_from(["0123456789abcdef0123456789abcdef", ""]),
            "transport_session": st.sampled_from(["s-advisor", "s-subagent-advisor", None]),
            "parent_session": st.sampled_from(["s", None]),
            "advisor_cache_profile": st.booleans(),
        }
    )
    requests = st.builds(
        lambda messages, extra: wire.neutral_request(messages, **extra),
        strategies.rendered_messages(max_size=50),
        fields,
    )
    return st.fixed_dictionaries({"provider": st.sampled_from(providers), "request": requests})


_WORKSPACE_FILES = ("src/app.py", "docs/notes.md", "secret.txt", "../outside/other.txt")
_MALFORMED_INPUTS = [{"question": 7}, {"files": "src/app.py"}, {"files": [1]}, ["question"]]


def _snapshot_with_read(texts: Mapping[str, str], path: str) -> list[dict[str, Any]]:
    """A snapshot whose agent read ``path`` in full before it called the advisor."""
    read = oracle.read_result(path, texts[path].encode("utf-8"))
    return [
        {"role": "user", "content": "read it"},
        {"role": "tool", "name": "read", "tool_call_id": "call_r", "content": read},
        *scenarios.SNAPSHOT[1:],
    ]


@cache
def _scenario_parts(in_workspace: bool, confinement: bool, scope: Scope) -> dict[str, st.SearchStrategy[Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {
        "model": st.just("model-b"),
        "max_tokens": st.sampled_from([2048, 1024]),
        "reasoning": st.sampled_from([None, "low", "high"]),
    }
    if scope.has("budget"):
        optional |= {"max_uses_per_run": st.integers(0, 3), "child_max_uses": st.integers(0, 2)}
    if scope.has("transport"):
        optional |= {
            "session_id": st.sampled_from(["s", None, "", "run-7"]),
            "cache_key_store": st.sampled_from(
                [None, {}, {"advisor": _STORE_KEY}, {"advisor": ""}, {"other": _STORE_KEY}]
            ),
        }
    # File paths only with a working directory: a runtime without one is the harness's, not the spec's.
    inputs: dict[str, st.SearchStrategy[Any]] = {"question": strategies.questions(), "unknown": st.just(True)}
    if in_workspace:
        optional["blocked_paths"] = st.sampled_from([[], ["secret.txt"], ["docs"]])
        if confinement:
            optional["confine_to_work_dir"] = st.booleans()
        inputs["files"] = st.lists(st.sampled_from([*_WORKSPACE_FILES, "missing.txt", "./src/app.py"]), max_size=3)
    answer = st.builds(
        scenarios.reply,
        st.one_of(st.text(max_size=30), st.sampled_from(["", " \n"])),
        st.sampled_from(["stop", "length"]),
    )
    failure = st.builds(
        scenarios.failure,
        st.sampled_from(["upstream returned 500", "overloaded"]),
        st.sampled_from([500, 429, 400]),
    )
    reply = _weighted(answer, failure) if scope.has("handler") else answer
    well_formed = st.fixed_dictionaries({}, optional=inputs)
    # a small snapshot, a drawn one, none, or one with a full read of a workspace file (twice as likely)
    kinds = [0, 1, *([2] if scope.has("handler") else []), *([3, 4] if scope.has("flatten", "dedupe") else [])]
    return {
        "runtime": st.fixed_dictionaries({}, optional=optional),
        "agent": st.sampled_from([None, "child-1", "child-2"]) if scope.has("budget") else st.none(),
        "input": _weighted(well_formed, st.sampled_from(_MALFORMED_INPUTS)) if scope.has("tool") else well_formed,
        "snapshot": st.integers(0, 4) if len(kinds) == 5 else st.sampled_from(kinds),
        "transcript": _transcripts(scope, 4),
        "replies": _weighted(st.lists(reply, min_size=1, max_size=2), st.just([])),
        "texts": st.fixed_dictionaries({path: st.text(max_size=60) for path in _WORKSPACE_FILES}),
    }


@st.composite
def _scenario(draw: st.DrawFn, confinement: bool, scope: Scope) -> dict[str, Any]:
    in_workspace = scope.has("workspace") and draw(st.booleans())
    parts = _scenario_parts(in_workspace, confinement, scope)
    texts = draw(parts["texts"])
    runtime = draw(parts["runtime"])
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 4)) == 4 and scope.has("tool"):
            steps.append({"tools": {"agent": draw(st.sampled_from([None, "child-1"]))}})
            continue
        kind = draw(parts["snapshot"])
        snapshot = (
            scenarios.SNAPSHOT
            if kind == 0
            else draw(parts["transcript"])
            if kind == 1
            else None
            if kind == 2
            else _snapshot_with_read(texts, draw(st.sampled_from(_WORKSPACE_FILES[:2])))
        )
        steps.append(
            {
                "call": scenarios.call(
                    agent=draw(parts["agent"]),
                    conversation=draw(st.integers(1, 2)),
                    turn=draw(st.integers(1, 3)),
                    input=draw(parts["input"]),
                    snapshot=snapshot,
                    provider=draw(parts["replies"]),
                )
            }
        )
    spec = {path: {"text": text} for path, text in texts.items()} if in_workspace else None
    return {"workspace": spec, "params": scenarios.scenario(steps, runtime)}


@cache
def scenario_inputs(confinement: bool, scope: Scope) -> st.SearchStrategy[dict[str, Any]]:
    """``{"workspace": spec or None, "params": scenario params without work_dir}``."""
    return _scenario(confinement, scope)


def strategy_for(op: str, pair: tuple[Implementation, Implementation]) -> st.SearchStrategy[Any]:
    """The inputs of ``op`` drawn from what both implementations declare (:class:`Scope`)."""
    scope = Scope.of(pair)
    if op == "shape":
        return shape_inputs(scope)
    if op == "encode":
        return encode_inputs(scope.providers)
    return scenario_inputs(all(impl.option("confinement", False) is True for impl in pair), scope)
