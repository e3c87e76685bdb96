"""The shape of the advisor request (spec: Request flow, Payload shaping; clarifications §5)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

import pytest

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import body, check_segments, file_param, final, params, shape


def _files(pairs):
    return [file_param(path, data) for path, data in pairs]


def _kept(transcript):
    """How many snapshot messages stay in the transcript (a trailing assistant message is taken out)."""
    return len(transcript) - (1 if transcript and transcript[-1]["role"] == "assistant" else 0)


def _kept_roles(transcript):
    """The roles the kept snapshot messages render with, in order (a tool result becomes a user message)."""
    return ["user" if message["role"] == "tool" else message["role"] for message in transcript[: _kept(transcript)]]


@pytest.mark.rule(id="request.message-sequence")
@given(transcript=s.transcripts(), question=s.questions(), files=s.files(max_size=3))
@example(transcript=[{"role": "user", "content": "a"}, {"role": "system", "content": "b"}], question="", files=[])
def test_system_then_snapshot_then_one_user_message(impl, transcript, question, files):
    """The request is the system prompt, one message per kept snapshot message, and one trailing user message."""
    request = params(transcript, question=question, files=_files(files))
    messages = shape(impl, request, "request.message-sequence")
    check_equal(len(messages), _kept(transcript) + 2, "request.message-sequence",
                "the request does not hold one message per kept snapshot message plus two", input=request)
    check(messages[0]["role"] == "system" and messages[-1]["role"] == "user", "request.message-sequence",
          "the request does not open with a system message and end with a user message", input=request,
          actual=[m["role"] for m in messages])
    check_equal([m["role"] for m in body(messages)], _kept_roles(transcript), "request.message-sequence",
                "the messages between the system prompt and the trailing one are not the snapshot's, in its order",
                input=request)


@pytest.mark.rule(id="request.system-prompt")
@given(transcript=s.transcripts(max_size=4), question=s.questions(), files=s.files(max_size=2))
def test_first_message_is_the_declared_system_prompt(impl, strings, transcript, question, files):
    """The first message is a system message with exactly the declared system prompt, whatever the question and files."""
    request = params(transcript, question=question, files=_files(files))
    messages = shape(impl, request, "request.system-prompt")
    check_equal(messages[0], {"role": "system", "content": strings["system_prompt"]}, "request.system-prompt",
                "the first message is not the declared system prompt", input=request)


@pytest.mark.rule(id="request.no-tools")
@given(transcript=s.transcripts())
def test_no_tool_structure_survives(impl, transcript):
    """No message of the request has the tool role or any field besides role and content."""
    request = params(transcript)
    messages = shape(impl, request, "request.no-tools")
    for message in messages:
        check(set(message) == {"role", "content"} and message["role"] in ("system", "user", "assistant"),
              "request.no-tools", "a message carries tool structure", input=request, actual=message)


@pytest.mark.rule(id="request.final-message-order")
def test_final_message_holds_blocks_in_order(impl, strings):
    """The trailing user message is the in-flight block, the files, the question, then the guidance request."""
    transcript = [{"role": "user", "content": "make the tests pass"},
                  {"role": "assistant", "content": "I will rewrite parse() next.",
                   "tool_calls": [{"id": "c1", "name": "advisor", "arguments": {"question": "ok?"}}]}]
    request = params(transcript, question="Is rewriting parse() wise?",
                     files=[file_param("src/parse.py", "def parse(): ...\n"), file_param("README.md", "# Parser\n")])
    got = final(shape(impl, request, "request.final-message-order"))
    segments = [(f"{strings['inflight_label']}\nI will rewrite parse() next.\n\n", "inflight.block-layout"),
                (oracle.file_block("src/parse.py", b"def parse(): ...\n"), "files.render-format"),
                (oracle.file_block("README.md", b"# Parser\n"), "files.render-format"),
                ("Is rewriting parse() wise?", "question.trim"), ("\n\n", "question.blank-line"),
                (strings["guidance_request"], "request.guidance-request")]
    blocks = [segments[0][0], segments[1][0], segments[2][0], "Is rewriting parse() wise?\n\n", segments[-1][0]]
    check_segments(got, segments, strings, "the trailing user message is not in-flight block, files, question, "
                   "guidance", order=("request.final-message-order", blocks), input=request)


@pytest.mark.rule(id="request.final-message-order")
@given(inflight=st.booleans(), files=s.files(max_size=2), question=s.questions())
def test_blocks_keep_their_order_when_some_are_missing(impl, strings, inflight, files, question):
    """Whichever blocks are present, they appear in the order in-flight, files, question, guidance request."""
    transcript = [{"role": "user", "content": "go"}]
    if inflight:
        transcript.append({"role": "assistant", "content": "INFLIGHT-TEXT"})
    request = params(transcript, question=question, files=_files(files))
    got = final(shape(impl, request, "request.final-message-order"))
    capped = oracle.cap_files([(d, len(d)) for _, d in files])
    segments = [(f"{strings['inflight_label']}\nINFLIGHT-TEXT\n\n", "inflight.block-layout")] if inflight else []
    segments += [(oracle.file_block(path, content), ["files.render-format", "files.aggregate-cap", "files.per-file-cap"])
                 for (path, _), content in zip(files, capped)]
    question_block = oracle.question_block(question)
    if question_block:
        segments += [(question_block[:-2], ["question.trim", "question.cap"]), ("\n\n", "question.blank-line")]
    segments.append((strings["guidance_request"], "request.guidance-request"))
    blocks = [text for text, _ in segments if text not in (question_block[:-2], "\n\n")]
    blocks[-1:-1] = [question_block] if question_block else []
    check_segments(got, segments, strings, "the trailing message is not its blocks in order", input=request,
                   order=("request.final-message-order", blocks))


@pytest.mark.rule(id="request.guidance-request")
@given(transcript=s.transcripts(), question=s.questions())
def test_final_message_ends_with_guidance_request(impl, strings, transcript, question):
    """The trailing user message ends with the declared request for guidance."""
    request = params(transcript, question=question)
    got = final(shape(impl, request, "request.guidance-request"))
    check(got.endswith(strings["guidance_request"]), "request.guidance-request",
          "the trailing message does not end with the declared guidance request", input=request, actual=got)


@pytest.mark.rule(id="request.prefix-stable-across-calls")
@given(transcript=s.transcripts(), first=st.tuples(s.questions(), s.files(max_size=3)),
       second=st.tuples(s.questions(), s.files(max_size=3)))
def test_files_and_question_change_only_the_last_message(impl, transcript, first, second):
    """For one snapshot, calls with different files or questions differ only in the final message."""
    a = params(transcript, question=first[0], files=_files(first[1]))
    b = params(transcript, question=second[0], files=_files(second[1]))
    messages_a = shape(impl, a, "request.prefix-stable-across-calls")
    messages_b = shape(impl, b, "request.prefix-stable-across-calls")
    check_equal(messages_b[:-1], messages_a[:-1], "request.prefix-stable-across-calls",
                "two calls on one snapshot differ before the final message", input={"first": a, "second": b})


# An agent's session as it grows: reads, edits, commands, an earlier advisor call, and the in-flight message.
SESSION = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "The checkout tests fail since the refactor; fix them."},
    {"role": "assistant", "content": "Let me run the tests first.",
     "tool_calls": [{"id": "c1", "name": "bash", "arguments": {"cmd": "pytest tests/test_checkout.py -x"}}]},
    {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "FAILED test_total - assert 90 == 100"},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "c2", "name": "read", "arguments": {"path": "shop/checkout.py"}},
                    {"id": "c3", "name": "grep", "arguments": {"pattern": "discount", "path": "shop"}}]},
    {"role": "tool", "name": "read", "tool_call_id": "c2", "content": "def total(cart):\n    return sum(cart)\n"},
    {"role": "tool", "name": "grep", "tool_call_id": "c3", "content": "shop/pricing.py:12: def discount(x):"},
    {"role": "assistant", "content": "The discount is applied twice.",
     "tool_calls": [{"id": "c4", "name": "advisor", "arguments": {"question": "Remove the second discount?"}}]},
    {"role": "tool", "name": "advisor", "tool_call_id": "c4", "content": "Yes, but check the coupon path too."},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "c5", "name": "edit", "arguments": {"path": "shop/checkout.py", "new": "x" * 1500}}]},
    {"role": "tool", "name": "edit", "tool_call_id": "c5", "content": ""},
    {"role": "user", "content": "Also keep the old API working."},
    {"role": "assistant", "content": "Running the whole suite now.",
     "tool_calls": [{"id": "c6", "name": "bash", "arguments": {"cmd": "pytest -q"}}]},
    {"role": "tool", "name": "bash", "tool_call_id": "c6", "content": "2 failed, 118 passed\n" * 40},
    {"role": "assistant", "content": "Two failures remain in the coupon path.", "reasoning_content": "hmm"},
    {"role": "assistant", "content": "I will ask before rewriting coupons.",
     "tool_calls": [{"id": "c7", "name": "advisor", "arguments": {"question": "Rewrite coupons?"}}]},
]


@pytest.mark.rule(id="request.prefix-stable-on-append")
@pytest.mark.parametrize("question", ["", "Is this the right fix?"], ids=["no-question", "question"])
def test_session_grown_message_by_message_keeps_its_prefix(impl, question):
    """As a session grows one message at a time, each request's messages but the final one open the next request."""
    previous = None
    for size in range(len(SESSION) + 1):
        request = params(SESSION[:size], question=question)
        messages = shape(impl, request, "request.prefix-stable-on-append")
        if previous is not None:
            earlier = previous[:-1]
            check_equal(messages[: len(earlier)], earlier, "request.prefix-stable-on-append",
                        f"an earlier rendered message changed when message {size - 1} was appended", input=request)
        previous = messages


@pytest.mark.rule(id="request.prefix-stable-on-append")
@given(transcript=s.transcripts(), appended=s.transcripts(min_size=1, max_size=4), question=s.questions())
def test_appending_keeps_earlier_messages_byte_identical(impl, transcript, appended, question):
    """When the conversation grows by appending, each earlier message but the final one stays byte-identical."""
    before = params(transcript, question=question)
    after = params(transcript + appended, question=question)
    earlier = shape(impl, before, "request.prefix-stable-on-append")[:-1]
    later = shape(impl, after, "request.prefix-stable-on-append")
    check_equal(later[: len(earlier)], earlier, "request.prefix-stable-on-append",
                "an earlier rendered message changed when the conversation grew",
                input={"before": before, "appended": appended})
