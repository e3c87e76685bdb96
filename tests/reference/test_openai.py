"""advisor_reference._openai: the chat-completions wire: answers, stream chunks read from their first choice."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_reference import ProviderAnswer, ProviderError, _openai

from ._helpers import ZERO_USAGE, feed
from ._helpers import compact as _compact


def _chat(*chunks: str):
    """A fresh stream state fed with these chunks, each a ``data:`` line of an unnamed event."""
    return feed(_openai.stream_event, *(("message", data) for data in chunks))


# --- answers (non-streaming) ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [[], ["choices"], "text", None, {}, {"choices": []}, {"choices": ["x"]}])
def test_chat_completion_without_a_choice_is_a_provider_error(payload):
    """A chat completion that is not an object with a first choice object fails with a message naming the choices."""
    with pytest.raises(ProviderError) as info:
        _openai.decode(payload)
    assert "choices" in str(info.value)


@pytest.mark.parametrize("message", [None, "hello", ["hello"], {"role": "assistant", "content": None}, {}])
def test_chat_completion_without_message_text_answers_empty(message):
    """A choice whose message is missing, not an object, or has null content gives an empty answer."""
    answer = _openai.decode({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
    assert answer == ProviderAnswer("", "stop", ZERO_USAGE)


@pytest.mark.parametrize(
    "choice_reason, expected",
    [("length", "length"), ("content_filter", "content_filter"), (None, "stop"), ("", "stop"), ("absent", "stop")],
)
def test_chat_completion_finish_reason_defaults_to_stop(choice_reason, expected):
    """The choice's finish reason is kept as given; a null, empty or missing one reads as stop."""
    choice = {"index": 0, "message": {"role": "assistant", "content": "hi"}}
    if choice_reason != "absent":
        choice["finish_reason"] = choice_reason
    assert _openai.decode({"choices": [choice]}).finish_reason == expected


# --- stream chunks --------------------------------------------------------------------------------------------------


def test_chat_stream_reads_only_the_first_choice():
    """A chunk with several choices contributes the first choice's text and finish reason only."""
    chunk = _compact(
        {
            "id": "c",
            "choices": [
                {"index": 0, "delta": {"content": "first"}, "finish_reason": None},
                {"index": 1, "delta": {"content": "second"}, "finish_reason": "length"},
            ],
        }
    )
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
    chunk = _compact(
        {"choices": [{"index": 0, "delta": {"content": "a", "finish_reason": "bogus"}, "finish_reason": "length"}]}
    )
    state = _chat(chunk)
    assert (state.text, state.finish_reason) == (["a"], "length")


@pytest.mark.parametrize(
    "payload",
    [
        [{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}],
        ["x", {"delta": {"content": "x"}, "finish_reason": "stop"}],
    ],
)
def test_chat_stream_chunk_that_is_not_an_object_is_ignored(payload):
    """A chunk whose JSON value is not an object adds no text and sets no finish reason."""
    state = _chat(_compact(payload))
    assert (state.text, state.finish_reason, state.done) == ([], "", False)


@pytest.mark.parametrize(
    "error, message", [({"message": "boom", "type": "server_error"}, "boom"), ("plain failure", "plain failure")]
)
def test_chat_stream_error_chunk_names_the_error(error, message):
    """An error chunk fails the stream with the error's message, or the error itself when it is not an object."""
    with pytest.raises(ProviderError) as info:
        _chat(_compact({"error": error}))
    assert message in str(info.value)


def test_chat_stream_error_chunk_with_a_delta_still_fails():
    """A chunk that reports an error fails the stream even when it also carries a delta."""
    chunk = _compact(
        {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}], "error": {"message": "boom"}}
    )
    with pytest.raises(ProviderError) as info:
        _chat(chunk)
    assert "boom" in str(info.value)


def test_chat_stream_chunk_that_is_not_json_is_quoted_up_to_200_characters():
    """A chunk that is not JSON fails the stream, quoting its first 200 characters and no more."""
    data = "<html>" + "x" * 300
    with pytest.raises(ProviderError) as info:
        _chat(data)
    assert repr(data[:200]) in str(info.value) and data[:201] not in str(info.value)


USAGE = {"prompt_tokens": 7, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 5}}


@pytest.mark.parametrize(
    "chunks, text, reason, usage",
    [
        (['{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}'], "Hi", "", ZERO_USAGE),
        (['{"choices":[{"index":0,"delta":{"content":5},"finish_reason":null}]}'], "", "", ZERO_USAGE),
        (
            ['{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]},"finish_reason":"length"}]}'],
            "a",
            "length",
            ZERO_USAGE,
        ),
        (
            ['{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":' + _compact(USAGE) + "}"],
            "a",
            "",
            {"input_tokens": 7, "output_tokens": 2, "cache_read_tokens": 5, "cache_creation_tokens": 0},
        ),
        (
            [
                '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
                '{"choices":[{"index":0,"delta":{"content":"b"},"n":1234567890123456789,"finish_reason":null}]}',
            ],
            "ab",
            "",
            ZERO_USAGE,
        ),
        (
            [
                '{"choices":[{"index":0,"delta":{"content":"a"}}]}',
                '{"choices":[{"index":0,"delta":{"content":"b"}}]}',
                '{"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]}',
            ],
            "abc",
            "stop",
            ZERO_USAGE,
        ),
    ],
    ids=[
        "delta-with-role",
        "content-not-a-string",
        "logprobs-object",
        "usage-in-the-delta-chunk",
        "frame-changes",
        "frame-repeats",
    ],
)
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
    """An error key ahead of the choices fails the stream with the error, even when the chunk also carries a delta."""
    with pytest.raises(ProviderError) as info:
        _chat(*first, '{"error":"overloaded","choices":[{"index":0,"delta":{"content":"a"}}]}')
    assert "overloaded" in str(info.value)


