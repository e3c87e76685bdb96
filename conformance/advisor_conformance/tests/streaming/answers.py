"""Provider answers, plain and streamed, built from their parts, and the reading of one to its note; shared by the
streaming tests."""

from __future__ import annotations

import json

from advisor_conformance.checks import check, violation
from advisor_conformance.scenarios import Reply, call, declared, note_pattern, reply, result_of, run, scenario

from .calls import _run


def _event(name, data):
    """One event as the providers write it: its JSON in UTF-8, non-ASCII text as it is (not escaped)."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _data(data):
    return f"data: {data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}\n\n"


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


def chat_stream(pieces, finish_reason="stop", usage=True, keep_alive=False, final=True, trailing=()):
    """A chat chunk stream: a role chunk, a chunk per piece (a None piece: a delta with content null), a finish
    chunk, the ``trailing`` chunks, a usage-only chunk (``choices: []``) and ``data: [DONE]``; with ``keep_alive``,
    an SSE comment between chunks."""
    chunks = [_chunk({"role": "assistant", "content": ""})] + [_chunk({"content": piece}) for piece in pieces]
    chunks.append(_chunk({}, finish_reason))
    chunks.extend(trailing)
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
