"""Differential testing: two implementations, the same drawn inputs, answers compared modulo what is open.

``advisor-conformance diff --impl A --impl B`` (``_tools/cli/diff.py``) draws inputs for ``shape``, ``encode`` and
``scenario`` from the suite's strategies, sends each to both implementations, and compares the two answers
after :func:`.diff_open.diverging` has normalised what the spec leaves to each implementation. The first input on
which they differ is shrunk by hypothesis to a minimal one, and reported with the paths where the answers
differ (:func:`advisor_conformance.vectors.differences`) and both answers' parts there.

The work is in three modules, one job each: ``diff_open`` (the normalisation of open choices),
``diff_inputs`` (the strategies of the inputs) and this one (the search: sending, comparing, shrinking, the
report).

A run is reproducible: the same seed draws the same inputs (``database=None``, ``@seed``), so a divergence
found in CI is found again on a laptop with the same command.

What is drawn comes from what both implementations declare (:class:`.diff_inputs.Scope`): an operation is searched
only when both declare an area of it (shape: transcript, request, flatten, elision, files, question, dedupe or
inflight; encode: wire, for the providers both declare; scenario: tool, workspace, handler, budget or transport),
and within it a part of the input is drawn only when both declare its area (files, the read of a file that dedupe
judges, the question, the message in flight, tool calls and long arguments: flatten and elision, a workspace, tool
lists and malformed tool inputs: tool, caps and children: budget, sessions and cache-key stores: transport, failed
provider calls and a missing snapshot: handler); Anthropic's cache breakpoints are compared only when both declare
breakpoints. What is drawn, per operation, when both declare everything:

* ``shape``: a transcript (:func:`strategies.transcripts`), a question (:func:`strategies.questions`, or
  none), up to 9 files (:func:`strategies.files`, as :func:`shaping.file_param`: the whole file, or as the
  schema has it a read capped at 32768 bytes with the file's true ``size``), sometimes a full or partial read
  of one of the files in the transcript (dedupe), and sometimes the assistant message in flight;
* ``encode``: a provider kind and a neutral request (:func:`wire.neutral_request`) around
  :func:`strategies.rendered_messages`, with its model, max tokens, reasoning, stream, cache key, sessions and
  cache profile drawn too;
* ``scenario``: a runtime (session id, caps, model, max tokens, reasoning, cache-key store, blocked paths,
  confinement when both implementations offer it) and a script of up to four steps: calls of the main agent
  and of children, by conversation and turn, with tool inputs (questions, file paths, unknown keys, wrong
  types), snapshots (a small one, a drawn transcript, a read of a workspace file, none) and scripted replies
  (answers, empty ones, the token limit, failures), and tool-list steps; half of them in a workspace
  (:func:`workspace.workspace`) of a few text files. Concurrent groups are not drawn (which call gets the
  last use is a race), nor scripted stream-required failures (the retry is a rule of black-box runs).
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as seeded

from .. import vectors, wire
from .._bounded import abbreviate
from .._contract.implementation import Implementation
from .._contract.protocol import ContractError
from ..workspace import workspace
from .diff_inputs import Scope, strategy_for
from .diff_open import TEMPLATES, diverging, strings_in

OPERATIONS = ("shape", "encode", "scenario")


@dataclass
class Divergence:
    """The shrunk input on which two implementations differ, and where their answers do."""

    op: str
    input: Any
    differences: list[vectors.Difference]
    answers: tuple[Any, Any]  # after diverging normalised them: what was compared

    def parts(self) -> list[dict[str, Any]]:
        """Each difference: its path, what differs, and both answers' values there."""
        return [
            {
                "path": diff.where,
                "what": diff.what,
                "a": _at(self.answers[0], diff.path),
                "b": _at(self.answers[1], diff.path),
            }
            for diff in self.differences
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "input": abbreviate(self.input),
            "differences": [
                {**part, "a": abbreviate(part["a"]), "b": abbreviate(part["b"])} for part in self.parts()[:20]
            ],
        }


@dataclass
class Outcome:
    """One operation's result: how many inputs ran, the divergence found (shrunk), or why it was skipped."""

    op: str
    inputs: int = 0
    seconds: float = 0.0
    divergence: Divergence | None = None
    skipped: str | None = None
    found_after: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "inputs": self.inputs,
            "seconds": round(self.seconds, 2),
            "skipped": self.skipped,
            "found_after": self.found_after,
            "divergence": None if self.divergence is None else self.divergence.to_json(),
        }


def _at(value: Any, path: tuple[tuple[str | int, int], ...]) -> Any:
    for step, _ in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return "(absent)"
    return value


class _Diverged(Exception):
    def __init__(self, divergence: Divergence) -> None:
        super().__init__(f"{divergence.op}: {len(divergence.differences)} differences")
        self.divergence = divergence


def _answer(impl: Implementation, op: str, params: Mapping[str, Any]) -> Any:
    try:
        return impl.call(op, params)
    except ContractError as exc:
        return {"contract_error": str(exc)}


