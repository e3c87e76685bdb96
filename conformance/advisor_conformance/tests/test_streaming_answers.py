"""Reading each provider's answer over HTTP (clarifications §8): a JSON answer, an Anthropic event stream, an OpenAI
chat chunk stream or a Responses event stream, in each of their shapes (several text blocks or deltas, thinking,
tool use, usage-only chunks, each stop or finish reason, no text at all), becomes the call's note.

Several text blocks of one answer become one note in order; the spec does not say what joins them, so any white space
between them is accepted. A note's composition (trimmed, the no-content and token-limit notes) is the handler's: a
control checks it on a scripted answer first, so a wrong note is blamed on reading the provider's answer only when
the handler composes it right.
"""

from __future__ import annotations

import json

import pytest

from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.scenarios import Reply, call, declared, error_of, note_pattern, reply, result_of, run, scenario

from .test_streaming import ANSWERS, _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

TEXT = "Check the float64 rounding in refill()."
MORE = "Then keep tokens as integer nanoseconds."


# -- answers, as each provider sends them ------------------------------------------------------------------------------

def _event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def _data(data):
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


def anthropic_message(blocks, stop_reason="end_turn"):
    """A non-streaming Messages answer of ``blocks`` (``("text" | "thinking" | "tool_use", value)``)."""
    content = [{"type": "text", "text": value} if kind == "text" else
               {"type": "thinking", "thinking": value, "signature": "sig"} if kind == "thinking" else
               {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": value} for kind, value in blocks]
    return Reply.json({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                       "usage": {"input_tokens": 412, "output_tokens": 57}})


def chat_completion(content, finish_reason="stop", tool_calls=None):
    message = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Reply.json({"id": "chatcmpl-1", "object": "chat.completion", "created": 1764400000, "model": "gpt-5",
                       "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
                       "usage": {"prompt_tokens": 1788, "completion_tokens": 57, "total_tokens": 1845}})


def _responses_output(messages, reasoning):
    out = [{"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]}] \
        if reasoning else []
    for index, parts in enumerate(messages):
        out.append({"id": f"msg_{index}", "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": part, "annotations": []} for part in parts]})
    return out


def _responses_body(messages, reasoning=None, incomplete=None):
    body = {"id": "resp_1", "object": "response", "created_at": 1764400000, "model": "gpt-5-codex",
            "status": "incomplete" if incomplete else "completed", "output": _responses_output(messages, reasoning),
            "usage": {"input_tokens": 1788, "output_tokens": 57, "total_tokens": 1845}}
    if incomplete:
        body["incomplete_details"] = {"reason": incomplete}
    return body


def responses_answer(messages, reasoning=None, incomplete=None):
    """A non-streaming Responses answer: a message item of output_text parts for each list of ``messages``."""
    return Reply.json(_responses_body(messages, reasoning, incomplete))


def anthropic_stream(blocks, stop_reason="end_turn", final=True):
    """A Messages event stream of ``blocks`` (``("text" | "thinking" | "tool_use", [pieces])``), pings among them."""
    out = [_event("message_start", {"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 412, "output_tokens": 1}}})]
    starts = {"text": {"type": "text", "text": ""}, "thinking": {"type": "thinking", "thinking": "", "signature": ""},
              "tool_use": {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {}}}
    for index, (kind, pieces) in enumerate(blocks):
        out.append(_event("content_block_start", {"type": "content_block_start", "index": index,
                                                  "content_block": starts[kind]}))
        out.append(_event("ping", {"type": "ping"}))
        for piece in pieces:
            delta = {"text": {"type": "text_delta", "text": piece},
                     "thinking": {"type": "thinking_delta", "thinking": piece},
                     "tool_use": {"type": "input_json_delta", "partial_json": piece}}[kind]
            out.append(_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        if kind == "thinking":
            out.append(_event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                      "delta": {"type": "signature_delta", "signature": "EqQB"}}))
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(_event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                                           "stop_sequence": None},
                                        "usage": {"output_tokens": 57}}))
    if final:
        out.append(_event("message_stop", {"type": "message_stop"}))
    return Reply.events("".join(out))


def _chunk(delta, finish_reason=None):
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764400000, "model": "gpt-5",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def chat_stream(pieces, finish_reason="stop", usage=True, keep_alive=False, final=True):
    """A chat chunk stream: a role chunk, a chunk per piece (a None piece: a delta with content null), a finish
    chunk, a usage-only chunk (``choices: []``) and ``data: [DONE]``; with ``keep_alive``, an SSE comment between
    chunks."""
    chunks = [_chunk({"role": "assistant", "content": ""})] + [_chunk({"content": piece}) for piece in pieces]
    chunks.append(_chunk({}, finish_reason))
    if usage:
        chunks.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764400000, "model": "gpt-5",
                       "choices": [], "usage": {"prompt_tokens": 1788, "completion_tokens": 57, "total_tokens": 1845}})
    separator = ": keep-alive\n\n" if keep_alive else ""
    return Reply.events(separator.join(_data(chunk) for chunk in chunks) + separator
                        + ("data: [DONE]\n\n" if final else ""))


