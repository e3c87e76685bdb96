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

from ..common.providers import speaks

KEY = "5f0e7c1d2b3a49588776655443322110"
OTHER_KEY = "team-alpha/advisor:v2"  # a store may hold any key: not only 32 hex digits
PROVIDERS = ["anthropic", "openai", "codex"]
MESSAGES = [{"role": "system", "content": "You advise."}, {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "on it"}, {"role": "user", "content": "advise me"}]


@pytest.mark.rule(id="wire.endpoints")
@pytest.mark.parametrize("provider, path", [("anthropic", "/v1/messages"), ("openai", "/chat/completions"),
                                            ("codex", "/responses")], ids=PROVIDERS)
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
@pytest.mark.parametrize("fields", [{}, {"stream": True, "reasoning": "high"}, {"advisor_cache_profile": False}],
                         ids=["plain", "stream-reasoning", "default-profile"])
@speaks("anthropic")
def test_anthropic_version_header(impl, fields):
    """Anthropic requests carry an explicit anthropic-version header (a date), streaming or not, in either profile."""
    request = neutral_request(MESSAGES, **fields)
    encoded = encode(impl, "anthropic", request, "wire.anthropic-version")
    check(re.fullmatch(r"\d{4}-\d{2}-\d{2}", encoded["headers"].get("anthropic-version", "")) is not None,
          "wire.anthropic-version", "no anthropic-version header", input=request, actual=encoded["headers"])


@pytest.mark.rule(id="wire.anthropic-no-key")
@example(messages=MESSAGES, stream=False, reasoning=None, advisor=True).via("wire.anthropic-no-key:plain")
@example(messages=MESSAGES, stream=True, reasoning="high", advisor=True).via("wire.anthropic-no-key:stream-reasoning")
@example(messages=MESSAGES, stream=False, reasoning=None, advisor=False).via("wire.anthropic-no-key:default-profile")
@example(messages=[{"role": "user", "content": "advise me"}], stream=False, reasoning=None, advisor=True
         ).via("wire.anthropic-no-key:no-system")
@given(messages=s.rendered_messages(), stream=st.booleans(), reasoning=st.sampled_from([None, "low", "high"]),
       advisor=st.booleans())
@speaks("anthropic")
def test_anthropic_never_carries_the_cache_key(impl, messages, stream, reasoning, advisor):
    """The cache key appears nowhere in an Anthropic request, headers included."""
    request = neutral_request(messages, stream=stream, prompt_cache_key=KEY, reasoning=reasoning,
                              advisor_cache_profile=advisor)
    encoded = encode(impl, "anthropic", request, "wire.anthropic-no-key")
    check(not mentions(encoded, KEY), "wire.anthropic-no-key", "the cache key was sent to Anthropic", input=request,
          actual=encoded)


@pytest.mark.rule(id="wire.anthropic-system-blocks")
@example(messages=[{"role": "user", "content": "fix it"}, {"role": "user", "content": "advise me"}]
         ).via("wire.anthropic-system-blocks:none")
@example(messages=MESSAGES).via("wire.anthropic-system-blocks:one")
@example(messages=[{"role": "system", "content": "You advise."}, {"role": "system", "content": "Be brief."},
                   {"role": "system", "content": "Name files."}, {"role": "user", "content": "advise me"}]
         ).via("wire.anthropic-system-blocks:several-in-order")
@example(messages=[{"role": "system", "content": "You advise."}, {"role": "system", "content": " \n\t"},
                   {"role": "system", "content": ""}, {"role": "user", "content": "advise me"}]
         ).via("wire.anthropic-system-blocks:blank-skipped")
@example(messages=[{"role": "system", "content": "\u3000\u2028\u00a0"}, {"role": "system", "content": "You advise."},
                   {"role": "user", "content": "advise me"}]).via("wire.anthropic-system-blocks:unicode-blank-skipped")
@example(messages=[{"role": "system", "content": "  You advise.\n"}, {"role": "user", "content": "advise me"}]
         ).via("wire.anthropic-system-blocks:padded-kept-whole")
@example(messages=[{"role": "system", "content": "You advise."}, {"role": "user", "content": "fix it"},
                   {"role": "system", "content": "Reminder: run the tests."}, {"role": "assistant", "content": "on it"},
                   {"role": "user", "content": "advise me"}]).via("wire.anthropic-system-blocks:mid-conversation")
@given(messages=s.rendered_messages())
@speaks("anthropic")
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
@example(messages=MESSAGES).via("wire.anthropic-messages:alternating")
@example(messages=[{"role": "user", "content": " padded "}, {"role": "assistant", "content": "\n"},
                   {"role": "user", "content": "advise"}]).via("wire.anthropic-messages:white-space-kept")
