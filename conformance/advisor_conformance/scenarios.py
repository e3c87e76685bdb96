"""Building ``scenario`` operations and reading their answers, for the runtime tests.

For black-box runs (``runtime.http_provider``), :class:`Reply` scripts what the loopback provider answers,
:func:`recorded_answer` and :func:`expected_answers` give the recorded provider answers of ``fixtures/http``,
and :func:`refused_url` is an address where nothing listens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._loopback import Reply, expected_answers, recorded_answer, refused_url
from .checks import answer_of, check, violation

__all__ = [
    "SNAPSHOT", "Reply", "budget_note", "call", "declared", "error_of", "expected_answers", "failure", "mentions",
    "recorded_answer", "refused_url", "reply", "requests_of", "result_of", "run", "scenario",
]
from ._implementation import Implementation

SNAPSHOT = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Make the failing test pass."},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "call_adv", "name": "advisor", "arguments": {"question": "Is my plan sound?"}}]},
]
"""A live snapshot as the advisor sees it: the in-flight call has no text, so the final message opens with files."""


def reply(answer: str = "Looks fine; run the tests next.", finish_reason: str = "stop", delay_ms: int = 0
          ) -> dict[str, Any]:
    out: dict[str, Any] = {"answer": answer, "finish_reason": finish_reason}
    if delay_ms:
        out["delay_ms"] = delay_ms
    return out


def failure(message: str = "upstream returned 500", status: int = 500) -> dict[str, Any]:
    return {"error": message, "status": status}


def call(*, agent: str | None = None, conversation: int = 1, turn: int = 1, input: Any = None,
         snapshot: Any = SNAPSHOT, provider: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One advisor call of a scenario; by default a bare call on a small snapshot with one good reply."""
    return {
        "agent": agent,
        "conversation": conversation,
        "turn": turn,
        "input": {} if input is None else input,
        "snapshot": snapshot,
        "provider": [reply()] if provider is None else provider,
    }


def scenario(steps: Iterable[Mapping[str, Any]], runtime: Mapping[str, Any] | None = None,
             work_dir: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"runtime": dict(runtime or {}), "steps": list(steps)}
    if work_dir is not None:
        params["work_dir"] = work_dir
    return params


def run(impl: Implementation, params: Mapping[str, Any], rules: str | Iterable[str]) -> dict[str, Any]:
    """The answer to a valid scenario; an error answer for the whole scenario fails naming ``rules``."""
    answer = answer_of(impl, "scenario", params, rules)
    if "error" in answer:
        raise violation(rules, "the scenario as a whole was refused", input=params, actual=answer["error"])
    return answer


def requests_of(answer: Mapping[str, Any], call_index: int) -> list[dict[str, Any]]:
    return [request for request in answer["provider_requests"] if request["call"] == call_index]


def result_of(answer: Mapping[str, Any], index: int, rules: str | Iterable[str], params: Any) -> str:
    """The note of call ``index``; an error fails naming ``rules``."""
    outcome = answer["calls"][index]
    check("result" in outcome, rules, f"call {index} failed where a note was expected", input=params,
          actual=outcome)
    return outcome["result"]


def error_of(answer: Mapping[str, Any], index: int, rules: str | Iterable[str], params: Any) -> dict[str, Any]:
    """The error of call ``index``; a note fails naming ``rules``."""
    outcome = answer["calls"][index]
    check("error" in outcome, rules, f"call {index} succeeded where an error was expected", input=params,
          actual=outcome)
    return outcome["error"]


def budget_note(strings: Mapping[str, str], used: int, limit: int, rules: str | Iterable[str]) -> str:
    """The declared budget-spent note for ``used``/``limit``."""
    template = declared(strings, "budget_spent", rules)
    return template.replace("{used}", str(used)).replace("{max}", str(limit))


def declared(strings: Mapping[str, str], name: str, rules: str | Iterable[str]) -> str:
    """A declared string the rule needs; its absence fails naming ``rules``."""
    if name not in strings:
        raise violation(rules, f"the implementation does not declare the string {name!r}",
                        actual=sorted(strings))
    return strings[name]


def mentions(value: Any, needle: str) -> bool:
    """Whether ``needle`` occurs anywhere in a JSON value's text."""
    return needle in json.dumps(value, ensure_ascii=False)
