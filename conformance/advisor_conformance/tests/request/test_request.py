"""The shape of the advisor request (spec: Request flow, Payload shaping; clarifications §5).

The prefix-stability rules are in test_request_prefix.py.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import call, requests_of, run, scenario
from advisor_conformance.shaping import (
    body,
    check_last_message_stays,
    check_none_left_out,
    check_segments,
    file_param,
    files_part,
    final,
    params,
    shape,
)

from .transcripts import ADVISOR_CALL, ADVISOR_RESULT, CALL, FILE_A, FILE_B, RESULT, _files, shape_valid

# A snapshot's last message before the final one is no user message in the order tests, so that an implementation
# that merges the final message into a preceding user message is blamed on request.message-sequence alone.
SYSTEM = {"role": "system", "content": "You are a coding agent."}


def _kept(transcript):
    """How many snapshot messages stay in the transcript (a trailing assistant message is taken out)."""
    return len(transcript) - (1 if transcript and transcript[-1]["role"] == "assistant" else 0)


def _kept_roles(transcript):
    """The roles the kept snapshot messages render with, in order (a tool result becomes a user message)."""
    return ["user" if message["role"] == "tool" else message["role"] for message in transcript[: _kept(transcript)]]


def _check_count(impl, transcript, messages, request):
    """One message per kept snapshot message and two more (request.message-sequence); snapshot messages left out are
    blamed on the rule that renders them."""
    if len(messages) < _kept(transcript) + 2:
        check_none_left_out(impl, transcript, messages, input=request)
    check_equal(len(messages), _kept(transcript) + 2, "request.message-sequence",
                "the request does not hold one message per kept snapshot message plus two", input=request,
                actual=[message["role"] for message in messages])


def _last_message_control(impl, strings, transcript):
    """Control for a test that counts messages, on a two-message snapshot ending like ``transcript``: a trailing
    assistant message leaves the transcript (inflight.assistant-removed), a message of another role stays
    (inflight.other-role-stays), and the final message is not merged into it (request.message-sequence)."""
    last = transcript[-1] if transcript else None
    if not isinstance(last, dict):
        return
    if last.get("role") == "assistant":
        request = params([{"role": "user", "content": "look at this"}, last])
        kept = body(shape_valid(impl, request, "inflight.assistant-removed"))
        check(all(message["role"] != "assistant" for message in kept), "inflight.assistant-removed",
              "a trailing assistant message stayed in the transcript", input=request, actual=kept)
        return
    check_last_message_stays(impl, last)


def _label_control(impl, strings):
    """Control: an in-flight message's label opens the final message ahead of a question (inflight.label-at-head),
    before an order test blames the order of the blocks."""
    request = params([SYSTEM, {"role": "assistant", "content": "INFLIGHT-TEXT"}],
                     question="Why?")
    got = final(shape(impl, request, "inflight.label-at-head"))
    check(got.startswith(strings["inflight_label"]), "inflight.label-at-head",
          "the trailing message does not open with the declared in-flight label", input=request, actual=got)


def _blank_question_control(impl, strings, question):
    """Control: a question that is blank after trimming adds nothing to the final message
    (question.omitted-when-empty), before an order test blames what stands before the guidance request."""
    if not question or oracle.trim(question):
        return
    request = params([SYSTEM], question=question)
    got = files_part(final(shape(impl, request, "question.omitted-when-empty")), strings, input=request)
    check_equal(got, "", "question.omitted-when-empty", "a blank question left text behind", input=request)


@pytest.mark.rule(id="request.message-sequence")
@example(transcript=[], question="", files=[]).via("request.message-sequence:empty-snapshot")
@example(transcript=[{"role": "user", "content": "a"}, {"role": "system", "content": "b"}], question="", files=[]
         ).via("request.message-sequence:system-mid-snapshot")
@example(transcript=[{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Fix it."}],
         question="Why does it fail?", files=[]).via("request.message-sequence:ends-with-user")
@example(transcript=[{"role": "user", "content": "run"}, {"role": "assistant", "content": "", "tool_calls": [CALL]},
                     RESULT], question="", files=[FILE_A]).via("request.message-sequence:ends-with-tool-result")
@example(transcript=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
                     {"role": "assistant", "content": "c"}, {"role": "assistant", "content": "d"},
                     {"role": "user", "content": "e"}], question="", files=[]
         ).via("request.message-sequence:consecutive-same-role")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "On it.", "tool_calls": [CALL]}, RESULT,
                     {"role": "assistant", "content": "Asking.", "tool_calls": [ADVISOR_CALL]}],
         question="ok?", files=[FILE_A, FILE_B]).via("request.message-sequence:in-flight-files-and-question")
@given(transcript=s.transcripts(), question=s.questions(), files=s.files(max_size=3))
@pytest.mark.needs(areas=["inflight"])
def test_system_then_snapshot_then_one_user_message(impl, strings, transcript, question, files):
    """The request is the system prompt, one message per kept snapshot message, and one trailing user message."""
    _system_then_snapshot_then_one_user_message(impl, strings, transcript, question, files)


def _system_then_snapshot_then_one_user_message(impl, strings, transcript, question, files):
    _last_message_control(impl, strings, transcript)
    request = params(transcript, question=question, files=_files(files))
    messages = shape_valid(impl, request, "request.message-sequence")
    _check_count(impl, transcript, messages, request)
    check(messages[0]["role"] == "system" and messages[-1]["role"] == "user", "request.message-sequence",
          "the request does not open with a system message and end with a user message", input=request,
          actual=[m["role"] for m in messages])
    check_equal([m["role"] for m in body(messages)], _kept_roles(transcript), "request.message-sequence",
                "the messages between the system prompt and the trailing one are not the snapshot's, in its order",
                input=request)


@pytest.mark.rule(id="request.system-prompt")
@example(transcript=[], question="", files=[]).via("request.system-prompt:empty-snapshot")
@example(transcript=[{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "hi"}],
         question="", files=[]).via("request.system-prompt:snapshot-opens-with-system")
@example(transcript=[{"role": "user", "content": "hi"}], question="Is the plan sound?", files=[FILE_A, FILE_B]
         ).via("request.system-prompt:question-and-files")
@example(transcript=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Working on it."}],
         question="", files=[]).via("request.system-prompt:in-flight")
@given(transcript=s.transcripts(max_size=4), question=s.questions(), files=s.files(max_size=2))
def test_first_message_is_the_declared_system_prompt(impl, strings, transcript, question, files):
    """The first message is a system message with exactly the declared system prompt, whatever the question and files."""
    _first_message_is_the_declared_system_prompt(impl, strings, transcript, question, files)


def _first_message_is_the_declared_system_prompt(impl, strings, transcript, question, files):
    request = params(transcript, question=question, files=_files(files))
    messages = shape_valid(impl, request, "request.system-prompt")
    check_equal(messages[0], {"role": "system", "content": strings["system_prompt"]}, "request.system-prompt",
                "the first message is not the declared system prompt", input=request)


@pytest.mark.rule(id="request.no-tools")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "Two calls.", "tool_calls": [CALL, ADVISOR_CALL]},
                     RESULT, ADVISOR_RESULT, {"role": "user", "content": "next"}]
         ).via("request.no-tools:calls-and-results")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "Hm.", "reasoning_content": "think",
                      "metadata": {"thinking_signature": "c2ln"}, "tool_calls": [CALL]},
                     {**RESULT, "metadata": {"exit_code": 0}}]).via("request.no-tools:reasoning-and-metadata")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "Asking.", "tool_calls": [ADVISOR_CALL]}]
         ).via("request.no-tools:in-flight-with-calls")
@given(transcript=s.transcripts())
def test_no_tool_structure_survives(impl, transcript):
    """No message of the request has the tool role or any field besides role and content."""
    _no_tool_structure_survives(impl, transcript)


def _no_tool_structure_survives(impl, transcript):
    request = params(transcript)
    messages = shape_valid(impl, request, "request.no-tools")
    for message in messages:
        check(set(message) == {"role", "content"} and message["role"] in ("system", "user", "assistant")
              and isinstance(message["content"], str), "request.no-tools", "a message carries tool structure",
              input=request, actual=message)


@pytest.mark.rule(id="request.no-tools")
@pytest.mark.needs(operations=["scenario"])  # the provider request of a call
def test_provider_request_carries_no_tool_definitions(impl):
    """The provider request of a call whose snapshot holds tool calls and results carries no tool definitions."""
    snapshot = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [CALL]}, RESULT,
                {"role": "assistant", "content": "", "tool_calls": [ADVISOR_CALL]}]
    request = scenario([{"call": call(input={"question": "ok?"}, snapshot=snapshot)}])
    answer = run(impl, request, "request.no-tools")
    for sent in requests_of(answer, 0):
        check_equal(sent["tools"], [], "request.no-tools", "the provider request carries tool definitions",
                    input=request)


def _final_of(impl, strings, request):
    """The final message of a request of the order tests, after the checks of what they rely on: one message per kept
    snapshot message and one final message (request.message-sequence: no file or question in a message of its own),
    and the final message ending with the guidance request (request.guidance-request)."""
    transcript = request["transcript"]
    _last_message_control(impl, strings, transcript)
    messages = shape_valid(impl, request, "request.final-message-order")
    _check_count(impl, transcript, messages, request)
    got = final(messages)
    check(got.endswith(strings["guidance_request"]), "request.guidance-request",
          "the trailing message does not end with the declared guidance request", input=request, actual=got)
    return got


@pytest.mark.rule(id="request.final-message-order")
@pytest.mark.needs(areas=["inflight", "question"])
def test_final_message_holds_blocks_in_order(impl, strings):
    """The trailing user message is the in-flight block, the files, the question, then the guidance request."""
    _label_control(impl, strings)
    transcript = [{"role": "user", "content": "make the tests pass"}, SYSTEM,
                  {"role": "assistant", "content": "I will rewrite parse() next.",
                   "tool_calls": [{"id": "c1", "name": "advisor", "arguments": {"question": "ok?"}}]}]
    request = params(transcript, question="Is rewriting parse() wise?",
                     files=[file_param("src/parse.py", "def parse(): ...\n"), file_param("README.md", "# Parser\n")])
    got = _final_of(impl, strings, request)
    segments = [(f"{strings['inflight_label']}\nI will rewrite parse() next.\n\n", "inflight.block-layout"),
                (oracle.file_block("src/parse.py", b"def parse(): ...\n"), "files.render-format"),
                (oracle.file_block("README.md", b"# Parser\n"), "files.render-format"),
                ("Is rewriting parse() wise?", "question.trim"), ("\n\n", "question.blank-line"),
                (strings["guidance_request"], "request.guidance-request")]
    blocks = [segments[0][0], (segments[1][0], "files.render-format"), (segments[2][0], "files.render-format"),
              "Is rewriting parse() wise?\n\n", segments[-1][0]]
    check_segments(got, segments, strings, "the trailing user message is not in-flight block, files, question, "
                   "guidance", order=("request.final-message-order", blocks), input=request)


@pytest.mark.rule(id="request.final-message-order")
@example(inflight=False, files=[], question="").via("request.final-message-order:guidance-alone")
@example(inflight=True, files=[], question="Why?").via("request.final-message-order:in-flight-and-question")
@example(inflight=True, files=[FILE_A], question="").via("request.final-message-order:in-flight-and-file")
@example(inflight=False, files=[FILE_A, FILE_B], question="Why?").via("request.final-message-order:files-and-question")
@example(inflight=True, files=[FILE_A, FILE_B], question=" \n\t").via("request.final-message-order:blank-question")
@example(inflight=False, files=[], question="Why?").via("request.final-message-order:question-alone")
@given(inflight=st.booleans(), files=s.files(max_size=2), question=s.questions())
@pytest.mark.needs(areas=["inflight", "question"])
def test_blocks_keep_their_order_when_some_are_missing(impl, strings, inflight, files, question):
    """Whichever blocks are present, they appear in the order in-flight, files (as given), question, guidance
    request."""
    _blocks_keep_their_order_when_some_are_missing(impl, strings, inflight, files, question)


def _blocks_keep_their_order_when_some_are_missing(impl, strings, inflight, files, question):
    if inflight:
        _label_control(impl, strings)
    _blank_question_control(impl, strings, question)
    transcript = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "Looking."}, SYSTEM]
    if inflight:
        transcript.append({"role": "assistant", "content": "INFLIGHT-TEXT"})
    request = params(transcript, question=question, files=_files(files))
    got = _final_of(impl, strings, request)
    capped = oracle.cap_files([(d, len(d)) for _, d in files])
    segments: list[tuple] = [(f"{strings['inflight_label']}\nINFLIGHT-TEXT\n\n", "inflight.block-layout")] \
        if inflight else []
    segments += [(oracle.file_block(path, content), ["files.render-format", "files.aggregate-cap", "files.per-file-cap"])
                 for (path, _), content in zip(files, capped, strict=True) if content is not None]  # none deduped
    question_block = oracle.question_block(question)
    if question_block:
        segments += [(question_block[:-2], ["question.trim", "question.cap"]), ("\n\n", "question.blank-line")]
    segments.append((strings["guidance_request"], "request.guidance-request"))
    blocks = [(text, "files.render-format") if text.startswith("File: ") else text for text, _ in segments
              if text not in (question_block[:-2], "\n\n")]
    blocks[-1:-1] = [question_block] if question_block else []
    check_segments(got, segments, strings, "the trailing message is not its blocks in order", input=request,
                   order=("request.final-message-order", blocks))


@pytest.mark.rule(id="request.guidance-request")
@example(transcript=[], question="", files=[]).via("request.guidance-request:empty-snapshot")
@example(transcript=[{"role": "user", "content": "hi"}], question="Why?", files=[]
         ).via("request.guidance-request:after-question")
@example(transcript=[{"role": "user", "content": "hi"}], question="  \n", files=[FILE_A]
         ).via("request.guidance-request:after-file-blank-question")
@example(transcript=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Working."}], question="",
         files=[]).via("request.guidance-request:after-in-flight")
@given(transcript=s.transcripts(), question=s.questions(), files=s.files(max_size=2))
def test_final_message_ends_with_guidance_request(impl, strings, transcript, question, files):
    """The trailing user message ends with the declared request for guidance."""
    _final_message_ends_with_guidance_request(impl, strings, transcript, question, files)


def _final_message_ends_with_guidance_request(impl, strings, transcript, question, files):
    request = params(transcript, question=question, files=_files(files))
    got = final(shape_valid(impl, request, "request.guidance-request"))
    check(got.endswith(strings["guidance_request"]), "request.guidance-request",
          "the trailing message does not end with the declared guidance request", input=request, actual=got)

