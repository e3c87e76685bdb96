"""The in-flight message (spec: Payload shaping, buildMessages; clarifications §5)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import (
    body,
    check_in_flight_block,
    check_kept_count,
    check_last_message_stays,
    check_segments,
    file_param,
    file_segments,
    final,
    params,
    shape,
)

ADVISOR_CALL = [{"id": "call_adv", "name": "advisor", "arguments": {"question": "is this plan sound?"}}]
EDIT_CALL = {"id": "call_ed", "name": "edit", "arguments": {"path": "parse.go", "new": "func parse() {}"}}
USER = {"role": "user", "content": "fix it"}
TOOL_RESULT = {"role": "tool", "name": "bash", "tool_call_id": "call_1", "content": "2 failed"}
ADVISOR_RESULT = {"role": "tool", "name": "advisor", "tool_call_id": "call_adv", "content": "check the parser first"}
LONG = "I will now rewrite parse() and its tests. " * 120  # about 5000 bytes: over every cap of the spec


def _in_flight(content, tool_calls=ADVISOR_CALL, **extra):
    message = {"role": "assistant", "content": content, **extra}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def _null_content_control(impl, message):
    """Control: when ``message`` has null content, a transcript holding such a message is accepted
    (transcript.roles reads null as empty text), so that a refusal is not blamed on the rule under test."""
    if not isinstance(message, dict) or "content" not in message or message["content"] is not None:
        return
    shape(impl, params([USER, {"role": "assistant", "content": None, "tool_calls": [EDIT_CALL]},
                        {**TOOL_RESULT, "name": "edit", "tool_call_id": "call_ed"}]), "transcript.roles", accepts=True)


# -- inflight.last-message-only -----------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.last-message-only")
@given(earlier=s.transcripts(max_size=5), text=st.text(min_size=1, max_size=40).filter(lambda t: oracle.trim(t)))
@example(earlier=[], text="next I rewrite parse()").via("inflight.last-message-only:assistant-first")
@example(earlier=[USER, TOOL_RESULT], text="the tests fail in parse()").via("inflight.last-message-only:assistant-mid")
def test_only_the_last_message_is_looked_at(impl, strings, earlier, text):
    """An assistant message followed by any other message stays in the transcript, and no label is written."""
    transcript = [*earlier, {"role": "assistant", "content": text}, {"role": "user", "content": "and then?"}]
    request = params(transcript)
    messages = shape(impl, request, "inflight.last-message-only")
    check_kept_count(impl, transcript, messages, len(transcript), "inflight.last-message-only",
                     "an assistant message that is not last does not stay", subjects=[len(transcript) - 2],
                     input=request)
    check(strings["inflight_label"] not in final(messages), "inflight.last-message-only",
          "an in-flight block was written though the last message is not an assistant message", input=request,
          actual=final(messages))


@pytest.mark.rule(id="inflight.last-message-only")
@pytest.mark.parametrize("last", [TOOL_RESULT, ADVISOR_RESULT, {"role": "system", "content": "be brief"},
                                  {"role": "user", "content": "and then?"}],
                         ids=["tool-result", "advisor-result", "system", "user"])
@pytest.mark.parametrize("calls", [True, False], ids=["with-calls", "no-calls"])
def test_assistant_message_followed_by_another_role_stays(impl, strings, last, calls):
    """An assistant message with text, followed by a message of another role, is neither taken out nor labelled."""
    check_last_message_stays(impl, last)
    transcript = [USER, _in_flight("next I rewrite parse()", ADVISOR_CALL if calls else None), last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.last-message-only")
    flat = body(messages)
    kept = [m for m in flat if m["role"] == "assistant" and "next I rewrite parse()" in m["content"]]
    check(len(flat) == 3 and len(kept) == 1,
          "inflight.last-message-only", "the assistant message before the last one did not stay in the transcript "
          "with its text", input=request, actual=flat)
    check(strings["inflight_label"] not in final(messages), "inflight.last-message-only",
          "an in-flight block was written though the last message is not an assistant message", input=request,
          actual=final(messages))


@pytest.mark.rule(id="inflight.last-message-only")
@given(earlier=s.transcripts(max_size=5), before=s.assistant_messages(), last=s.assistant_messages())
@example(earlier=[USER], before=_in_flight("I read the file", [EDIT_CALL]), last=_in_flight("")
         ).via("inflight.last-message-only:two-assistants-first-with-text")
@example(earlier=[USER], before=_in_flight("", [EDIT_CALL]), last=_in_flight("now I ask")
         ).via("inflight.last-message-only:two-assistants-last-with-text")
@example(earlier=[], before=_in_flight("first", None), last=_in_flight("second", None)
         ).via("inflight.last-message-only:two-assistants-alone")
def test_assistant_message_before_the_last_one_stays(impl, earlier, before, last):
    """Of two assistant messages that end the snapshot, only the last is taken out; the one before it stays."""
    # Control: the last one alone is taken out (inflight.assistant-removed), so one kept is not blamed here.
    alone = params([*earlier, last])
    check_equal(len(body(shape(impl, alone, "inflight.assistant-removed"))), len(earlier), "inflight.assistant-removed",
                "the trailing assistant message stayed in the transcript", input=alone)
    transcript = [*earlier, before, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.last-message-only")
    check_kept_count(impl, transcript, messages, len(earlier) + 1, "inflight.last-message-only",
                     "the assistant message before the last one does not stay", subjects=[len(earlier)],
                     input=request)
    check_equal(body(messages)[-1]["role"], "assistant", "inflight.last-message-only",
                "the transcript does not end with the assistant message before the last one", input=request)


# -- inflight.assistant-removed -----------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.assistant-removed")
@given(earlier=s.transcripts(max_size=5), last=s.assistant_messages())
@example(earlier=[USER], last=_in_flight("next I rewrite parse()")).via("inflight.assistant-removed:text-and-calls")
@example(earlier=[USER], last=_in_flight("next I rewrite parse()", None)).via("inflight.assistant-removed:text-only")
@example(earlier=[USER], last=_in_flight("")).via("inflight.assistant-removed:empty-with-calls")
@example(earlier=[USER], last=_in_flight(" \n\t", None)).via("inflight.assistant-removed:blank-without-calls")
@example(earlier=[USER, TOOL_RESULT], last=_in_flight("both", [EDIT_CALL, *ADVISOR_CALL], reasoning_content="hmm",
                                                      metadata={"thinking_signature": "sig"})
         ).via("inflight.assistant-removed:several-calls-and-reasoning")
@example(earlier=[], last=_in_flight("alone")).via("inflight.assistant-removed:only-message")
@example(earlier=[USER], last={"role": "assistant", "tool_calls": ADVISOR_CALL}
         ).via("inflight.assistant-removed:no-content-key")
@example(earlier=[USER], last=_in_flight(None)).via("inflight.assistant-removed:null-content")
@pytest.mark.needs(areas=["transcript"])  # a null content is read as empty text
def test_trailing_assistant_message_leaves_the_transcript(impl, earlier, last):
    """A trailing assistant message, with or without text and calls, is not rendered in the transcript."""
    _null_content_control(impl, last)
    transcript = [*earlier, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.assistant-removed")
    check_equal(len(body(messages)), len(earlier), "inflight.assistant-removed",
                "the trailing assistant message stayed in the transcript", input=request)


# -- inflight.empty-dropped ---------------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.empty-dropped")
@pytest.mark.parametrize("content", ["", " ", "\n\t\r ", "\u00a0\u3000"], ids=["empty", "space", "blanks", "unicode-spaces"])
@pytest.mark.parametrize("calls", [True, False], ids=["with-calls", "no-calls"])
@pytest.mark.needs(areas=["question"])
def test_blank_in_flight_text_is_dropped_without_label(impl, strings, content, calls):
    """A trailing assistant message whose text is blank after trimming leaves no label and no text."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(content, ADVISOR_CALL if calls else None)]
    request = params(transcript, question="what next?")
    got = final(shape(impl, request, "inflight.empty-dropped"))
    check_segments(got, [("what next?", "inflight.empty-dropped"), ("\n\n", "question.blank-line"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   "a blank in-flight message left something in the trailing message", input=request)


@pytest.mark.rule(id="inflight.empty-dropped")
@pytest.mark.parametrize("message", [{"role": "assistant", "tool_calls": ADVISOR_CALL}, _in_flight(None),
                                     _in_flight("", reasoning_content="the parser is wrong, I think")],
                         ids=["no-content-key", "null-content", "reasoning-only"])
@pytest.mark.needs(areas=["question", "transcript"])
def test_in_flight_message_without_text_is_dropped_without_label(impl, strings, message):
    """A trailing assistant message without content, with null content or with only reasoning has no text: no label."""
    _null_content_control(impl, message)
    request = params([USER, message], question="what next?")
    got = final(shape(impl, request, "inflight.empty-dropped"))
    check_segments(got, [("what next?", "inflight.empty-dropped"), ("\n\n", "question.blank-line"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   "an in-flight message without text left something in the trailing message", input=request)


@pytest.mark.rule(id="inflight.empty-dropped")
@pytest.mark.parametrize("edge", s.NOT_GO_SPACES, ids=["file-separator", "byte-order-mark", "zero-width-space"])
def test_text_of_characters_outside_gos_space_set_is_not_blank(impl, strings, edge):
    """A trailing assistant text of only characters Go does not count as space (with spaces around) is labelled."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(f" {edge}\n")]
    request = params(transcript)
    got = final(shape(impl, request, "inflight.empty-dropped"))
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
    check(got.startswith(strings["inflight_label"]), "inflight.empty-dropped",
          f"no in-flight block found: the trailing message does not open with the declared label, though the "
          f"text {edge!r} is not blank to Go", input=request, actual=got)
    check_segments(got, [(f"{strings['inflight_label']}\n{edge}\n\n", "inflight.block-layout"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   f"the in-flight block does not hold {edge!r} alone", input=request)


# -- inflight.label-at-head ---------------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.label-at-head")
@given(text=s.texts(min_size=1, max_size=200).filter(lambda t: oracle.trim(t)), question=s.questions())
@example(text="next I rewrite parse()", question="").via("inflight.label-at-head:no-question")
@example(text="next I rewrite parse()", question="is this right?").via("inflight.label-at-head:with-question")
@example(text="next I rewrite parse()", question=" \n\t").via("inflight.label-at-head:blank-question")
@example(text="next I rewrite parse()", question="q" * 4001).via("inflight.label-at-head:capped-question")
@example(text=LONG, question="is this right?").via("inflight.label-at-head:long-text")
def test_label_opens_the_final_message(impl, strings, text, question):
    """A trailing assistant message with text puts the declared label and that text at the head of the final message."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(text)]
    request = params(transcript, question=question)
    got = final(shape(impl, request, "inflight.label-at-head"))
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
    check(got.startswith(strings["inflight_label"]), "inflight.label-at-head",
          "the trailing message does not open with the declared in-flight label", input=request, actual=got)
    check(oracle.trim(text) in got, "inflight.label-at-head", "the in-flight text is not in the trailing message",
          input=request, actual=got)


@pytest.mark.rule(id="inflight.label-at-head")
@pytest.mark.rule(id="inflight.block-layout")
@pytest.mark.parametrize("question", ["is this right?", None], ids=["question", "no-question"])
@pytest.mark.needs(areas=["question"])
def test_in_flight_block_comes_before_the_files_and_the_question(impl, strings, question):
    """The in-flight block opens the final message, before the files, the question and the request for guidance."""
    source = b"package main\n\nfunc parse() {}\n"
    request = params([USER, _in_flight("  next I rewrite parse()\n")], question=question,
                     files=[file_param("parse.go", source), file_param("notes.md", b"todo\n")])
    got = final(shape(impl, request, "inflight.label-at-head"))
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
    check(got.startswith(strings["inflight_label"]), "inflight.label-at-head",
          "the trailing message does not open with the declared in-flight label", input=request, actual=got)
    block = f"{strings['inflight_label']}\nnext I rewrite parse()\n\n"
    segments = [(block, "inflight.block-layout"), *file_segments("parse.go", source, "files.render-format"),
                *file_segments("notes.md", b"todo\n", "files.render-format")]
    if question:
        segments += [(question, "question.trim"), ("\n\n", "question.blank-line")]
    blocks = [block, (oracle.file_block("parse.go", source), "files.render-format"),
              (oracle.file_block("notes.md", b"todo\n"), "files.render-format"),
              *([question + "\n\n"] if question else []), strings["guidance_request"]]
    check_segments(got, [*segments, (strings["guidance_request"], "request.guidance-request")], strings,
                   "the final message is not the in-flight block, the files, the question and the request",
                   order=("request.final-message-order", blocks), input=request)


# -- inflight.block-layout ----------------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.block-layout")
@given(text=s.texts(min_size=1, max_size=200).filter(lambda t: oracle.trim(t)),
       pad=s.go_padding(3))
@example(text="next I rewrite parse()", pad="").via("inflight.block-layout:no-padding")
@example(text="next I rewrite parse()", pad=" \t\n").via("inflight.block-layout:ascii-padding")
@example(text="next I rewrite parse()", pad="\u3000\u00a0\u2028\u0085").via("inflight.block-layout:unicode-padding")
@example(text="step 1\n\n  step 2\tthen\r\nstep 3", pad="").via("inflight.block-layout:inner-white-space")
@example(text="done", pad="\n\n\n").via("inflight.block-layout:trailing-newlines")
@example(text=LONG, pad=" ").via("inflight.block-layout:long-text")
def test_block_is_label_newline_trimmed_text_blank_line(impl, strings, text, pad):
    """The in-flight block is the label, a newline, the text trimmed, and a blank line."""
    transcript = [{"role": "user", "content": "fix it"}, _in_flight(pad + text + pad)]
    request = params(transcript)
    got = final(shape(impl, request, "inflight.block-layout"))
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
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
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
    check(got.startswith(strings["inflight_label"]), "inflight.label-at-head", "no in-flight block found: the trailing "
          "message does not open with the declared label", input=request, actual=got)
    check_segments(got, [(f"{strings['inflight_label']}\n{text}\n\n", "inflight.block-layout"),
                         (strings["guidance_request"], "request.guidance-request")], strings,
                   f"the in-flight block is not the label and the text with {edge!r} kept at its edges",
                   input=request)


# -- inflight.other-role-stays ------------------------------------------------------------------------------------


@pytest.mark.rule(id="inflight.other-role-stays")
@given(earlier=s.transcripts(max_size=5),
       last=st.one_of(s.tool_messages(), s.user_messages(), s.system_messages()))
@example(earlier=[{"role": "user", "content": "run the tests"}], last=TOOL_RESULT).via("inflight.other-role-stays:tool")
@example(earlier=[{"role": "user", "content": "run the tests"}], last={"role": "user", "content": "and then?"}
         ).via("inflight.other-role-stays:user")
@example(earlier=[{"role": "user", "content": "run the tests"}], last={"role": "system", "content": "be brief"}
         ).via("inflight.other-role-stays:system")
@example(earlier=[USER, _in_flight("asking", ADVISOR_CALL)], last=ADVISOR_RESULT
         ).via("inflight.other-role-stays:advisor-result")
@example(earlier=[USER, _in_flight("", [EDIT_CALL])], last={**TOOL_RESULT, "name": "edit", "content": ""}
         ).via("inflight.other-role-stays:empty-tool-result")
@example(earlier=[], last={"role": "user", "content": "hello"}).via("inflight.other-role-stays:only-message")
def test_other_trailing_roles_stay(impl, strings, earlier, last):
    """A trailing tool, user or system message stays in the transcript and no in-flight block is written."""
    transcript = [*earlier, last]
    request = params(transcript)
    messages = shape(impl, request, "inflight.other-role-stays")
    check_kept_count(impl, transcript, messages, len(transcript), "inflight.other-role-stays",
                     f"a trailing {last.get('role')!r} message does not stay", subjects=[len(transcript) - 1],
                     input=request)
    check(strings["inflight_label"] not in final(messages), "inflight.other-role-stays",
          "an in-flight block was written though the last message is not an assistant's", input=request,
          actual=final(messages))
    check_segments(final(messages), [(strings["guidance_request"], "request.guidance-request")], strings,
                   "the trailing message holds more than the guidance request", input=request)