@example(messages=[{"role": "user", "content": "look"}, {"role": "user", "content": "and this"},
                   {"role": "assistant", "content": "on it"}, {"role": "assistant", "content": "done"},
                   {"role": "user", "content": "advise"}]).via("wire.anthropic-messages:consecutive-same-role")
@example(messages=[{"role": "user", "content": "look"}, {"role": "assistant", "content": ""},
                   {"role": "user", "content": "advise"}]).via("wire.anthropic-messages:empty-assistant-dropped")
@example(messages=[{"role": "user", "content": "look"}, {"role": "assistant", "content": ""},
                   {"role": "assistant", "content": ""}, {"role": "assistant", "content": "on it"},
                   {"role": "user", "content": "advise"}]).via("wire.anthropic-messages:several-empty-assistants")
@example(messages=[{"role": "user", "content": "look"}, {"role": "user", "content": ""},
                   {"role": "assistant", "content": "on it"}, {"role": "user", "content": "advise"}]
         ).via("wire.anthropic-messages:empty-user")
@example(messages=[{"role": "user", "content": "caf\u00e9 \u2014 \U0001f600"}, {"role": "user", "content": "advise"}]
         ).via("wire.anthropic-messages:non-ascii")
@speaks("anthropic")
def test_anthropic_one_text_block_per_message(impl, messages):
    """Every other message with text is one text block of its role, in order, and an empty assistant message is
    left out (what becomes of an empty user message is wire.anthropic-nonempty's: left out or given some text)."""
    request = neutral_request(messages)
    body = encode(impl, "anthropic", request, "wire.anthropic-messages")["body"]
    got = [(m["role"], [b.get("text") for b in m["content"]]) for m in body["messages"]]
    # A control: an empty user message sent as an empty text block breaks wire.anthropic-nonempty, not this rule.
    check([texts for role, texts in got if role == "user" and "" in texts] == [], "wire.anthropic-nonempty",
          "an empty user message was sent as an empty text block", input=request, actual=body["messages"])
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
                   {"role": "assistant", "content": ""}, {"role": "user", "content": "go on"}], advisor=True
         ).via("wire.anthropic-nonempty:empty-user-and-assistant")
@example(messages=[{"role": "user", "content": "look"}, {"role": "user", "content": ""}], advisor=False
         ).via("wire.anthropic-nonempty:empty-final-default-profile")
@example(messages=[{"role": "system", "content": ""}, {"role": "user", "content": "look"},
                   {"role": "user", "content": "go on"}], advisor=True).via("wire.anthropic-nonempty:empty-system")
@example(messages=[{"role": "user", "content": ""}, {"role": "user", "content": "go on"}], advisor=False
         ).via("wire.anthropic-nonempty:empty-second-to-last-user-default-profile")
@example(messages=[{"role": "user", "content": "look"}, {"role": "assistant", "content": ""},
                   {"role": "user", "content": "go on"}], advisor=True
         ).via("wire.anthropic-nonempty:empty-assistant-before-final")
@example(messages=s.block_messages(16)[:1] + [{"role": "user", "content": ""}] + s.block_messages(16)[2:], advisor=True
         ).via("wire.anthropic-nonempty:empty-at-breakpoint-distance")
@speaks("anthropic")
def test_anthropic_has_no_empty_text_block(impl, messages, advisor):
    """No text block on the Anthropic wire is empty."""
    request = neutral_request(messages, advisor_cache_profile=advisor)
    body = encode(impl, "anthropic", request, "wire.anthropic-nonempty")["body"]
    empty = [(where, at) for where, at, _, block in blocks(body) if block.get("type") == "text" and not block["text"]]
    check_equal(empty, [], "wire.anthropic-nonempty", "empty text blocks were sent", input=request)


