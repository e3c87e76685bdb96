"""Reading each provider's answer over HTTP (clarifications §8): a JSON answer, an Anthropic event stream, an OpenAI
chat chunk stream or a Responses event stream, in each of their shapes (several text blocks or deltas, thinking,
tool use, usage-only chunks, each stop or finish reason, no text at all), becomes the call's note.

Several text blocks of one answer become one note in order; the spec does not say what joins them, so any white space
between them is accepted. A note's composition (trimmed, the no-content and token-limit notes) is the handler's: a
control checks it on a scripted answer first, so a wrong note is blamed on reading the provider's answer only when
the handler composes it right.
"""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, error_of

from ..common.providers import by_provider, speaks
from .answers import (
    _event,
    anthropic_message,
    anthropic_stream,
    chat_completion,
    chat_stream,
    read,
    responses_answer,
    responses_stream,
)
from .calls import ANSWERS, _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

TEXT = "Check the float64 rounding in refill() \u2014 \u03b5 matters."
MORE = "Then keep tokens as integer nanoseconds (never \u00b5s \U0001f642)."


# -- answers, as each provider sends them ------------------------------------------------------------------------------


# -- reading them ------------------------------------------------------------------------------------------------------


PLAIN = {
    "anthropic-text-blocks": ("anthropic", anthropic_message([("text", TEXT), ("text", MORE)]), [TEXT, MORE], False),
    "anthropic-thinking-and-tool-use": ("anthropic", anthropic_message(
        [("thinking", "The test compares floats."), ("text", TEXT), ("tool_use", {"cmd": "go test ./..."})],
        "tool_use"), [TEXT], False),
    "anthropic-stop-sequence": ("anthropic", anthropic_message([("text", TEXT)], "stop_sequence"), [TEXT], False),
    "anthropic-refusal": ("anthropic", anthropic_message([("text", TEXT)], "refusal"), [TEXT], False),
    "anthropic-max-tokens": ("anthropic", anthropic_message([("thinking", "hm"), ("text", TEXT)], "max_tokens"),
                             [TEXT], True),
    "anthropic-no-content": ("anthropic", anthropic_message([]), [], False),
    "anthropic-thinking-only-max-tokens": ("anthropic", anthropic_message([("thinking", "hm")], "max_tokens"), [],
                                           True),
    "openai-length": ("openai", chat_completion(TEXT, "length"), [TEXT], True),
    "openai-content-filter": ("openai", chat_completion(TEXT, "content_filter"), [TEXT], False),
    "openai-null-content": ("openai", chat_completion(None), [], False),
    "openai-tool-calls": ("openai", chat_completion(None, "tool_calls", [{
        "id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"ls\"}"}}]), [], False),
    "openai-null-content-length": ("openai", chat_completion(None, "length"), [], True),
    "responses-parts": ("codex", responses_answer([[TEXT, MORE]]), [TEXT, MORE], False),
    "responses-messages": ("codex", responses_answer([[TEXT], [MORE]]), [TEXT, MORE], False),
    "responses-reasoning-item": ("codex", responses_answer([[TEXT]], reasoning="Compare floats."), [TEXT], False),
    "responses-max-output-tokens": ("codex", responses_answer([[TEXT]], incomplete="max_output_tokens"), [TEXT], True),
    "responses-content-filter": ("codex", responses_answer([[TEXT]], incomplete="content_filter"), [TEXT], False),
    "responses-no-output": ("codex", responses_answer([]), [], False),
    "responses-no-output-max-output-tokens": ("codex", responses_answer([], incomplete="max_output_tokens"), [], True),
}


@pytest.mark.rule(id="streaming.non-streaming-default")
@pytest.mark.parametrize("case", by_provider(PLAIN))
def test_plain_answer_is_read_to_its_text(impl, lb, strings, case):
    """A JSON answer becomes the note: its text blocks in order, no thinking, tool use or reasoning, with the
    token-limit note exactly when the provider reports the token limit, the no-content note when it holds no text."""
    provider, answered, parts, cut = PLAIN[case]
    read(impl, lb, strings, provider, answered, parts, cut, "streaming.non-streaming-default")


ANTHROPIC = {
    "text-blocks": (anthropic_stream([("text", ["Check the float64", " rounding in refill() \u2014 \u03b5 matters."]),
                                      ("text", ["Then keep tokens", " as integer nanoseconds (never \u00b5s \U0001f642)."])]),
                    [TEXT, MORE], False),
    "tool-use-block": (anthropic_stream([("text", [TEXT]), ("tool_use", ['{"cmd": "go ', 'test"}'])], "tool_use"),
                       [TEXT], False),
    "stop-sequence": (anthropic_stream([("thinking", ["floats"]), ("text", [TEXT])], "stop_sequence"), [TEXT], False),
    "no-text": (anthropic_stream([]), [], False),
    "thinking-only-max-tokens": (anthropic_stream([("thinking", ["Compare", " floats."])], "max_tokens"), [], True),
}


@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("case", list(ANTHROPIC))
@speaks("anthropic")
def test_anthropic_stream_shapes(impl, lb, strings, case):
    """An Anthropic event stream is read to its text deltas, block after block (thinking, signatures, tool input and
    pings ignored), and to its stop reason; a stream without text gives the no-content note."""
    answered, parts, cut = ANTHROPIC[case]
    read(impl, lb, strings, "anthropic", answered, parts, cut, "streaming.anthropic-events", reasoning="high")


