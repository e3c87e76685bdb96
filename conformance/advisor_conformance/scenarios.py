"""Building ``scenario`` operations and reading their answers, for the runtime tests.

For black-box runs (``runtime.http_provider``), :class:`Reply` scripts what the loopback provider answers,
:func:`recorded_answer` and :func:`expected_answers` give the recorded provider answers of ``fixtures/http``,
and :func:`refused_url` is an address where nothing listens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._contract.loopback import Reply, expected_answers, recorded_answer, refused_url
from .checks import answer_of, check, refusal, violation

__all__ = [
    "SNAPSHOT",
    "Reply",
    "budget_note",
    "call",
    "check_cap_holds",
    "check_use_kept",
    "declared",
    "error_of",
    "expected_answers",
    "failure",
    "mentions",
    "note_pattern",
    "recorded_answer",
    "refused_url",
    "reply",
    "requests_of",
    "result_of",
    "run",
    "scenario",
]
from ._contract.implementation import Implementation

SNAPSHOT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Make the failing test pass."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_adv", "name": "advisor", "arguments": {"question": "Is my plan sound?"}}],
    },
]
"""A live snapshot as the advisor sees it: the in-flight call has no text, so the final message opens with files."""


def reply(
    answer: str = "Looks fine; run the tests next.", finish_reason: str = "stop", delay_ms: int = 0
) -> dict[str, Any]:
    out: dict[str, Any] = {"answer": answer, "finish_reason": finish_reason}
    if delay_ms:
        out["delay_ms"] = delay_ms
    return out


def failure(message: str = "upstream returned 500", status: int = 500) -> dict[str, Any]:
    return {"error": message, "status": status}


def call(
    *,
    agent: str | None = None,
    conversation: int = 1,
    turn: int = 1,
    input: Any = None,
    snapshot: Any = SNAPSHOT,
    provider: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One advisor call of a scenario; by default a bare call on a small snapshot with one good reply."""
    return {
        "agent": agent,
        "conversation": conversation,
        "turn": turn,
        "input": {} if input is None else input,
        "snapshot": snapshot,
        "provider": [reply()] if provider is None else provider,
    }


def scenario(
    steps: Iterable[Mapping[str, Any]], runtime: Mapping[str, Any] | None = None, work_dir: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"runtime": dict(runtime or {}), "steps": list(steps)}
    if work_dir is not None:
        params["work_dir"] = work_dir
    return params


def run(impl: Implementation, params: Mapping[str, Any], rules: str | Iterable[str]) -> dict[str, Any]:
    """The answer to a valid scenario; an error answer for the whole scenario fails naming ``rules``."""
    __tracebackhide__ = True
    answer = answer_of(impl, "scenario", params, rules)
    if "error" in answer:
        raise refusal(rules, "the scenario as a whole was refused", input=params, actual=answer["error"])
    return answer


#: Error codes of a call that refused its input or its operation (a call that ran and failed at the provider is
#: a ``provider_error``, and a file it could not load a ``file_error``: what the call's own rules are about).
REFUSALS = ("unsupported_op", "invalid_input")


def requests_of(answer: Mapping[str, Any], call_index: int) -> list[dict[str, Any]]:
    return [request for request in answer["provider_requests"] if request["call"] == call_index]


def _outcome(answer: Mapping[str, Any], index: int, rules: str | Iterable[str], params: Any) -> dict[str, Any]:
    __tracebackhide__ = True
    calls = answer["calls"]
    check(
        index < len(calls),
        rules,
        f"the answer holds {len(calls)} call outcome(s); call {index} has none",
        input=params,
        actual=calls,
    )
    return calls[index]


def result_of(answer: Mapping[str, Any], index: int, rules: str | Iterable[str], params: Any) -> str:
    """The note of call ``index``; an error fails naming ``rules``."""
    __tracebackhide__ = True
    outcome = _outcome(answer, index, rules, params)
    error = outcome.get("error")
    if "result" not in outcome and isinstance(error, dict) and error.get("code") in REFUSALS:
        raise refusal(
            rules,
            f"call {index} was refused ({error.get('code')}) where a note was expected",
            input=params,
            actual=outcome,
        )
    check("result" in outcome, rules, f"call {index} failed where a note was expected", input=params, actual=outcome)
    return outcome["result"]


def error_of(answer: Mapping[str, Any], index: int, rules: str | Iterable[str], params: Any) -> dict[str, Any]:
    """The error of call ``index``; a note fails naming ``rules``."""
    __tracebackhide__ = True
    outcome = _outcome(answer, index, rules, params)
    check(
        "error" in outcome, rules, f"call {index} succeeded where an error was expected", input=params, actual=outcome
    )
    return outcome["error"]


