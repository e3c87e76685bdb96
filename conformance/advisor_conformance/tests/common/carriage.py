"""Checks that caller text reaches a request or a note byte for byte, shared by the carriage tests of several areas."""

from __future__ import annotations

from advisor_conformance.carriage import TEXTS, where_changed
from advisor_conformance.checks import check, violation
from advisor_conformance.scenarios import SNAPSHOT, call, run, scenario

#: The classes of text of advisor_conformance.carriage that must arrive unchanged.
CLASSES = list(TEXTS)
ASK = [{"role": "user", "content": "what do you make of this?"}]


def _carried(got, expected, rule, what, request):
    """``got`` is ``expected`` code point for code point; the failure says where they part, in code points."""
    __tracebackhide__ = True
    if got != expected:
        raise violation(rule, f"{what}: {where_changed(expected, got)}", input=request, expected=expected, actual=got)


def _head_and_rest(text, head, rule, what, request):
    """The part of ``text`` after ``head``, which must open it (a frame whose own rule is ``rule``)."""
    __tracebackhide__ = True
    check(text.startswith(head), rule, f"{what}: the text does not open with {head!r}", input=request, actual=text)
    return text[len(head):]


PROVIDERS = ["anthropic", "openai", "codex"]


def _http_call(impl, lb, provider, answered, rule, snapshot=SNAPSHOT, reasoning=None):
    """One call answered with ``answered`` by the loopback provider over HTTP; the answer and what to show of it."""
    runtime = {"http_provider": {"kind": provider, "base_url": lb.base_url + ("/v1" if provider == "openai" else ""),
                                 "timeout_ms": 5000}, "reasoning": reasoning}
    shown = scenario([{"call": call(provider=[], snapshot=snapshot)}], runtime=runtime)
    lb.expect(answered)
    answer = run(impl, shown, rule)
    return answer, {"scenario": shown, "answered": answered.body[:3000]}