CHUNKS = {
    "keep-alive-comments": ("openai", chat_stream(["Check the float64", " rounding in refill() \u2014 \u03b5 matters."],
                                                  keep_alive=True), [TEXT], False),
    "no-usage-chunk": ("openai", chat_stream([TEXT], usage=False), [TEXT], False),
    "null-content-deltas": ("openai", chat_stream(["Check the float64", None, " rounding in refill() \u2014 \u03b5 matters."]),
                            [TEXT], False),
    "content-filter": ("openai", chat_stream([TEXT], "content_filter"), [TEXT], False),
    "no-text": ("openai", chat_stream([]), [], False),
    "no-text-length": ("openai", chat_stream([], "length"), [], True),
    "responses-parts": ("codex", responses_stream([["Check the float64", " rounding in refill() \u2014 \u03b5 matters."],
                                                   [MORE]]), [TEXT, MORE], False),
    "responses-reasoning-summary": ("codex", responses_stream([[TEXT]], reasoning=["Compare", " floats."]), [TEXT],
                                    False),
    "responses-content-filter": ("codex", responses_stream([[TEXT]], incomplete="content_filter"), [TEXT], False),
    "responses-no-text": ("codex", responses_stream([]), [], False),
}


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("case", by_provider(CHUNKS))
def test_openai_stream_shapes(impl, lb, strings, case):
    """An OpenAI chat chunk stream (comments, null deltas and a usage-only chunk or none) and a Responses event stream
    (several parts, reasoning summaries) are read to their text and finish reason; no text gives the no-content
    note."""
    provider, answered, parts, cut = CHUNKS[case]
    read(impl, lb, strings, provider, answered, parts, cut, "streaming.openai-chunks", reasoning="medium")


# -- the recorded streams ----------------------------------------------------------------------------------------------

@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("name, cut", [("anthropic-stream.sse", False), ("anthropic-stream-max-tokens.sse", True)],
                         ids=["end-turn", "max-tokens"])
@speaks("anthropic")
def test_anthropic_event_stream(impl, lb, strings, name, cut):
    """An Anthropic event stream is read to its text (thinking and pings ignored) and its stop reason."""
    read(impl, lb, strings, "anthropic", Reply.recorded(name), [ANSWERS[name]["text"]], cut,
         "streaming.anthropic-events", reasoning="high")


@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("answered", [
    Reply.recorded("anthropic-stream-error.sse"),
    Reply.events(_event("message_start", {"type": "message_start", "message": {"id": "msg_01", "content": []}})
                 + _event("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
], ids=["after-text", "before-text"])
@speaks("anthropic")
def test_anthropic_error_event_fails_the_call(impl, lb, answered):
    """An `error` event inside an Anthropic stream, before or after text, fails the call, naming the error."""
    lb.expect(answered)
    answer, params = _run(impl, "anthropic", lb, "streaming.anthropic-events", reasoning="high")
    error = error_of(answer, 0, "streaming.anthropic-events", params)
    check("overloaded" in error["message"].lower(), "streaming.anthropic-events",
          "the error does not say what the stream reported", input=params, actual=error)


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("name, provider", [("openai-stream.sse", "openai"), ("openai-stream-length.sse", "openai"),
                                            ("openai-stream-reordered.sse", "openai"),
                                            ("codex-stream.sse", "codex"), ("codex-stream-incomplete.sse", "codex")],
                         ids=["chat-stop", "chat-length", "chat-keys-reordered", "responses-completed",
                              "responses-incomplete"])
def test_openai_streams(impl, lb, strings, name, provider):
    """OpenAI chat chunks (to `data: [DONE]`) and Responses events are read to their text and finish reason."""
    read(impl, lb, strings, provider, Reply.recorded(name), [ANSWERS[name]["text"]],
         ANSWERS[name]["finish_reason"] == "length", "streaming.openai-chunks", reasoning="medium")


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("answered, provider, reported", [
    (Reply.recorded("openai-stream-error.sse"), "openai", "the server had an error"),
    (Reply.recorded("codex-stream-error.sse"), "codex", "the model produced invalid content"),
    (Reply.events(_event("response.created", {"type": "response.created", "response": {"id": "resp_1"}})
                  + _event("error", {"type": "error", "code": "server_error", "message": "The backend is restarting.",
                                     "param": None})), "codex", "the backend is restarting"),
], ids=["chat-error-chunk", "responses-failed", "responses-error-event"])
def test_openai_stream_errors_fail_the_call(impl, lb, answered, provider, reported):
    """An error inside an OpenAI stream fails the call, and the error says what the stream reported."""
    lb.expect(answered)
    answer, params = _run(impl, provider, lb, "streaming.openai-chunks", reasoning="medium")
    error = error_of(answer, 0, "streaming.openai-chunks", params)
    check_equal(error["code"], "provider_error", "streaming.openai-chunks", "a stream error did not fail the call",
                input=params, actual=error)
    check(reported in error["message"].lower(), "streaming.openai-chunks",
          "the error does not say what the stream reported",
          input=params, expected=f"a message containing {reported!r}", actual=error)