def responses_stream(parts, reasoning=None, incomplete=None, final=True):
    """A Responses event stream of one message whose output_text parts are ``parts`` (lists of deltas); with
    ``reasoning``, reasoning summary deltas before it; it ends with response.completed or response.incomplete."""
    out = [_event("response.created", {"type": "response.created", "response": {"id": "resp_1", "status":
                                                                                 "in_progress", "output": []}})]
    if reasoning:
        out.append(_event("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                         "item": {"id": "rs_1", "type": "reasoning", "summary": []}}))
        for piece in reasoning:
            out.append(_event("response.reasoning_summary_text.delta", {
                "type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0,
                "summary_index": 0, "delta": piece}))
    index = 1 if reasoning else 0
    out.append(_event("response.output_item.added", {"type": "response.output_item.added", "output_index": index,
                                                     "item": {"id": "msg_1", "type": "message", "role": "assistant",
                                                              "status": "in_progress", "content": []}}))
    for content_index, deltas in enumerate(parts):
        for delta in deltas:
            out.append(_event("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_1",
                                                             "output_index": index, "content_index": content_index,
                                                             "delta": delta}))
        out.append(_event("response.output_text.done", {"type": "response.output_text.done", "item_id": "msg_1",
                                                        "output_index": index, "content_index": content_index,
                                                        "text": "".join(deltas)}))
    if final:
        body = _responses_body([["".join(deltas) for deltas in parts]] if parts else [],
                               "".join(reasoning or []) or None, incomplete)
        name = "response.incomplete" if incomplete else "response.completed"
        out.append(_event(name, {"type": name, "response": body}))
    return Reply.events("".join(out))


# -- reading them ------------------------------------------------------------------------------------------------------

def _note_control(impl, strings, empty, cut):
    """Control: a scripted answer (empty or not, cut at the token limit or not) becomes the note the handler rules make
    of it, so a note composed wrongly is blamed on them (handler.*), not on reading the provider's answer."""
    answer = "" if empty else "Use a lock."
    params = scenario([{"call": call(provider=[reply(answer, finish_reason="length" if cut else "stop")])}])
    rules = ["handler.empty-answer-note" if empty else "handler.note-trimmed"] + (["handler.token-limit-note"] if cut
                                                                                 else [])
    note = result_of(run(impl, params, rules), 0, rules, params)
    if note_pattern(strings, [] if empty else [answer], cut).fullmatch(note):
        return
    limit = declared(strings, "token_limit_note", "handler.token-limit-note")
    blamed = "handler.token-limit-note" if cut and not note.endswith(limit) else rules[0]
    raise violation(blamed, "a scripted answer did not become a note the handler rules make of it", input=params,
                    actual=note)


def read(impl, lb, strings, provider, answered, parts, cut, rule, reasoning=None):
    """Serve ``answered`` to one call: its note must be ``parts`` in order (white space between them allowed), or
    the no-content note when there are none, then the token-limit note when ``cut``; anything else is ``rule``'s."""
    _note_control(impl, strings, not parts, cut)
    lb.expect(answered)
    answer, params = _run(impl, provider, lb, rule, reasoning=reasoning)
    shown = {"scenario": params, "answered": answered.body[:4000]}
    note = result_of(answer, 0, rule, shown)
    limit = "\n\n" + declared(strings, "token_limit_note", "handler.token-limit-note") if cut else ""
    expected = ("".join(parts) or declared(strings, "no_content_note", "handler.empty-answer-note")) + limit
    ok = note_pattern(strings, parts, cut).fullmatch(note) is not None
    check(ok, rule, f"the {provider} answer was not read to its text" + (" and its token-limit stop" if cut else ""),
          input=shown, expected=expected, actual=note)


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
@pytest.mark.parametrize("case", list(PLAIN))
def test_plain_answer_is_read_to_its_text(impl, lb, strings, case):
    """A JSON answer becomes the note: its text blocks in order, no thinking, tool use or reasoning, with the
    token-limit note exactly when the provider reports the token limit, the no-content note when it holds no text."""
    provider, answered, parts, cut = PLAIN[case]
    read(impl, lb, strings, provider, answered, parts, cut, "streaming.non-streaming-default")


ANTHROPIC = {
    "text-blocks": (anthropic_stream([("text", ["Check the float64", " rounding in refill()."]),
                                      ("text", ["Then keep tokens", " as integer nanoseconds."])]), [TEXT, MORE], False),
    "tool-use-block": (anthropic_stream([("text", [TEXT]), ("tool_use", ['{"cmd": "go ', 'test"}'])], "tool_use"),
                       [TEXT], False),
    "stop-sequence": (anthropic_stream([("thinking", ["floats"]), ("text", [TEXT])], "stop_sequence"), [TEXT], False),
    "no-text": (anthropic_stream([]), [], False),
    "thinking-only-max-tokens": (anthropic_stream([("thinking", ["Compare", " floats."])], "max_tokens"), [], True),
}


@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("case", list(ANTHROPIC))
def test_anthropic_stream_shapes(impl, lb, strings, case):
    """An Anthropic event stream is read to its text deltas, block after block (thinking, signatures, tool input and
    pings ignored), and to its stop reason; a stream without text gives the no-content note."""
    answered, parts, cut = ANTHROPIC[case]
    read(impl, lb, strings, "anthropic", answered, parts, cut, "streaming.anthropic-events", reasoning="high")


CHUNKS = {
    "keep-alive-comments": ("openai", chat_stream(["Check the float64", " rounding in refill()."], keep_alive=True),
                            [TEXT], False),
    "no-usage-chunk": ("openai", chat_stream([TEXT], usage=False), [TEXT], False),
    "null-content-deltas": ("openai", chat_stream(["Check the float64", None, " rounding in refill()."]), [TEXT],
                            False),
    "content-filter": ("openai", chat_stream([TEXT], "content_filter"), [TEXT], False),
    "no-text": ("openai", chat_stream([]), [], False),
    "no-text-length": ("openai", chat_stream([], "length"), [], True),
    "responses-parts": ("codex", responses_stream([["Check the float64", " rounding in refill()."], [MORE]]),
                        [TEXT, MORE], False),
    "responses-reasoning-summary": ("codex", responses_stream([[TEXT]], reasoning=["Compare", " floats."]), [TEXT],
                                    False),
    "responses-content-filter": ("codex", responses_stream([[TEXT]], incomplete="content_filter"), [TEXT], False),
    "responses-no-text": ("codex", responses_stream([]), [], False),
}


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("case", list(CHUNKS))
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