@pytest.mark.rule(id="wire.openai-cache-key")
@pytest.mark.parametrize("key", [KEY, OTHER_KEY], ids=["hex-key", "stored-key"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@speaks("openai")
def test_openai_carries_prompt_cache_key(impl, stream, key):
    """OpenAI chat requests carry the key, whatever its form, as prompt_cache_key, and its messages as role and
    content."""
    request = neutral_request(MESSAGES, stream=stream, prompt_cache_key=key, reasoning="low" if stream else None)
    body = encode(impl, "openai", request, "wire.openai-cache-key")["body"]
    check_equal(body.get("prompt_cache_key"), key, "wire.openai-cache-key", "prompt_cache_key is not the key",
                input=request, actual=body)
    check_equal(body.get("messages"), MESSAGES, "wire.openai-cache-key", "the messages are not sent as they are",
                input=request)


@pytest.mark.rule(id="wire.openai-stream-usage")
@pytest.mark.parametrize("reasoning", [None, "high"], ids=["no-reasoning", "reasoning"])
@speaks("openai")
def test_openai_stream_asks_for_usage(impl, reasoning):
    """A streaming chat request sets stream and stream_options.include_usage; a plain one sets neither."""
    provider = "openai"
    streaming_request = neutral_request(MESSAGES, stream=True, reasoning=reasoning)
    plain_request = neutral_request(MESSAGES, stream=False, reasoning=reasoning)
    streaming = encode(impl, provider, streaming_request, "wire.openai-stream-usage")["body"]
    check(streaming.get("stream") is True and streaming.get("stream_options", {}).get("include_usage") is True,
          "wire.openai-stream-usage", "the stream does not ask for usage", input=streaming_request, actual=streaming)
    plain = encode(impl, provider, plain_request, "wire.openai-stream-usage")["body"]
    check(not plain.get("stream") and "stream_options" not in plain, "wire.openai-stream-usage",
          "a plain request asks for a stream", input=plain_request, actual=plain)


@pytest.mark.rule(id="wire.codex-affinity")
@pytest.mark.parametrize("key", [KEY, OTHER_KEY], ids=["hex-key", "stored-key"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@speaks("codex")
def test_codex_key_in_body_and_affinity_headers(impl, stream, key):
    """With a key, Codex requests carry prompt_cache_key and the session-id and thread-id headers."""
    request = neutral_request(MESSAGES, stream=stream, prompt_cache_key=key, reasoning="low" if stream else None)
    encoded = encode(impl, "codex", request, "wire.codex-affinity")
    check_equal(encoded["body"].get("prompt_cache_key"), key, "wire.codex-affinity", "prompt_cache_key is missing",
                input=request, actual=encoded["body"])
    headers = encoded["headers"]
    check_equal((headers.get("session-id"), headers.get("thread-id")), (key, key), "wire.codex-affinity",
                "the affinity headers do not carry the key", input=request, actual=headers)


@pytest.mark.rule(id="wire.openai-cache-key")
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@speaks("openai")
def test_openai_without_key_sends_none(impl, stream):
    """Without a key, OpenAI chat requests carry no prompt_cache_key."""
    request = neutral_request(MESSAGES, stream=stream, prompt_cache_key="")
    body = encode(impl, "openai", request, "wire.openai-cache-key")["body"]
    check("prompt_cache_key" not in body, "wire.openai-cache-key", "an empty key was sent", input=request, actual=body)


@pytest.mark.rule(id="wire.codex-affinity")
@speaks("codex")
def test_codex_without_key_sends_no_affinity(impl):
    """Without a key, Codex requests carry no prompt_cache_key and no affinity headers."""
    request = neutral_request(MESSAGES, prompt_cache_key="")
    encoded = encode(impl, "codex", request, "wire.codex-affinity")
    check("prompt_cache_key" not in encoded["body"] and "session-id" not in encoded["headers"]
          and "thread-id" not in encoded["headers"], "wire.codex-affinity", "an empty key was sent", input=request,
          actual=encoded)


@pytest.mark.rule(id="wire.codex-instructions")
@example(messages=[{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "on it"},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:no-system")
@example(messages=MESSAGES).via("wire.codex-instructions:one-system")
@example(messages=[{"role": "system", "content": "You advise."}, {"role": "system", "content": "Be brief."},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:several-joined")
@example(messages=[{"role": "system", "content": "  You advise.\n"}, {"role": "system", "content": "\u3000Be brief.\t"},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:padded-trimmed")
@example(messages=[{"role": "system", "content": " \n"}, {"role": "system", "content": "You advise."},
                   {"role": "system", "content": ""}, {"role": "user", "content": "advise me"}]
         ).via("wire.codex-instructions:blank-skipped")
@example(messages=[{"role": "system", "content": "You advise."}, {"role": "user", "content": "fix it"},
                   {"role": "system", "content": "Reminder: run the tests."}, {"role": "assistant", "content": "on it"},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:mid-conversation")
@example(messages=[{"role": "user", "content": "look"}, {"role": "assistant", "content": ""},
                   {"role": "user", "content": ""}, {"role": "assistant", "content": " "},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:empty-left-out")
@example(messages=[{"role": "user", "content": "look"}, {"role": "user", "content": "and this"},
                   {"role": "assistant", "content": "one"}, {"role": "assistant", "content": "two"},
                   {"role": "user", "content": "advise me"}]).via("wire.codex-instructions:consecutive-same-role")
@given(messages=s.rendered_messages())
@speaks("codex")
def test_codex_instructions_and_items(impl, messages):
    """The texts of the system messages, in order, make up the instructions (how they are trimmed and joined is open:
    the reference trims each and joins them with blank lines); every other message with text is one input item of its
    role, in order (an empty one may be left out)."""
    from advisor_conformance import oracle

    request = neutral_request(messages)
    body = encode(impl, "codex", request, "wire.codex-instructions")["body"]
    system = [oracle.trim(m["content"]) for m in messages if m["role"] == "system" and oracle.trim(m["content"])]
    instructions, rest = body.get("instructions", ""), ""
    if isinstance(instructions, str):
        rest = instructions
        for text in system:  # each system text in its turn, with only white space around and between them
            at = rest.find(text)
            check(at >= 0 and rest[:at].strip() == "", "wire.codex-instructions", "the instructions are not the "
                  "system messages' texts in order, with only white space between them", input=request,
                  expected=system, actual=instructions)
            rest = rest[at + len(text):]
    check(isinstance(instructions, str) and rest.strip() == "", "wire.codex-instructions",
          "the instructions hold more than the system messages' texts", input=request, expected=system,
          actual=instructions)
    texts = []
    for item in body["input"]:
        content = item.get("content")
        text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
        texts.append((item.get("role"), text))
    expected = [(m["role"], m["content"]) for m in messages if m["role"] != "system" and m["content"] != ""]
    check_equal([pair for pair in texts if pair[1] != ""], expected, "wire.codex-instructions",
                "the input items are not the messages in order", input=request)


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


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("provider, effort, max_tokens", [
    ("openai", "low", 4096), ("openai", "medium", 4096), ("codex", "low", 4096), ("codex", "medium", 4096),
    ("anthropic", "low", 4096), ("anthropic", "high", 2048)],
    ids=["openai-low", "openai-medium", "codex-low", "codex-medium", "anthropic-low", "anthropic-high-small-max"])
def test_each_effort_reaches_the_wire(impl, provider, effort, max_tokens):
    """Every reasoning effort is sent as set (OpenAI, Codex), or as an enabled thinking budget of at least 1024 tokens
    below max_tokens (Anthropic)."""
    request = neutral_request(MESSAGES, reasoning=effort, stream=True, max_tokens=max_tokens)
    body = encode(impl, provider, request, "wire.reasoning")["body"]
    if provider == "openai":
        ok, what = body.get("reasoning_effort") == effort, f"reasoning_effort is not {effort!r}"
    elif provider == "codex":
        ok, what = (body.get("reasoning") or {}).get("effort") == effort, f"reasoning.effort is not {effort!r}"
    else:
        thinking = body.get("thinking") or {}
        ok = thinking.get("type") == "enabled" and 1024 <= thinking.get("budget_tokens", 0) < body.get("max_tokens", 0)
        what = f"thinking is not enabled with a budget of at least 1024 below max_tokens {max_tokens}"
    check(ok, "wire.reasoning", what, input=request, actual=body)


@pytest.mark.rule(id="wire.reasoning")
@pytest.mark.parametrize("max_tokens", [1024, 600])
@speaks("anthropic")
def test_no_thinking_budget_without_room_below_max_tokens(impl, max_tokens):
    """With max_tokens too small for a budget of at least 1024 below it, no thinking budget outside those bounds is
    sent."""
    request = neutral_request(MESSAGES, reasoning="high", stream=True, max_tokens=max_tokens)
    body = encode(impl, "anthropic", request, "wire.reasoning")["body"]
    thinking = body.get("thinking")
    check(thinking is None or (thinking.get("type") == "enabled"
                               and 1024 <= thinking.get("budget_tokens", 0) < body.get("max_tokens", 0)),
          "wire.reasoning", f"a thinking budget that does not fit below max_tokens {max_tokens} was sent", input=request,
          actual=body)


@pytest.mark.rule(id="wire.typed-params")
@pytest.mark.parametrize("provider", PROVIDERS)
@example(messages=MESSAGES, stream=False, reasoning=None, advisor=True).via("wire.typed-params:plain")
@example(messages=MESSAGES, stream=True, reasoning="high", advisor=True).via("wire.typed-params:stream-reasoning")
@example(messages=MESSAGES, stream=False, reasoning="low", advisor=False).via("wire.typed-params:default-profile")
@example(messages=[{"role": "system", "content": " "}, {"role": "user", "content": ""},
                   {"role": "assistant", "content": ""}, {"role": "user", "content": "advise me"}],
         stream=False, reasoning=None, advisor=True).via("wire.typed-params:empty-messages")
@example(messages=[{"role": "user", "content": "advise me"}], stream=True, reasoning=None, advisor=False
         ).via("wire.typed-params:no-system")
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
