"""The chat-completions and Responses (Codex) decoders: answers, stream chunks and stream events, edge cases."""

from __future__ import annotations

import json

import pytest

from advisor_reference import ProviderAnswer, ProviderError, _codex, _openai
from advisor_reference._wire import StreamState

ZERO_USAGE = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_creation_tokens": 0}


def _chat(*chunks: str) -> StreamState:
    state = StreamState()
    for data in chunks:
        _openai.stream_event(state, "message", data)
    return state


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _codex_events(*events: tuple[str, str]) -> StreamState:
    state = StreamState()
    for event, data in events:
        _codex.stream_event(state, event, data)
    return state


# --- chat completions, non-streaming --------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [[], ["choices"], "text", None, {}, {"choices": []}, {"choices": ["x"]}])
def test_chat_completion_without_a_choice_is_a_provider_error(payload):
    """A chat completion that is not an object with a first choice object fails with a message saying so."""
    with pytest.raises(ProviderError) as info:
        _openai.decode(payload)
    assert str(info.value) == "the chat completion has no choices"


@pytest.mark.parametrize("message", [None, "hello", ["hello"], {"role": "assistant", "content": None}, {}])
def test_chat_completion_without_message_text_answers_empty(message):
    """A choice whose message is missing, not an object, or has null content gives an empty answer."""
    answer = _openai.decode({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
    assert answer == ProviderAnswer("", "stop", ZERO_USAGE)


@pytest.mark.parametrize("choice_reason, expected", [("length", "length"), ("content_filter", "content_filter"),
                                                     (None, "stop"), ("", "stop"), ("absent", "stop")])
def test_chat_completion_finish_reason_defaults_to_stop(choice_reason, expected):
    """The choice's finish reason is kept as given; a null, empty or missing one reads as stop."""
    choice = {"index": 0, "message": {"role": "assistant", "content": "hi"}}
    if choice_reason != "absent":
        choice["finish_reason"] = choice_reason
    assert _openai.decode({"choices": [choice]}).finish_reason == expected


# --- chat completions, stream chunks ----------------------------------------------------------------------------


def test_chat_stream_reads_only_the_first_choice():
    """A chunk with several choices contributes the first choice's text and finish reason only."""
    chunk = _compact({"id": "c", "choices": [
        {"index": 0, "delta": {"content": "first"}, "finish_reason": None},
        {"index": 1, "delta": {"content": "second"}, "finish_reason": "length"}]})
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == (["first"], "")


@pytest.mark.parametrize("before", [{"index": 0}, {"logprobs": {"n": 1}}, {"ab": 1}, {"index": 0, "logprobs": None}])
def test_chat_stream_delta_after_other_choice_fields_is_read_whole(before):
    """Fields that precede the delta inside its choice do not change the text read from it."""
    chunk = _compact({"choices": [{**before, "delta": {"content": "text"}, "finish_reason": "stop"}]})
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == (["text"], "stop")


@pytest.mark.parametrize("delta", [[{"content": "x"}], "x", 1, None])
def test_chat_stream_delta_that_is_not_an_object_contributes_no_text(delta):
    """A delta that is not a JSON object adds no text, and the chunk's finish reason still counts."""
    chunk = _compact({"choices": [{"index": 0, "delta": delta, "finish_reason": "length"}]})
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == ([], "length")


@pytest.mark.parametrize("chunk_id", ["", "c", "chatcmpl", "chatcmpl-1", "chatcmpl-AXq1", "chatcmpl-0123456789"])
def test_chat_stream_chunk_without_finish_reason_key_leaves_it_unset(chunk_id):
    """A chunk whose choice has no finish_reason key adds its text and leaves the finish reason unset."""
    chunk = _compact({"id": chunk_id, "choices": [{"index": 0, "delta": {"content": "a"}}]})
    state = _chat(chunk, "[DONE]")
    assert state.answer("openai") == ProviderAnswer("a", "stop", ZERO_USAGE)
    assert state.finish_reason == ""


def test_chat_stream_empty_finish_reason_leaves_it_unset():
    """An empty-string finish reason followed by more fields is treated as no finish reason."""
    chunk = _compact({"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "", "logprobs": None}]})
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == (["a"], "")


def test_chat_stream_finish_reason_is_the_choices_own():
    """A key named finish_reason inside the delta is not taken for the choice's finish reason."""
    chunk = _compact({"choices": [{"index": 0, "delta": {"content": "a", "finish_reason": "bogus"},
                                   "finish_reason": "length"}]})
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == (["a"], "length")


@pytest.mark.parametrize("payload", [[{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}],
                                     ["x", {"delta": {"content": "x"}, "finish_reason": "stop"}]])
def test_chat_stream_chunk_that_is_not_an_object_is_ignored(payload):
    """A chunk whose JSON value is not an object adds no text and sets no finish reason."""
    state = _chat(_compact(payload))
    assert (state.text, state.finish_reason, state.done) == ([], "", False)


@pytest.mark.parametrize("error, message", [({"message": "boom", "type": "server_error"}, "boom"),
                                            ("plain failure", "plain failure")])
def test_chat_stream_error_chunk_names_the_error(error, message):
    """An error chunk fails the stream with the error's message, or the error itself when it is not an object."""
    with pytest.raises(ProviderError) as info:
        _chat(_compact({"error": error}))
    assert str(info.value) == f"the chat stream reported an error: {message}"


def test_chat_stream_error_chunk_with_a_delta_still_fails():
    """A chunk that reports an error fails the stream even when it also carries a delta."""
    chunk = _compact({"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}],
                      "error": {"message": "boom"}})
    with pytest.raises(ProviderError) as info:
        _chat(chunk)
    assert str(info.value) == "the chat stream reported an error: boom"


def test_chat_stream_chunk_that_is_not_json_is_quoted_up_to_200_characters():
    """A chunk that is not JSON fails the stream, quoting its first 200 characters."""
    data = "<html>" + "x" * 300
    with pytest.raises(ProviderError) as info:
        _chat(data)
    assert str(info.value) == "the chat stream sent a chunk that is not JSON: " + repr("<html>" + "x" * 194)


USAGE = {"prompt_tokens": 7, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 5}}


@pytest.mark.parametrize("chunks, text, reason, usage", [
    (['{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}'], "Hi", "", ZERO_USAGE),
    (['{"choices":[{"index":0,"delta":{"content":5},"finish_reason":null}]}'], "", "", ZERO_USAGE),
    (['{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]},"finish_reason":"length"}]}'],
     "a", "length", ZERO_USAGE),
    (['{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":' + _compact(USAGE) + "}"],
     "a", "", {"input_tokens": 7, "output_tokens": 2, "cache_read_tokens": 5, "cache_creation_tokens": 0}),
    (['{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"b"},"n":1234567890123456789,"finish_reason":null}]}'],
     "ab", "", ZERO_USAGE),
    (['{"choices":[{"index":0,"delta":{"content":"a"}}]}', '{"choices":[{"index":0,"delta":{"content":"b"}}]}',
      '{"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]}'], "abc", "stop", ZERO_USAGE),
], ids=["delta-with-role", "content-not-a-string", "logprobs-object", "usage-in-the-delta-chunk", "frame-changes",
        "frame-repeats"])
def test_chat_stream_chunks_read_as_a_whole(chunks, text, reason, usage):
    """Chat chunks give the first choice's string text, its finish reason and the usage, whatever frame they repeat."""
    state = _chat(*chunks)
    assert ("".join(state.text), state.finish_reason, state.usage.to_json()) == (text, reason, usage), chunks


def test_chat_stream_top_level_finish_reason_is_not_the_choices():
    """A finish_reason key outside the choices does not set the finish reason of the answer."""
    state = _chat('{"finish_reason":"zzz","choices":[{"index":0,"delta":{"content":"a"}}]}')
    assert ("".join(state.text), state.finish_reason) == ("a", "")


def test_chat_stream_chunk_with_another_frame_is_read_afresh():
    """A chunk whose frame differs from the previous chunk's is read from its own first choice."""
    second = '{"choices":[{"index":0,"delta":{"content":"b"}}],"m":{"content":"wrong"}}'
    frame = '{"id":"","choices":[{"index":0,"delta":'
    # the first chunk's frame ends exactly where the second chunk's decoy object starts
    first = '{"id":"' + "x" * (second.index('{"content":"wrong"}') - len(frame)) + '","choices":[{"index":0,"delta":'
    state = _chat(first + '{"content":"a"}}]}', second)
    assert "".join(state.text) == "ab"


@pytest.mark.parametrize("first", [[], ['{"choices":[{"index":0,"delta":{"content":"a"}}]}']], ids=["alone", "after"])
def test_chat_stream_error_before_the_choices_fails(first):
    """An error key ahead of the choices fails the stream even when the chunk also carries a delta."""
    with pytest.raises(ProviderError, match="the chat stream reported an error: overloaded"):
        _chat(*first, '{"error":"overloaded","choices":[{"index":0,"delta":{"content":"a"}}]}')


# --- Responses (Codex), non-streaming ---------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [[], None, "output", {}, {"output": None}, {"output": {"type": "message"}}])
def test_responses_answer_without_an_output_list_is_a_provider_error(payload):
    """A Responses answer that is not an object with an output list fails with a message saying so."""
    with pytest.raises(ProviderError) as info:
        _codex.decode(payload)
    assert str(info.value) == "the Responses answer has no output list"


def test_responses_answer_joins_the_text_parts_of_message_items():
    """The answer is the output_text and text parts of message items, joined with nothing between them."""
    payload = {"status": "completed", "output": [
        "junk",
        None,
        {"type": "reasoning", "summary": [], "content": [{"type": "output_text", "text": "hidden"}]},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Check ", "annotations": []},
            "loose text",
            {"type": "refusal", "refusal": "no", "text": "refused"},
            {"type": "text", "text": "the"},
            {"type": "output_text"},
        ]},
        {"type": "message", "role": "assistant", "content": None},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": " rounding"}]},
    ]}
    assert _codex.decode(payload) == ProviderAnswer("Check the rounding", "stop", ZERO_USAGE)


@pytest.mark.parametrize("response, expected", [
    ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, "length"),
    ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, "content_filter"),
    ({"status": "incomplete", "incomplete_details": {"reason": None}}, "incomplete"),
    ({"status": "incomplete", "incomplete_details": None}, "incomplete"),
    ({"status": "incomplete", "incomplete_details": "max_output_tokens"}, "incomplete"),
    ({"status": "incomplete"}, "incomplete"),
    ({"status": "completed", "incomplete_details": {"reason": "max_output_tokens"}}, "stop"),
])
def test_responses_finish_reason_from_status(response, expected):
    """An incomplete answer stops on length for max_output_tokens, on its stated reason, else on incomplete."""
    assert _codex.decode({**response, "output": []}).finish_reason == expected