def check_use_kept(
    impl: Implementation,
    answer: Mapping[str, Any],
    params: Any,
    strings: Mapping[str, str],
    rules: str | Iterable[str],
    index: int = 1,
) -> None:
    """With the cap at 1, call ``index`` comes after a failed call: it gets the budget note 1/1, so the failure kept
    its use. When it does not, the controls (two good calls with the cap at 1, of one turn and of two) tell a failure
    that gave its use back (``rules``) from a cap that lets a call too many through (budget.no-provider-call), a
    counter not shared between turns (budget.shared-counter) or a call past the cap that answers something else
    than the note (budget.exhausted-result), with the calls' counts."""
    __tracebackhide__ = True
    expected = budget_note(strings, 1, 1, rules)
    got = _outcome(answer, index, rules, params)
    if got.get("result") == expected:
        return
    check_cap_holds(impl, cap=1, calls=2, strings=strings)
    check_cap_holds(impl, cap=1, calls=2, shared=True)
    made = len(requests_of(answer, index)) if "provider_requests" in answer else "?"
    raise violation(
        rules,
        f"with the cap at 1, call {index} after the failed call did not get the budget note 1/1 (it "
        f"made {made} provider request(s)), though the second of two good calls does",
        input=params,
        expected=expected,
        actual=got,
    )


def check_cap_holds(
    impl: Implementation,
    cap: int = 2,
    calls: int = 3,
    *,
    shared: bool = False,
    strings: Mapping[str, str] | None = None,
) -> None:
    """A control for the budget tests: ``calls`` good calls with the cap at ``cap`` reach the provider ``cap`` times.
    The calls are of one turn (a cap that does not hold at all breaks budget.no-provider-call), or with ``shared``
    each of its own turn (a counter that is not shared between turns breaks budget.shared-counter). Counted by the
    provider requests made, whatever the notes say; with ``strings``, each call past the cap must then answer the
    budget note (budget.exhausted-result). A budget test runs it before it blames its own rule."""
    __tracebackhide__ = True
    rule = "budget.shared-counter" if shared else "budget.no-provider-call"
    params = scenario(
        [{"call": call(turn=index + 1 if shared else 1)} for index in range(calls)], runtime={"max_uses_per_run": cap}
    )
    answer = run(impl, params, rule)
    answered = len({request["call"] for request in answer.get("provider_requests", [])})
    where = "each of its own turn" if shared else "of one turn"
    check(
        answered == cap,
        rule,
        f"with the cap at {cap}, {answered} of {calls} calls ({where}) reached the provider; expected {cap}",
        input=params,
        actual=answer["calls"],
    )
    if strings is None:
        return
    expected = budget_note(strings, cap, cap, "budget.exhausted-result")
    for index in range(cap, calls):
        outcome = _outcome(answer, index, "budget.exhausted-result", params)
        check(
            outcome.get("result") == expected,
            "budget.exhausted-result",
            f"with the cap at {cap}, call {index} past the cap did not answer the budget note {cap}/{cap}",
            input=params,
            expected=expected,
            actual=outcome,
        )


def budget_note(strings: Mapping[str, str], used: int, limit: int, rules: str | Iterable[str]) -> str:
    """The declared budget-spent note for ``used``/``limit``."""
    template = declared(strings, "budget_spent", rules)
    return template.replace("{used}", str(used)).replace("{max}", str(limit))


def note_pattern(strings: Mapping[str, str], parts: Sequence[str], cut: bool) -> re.Pattern[str]:
    """The notes the handler rules allow for an answer of ``parts`` (white space between them allowed; no parts: an
    empty answer), stopped on the token limit (``cut``) or not: the trimmed answer, then, when cut, white space and
    the declared token-limit note (no sentence fixes the separator; the reference writes a blank line). An empty
    answer is the no-content note; cut, it is the token-limit note alone or after the no-content note (clar. §8's
    steps read in either order). Match it whole (``fullmatch``)."""
    limit = r"\s*" + re.escape(declared(strings, "token_limit_note", "handler.token-limit-note")) if cut else ""
    if parts:
        return re.compile(r"\s*".join(re.escape(part) for part in parts) + limit)
    no_content = re.escape(declared(strings, "no_content_note", "handler.empty-answer-note"))
    return re.compile(f"(?:{no_content})?{limit}" if cut else no_content)


def declared(strings: Mapping[str, str], name: str, rules: str | Iterable[str]) -> str:
    """A declared string the rule needs; its absence fails naming ``rules``."""
    __tracebackhide__ = True
    if name not in strings:
        raise violation(rules, f"the implementation does not declare the string {name!r}", actual=sorted(strings))
    return strings[name]


def mentions(value: Any, needle: str) -> bool:
    """Whether ``needle`` occurs anywhere in a JSON value's text."""
    return needle in json.dumps(value, ensure_ascii=False)
