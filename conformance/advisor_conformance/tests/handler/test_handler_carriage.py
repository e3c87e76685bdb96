"""Caller text carried byte for byte through a call (``scenario``) over a scripted provider: the question and
snapshot reach the provider's request as the tool call gives them, and the provider's answer becomes the returned note,
apart from its trim. No byte-order mark is removed, no Unicode normalisation applied, no line end changed
(``advisor_conformance.carriage`` names the library defaults that do).
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS
from advisor_conformance.checks import check
from advisor_conformance.scenarios import call, reply, requests_of, result_of, run, scenario
from advisor_conformance.shaping import params, shape

from ..common.carriage import CLASSES, _carried


@pytest.mark.rule(id="handler.provider-request")
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.needs(areas=["request"])
def test_question_and_snapshot_reach_the_request_byte_for_byte(impl, name):
    """The question of the tool call and the snapshot's texts reach the provider request as ``shape`` renders them:
    decoding the tool input or the snapshot normalises nothing."""
    text = TEXTS[name]
    snapshot = [{"role": "user", "content": text},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "grep",
                                                                     "arguments": {"pattern": text}}]},
                {"role": "tool", "name": "grep", "tool_call_id": "c1", "content": text}]
    shown = scenario([{"call": call(input={"question": text}, snapshot=snapshot)}])
    answer = run(impl, shown, "handler.provider-request")
    result_of(answer, 0, "handler.provider-request", shown)
    (request,) = requests_of(answer, 0)
    expected = shape(impl, params(snapshot, question=text), "handler.provider-request")
    for index, (got, wanted) in enumerate(zip(request["messages"], expected, strict=False)):
        _carried(got.get("content"), wanted["content"], "handler.provider-request",
              f"message {index} of the provider request is not what shape renders", shown)
    check(len(request["messages"]) == len(expected), "handler.provider-request", "the provider request holds "
          f"{len(request['messages'])} messages, shape renders {len(expected)}", input=shown)


@pytest.mark.rule(id="handler.note-trimmed")
@pytest.mark.parametrize("name", CLASSES)
def test_answer_reaches_the_note_byte_for_byte_inside_its_trim(impl, name):
    """The note is the answer trimmed of white space and nothing else: its byte-order mark, Unicode form, line ends
    and control characters are kept."""
    shown = scenario([{"call": call(provider=[reply(f"\n {TEXTS[name]}\t\n")])}])
    note = result_of(run(impl, shown, "handler.note-trimmed"), 0, "handler.note-trimmed", shown)
    _carried(note, TEXTS[name], "handler.note-trimmed", "the note was changed beyond its trim", shown)
