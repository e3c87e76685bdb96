"""Provider request encodings: Anthropic Messages, OpenAI chat completions, Codex Responses (clarifications §7-§9)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import mentions
from advisor_conformance.wire import blocks, encode, neutral_request, sdk_problems

KEY = "5f0e7c1d2b3a49588776655443322110"
PROVIDERS = ["anthropic", "openai", "codex"]
MESSAGES = [{"role": "system", "content": "You advise."}, {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "on it"}, {"role": "user", "content": "advise me"}]


@pytest.mark.rule(id="wire.endpoints")
@pytest.mark.parametrize("provider, path", [("anthropic", "/v1/messages"), ("openai", "/chat/completions"),
                                            ("codex", "/responses")])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_endpoint_and_json_body(impl, provider, path, stream):
    """Each provider's request is a POST of a JSON body to its endpoint path."""
    request = neutral_request(MESSAGES, stream=stream)
    encoded = encode(impl, provider, request, "wire.endpoints")
    check_equal((encoded["method"], encoded["path"]), ("POST", path), "wire.endpoints", "wrong method or path",
                input=request)
    check_equal(encoded["headers"].get("content-type"), "application/json", "wire.endpoints",
                "the body is not declared as JSON", input=request, actual=encoded["headers"])


@pytest.mark.rule(id="wire.anthropic-version")
def test_anthropic_version_header(impl):
    """Anthropic requests carry an explicit anthropic-version header (a date)."""
    request = neutral_request(MESSAGES)
    encoded = encode(impl, "anthropic", request, "wire.anthropic-version")
    check(re.fullmatch(r"\d{4}-\d{2}-\d{2}", encoded["headers"].get("anthropic-version", "")) is not None,
          "wire.anthropic-version", "no anthropic-version header", input=request, actual=encoded["headers"])


@pytest.mark.rule(id="wire.anthropic-no-key")
@given(messages=s.rendered_messages(), stream=st.booleans())
def test_anthropic_never_carries_the_cache_key(impl, messages, stream):
    """The cache key appears nowhere in an Anthropic request, headers included."""
    request = neutral_request(messages, stream=stream, prompt_cache_key=KEY)
    encoded = encode(impl, "anthropic", request, "wire.anthropic-no-key")
    check(not mentions(encoded, KEY), "wire.anthropic-no-key", "the cache key was sent to Anthropic", input=request,
          actual=encoded)


@pytest.mark.rule(id="wire.anthropic-system-blocks")
@given(messages=s.rendered_messages())
def test_anthropic_system_is_a_list_of_text_blocks(impl, messages):
    """System messages become a list of text blocks, in order, blank ones skipped."""
    request = neutral_request(messages)
    body = encode(impl, "anthropic", request, "wire.anthropic-system-blocks")["body"]
    expected = [m["content"] for m in messages if m["role"] == "system" and m["content"].strip()]
    system = body.get("system", [])
    check(isinstance(system, list) and all(b.get("type") == "text" for b in system), "wire.anthropic-system-blocks",
          "system is not a list of text blocks", input=request, actual=body.get("system"))
    check_equal([b.get("text") for b in system], expected, "wire.anthropic-system-blocks",
                "the system blocks are not the non-blank system messages in order", input=request)
    check(all(m["role"] in ("user", "assistant") for m in body["messages"]), "wire.anthropic-system-blocks",
          "a system message was sent as a message", input=request, actual=body["messages"])


@pytest.mark.rule(id="wire.anthropic-messages")
@given(messages=s.rendered_messages())
@example(messages=[{"role": "user", "content": " padded "}, {"role": "assistant", "content": "\n"},
                   {"role": "user", "content": "advise"}])