# --- Responses (Codex), stream events ---------------------------------------------------------------------------


def test_responses_stream_event_type_comes_from_the_payload_first():
    """The payload's type decides the event's kind, whatever the SSE event name says."""
    delta = _compact({"type": "response.output_text.delta", "delta": "hi"})
    state = _codex_events(("message", delta), ("response.completed", delta))
    assert state.text == ["hi", "hi"] and not state.done


def test_responses_stream_event_name_is_used_when_the_payload_has_no_type():
    """Without a type in the payload, a named SSE event supplies the kind; the default name message supplies none."""
    state = _codex_events(("response.output_text.delta", '{"delta":"a"}'), ("message", '{"delta":"b"}'),
                          ("response.completed", '{"response":{"status":"completed"}}'))
    assert state.answer("codex") == ProviderAnswer("a", "stop", ZERO_USAGE)


def test_responses_stream_delta_without_text_adds_nothing():
    """A text delta event without a delta adds no text to the answer."""
    state = _codex_events(("message", '{"type":"response.output_text.delta"}'),
                          ("message", '{"type":"response.output_text.delta","delta":"x"}'),
                          ("message", '{"type":"response.completed","response":{"status":"completed"}}'))
    assert state.answer("codex").text == "x"


@pytest.mark.parametrize("final", ['{"type":"response.completed"}', '{"type":"response.completed","response":null}',
                                   '{"type":"response.incomplete","response":"gone"}'])
