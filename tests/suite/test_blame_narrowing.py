"""Golden vectors: a difference is blamed on the rule that explains it, not on every rule the vector pins on its
field: the one message too many or missing, a deduped block without its notice, an elision threshold that shows."""

from __future__ import annotations

from advisor_conformance.vectors import Case, attribute, differences

LABEL = "In flight:"
STRINGS = {"deduped_file_notice": "(see above)", "guidance_request": "Advise.", "inflight_label": LABEL}
PINS = {"messages": ("request.message-sequence", "handler.provider-request")}


def _case(transcript, rules=("request.message-sequence", "inflight.assistant-removed", "inflight.label-at-head")):
    return Case("f", "c", "d", tuple(rules), "shape", {"transcript": transcript}, {}, {}, None, PINS)


def _blames(case, expected, actual, strings=STRINGS):
    found = differences(expected, actual, exact_args=True, strings=strings)
    return [(diff.where, rules) for diff, rules in attribute(case, found, strings).items()]


SYSTEM = {"role": "system", "content": "You advise."}
USER = {"role": "user", "content": "fix it"}
IN_FLIGHT = {"role": "assistant", "content": "next I rewrite parse()"}


def test_the_kept_in_flight_message_is_the_removal_rules_alone():
    """A request that holds the trailing assistant message just before the final message, all else equal, is blamed
    on inflight.assistant-removed alone, not on the rules that pin the list of messages."""
    final = {"role": "user", "content": f"{LABEL}\nnext I rewrite parse()\n\nAdvise."}
    expected = {"messages": [SYSTEM, USER, final]}
    actual = {"messages": [SYSTEM, USER, IN_FLIGHT, final]}
    assert _blames(_case([USER, IN_FLIGHT]), expected, actual) == [("answer.messages", ("inflight.assistant-removed",))]


def test_a_kept_message_and_a_final_message_without_its_label_are_blamed_each_on_its_rule():
    """With the final message lacking its in-flight block as well, the message too many is the removal's and the
    final message's departure the label's (absent altogether: not the block layout's)."""
    expected_final = {
        "role": "user",
        "content": {
            "$segments": [
                [f"{LABEL}\nnext I rewrite parse()\n\n", ["inflight.block-layout"]],
                ["Advise.", ["request.guidance-request"]],
            ]
        },
    }
    expected = {"messages": [SYSTEM, USER, expected_final]}
    actual = {"messages": [SYSTEM, USER, IN_FLIGHT, {"role": "user", "content": "Advise."}]}
    assert _blames(_case([USER, IN_FLIGHT]), expected, actual) == [
        ("answer.messages", ("inflight.assistant-removed",)),
        ("answer.messages[2].content", ("inflight.label-at-head",)),
    ]


def test_a_missing_snapshot_message_is_its_flattening_rules():
    """A snapshot message left out of the middle of the request is blamed on the rule that renders it."""
    tool = {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "ok"}
    flat_tool = {"role": "user", "content": "[tool_result: bash]\nok"}
    final = {"role": "user", "content": "Advise."}
    expected = {"messages": [SYSTEM, USER, flat_tool, USER, final]}
    actual = {"messages": [SYSTEM, USER, USER, final]}
    assert _blames(_case([USER, tool, USER]), expected, actual) == [("answer.messages", ("flatten.tool-result",))]


def test_two_different_items_that_could_be_the_one_too_many_are_not_told_apart():
    """When leaving out either of two different items explains the answer equally well, no item is named: the
    pins decide."""
    expected = {"messages": [SYSTEM, USER]}
    actual = {"messages": [SYSTEM, {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    assert _blames(_case([USER]), expected, actual) == [("answer.messages", PINS["messages"])]


def test_a_deduped_block_without_its_notice_is_the_notices_alone():
    """A final message whose deduped slot holds the file's path and an empty fence (its content left out, no notice)
    is blamed on dedupe.notice, not on the dedupe rules the vector pins on the message."""
    rules = ("dedupe.full-read-match", "dedupe.most-recent-full-read", "dedupe.file-hash", "dedupe.notice")
    case = Case("f", "c", "d", rules, "shape", {}, {}, {}, None, {"messages[-1].content": rules[:3]})
    expected = {"messages": [{"role": "user", "content": "\ue000a.go\ue001Advise."}]}
    actual = {"messages": [{"role": "user", "content": "File: a.go\n```\n\n```\n\nAdvise."}]}
    found = differences(expected, actual, exact_args=True, strings=STRINGS, contents={"a.go": "package main\n"})
    assert list(attribute(case, found, STRINGS).values()) == [("dedupe.notice",)]
    sent = {"messages": [{"role": "user", "content": "File: a.go\n```\npackage main\n\n```\n\nAdvise."}]}
    found = differences(expected, sent, exact_args=True, strings=STRINGS, contents={"a.go": "package main\n"})
    assert list(attribute(case, found, STRINGS).values()) == [rules[:3]]  # sent whole: the dedupe decision


def test_a_string_left_whole_at_most_1000_characters_long_is_the_thresholds():
    """A tool-call line holding an argument of over 1000 bytes but at most 1000 characters left whole is blamed on
    elision.threshold, not on the byte cut the vector pins."""
    case = Case(
        "f",
        "c",
        "d",
        ("elision.byte-cut", "elision.threshold"),
        "shape",
        {},
        {},
        {},
        None,
        {"messages[1].content": ("elision.byte-cut",)},
    )
    text = "€" * 400  # 1200 bytes, 400 characters
    cut = "€" * 333 + "\ufffd" + "\u2026[elided, 1200 bytes total]"
    expected = {"messages": [SYSTEM, {"role": "assistant", "content": f'[tool_call: edit {{"s":"{cut}"}}]'}]}
    actual = {"messages": [SYSTEM, {"role": "assistant", "content": f'[tool_call: edit {{"s":"{text}"}}]'}]}
    found = differences(expected, actual, exact_args=True, strings=STRINGS)
    assert list(attribute(case, found, STRINGS).values()) == [("elision.threshold",)]
