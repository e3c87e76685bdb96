"""Assertions that name the rule they check and show the input that broke it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._bounded import abbreviate, cap_line, cap_lines, show
from ._excerpts import first_difference, parting, region

__all__ = [
    "RuleViolation",
    "SnapshotReview",
    "abbreviate",
    "answer_of",
    "check",
    "check_equal",
    "refusal",
    "show",
    "violation",
]

_MISSING = object()
_LONG = 160
#: The most characters a failure message holds; each section is bounded well below it.
MESSAGE_LIMIT = 16000


class RuleViolation(AssertionError):
    """An implementation broke a rule of the catalogue.

    ``rules`` are the rules the failure is attributed to; ``checked`` the rules of the same test that were checked
    in full and held (a golden vector compares every field, so its other rules are known to pass). A ``refused``
    violation is an operation that answered an error where the test expected an answer (:func:`refusal`): the plugin
    blames it on the rules of the test that made the call, whatever ``rules`` the helper that saw it named.
    """

    def __init__(
        self, message: str, rules: Iterable[str] = (), checked: Iterable[str] = (), refused: bool = False
    ) -> None:
        super().__init__(message)
        self.rules = list(rules)
        self.checked = list(checked)
        self.refused = refused


class SnapshotReview(AssertionError):
    """A snapshot to review, not a rule failure: the rendered request ``changed`` from its recorded snapshot, or no
    snapshot is ``not recorded`` yet. The plugin gives the test that outcome and the command that accepts it."""

    OUTCOMES = ("changed", "not recorded")

    def __init__(self, message: str, outcome: str) -> None:
        if outcome not in self.OUTCOMES:
            raise ValueError(f"a snapshot review is one of {self.OUTCOMES}, not {outcome!r}")
        super().__init__(message)
        self.outcome = outcome


def violation(
    rules: str | Iterable[str],
    what: str,
    *,
    input: Any = _MISSING,
    expected: Any = _MISSING,
    actual: Any = _MISSING,
    answer: Any = _MISSING,
    checked: Iterable[str] = (),
) -> RuleViolation:
    """Build the failure: ``[rule.id] what``, then the input, the answer, the expected and the actual value."""
    ids = [rules] if isinstance(rules, str) else list(rules)
    lines = [cap_lines(f"[{', '.join(ids)}] {what}", lines=30)]
    if input is not _MISSING:
        lines.append("input: " + show(input).replace("\n", "\n  "))
    if answer is not _MISSING:
        lines.append("answer: " + show(answer).replace("\n", "\n  "))
    if isinstance(expected, str) and isinstance(actual, str) and max(len(expected), len(actual)) > 2 * _LONG:
        lines.extend(_string_difference(expected, actual))
    else:
        if expected is not _MISSING:
            lines.append("expected: " + (_string(expected) if isinstance(expected, str) else show(expected)))
        if actual is not _MISSING:
            lines.append("actual:   " + (_string(actual) if isinstance(actual, str) else show(actual)))
    message = "\n".join(lines)
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT] + f"\n… (the message is cut at {MESSAGE_LIMIT} of {len(message)} characters)"
    return RuleViolation(message, ids, checked)


def _string(text: str) -> str:
    return cap_line(repr(text))


def _string_difference(expected: str, actual: str) -> list[str]:
    """Long strings: where they first differ, what each holds there (by code point) and some context on each side."""
    at = first_difference(expected, actual)
    return [
        f"expected ({len(expected)} characters) and actual ({len(actual)} characters) first differ at character {at} "
        f"({parting(expected, actual, at)}):",
        cap_line(region("expected", expected, at - 60, at + 100)),
        cap_line(region("actual", actual, at - 60, at + 100)),
    ]


def refusal(rules: str | Iterable[str], what: str, /, **context: Any) -> RuleViolation:
    """An operation answered an error (``unsupported_op``, a refused input, ...) where the test expected an answer:
    a violation the plugin blames on the rules of the test that made the call, not on the rules of a helper that
    only reads the answer (``rules``: what the message names when the violation is raised outside a test)."""
    error = violation(rules, what, **context)
    error.refused = True
    return error


def check(condition: bool, rules: str | Iterable[str], what: str, /, **context: Any) -> None:
    """Fail with a :class:`RuleViolation` naming ``rules`` unless ``condition`` holds."""
    __tracebackhide__ = True
    if not condition:
        raise violation(rules, what, **context)


def check_equal(value: Any, expected: Any, rules: str | Iterable[str], what: str, /, **context: Any) -> None:
    """Fail naming ``rules`` unless ``actual == expected``; the message shows both.

    An ``actual=`` in ``context`` (the whole answer the value came from) is
    shown as the answer.
    """
    __tracebackhide__ = True
    if value != expected:
        if "actual" in context:
            context["answer"] = context.pop("actual")
        raise violation(rules, what, expected=expected, actual=value, **context)


def answer_of(impl: Any, op: str, params: Any, rules: str | Iterable[str], **kwargs: Any) -> Any:
    """The implementation's answer to ``op``; a broken protocol (a crash, an answer outside the schema)
    fails naming ``rules`` too, so every failure of a rule's test says which rule it was checking."""
    __tracebackhide__ = True
    from ._contract.protocol import ContractError

    try:
        return impl.call(op, params, **kwargs)
    except ContractError as exc:
        blamed = _tool_structure(exc.answer) or rules
        raise violation(blamed, f"the implementation broke the protocol on {op}: {exc}", input=params) from None


def _tool_structure(answer: Any) -> list[str]:
    """request.no-tools, when what breaks the schema is a rendered message with more than a role and a text: the
    rule that says every message is a role and plain text (a tool_calls array kept beside the text, say)."""
    if not isinstance(answer, dict):
        return []
    messages = list(answer.get("messages") or [])
    for request in answer.get("provider_requests") or []:
        if isinstance(request, dict):
            messages.extend(request.get("messages") or [])
    for message in messages:
        if isinstance(message, dict) and (
            set(message) - {"role", "content"} or not isinstance(message.get("content"), str)
        ):
            return ["request.no-tools"]
    return []
