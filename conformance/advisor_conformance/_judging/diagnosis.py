"""Diagnosis by known mistakes: a failing test's input replayed through the catalogue of plausible mistakes.

The suite ships its catalogue of known mistakes (:mod:`advisor_conformance._broken`: the reference with one rule
broken the way a real implementation gets it wrong). When a conformance test fails, the operations it sent that are
pure functions of their input (``shape``, ``encode``, and ``scenario`` without real HTTP) are replayed, in process,
through the known mistakes of the rules in question (the test's and those the failure is blamed on); a mistake whose
answer is the implementation's answer, where the reference's is not, explains the failure: the failure says so and
is blamed on that mistake's rule first.

It is bounded: only on failure, only the mistakes of the rules in question, only the last few calls, each replayed
call cheap when it was sent, and a time budget for the whole diagnosis. It never changes a verdict (the plugin only
narrows the blame when the outcome stays the same), and any error inside it means no diagnosis.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import json
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from .vector_comparison import canonical_tool_calls

#: The operations whose answer is a function of their input alone (a scenario that makes real HTTP calls is not).
PURE_OPERATIONS = ("shape", "encode", "scenario")
#: At most this many of a test's last calls are replayed (the failing example's calls are the last ones).
RECENT_CALLS = 4
#: A call that took longer than this when it was sent (a scripted delay, a timeout) is not replayed.
CHEAP_CALL_S = 0.5
#: The time the whole diagnosis of one failure may take.
BUDGET_S = 2.0
_HEX32 = re.compile(r"\b[0-9a-f]{32}\b")


@dataclass(frozen=True)
class Call:
    """One operation a test sent, what the implementation answered and how long it took."""

    op: str
    params: Any
    answer: Any
    seconds: float


@dataclass(frozen=True)
class Match:
    """A known mistake whose answer to one of the test's calls is the implementation's answer."""

    mistake: str  # the entry's ID: the rule, and ~variant for a variant
    rule: str
    also: tuple[str, ...]
    how: str
    op: str

    def sentence(self) -> str:
        """What the failure says: the mistake in words and its rule."""
        how = self.how if len(self.how) <= 300 else self.how[:299] + "…"
        return (
            f"your answer is what an implementation gives that {how}: rule {self.rule} (known mistake {self.mistake})"
        )

    def to_json(self) -> dict[str, Any]:
        return {"mistake": self.mistake, "rule": self.rule, "also": list(self.also), "how": self.how, "op": self.op}


@functools.cache
def _entries() -> tuple[Any, ...]:
    from .._broken import load_entries

    return tuple(load_entries())


def mistakes_of(rules: Iterable[str]) -> list[Any]:
    """The known mistakes of ``rules`` (their broken implementations, variants included), in the order of ``rules``;
    then those that cannot help breaking one of them as well (their ``also``: an implementation without in-flight
    handling keeps the trailing assistant message, inflight.assistant-removed's, though its rule is the label's)."""
    wanted = list(dict.fromkeys(rules))
    entries = _entries()
    own = [entry for rule in wanted for entry in entries if entry.rule == rule]
    return own + [entry for entry in entries if entry not in own and set(entry.also) & set(wanted)]


def _strings_class(declared: Mapping[str, Any]) -> Any:
    """The reference's declared strings with the implementation's own wording wherever it declares one."""
    from advisor_reference import DeclaredStrings
    from advisor_reference.adapter import ReferenceAdapter

    reference = ReferenceAdapter.strings
    values = {
        item.name: declared[item.name] if isinstance(declared.get(item.name), str) else getattr(reference, item.name)
        for item in fields(DeclaredStrings)
    }
    return DeclaredStrings(**values)


@functools.lru_cache(maxsize=512)
def _adapter(target: str, strings: Any) -> Any:
    """An instance of the adapter ``target`` (module:class) speaking with ``strings`` (when it keeps the reference's
    own: a mistake about a declared string keeps its wording)."""
    from advisor_reference.adapter import ReferenceAdapter

    module, _, name = target.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if cls.strings is ReferenceAdapter.strings:
        cls = type(cls.__name__, (cls,), {"strings": strings, "__module__": cls.__module__})
    return cls()


def _normal(op: str, answer: Any, exact_args: bool) -> Any:
    """An answer in the form two answers are compared in: JSON values, tool-call arguments compared by meaning unless
    the implementation declares their exact form, fresh cache keys by their order of appearance."""
    text = json.dumps(answer, sort_keys=True, ensure_ascii=False)
    if op == "scenario":
        seen: dict[str, str] = {}
        text = _HEX32.sub(lambda match: seen.setdefault(match[0], f"<key {len(seen)}>"), text)
    value = json.loads(text)
    if not exact_args:
        value = _canonical(value)
    return value


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    if isinstance(value, str) and "[tool_call: " in value:
        return canonical_tool_calls(value)
    return value


def replayable(call: Call) -> bool:
    """Whether a call is a pure function of its input and was cheap: a shape or an encode, or a scenario that makes
    no real HTTP call."""
    if call.op not in PURE_OPERATIONS or call.seconds > CHEAP_CALL_S or not isinstance(call.params, Mapping):
        return False
    if call.op != "scenario":
        return True
    runtime = call.params.get("runtime")
    # real HTTP is not a function of the input; a working directory the test has removed since is made again
    return not (isinstance(runtime, Mapping) and runtime.get("http_provider"))


def diagnose(
    calls: Iterable[Call], rules: Iterable[str], description: Mapping[str, Any], budget_s: float = BUDGET_S
) -> list[Match]:
    """The known mistakes of ``rules`` that reproduce the implementation's answer to one of ``calls`` (the last
    replayable call where some do, newest first) where the reference's answer differs; empty when none does."""
    started = time.monotonic()
    candidates = mistakes_of(rules)
    if not candidates:
        return []
    strings = _strings_class(description.get("strings") or {})
    exact = (description.get("options") or {}).get("args_json") == "origin"
    reference = _adapter("advisor_reference.adapter:ReferenceAdapter", strings)
    recent = [call for call in calls if replayable(call)][-RECENT_CALLS:]
    for call in reversed(recent):
        with _working_directory(call) as replayable_now:
            found = _matches(call, candidates, reference, strings, exact, started, budget_s) if replayable_now else []
        if found:
            return found
        if time.monotonic() - started > budget_s:
            break
    return []


