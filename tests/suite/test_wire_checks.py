"""The suite's own wire checks catch what they claim to: the Anthropic 400 rules and the SDKs' typed parameters."""

from __future__ import annotations

import pytest

from advisor_conformance.wire import anthropic_400_problems, expected_advisor_positions, sdk_problems

ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}
FIVE_MIN = {"type": "ephemeral"}


def _body(*marks):
    """An Anthropic body with a system block and one text block per mark (None: unmarked)."""
    body = {"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "sys"}], "messages": []}
    for index, mark in enumerate(marks):
        block = {"type": "text", "text": f"block {index}"}
        if mark is not None:
            block["cache_control"] = mark
        body["messages"].append({"role": "user" if index % 2 == 0 else "assistant", "content": [block]})
    return body


def test_a_valid_body_has_no_problems():
    """Four one-hour markers on non-empty blocks break no rule."""
    assert anthropic_400_problems(_body(ONE_HOUR, None, ONE_HOUR, ONE_HOUR, ONE_HOUR)) == []


@pytest.mark.parametrize(
    "body, problem",
    [
        (_body(ONE_HOUR, ONE_HOUR, ONE_HOUR, ONE_HOUR, ONE_HOUR), "5 cache_control markers"),
        (_body(FIVE_MIN, ONE_HOUR), "follows a 5m marker"),
    ],
    ids=["five-markers", "1h-after-5m"],
)
def test_marker_rules_are_caught(body, problem):
    """More than four markers, and a one-hour marker after a five-minute one, are reported."""
    assert any(problem in found for found in anthropic_400_problems(body)), anthropic_400_problems(body)


def test_empty_blocks_are_caught():
    """An empty text block, with or without a marker, is reported."""
    body = _body(ONE_HOUR)
    body["messages"][0]["content"][0]["text"] = ""
    assert any("carries a cache_control marker" in found for found in anthropic_400_problems(body))


def test_thinking_blocks_cannot_carry_markers():
    """A cache_control marker on a thinking block is reported."""
    body = _body(None)
    body["messages"][0]["content"].insert(
        0, {"type": "thinking", "thinking": "hm", "signature": "s", "cache_control": ONE_HOUR}
    )
    assert any("thinking block" in found for found in anthropic_400_problems(body)), anthropic_400_problems(body)


def test_system_must_be_a_list():
    """A system prompt given as a string cannot carry a marker, and is reported."""
    body = _body()
    body["system"] = "sys"
    assert "system is not a list of text blocks" in anthropic_400_problems(body)


@pytest.mark.parametrize(
    "tail, system, positions",
    [(80, 1, [79, 64, 49]), (80, 0, [79, 64, 49, 34]), (31, 1, [30, 15, 0]), (1, 1, [0]), (0, 1, [])],
)
def test_expected_positions_follow_the_worked_examples(tail, system, positions):
    """The suite's own statement of the spacing rule gives the clarifications' worked examples."""
    assert expected_advisor_positions(tail, system) == positions


@pytest.mark.parametrize(
    "provider, body",
    [
        ("anthropic", {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "colour": 1}),
        (
            "anthropic",
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2h"}}],
                    }
                ],
            },
        ),
        ("openai", {"model": "m", "messages": [{"role": "robot", "content": "x"}]}),
        ("codex", {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_txt"}]}]}),
    ],
    ids=["unknown-field", "bad-ttl", "bad-role", "bad-part"],
)
def test_sdk_types_reject_malformed_bodies(provider, body):
    """The SDK check reports unknown fields and values outside the typed parameters."""
    problems = sdk_problems(provider, body)
    if problems is None:
        pytest.skip("the official SDKs are not installed")
    assert problems, f"{body} passed the {provider} SDK types"