def test_anthropic_one_text_block_per_message(impl, messages):
    """Every other message with text is one text block of its role, in order, and an empty assistant message is
    left out (what becomes of an empty user message is wire.anthropic-nonempty's: left out or given some text)."""
    request = neutral_request(messages)
    body = encode(impl, "anthropic", request, "wire.anthropic-messages")["body"]
    got = [(m["role"], [b.get("text") for b in m["content"]]) for m in body["messages"]]
    rest = [m for m in messages if m["role"] != "system"]
    position = 0
    for index, message in enumerate(rest):
        here = got[position] if position < len(got) else None
        if message["content"] != "":
            check_equal(here, (message["role"], [message["content"]]), "wire.anthropic-messages",
                        f"message {position} on the wire is not the next message with text as one text block",
                        input=request, actual=body["messages"])
            position += 1
            continue
        following = next(((m["role"], [m["content"]]) for m in rest[index + 1:] if m["content"] != ""), None)
        if message["role"] == "user" and here is not None and here != following and here[0] == "user" \
                and len(here[1]) == 1 and here[1][0]:
            position += 1  # an empty user message given a text of the implementation's own
    check_equal(len(got), position, "wire.anthropic-messages",
                "the wire holds messages that are not the request's (or an empty assistant message was sent)",
                input=request, actual=body["messages"])


@pytest.mark.rule(id="wire.anthropic-nonempty")
@given(messages=s.rendered_messages(), advisor=st.booleans())
@example(messages=[{"role": "system", "content": "advise"}, {"role": "user", "content": ""},
                   {"role": "assistant", "content": ""}, {"role": "user", "content": "go on"}], advisor=True)
@example(messages=[{"role": "user", "content": "look"}, {"role": "user", "content": ""}], advisor=False)
def test_anthropic_has_no_empty_text_block(impl, messages, advisor):
    """No text block on the Anthropic wire is empty."""
    request = neutral_request(messages, advisor_cache_profile=advisor)
    body = encode(impl, "anthropic", request, "wire.anthropic-nonempty")["body"]
    empty = [(where, at) for where, at, _, block in blocks(body) if block.get("type") == "text" and not block["text"]]
    check_equal(empty, [], "wire.anthropic-nonempty", "empty text blocks were sent", input=request)


@pytest.mark.rule(id="wire.openai-cache-key")
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_openai_carries_prompt_cache_key(impl, stream):
    """OpenAI chat requests carry the key as prompt_cache_key, and its messages as role and content."""
    request = neutral_request(MESSAGES, stream=stream, prompt_cache_key=KEY)
    body = encode(impl, "openai", request, "wire.openai-cache-key")["body"]
    check_equal(body.get("prompt_cache_key"), KEY, "wire.openai-cache-key", "prompt_cache_key is not the key",
                input=request, actual=body)
    check_equal(body.get("messages"), MESSAGES, "wire.openai-cache-key", "the messages are not sent as they are",
                input=request)


@pytest.mark.rule(id="wire.openai-stream-usage")
@pytest.mark.parametrize("provider", ["openai"])
def test_openai_stream_asks_for_usage(impl, provider):
    """A streaming chat request sets stream and stream_options.include_usage; a plain one sets neither."""
    streaming_request, plain_request = neutral_request(MESSAGES, stream=True), neutral_request(MESSAGES, stream=False)
    streaming = encode(impl, provider, streaming_request, "wire.openai-stream-usage")["body"]
    check(streaming.get("stream") is True and streaming.get("stream_options", {}).get("include_usage") is True,
          "wire.openai-stream-usage", "the stream does not ask for usage", input=streaming_request, actual=streaming)
    plain = encode(impl, provider, plain_request, "wire.openai-stream-usage")["body"]
    check(not plain.get("stream") and "stream_options" not in plain, "wire.openai-stream-usage",
          "a plain request asks for a stream", input=plain_request, actual=plain)


@pytest.mark.rule(id="wire.codex-affinity")
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_codex_key_in_body_and_affinity_headers(impl, stream):
    """With a key, Codex requests carry prompt_cache_key and the session-id and thread-id headers."""
    request = neutral_request(MESSAGES, stream=stream, prompt_cache_key=KEY)
    encoded = encode(impl, "codex", request, "wire.codex-affinity")
    check_equal(encoded["body"].get("prompt_cache_key"), KEY, "wire.codex-affinity", "prompt_cache_key is missing",
                input=request, actual=encoded["body"])
    headers = encoded["headers"]
    check_equal((headers.get("session-id"), headers.get("thread-id")), (KEY, KEY), "wire.codex-affinity",
                "the affinity headers do not carry the key", input=request, actual=headers)


