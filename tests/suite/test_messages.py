"""Failure messages stay small and keep what matters, whatever the size of the answer or the input."""

from __future__ import annotations

import pytest

from advisor_conformance._bounded import LINE_LIMIT
from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.protocol import ContractError
from advisor_conformance._contract.transport import InProcessTransport
from advisor_conformance.checks import MESSAGE_LIMIT, violation

BIG = 5 * 1024 * 1024


class _Answers:
    """An adapter whose shape answers whatever the test gives it."""

    def __init__(self, answer):
        self.answer = answer

    def shape(self, params):
        return self.answer


def _contract_error(answer) -> str:
    implementation = Implementation("fake", InProcessTransport(_Answers(answer), "fake"), {"name": "fake"})
    with pytest.raises(ContractError) as caught:
        implementation.call("shape", {"transcript": []})
    return str(caught.value)


def _lines_are_capped(message: str) -> bool:
    return all(len(line) <= LINE_LIMIT + 40 for line in message.splitlines())


def test_five_megabyte_answer_with_one_unexpected_key_names_the_key_briefly():
    """A 5 MB answer with one key outside the schema gives a ContractError under 20,000 characters naming it."""
    answer = {"messages": [{"role": "user", "content": "x" * BIG}], "surprise_key": True}
    message = _contract_error(answer)
    assert len(message) < 20_000
    assert "surprise_key" in message
    assert _lines_are_capped(message)


@pytest.mark.parametrize(
    "answer",
    [
        {"messages": "y" * (20 * 1024 * 1024)},
        {"messages": [{"role": "", "content": "z" * 1024} for _ in range(20_000)]},
        {"messages": [{"role": "user", "content": 7}] * 50_000},
    ],
    ids=["20mb-string-for-an-array", "20k-messages-with-an-empty-role", "50k-messages-with-a-bad-type"],
)
def test_huge_answers_outside_the_schema_give_messages_of_a_few_kilobytes(answer):
    """An answer of megabytes outside the schema gives a message of at most a few KB that names the path."""
    message = _contract_error(answer)
    assert len(message) < 8_000
    assert "messages" in message
    assert _lines_are_capped(message)


def test_rule_violation_with_huge_values_keeps_every_section_and_stays_bounded():
    """A violation about megabytes of input and answer still shows the rule, the input and the answer, within bounds."""
    huge = {"transcript": [{"role": "user", "content": "q" * BIG}] * 3 + [{"role": "user", "content": "w"}] * 5000}
    error = violation(
        "files.per-file-cap",
        "the file was not capped",
        input=huge,
        answer={"messages": huge["transcript"]},
        expected="a" * BIG,
        actual="a" * (BIG - 1) + "b",
    )
    message = str(error)
    assert message.startswith("[files.per-file-cap]")
    assert "input:" in message and "answer:" in message
    assert len(message) <= MESSAGE_LIMIT + 200
    assert _lines_are_capped(message)
    assert str(BIG - 1) in message  # where the two strings first differ


def test_violation_of_deeply_nested_values_is_bounded():
    """A value nested thousands deep is summarised, not walked to the bottom."""
    deep: object = "leaf"
    for _ in range(5000):
        deep = [deep]
    message = str(violation("elision.any-depth", "too deep", input={"arguments": deep}))
    assert "input:" in message and len(message) < 4000