def _file_text(item: Mapping[str, Any]) -> str:
    """A shape file's content as text (for telling whether a deduped block carries it)."""
    if "content" in item:
        return item["content"]
    return base64.b64decode(item["content_base64"]).decode("utf-8", "replace")


@contextmanager
def _materialised(drawn: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], Mapping[str, str], str | None]]:
    """The params to send for a drawn scenario (its workspace created), the files it holds, the work dir."""
    if drawn.get("workspace") is None:
        yield dict(drawn["params"]), {}, None
        return
    with workspace(drawn["workspace"]) as work:
        files = {path: entry["text"] for path, entry in drawn["workspace"].items()}
        yield {**drawn["params"], "work_dir": str(work)}, files, str(work)


def compare(op: str, drawn: Any, pair: tuple[Implementation, Implementation]) -> Divergence | None:
    """Send one drawn input to both implementations; the divergence, or None when the answers agree."""
    descriptions = (pair[0].description, pair[1].description)
    if op == "scenario":
        with _materialised(drawn) as (params, files, work_dir):
            raw = (_answer(pair[0], op, params), _answer(pair[1], op, params))
        shown: Any = {
            "workspace": drawn["workspace"],
            "params": {**drawn["params"], **({"work_dir": "{{work_dir}}"} if work_dir else {})},
        }
    else:
        params, work_dir, shown = drawn, None, drawn
        files = {item["path"]: _file_text(item) for item in drawn.get("files") or []} if op == "shape" else {}
        raw = (_answer(pair[0], op, params), _answer(pair[1], op, params))
    found, compared = diverging(op, params, raw, descriptions, files=files, work_dir=work_dir)
    return Divergence(op, shown, found, compared) if found else None


_PROBES: dict[str, dict[str, Any]] = {
    "shape": {"transcript": []},
    "encode": {"provider": "openai", "request": wire.neutral_request([{"role": "user", "content": "x"}])},
    "scenario": {"steps": []},
}


def _unsupported(op: str, pair: tuple[Implementation, Implementation]) -> str | None:
    probe = _PROBES[op]
    if op == "encode":  # for a provider both speak (undeclared returned first when there is none)
        probe = {**probe, "provider": Scope.of(pair).providers[0]}
    for impl in pair:
        answer = _answer(impl, op, probe)
        if isinstance(answer, dict) and answer.get("error", {}).get("code") == "unsupported_op":
            return f"{impl.name} does not answer {op}"
    return None


def search(op: str, pair: tuple[Implementation, Implementation], *, examples: int, seed: int = 0) -> Outcome:
    """Draw up to ``examples`` inputs of ``op`` from what both declare; the first divergence, shrunk, or none."""
    outcome = Outcome(op)
    started = time.monotonic()
    outcome.skipped = Scope.of(pair).undeclared(op, pair) or _unsupported(op, pair)
    if outcome.skipped:
        return outcome
    declared = {text for impl in pair for name, text in impl.strings.items() if text and name not in TEMPLATES}
    declared |= {re.split(r"\{(?:used|max)\}", impl.strings.get("budget_spent", ""))[0] for impl in pair} - {""}

    @seeded(seed)
    @settings(
        database=None,
        max_examples=examples,
        derandomize=False,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
    )
    @given(strategy_for(op, pair))
    def probe(drawn: Any) -> None:
        # An input that holds a declared string would be normalised on one side only (hypothesis draws the
        # string constants of the code it runs, declared strings included): such an input is not drawn.
        assume(not any(text in value for value in strings_in(drawn) for text in declared))
        outcome.inputs += 1
        found = compare(op, drawn, pair)
        if found is not None:
            if outcome.found_after is None:
                outcome.found_after = outcome.inputs
            raise _Diverged(found)

    try:
        probe()
    except _Diverged as exc:
        outcome.divergence = exc.divergence
    except BaseExceptionGroup as group:  # a divergence that did not reproduce the same way while shrinking
        diverged = [exc for exc in _leaves(group) if isinstance(exc, _Diverged)]
        if not diverged:
            raise
        outcome.divergence = diverged[-1].divergence
    outcome.seconds = time.monotonic() - started
    return outcome


def _leaves(group: BaseExceptionGroup) -> Iterator[BaseException]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


@dataclass
class Report:
    pair: tuple[Implementation, Implementation]
    seed: int
    examples: int
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def diverged(self) -> bool:
        return any(outcome.divergence is not None for outcome in self.outcomes)


def run(
    pair: tuple[Implementation, Implementation],
    ops: Sequence[str] = OPERATIONS,
    *,
    examples: int = 200,
    seed: int = 0,
    progress: Callable[[Outcome], None] | None = None,
) -> Report:
    """Search every operation of ``ops`` in turn."""
    report = Report(pair, seed, examples)
    for op in ops:
        outcome = search(op, pair, examples=examples, seed=seed)
        report.outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return report