@pytest.mark.rule(id="wire.codex-affinity")
def test_codex_without_key_sends_no_affinity(impl):
    """Without a key, Codex requests carry no prompt_cache_key and no affinity headers."""
    request = neutral_request(MESSAGES, prompt_cache_key="")
    encoded = encode(impl, "codex", request, "wire.codex-affinity")
    check("prompt_cache_key" not in encoded["body"] and "session-id" not in encoded["headers"]
          and "thread-id" not in encoded["headers"], "wire.codex-affinity", "an empty key was sent", input=request,
          actual=encoded)


@pytest.mark.rule(id="wire.codex-instructions")
@given(messages=s.rendered_messages())
def test_codex_instructions_and_items(impl, messages):
    """System messages become the instructions, joined by blank lines; other messages with text become items."""
    from advisor_conformance import oracle

    request = neutral_request(messages)
    body = encode(impl, "codex", request, "wire.codex-instructions")["body"]
    system = [oracle.trim(m["content"]) for m in messages if m["role"] == "system" and oracle.trim(m["content"])]
    check_equal(body.get("instructions", ""), "\n\n".join(system), "wire.codex-instructions",
                "the instructions are not the system messages joined by blank lines", input=request)
    texts = []
    for item in body["input"]:
        content = item.get("content")
        text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
        texts.append((item.get("role"), text))
    expected = [(m["role"], m["content"]) for m in messages if m["role"] != "system" and m["content"] != ""]
    check_equal(texts, expected, "wire.codex-instructions", "the input items are not the messages in order",
                input=request)


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_reasoning_reaches_the_wire(impl, provider):
    """A reasoning effort is sent in each provider's own field, and nothing is sent without one."""
    plain = encode(impl, provider, neutral_request(MESSAGES, reasoning=None), "wire.reasoning")["body"]
    request = neutral_request(MESSAGES, reasoning="high", stream=True)
    heavy = encode(impl, provider, request, "wire.reasoning")["body"]
    shown = {"with reasoning": request, "without": {**request, "reasoning": None, "stream": False}}
    if provider == "openai":
        got, absent = heavy.get("reasoning_effort"), "reasoning_effort" not in plain
        check(got == "high" and absent, "wire.reasoning", "reasoning_effort is not sent as set", input=shown,
              actual={"with reasoning": heavy, "without": plain})
    elif provider == "codex":
        check(heavy.get("reasoning", {}).get("effort") == "high" and "reasoning" not in plain, "wire.reasoning",
              "reasoning.effort is not sent as set", input=shown, actual={"with reasoning": heavy, "without": plain})
    else:
        thinking = heavy.get("thinking", {})
        check(thinking.get("type") == "enabled" and 1024 <= thinking.get("budget_tokens", 0) < heavy["max_tokens"]
              and "thinking" not in plain, "wire.reasoning",
              "thinking is not enabled with a budget of at least 1024 below max_tokens", input=shown,
              actual={"with reasoning": heavy, "without": plain})


@pytest.mark.rule(id="wire.typed-params")
@pytest.mark.parametrize("provider", PROVIDERS)
@given(messages=s.rendered_messages(), stream=st.booleans(), reasoning=st.sampled_from([None, "low", "high"]),
       advisor=st.booleans())
def test_bodies_fit_the_official_sdk_types(impl, provider, messages, stream, reasoning, advisor):
    """Every encoded body validates against the official SDK's typed request parameters."""
    request = neutral_request(messages, stream=stream, reasoning=reasoning, advisor_cache_profile=advisor)
    body = encode(impl, provider, request, "wire.typed-params")["body"]
    problems = sdk_problems(provider, body)
    if problems is None:
        pytest.skip(f"the official SDK for {provider} is not installed (pip install anthropic openai)")
    check_equal(problems, [], "wire.typed-params", f"the {provider} body does not fit the SDK's types",
                input=request, actual=body)