# --- stream chunks of every shape (hypothesis) ----------------------------------------------------------------------

CHUNK_TEXT = st.lists(
    st.sampled_from(
        ["a", " ", '"', "\\", '"delta":', '"finish_reason":', "{", "}", "é", "\n", '"usage":{', '"error":']
    ),
    max_size=12,
).map("".join)


def _choice(draw, with_delta: bool) -> dict:
    keys = draw(st.lists(st.sampled_from(["index", "logprobs", "finish_reason", "note"]), unique=True))
    if with_delta:
        keys.insert(draw(st.integers(0, len(keys))), "delta")
    values = {
        "index": st.integers(0, 2),
        "logprobs": st.one_of(st.none(), st.just({"content": []})),
        "finish_reason": st.sampled_from([None, "", "stop", "length"]),
        "note": CHUNK_TEXT,
        "delta": st.one_of(
            st.just({}), CHUNK_TEXT.map(lambda text: {"content": text}), st.just({"role": "assistant", "content": None})
        ),
    }
    return {key: draw(values[key]) for key in keys}


@st.composite
def chat_chunks(draw) -> dict:
    """Chunks of every shape a server may send: key orders, several choices, a ``delta`` key elsewhere."""
    choices = [_choice(draw, draw(st.booleans())) for _ in range(draw(st.integers(1, 3)))]
    parts = {"choices": choices}
    for key in draw(st.lists(st.sampled_from(["id", "model", "meta", "usage"]), unique=True, max_size=3)):
        parts[key] = {
            "id": CHUNK_TEXT,
            "model": CHUNK_TEXT,
            "meta": st.just({"delta": {"content": "not the answer"}, "finish_reason": "length"}),
            "usage": st.one_of(st.none(), st.just({"prompt_tokens": 3, "completion_tokens": 4})),
        }[key]
        parts[key] = draw(parts[key])
    order = draw(st.permutations(sorted(parts)))
    return {key: parts[key] for key in order}


@st.composite
def chat_streams(draw) -> list[dict]:
    """Chunks of one stream: a frame repeated with other texts and finish reasons, mixed with chunks of other shapes."""
    frame = draw(chat_chunks())
    chunks = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            chunks.append(draw(chat_chunks()))
            continue
        choice = dict(frame["choices"][0])
        if "delta" in choice:
            choice["delta"] = {"content": draw(CHUNK_TEXT)}
        if "finish_reason" in choice:
            choice["finish_reason"] = draw(st.sampled_from([None, "stop", "length"]))
        chunks.append({**frame, "choices": [choice, *frame["choices"][1:]]})
    return chunks


@given(chunks=chat_streams(), compact=st.booleans())
def test_chat_stream_reads_the_first_choice_of_every_chunk(chunks, compact):
    """A chat stream's answer is the first choice's delta contents in order, its finish reason the last one given,
    whatever the key order, the other choices or a `delta` key outside them."""
    state = _chat(*(json.dumps(chunk, separators=(",", ":") if compact else (", ", ": ")) for chunk in chunks))
    text, reason = [], ""
    for chunk in chunks:
        first = chunk["choices"][0]
        if isinstance(first.get("delta"), dict) and isinstance(first["delta"].get("content"), str):
            text.append(first["delta"]["content"])
        reason = first.get("finish_reason") or reason
    assert ("".join(state.text), state.finish_reason) == ("".join(text), reason)


@pytest.mark.parametrize(
    "data, text, reason",
    [
        ('{"choices":[{"index":0,"finish_reason":"length","delta":{"content":"a"}}]}', "a", "length"),
        ('{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{},"finish_reason":"length"}]}', "a", ""),
        (
            '{"meta":{"delta":{"content":"x"}},"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}',
            "a",
            "stop",
        ),
        ('{"choices":[{"index":0,"delta":{"content":"a"},"note":"}","finish_reason":"length"}]}', "a", "length"),
        ('{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"length"}]}', "a", "length"),
    ],
    ids=[
        "reason-before-delta",
        "reason-in-second-choice",
        "delta-outside-choices",
        "brace-in-a-string",
        "openai-order",
    ],
)
def test_chat_chunk_reads_the_first_choice_whatever_the_key_order(data, text, reason):
    """A chat chunk's text and finish reason come from its first choice, whatever order its keys come in."""
    state = _chat(data)
    assert ("".join(state.text), state.finish_reason) == (text, reason), data