def _matches(
    call: Call, candidates: list[Any], reference: Any, strings: Any, exact: bool, started: float, budget_s: float
) -> list[Match]:
    got = _normal(call.op, call.answer, exact)
    if _answer(reference, call, exact) == got:
        return []  # the implementation answered this call as the reference does: the failure is elsewhere
    found: list[Match] = []
    for entry in candidates:
        if time.monotonic() - started > budget_s:
            break
        try:
            answer = _answer(_adapter(entry.target, strings), call, exact)
        except Exception:  # a known mistake that cannot answer this input explains nothing
            continue
        if answer == got:
            found.append(Match(entry.id, entry.rule, tuple(entry.also), entry.how, call.op))
    return found


def _answer(adapter: Any, call: Call, exact: bool) -> Any:
    return _normal(call.op, getattr(adapter, call.op)(copy.deepcopy(call.params)), exact)


@contextlib.contextmanager
def _working_directory(call: Call) -> Iterator[bool]:
    """Whether a call can be replayed as it was sent: its scenario's working directory exists, or is made again for
    the replay (:func:`advisor_conformance.workspace.again`)."""
    work = call.params.get("work_dir") if call.op == "scenario" else None
    if not isinstance(work, str) or os.path.isdir(work):
        yield True
        return
    from ..workspace import again

    with again(work) as made:
        yield made


def narrowed(matches: list[Match], located: list[str]) -> list[str]:
    """The rules a failure is blamed on when known mistakes explain it: each matching mistake's rule, then what the
    same mistake cannot help breaking (its ``also``) where the difference was located too."""
    out = [match.rule for match in matches]
    out += [rule for match in matches for rule in match.also if rule in located]
    return list(dict.fromkeys(out))
