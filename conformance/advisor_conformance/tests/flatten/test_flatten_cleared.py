"""What flattening clears (reasoning, provider metadata), what it keeps (plain messages), and that it is
deterministic (spec: Payload shaping; clarifications §2)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import body, params, shape

USER = {"role": "user", "content": "look at the failing test"}
AFTER = {"role": "user", "content": "go on"}
REASONING = "SECRET-REASONING-7f3a"
SIGNATURE = "SECRET-SIGNATURE-91c2"
CALL = {"id": "c1", "name": "bash", "arguments": {"cmd": "ls"}}


def _closed(messages):
    """Close a transcript with a user message so no message is taken out as in flight."""
    return [*messages, AFTER]


def _without(transcript, key):
    """The transcript with ``key`` removed from every message."""
    return [{k: v for k, v in message.items() if k != key} for message in transcript]


def _check_no_trace(impl, transcript, key, secret, rule, what):
    """The request of ``transcript`` holds no ``secret`` and equals the request of the same transcript without
    ``key`` on any message: the field leaves no trace (``rule``)."""
    request = params(transcript)
    messages = shape(impl, request, rule)
    check(all(secret not in message["content"] for message in messages), rule, f"{what} reached the request",
          input=request, actual=messages)
    bare = params(_without(transcript, key))
    check_equal(messages, shape(impl, bare, rule), rule, f"{what} changed the request", input=request)


# -- flatten.reasoning-cleared ------------------------------------------------------------------------------------

REASONING_CASES = {
    "assistant-text": [USER, {"role": "assistant", "content": "ok", "reasoning_content": REASONING}, AFTER],
    "assistant-with-calls": [USER, {"role": "assistant", "content": "running", "reasoning_content": REASONING,
                                    "tool_calls": [CALL]}, {"role": "tool", "name": "bash", "tool_call_id": "c1",
                                                            "content": "a.go"}, AFTER],
    "calls-without-text": [USER, {"role": "assistant", "content": "", "reasoning_content": REASONING,
                                  "tool_calls": [CALL]}, AFTER],
    "reasoning-only": [USER, {"role": "assistant", "content": "", "reasoning_content": REASONING}, AFTER],
    "in-flight": [USER, {"role": "assistant", "content": "asking now", "reasoning_content": REASONING,
                         "tool_calls": [{**CALL, "name": "advisor", "arguments": {}}]}],
    "in-flight-reasoning-only": [USER, {"role": "assistant", "content": "", "reasoning_content": REASONING}],
    "several-messages": [USER, {"role": "assistant", "content": "one", "reasoning_content": REASONING + "-1"},
                         {"role": "user", "content": "and?"},
                         {"role": "assistant", "content": "two", "reasoning_content": REASONING + "-2"}, AFTER],
    "multi-line": [USER, {"role": "assistant", "content": "ok", "reasoning_content": f"step 1\n{REASONING}\n\n"},
                   AFTER],
}


@pytest.mark.rule(id="flatten.reasoning-cleared")
@pytest.mark.parametrize("case", list(REASONING_CASES))
def test_reasoning_leaves_no_trace(impl, case):
    """Reasoning content, on any assistant message (with or without calls or text, the in-flight one included),
    appears nowhere, and the request is the one of the same transcript without it."""
    _check_no_trace(impl, REASONING_CASES[case], "reasoning_content", REASONING, "flatten.reasoning-cleared",
                    "reasoning content")


@pytest.mark.rule(id="flatten.reasoning-cleared")
@example(transcript=[USER], where=1).via("flatten.reasoning-cleared:between-messages")
@given(transcript=s.transcripts(max_size=5), where=st.integers(0, 4))
def test_reasoning_never_reaches_the_request(impl, transcript, where):
    """Reasoning content of any message, the in-flight one included, appears nowhere in the request."""
    transcript = [*transcript, {"role": "assistant", "content": "thinking it over", "reasoning_content": REASONING,
                                "tool_calls": [{"id": "c", "name": "bash", "arguments": {"cmd": "ls"}}]}]
    transcript.insert(min(where, len(transcript) - 1),
                      {"role": "assistant", "content": "ok", "reasoning_content": REASONING})
    request = params(transcript)
    messages = shape(impl, request, "flatten.reasoning-cleared")
    check(all(REASONING not in message["content"] for message in messages), "flatten.reasoning-cleared",
          "reasoning content reached the request", input=request, actual=messages)


# -- flatten.metadata-cleared -------------------------------------------------------------------------------------

META = {"anthropic": {"thinking_signature": SIGNATURE}}
DEEP_META = {"openai": {"items": [{"id": "rs_1", "encrypted": SIGNATURE}], "n": 3}, "raw": [SIGNATURE, None, True]}
RESULT = {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "a.go"}
METADATA_CASES = {
    "user": [{**USER, "metadata": META}, AFTER],
    "system": [{"role": "system", "content": "be brief", "metadata": META}, USER, AFTER],
    "assistant-text": [USER, {"role": "assistant", "content": "hello", "metadata": META}, AFTER],
    "assistant-with-calls": [USER, {"role": "assistant", "content": "", "metadata": META, "tool_calls": [CALL]},
                             RESULT, AFTER],
    "tool-result": [USER, {"role": "assistant", "content": "", "tool_calls": [CALL]}, {**RESULT, "metadata": META},
                    AFTER],
    "advisor-note": [USER, {"role": "tool", "name": "advisor", "tool_call_id": "a1", "content": "fine",
                            "metadata": META}, AFTER],
    "in-flight": [USER, {"role": "assistant", "content": "asking", "metadata": META, "tool_calls": [CALL]}],
    "nested": [USER, {"role": "assistant", "content": "ok", "metadata": DEEP_META}, {**RESULT, "metadata": DEEP_META},
               AFTER],
    "empty-object": [USER, {"role": "assistant", "content": "ok", "metadata": {}}, AFTER],
}


@pytest.mark.rule(id="flatten.metadata-cleared")
@pytest.mark.parametrize("case", list(METADATA_CASES))
def test_metadata_leaves_no_trace(impl, case):
    """Provider metadata, on a message of any role (a tool result and the in-flight message included) and however
    nested, appears nowhere, and the request is the one of the same transcript without it."""
    _check_no_trace(impl, METADATA_CASES[case], "metadata", SIGNATURE, "flatten.metadata-cleared",
                    "provider metadata")


@pytest.mark.rule(id="flatten.metadata-cleared")
def test_metadata_never_reaches_the_request(impl):
    """Provider metadata such as a thinking signature appears nowhere in the request."""
    transcript = [{"role": "user", "content": "hi", "metadata": META},
                  {"role": "assistant", "content": "hello", "metadata": META},
                  {"role": "assistant", "content": "", "metadata": META,
                   "tool_calls": [{"id": "c", "name": "bash", "arguments": {}}]},
                  {"role": "tool", "name": "bash", "tool_call_id": "c", "content": "ok", "metadata": META}]
    request = params(transcript)
    messages = shape(impl, request, "flatten.metadata-cleared")
    check(all(SIGNATURE not in message["content"] for message in messages), "flatten.metadata-cleared",
          "provider metadata reached the request", input=request, actual=messages)


# -- flatten.plain-messages-kept ----------------------------------------------------------------------------------


def _order_control(got, expected, request):
    """Control: the same roles in another order is a reordered snapshot (request.message-sequence), not a changed
    message."""
    roles, wanted = [m["role"] for m in got], [m["role"] for m in expected]
    if roles != wanted and sorted(roles) == sorted(wanted):
        check_equal(roles, wanted, "request.message-sequence", "the snapshot's messages were reordered",
                    input=request)


PLAIN_EXAMPLES = {
    "system": [{"role": "system", "content": "You are a careful coding agent."}, {"role": "user", "content": "hi"}],
    "user": [{"role": "user", "content": "Rename foo to bar."}],
    "assistant": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}],
    "empty": [{"role": "user", "content": ""}, {"role": "assistant", "content": ""}],
    "blank": [{"role": "user", "content": " "}, {"role": "assistant", "content": "\n\t "},
              {"role": "system", "content": "\u3000"}],
    "trailing-white-space": [{"role": "assistant", "content": "ends with white space \n"}],
    "multi-line": [{"role": "user", "content": "\n  indented\n\nlines\r\n"},
                   {"role": "assistant", "content": "  - a\n  - b"}],
    "tool-syntax-in-text": [{"role": "user", "content": "[tool_result: bash]\nfake"},
                            {"role": "assistant", "content": "[tool_call: bash {\"cmd\":\"ls\"}]"}],
    "long": [{"role": "user", "content": "u" * 40_000}, {"role": "assistant", "content": "é" * 3000}],
    "unicode": [{"role": "user", "content": "中文 😀 \u2028 <&> \x01"}],
    "empty-calls-list": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done", "tool_calls": []}],
}


@pytest.mark.rule(id="flatten.plain-messages-kept")
@example(plain=PLAIN_EXAMPLES["system"]).via("flatten.plain-messages-kept:system")
@example(plain=PLAIN_EXAMPLES["user"]).via("flatten.plain-messages-kept:user")
@example(plain=PLAIN_EXAMPLES["assistant"]).via("flatten.plain-messages-kept:assistant")
@example(plain=PLAIN_EXAMPLES["empty"]).via("flatten.plain-messages-kept:empty")
@example(plain=PLAIN_EXAMPLES["blank"]).via("flatten.plain-messages-kept:blank")
@example(plain=PLAIN_EXAMPLES["trailing-white-space"]).via("flatten.plain-messages-kept:trailing-white-space")
@example(plain=PLAIN_EXAMPLES["multi-line"]).via("flatten.plain-messages-kept:multi-line")
@example(plain=PLAIN_EXAMPLES["tool-syntax-in-text"]).via("flatten.plain-messages-kept:tool-syntax-in-text")
@example(plain=PLAIN_EXAMPLES["long"]).via("flatten.plain-messages-kept:long")
@example(plain=PLAIN_EXAMPLES["unicode"]).via("flatten.plain-messages-kept:unicode")
@example(plain=PLAIN_EXAMPLES["empty-calls-list"]).via("flatten.plain-messages-kept:empty-calls-list")
@given(plain=st.lists(st.one_of(s.system_messages(), s.user_messages(), s.assistant_messages(with_calls=False)),
                      max_size=6))
def test_plain_messages_keep_role_and_content(impl, plain):
    """System, user and call-free assistant messages keep their role and content."""
    request = params(_closed(plain))
    got = body(shape(impl, request, "flatten.plain-messages-kept"))
    expected = [{"role": m["role"], "content": m["content"]} for m in _closed(plain)]
    _order_control(got, expected, request)
    check_equal(got, expected, "flatten.plain-messages-kept", "a plain message changed", input=request)


# -- flatten.deterministic ----------------------------------------------------------------------------------------

LONG_CALL = {"id": "c1", "name": "edit", "arguments": {"b": "x" * 1500, "a": [{"new": "é" * 700}], "k": {"z": 1}}}
DETERMINISTIC_EXAMPLES: dict[str, dict] = {
    "empty": {"transcript": [], "question": ""},
    "long-arguments": {"transcript": [USER, {"role": "assistant", "content": "", "tool_calls": [LONG_CALL]},
                                      {"role": "tool", "name": "edit", "tool_call_id": "c1", "content": "done"}],
                       "question": ""},
    "reasoning-and-metadata": {"transcript": [USER, {"role": "assistant", "content": "ok", "reasoning_content": "r",
                                                     "metadata": {"sig": "s"}, "tool_calls": [CALL]}, RESULT, AFTER],
                               "question": "why?"},
    "in-flight": {"transcript": [USER, {"role": "assistant", "content": " asking \n", "tool_calls": [LONG_CALL]}],
                  "question": "  why?\n"},
    "question-over-cap": {"transcript": [USER], "question": "q" * 4500},
}


@pytest.mark.rule(id="flatten.deterministic")
@example(**DETERMINISTIC_EXAMPLES["empty"]).via("flatten.deterministic:empty")
@example(**DETERMINISTIC_EXAMPLES["long-arguments"]).via("flatten.deterministic:long-arguments")
@example(**DETERMINISTIC_EXAMPLES["reasoning-and-metadata"]).via("flatten.deterministic:reasoning-and-metadata")
@example(**DETERMINISTIC_EXAMPLES["in-flight"]).via("flatten.deterministic:in-flight")
@example(**DETERMINISTIC_EXAMPLES["question-over-cap"]).via("flatten.deterministic:question-over-cap")
@given(transcript=s.transcripts(), question=s.questions())
def test_same_input_same_bytes(impl, transcript, question):
    """Shaping the same input twice gives identical messages and leaves the input as it was."""
    request = params(transcript, question=question)
    first = shape(impl, request, "flatten.deterministic", check_mutation=True)
    second = shape(impl, request, "flatten.deterministic", check_mutation=True)
    check_equal(second, first, "flatten.deterministic", "two calls with the same input differ", input=request)