def test_responses_stream_final_event_without_a_response_object_ends_the_stream(final):
    """A final event without a response object ends the stream with stop and zero usage."""
    state = _codex_events(("message", '{"type":"response.output_text.delta","delta":"x"}'), ("message", final))
    assert state.answer("codex") == ProviderAnswer("x", "stop", ZERO_USAGE)


@pytest.mark.parametrize("data, message", [
    ('{"type":"error","error":{"message":"boom","code":"server_error"}}', "boom"),
    ('{"type":"error","error":"plain failure"}', "plain failure"),
    ('{"type":"response.failed","response":{"status":"failed","error":{"message":"bad content"}}}', "bad content"),
    ('{"type":"error","message":"top level","code":"x"}', '{"type":"error","message":"top level","code":"x"}'),
])
def test_responses_stream_error_event_names_the_error(data, message):
    """An error or response.failed event fails the stream with the error's message, else with the event's data."""
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert str(info.value) == f"the Responses stream reported an error: {message}"


def test_responses_stream_error_without_message_quotes_200_characters():
    """An error event without a message fails the stream quoting the event's first 200 characters."""
    data = _compact({"type": "response.failed", "pad": "x" * 300})
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert str(info.value) == "the Responses stream reported an error: " + data[:200]


def test_responses_stream_event_that_is_not_json_is_quoted_up_to_200_characters():
    """An event that is not JSON fails the stream, quoting its first 200 characters."""
    data = "<html>" + "x" * 300
    with pytest.raises(ProviderError) as info:
        _codex_events(("message", data))
    assert str(info.value) == "the Responses stream sent an event that is not JSON: " + repr("<html>" + "x" * 194)
