"""The in-flight message (spec: Payload shaping, buildMessages; clarifications §5)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import body, check_segments, final, params, shape

ADVISOR_CALL = [{"id": "call_adv", "name": "advisor", "arguments": {"question": "is this plan sound?"}}]


def _in_flight(content, tool_calls=ADVISOR_CALL):
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


@pytest.mark.rule(id="inflight.last-message-only")
@given(earlier=s.transcripts(max_size=5), text=st.text(min_size=1, max_size=40).filter(lambda t: oracle.trim(t)))
def test_only_the_last_message_is_looked_at(impl, strings, earlier, text):
    """An assistant message followed by any other message stays in the transcript, and no label is written."""
    transcript = [*earlier, {"role": "assistant", "content": text}, {"role": "user", "content": "and then?"}]
    request = params(transcript)
    messages = shape(impl, request, "inflight.last-message-only")
    check_equal(len(body(messages)), len(transcript), "inflight.last-message-only",
                "a message that is not last was taken out of the transcript", input=request)
    check(strings["inflight_label"] not in final(messages), "inflight.last-message-only",
          "an in-flight block was written though the last message is not an assistant message", input=request,
          actual=final(messages))


@pytest.mark.rule(id="inflight.last-message-only")
@given(earlier=s.transcripts(max_size=5), before=s.assistant_messages(), last=s.assistant_messages())
def test_assistant_message_before_the_last_one_stays(impl, earlier, before, last):
    """Of two assistant messages that end the snapshot, only the last is taken out; the one before it stays."""
    transcript = [*earlier, before, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.last-message-only")
    check_equal(len(body(messages)), len(earlier) + 1, "inflight.last-message-only",
                "the assistant message before the last one was taken out of the transcript too", input=request)
    check_equal(body(messages)[-1]["role"], "assistant", "inflight.last-message-only",
                "the transcript does not end with the assistant message before the last one", input=request)


@pytest.mark.rule(id="inflight.assistant-removed")
@given(earlier=s.transcripts(max_size=5), last=s.assistant_messages())
def test_trailing_assistant_message_leaves_the_transcript(impl, earlier, last):
    """A trailing assistant message, with or without text and calls, is not rendered in the transcript."""
    transcript = [*earlier, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.assistant-removed")
    check_equal(len(body(messages)), len(earlier), "inflight.assistant-removed",
                "the trailing assistant message stayed in the transcript", input=request)


@pytest.mark.rule(id="inflight.empty-dropped")
@pytest.mark.parametrize("content", ["", " ", "\n\t\r ", "\u00a0\u3000"], ids=["empty", "space", "blanks", "unicode-spaces"])
@pytest.mark.parametrize("calls", [True, False], ids=["with-calls", "no-calls"])
def test_blank_in_flight_text_is_dropped_without_label(impl, strings, content, calls):
    """A trailing assistant message whose text is blank after trimming leaves no label and no text."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(content, ADVISOR_CALL if calls else None)]
    request = params(transcript, question="what next?")
    got = final(shape(impl, request, "inflight.empty-dropped"))
    check_segments(got, [("what next?", "inflight.empty-dropped"), ("\n\n", "question.blank-line"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   "a blank in-flight message left something in the trailing message", input=request)


@pytest.mark.rule(id="inflight.label-at-head")
@given(text=st.text(min_size=1, max_size=200).filter(lambda t: oracle.trim(t)), question=s.questions())
def test_label_opens_the_final_message(impl, strings, text, question):
    """A trailing assistant message with text puts the declared label and that text at the head of the final message."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(text)]
    request = params(transcript, question=question)
    got = final(shape(impl, request, "inflight.label-at-head"))
    check(got.startswith(strings["inflight_label"]), "inflight.label-at-head",
          "the trailing message does not open with the declared in-flight label", input=request, actual=got)
    check(oracle.trim(text) in got, "inflight.label-at-head", "the in-flight text is not in the trailing message",
          input=request, actual=got)


@pytest.mark.rule(id="inflight.block-layout")
@given(text=st.text(min_size=1, max_size=200).filter(lambda t: oracle.trim(t)),
       pad=st.lists(st.sampled_from(s.GO_SPACES), max_size=3).map("".join))
def test_block_is_label_newline_trimmed_text_blank_line(impl, strings, text, pad):
    """The in-flight block is the label, a newline, the text trimmed, and a blank line."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(pad + text + pad)]
    request = params(transcript)
    got = final(shape(impl, request, "inflight.block-layout"))
    check_segments(got, [(f"{strings['inflight_label']}\n{oracle.trim(pad + text + pad)}\n\n", "inflight.block-layout"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   "the in-flight block is not label, newline, trimmed text, blank line", input=request)


@pytest.mark.rule(id="inflight.block-layout")
@pytest.mark.parametrize("edge", s.NOT_GO_SPACES, ids=["file-separator", "byte-order-mark", "zero-width-space"])
def test_characters_outside_gos_space_set_stay_in_the_block(impl, strings, edge):
    """The in-flight text keeps characters that Go does not count as white space (U+001C, U+FEFF, U+200B) at its edges."""
    text = f"{edge}next I rewrite parse(){edge}"
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(f" {text}\n")]
    request = params(transcript)
    got = final(shape(impl, request, "inflight.block-layout"))
    check_segments(got, [(f"{strings['inflight_label']}\n{text}\n\n", "inflight.block-layout"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   f"{edge!r} was trimmed from the in-flight text, but Go keeps it", input=request)


@pytest.mark.rule(id="inflight.other-role-stays")
@given(earlier=s.transcripts(max_size=5),
       last=st.one_of(s.tool_messages(), s.user_messages(), s.system_messages()))
@example(earlier=[{"role": "user", "content": "run the tests"}],
         last={"role": "tool", "name": "bash", "tool_call_id": "call_1", "content": "2 failed"})
@example(earlier=[{"role": "user", "content": "run the tests"}], last={"role": "user", "content": "and then?"})
@example(earlier=[{"role": "user", "content": "run the tests"}], last={"role": "system", "content": "be brief"})
def test_other_trailing_roles_stay(impl, strings, earlier, last):
    """A trailing tool, user or system message stays in the transcript and no in-flight block is written."""
    transcript = [*earlier, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.other-role-stays")
    check_equal(len(body(messages)), len(transcript), "inflight.other-role-stays",
                "a trailing non-assistant message was taken out", input=request)
    check(strings["inflight_label"] not in final(messages), "inflight.other-role-stays",
          "an in-flight block was written though the last message is not an assistant's", input=request,
          actual=final(messages))
    check_segments(final(messages), [(strings["guidance_request"], "request.guidance-request")], strings,
                   "the trailing message holds more than the guidance request", input=request)
