"""The stable prefix of the advisor request (spec: Payload shaping; clarifications §5): between calls on one
snapshot only the final message changes, and a growing conversation keeps every earlier rendered message."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check_equal
from advisor_conformance.shaping import params

from .transcripts import ADVISOR_CALL, ADVISOR_RESULT, CALL, FILE_A, FILE_B, RESULT, _files, shape_valid

READ = [{"role": "user", "content": "look at zeta"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "r1", "name": "read", "arguments": {"path": FILE_A[0]}}]},
        {"role": "tool", "name": "read", "tool_call_id": "r1", "content": oracle.read_result(*FILE_A)}]
LONG_CALL = {"id": "e1", "name": "edit", "arguments": {"path": "src/zeta.py", "new": "y = 2\n" * 300}}


@pytest.mark.rule(id="request.prefix-stable-across-calls")
@example(transcript=[{"role": "system", "content": "You are a coding agent."}, {"role": "assistant", "content": "ok"},
                     {"role": "user", "content": "Fix the flaky test."}], first=("Why?", []), second=("How?", [])
         ).via("request.prefix-stable-across-calls:question-differs")
@example(transcript=[{"role": "user", "content": "Fix the flaky test."}], first=("", []), second=("Why?", [])
         ).via("request.prefix-stable-across-calls:question-added-after-user")
@example(transcript=[{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [CALL]},
                     RESULT], first=("", [FILE_A]), second=("", [FILE_B, FILE_A])
         ).via("request.prefix-stable-across-calls:files-differ-after-tool-result")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "Asking first.", "tool_calls": [ADVISOR_CALL]}],
         first=("Is it safe?", [FILE_A]), second=("", [])).via("request.prefix-stable-across-calls:in-flight")
@example(transcript=[], first=("Why?", [FILE_B]), second=("", [])
         ).via("request.prefix-stable-across-calls:empty-snapshot")
@example(transcript=READ, first=("", [FILE_A]), second=("", [(FILE_A[0], b"changed\n")])
         ).via("request.prefix-stable-across-calls:deduped-or-not")
@given(transcript=s.transcripts(), first=st.tuples(s.questions(), s.files(max_size=3)),
       second=st.tuples(s.questions(), s.files(max_size=3)))
def test_files_and_question_change_only_the_last_message(impl, transcript, first, second):
    """For one snapshot, calls with different files or questions differ only in the final message."""
    _files_and_question_change_only_the_last_message(impl, transcript, first, second)


def _files_and_question_change_only_the_last_message(impl, transcript, first, second):
    a = params(transcript, question=first[0], files=_files(first[1]))
    b = params(transcript, question=second[0], files=_files(second[1]))
    messages_a = shape_valid(impl, a, "request.prefix-stable-across-calls")
    messages_b = shape_valid(impl, b, "request.prefix-stable-across-calls")
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
        messages = shape_valid(impl, request, "request.prefix-stable-on-append")
        if previous is not None:
            earlier = previous[:-1]
            check_equal(messages[: len(earlier)], earlier, "request.prefix-stable-on-append",
                        f"an earlier rendered message changed when message {size - 1} was appended", input=request)
        previous = messages


@pytest.mark.rule(id="request.prefix-stable-on-append")
@example(transcript=[], appended=[{"role": "user", "content": "hi"}], question=""
         ).via("request.prefix-stable-on-append:first-message")
@example(transcript=[{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Fix it."}],
         appended=[{"role": "user", "content": "And the docs."}], question="Why?"
         ).via("request.prefix-stable-on-append:user-after-user")
@example(transcript=[{"role": "user", "content": "go"},
                     {"role": "assistant", "content": "Asking first.", "tool_calls": [ADVISOR_CALL]}],
         appended=[ADVISOR_RESULT, {"role": "assistant", "content": "Done."}], question=""
         ).via("request.prefix-stable-on-append:in-flight-gets-its-result")
@example(transcript=[{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [LONG_CALL]},
                     {"role": "tool", "name": "edit", "tool_call_id": "e1", "content": "ok"}],
         appended=[{"role": "assistant", "content": "", "tool_calls": [CALL]}, RESULT,
                   {"role": "user", "content": "more"}, {"role": "assistant", "content": "", "tool_calls": [CALL]}],
         question="").via("request.prefix-stable-on-append:several-after-elided-arguments")
@example(transcript=SESSION[:9], appended=SESSION[9:], question="Now?"
         ).via("request.prefix-stable-on-append:many-tool-results")
@given(transcript=s.transcripts(), appended=s.transcripts(min_size=1, max_size=4), question=s.questions())
def test_appending_keeps_earlier_messages_byte_identical(impl, transcript, appended, question):
    """When the conversation grows by appending, each earlier message but the final one stays byte-identical."""
    _appending_keeps_earlier_messages_byte_identical(impl, transcript, appended, question)


def _appending_keeps_earlier_messages_byte_identical(impl, transcript, appended, question):
    before = params(transcript, question=question)
    after = params(transcript + appended, question=question)
    earlier = shape_valid(impl, before, "request.prefix-stable-on-append")[:-1]
    later = shape_valid(impl, after, "request.prefix-stable-on-append")
    check_equal(later[: len(earlier)], earlier, "request.prefix-stable-on-append",
                "an earlier rendered message changed when the conversation grew",
                input={"before": before, "appended": appended})
