"""The cache simulator of ``advisor-conformance cache-sim``: one test per documented provider behaviour, each citing
the sentence it comes from, and the estimator (the optimum, the sessions and the replay:
``test_cachesim_optimum.py``)."""

from __future__ import annotations

import pytest

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt
from advisor_conformance._tools.cachesim.facts import ESTIMATOR, AnthropicRules, OpenAIRules
from advisor_conformance._tools.cachesim.openai import OpenAICache, OpenAIPrompt
from advisor_conformance._tools.cachesim.optimum import TimedPrompt, openai_optimum

from ..support.anthropic_bodies import H1, M5, blocks, body, send

# -- Anthropic ---------------------------------------------------------------------------------------------------


def test_lookback_reaches_nineteen_blocks_back_from_a_breakpoint():
    """A breakpoint finds an entry up to 19 blocks before it (20 positions with its own), and none further back."""
    # Anthropic prompt caching docs: "The system automatically checks for cache hits at all previous content
    # block boundaries (up to 20 blocks before your explicit breakpoint)."
    texts = blocks(*[200] * 40)
    for distance, expected in ((19, 2000), (20, 0)):
        cache = AnthropicCache()
        send(cache, body(texts, {9: H1}))  # writes the 10-block prefix (2000 tokens)
        usage = send(cache, body(texts, {9 + distance: H1}), at=10)
        assert usage.read_tokens == expected, distance


@pytest.mark.parametrize("minimum", [1024, 2048, 4096])
def test_a_prefix_under_the_minimum_is_not_cached(minimum):
    """A breakpoint whose prefix holds fewer tokens than the model's minimum writes nothing; at the minimum it writes."""
    # Anthropic prompt caching docs: "The minimum cacheable prompt length is: 1024 tokens for ... Claude Sonnet 4.5
    # ... 2048 tokens for Claude Haiku 3.5 ... 4096 tokens for Claude Opus 4.5"; "Shorter prompts cannot be cached,
    # even if marked with cache_control."
    rules = AnthropicRules(min_tokens=minimum)
    for size, cached in ((minimum - 1, False), (minimum, True)):
        cache = AnthropicCache(rules)
        texts = blocks(size, 50)
        first = send(cache, body(texts, {0: H1}))
        assert first.written_tokens == (size if cached else 0)
        assert first.cost == (2 * size + 50 if cached else size + 50)
        assert send(cache, body(texts, {0: H1}), at=1).read_tokens == (size if cached else 0)


@pytest.mark.parametrize("control, ttl", [(M5, 300), ({"type": "ephemeral", "ttl": "5m"}, 300), (H1, 3600)])
def test_entries_expire_their_ttl_after_their_last_use(control, ttl):
    """An entry serves a request at its TTL after its last use and not a second later; a read renews it."""
    # Anthropic prompt caching docs: "By default, the cache has a 5-minute lifetime"; the 1-hour cache is
    # "ttl": "1h"; "The cache is refreshed for no additional cost each time the cached content is used."
    texts = blocks(2000, 10)
    for at, read in ((ttl, 2000), (ttl + 1, 0)):
        cache = AnthropicCache()
        send(cache, body(texts, {0: control}))
        assert send(cache, body(texts, {0: control}), at=at).read_tokens == read
    cache = AnthropicCache()
    send(cache, body(texts, {0: control}))
    send(cache, body(texts, {0: control}), at=ttl - 1)  # a read renews the entry
    assert send(cache, body(texts, {0: control}), at=2 * ttl - 2).read_tokens == 2000


def test_writes_cost_by_ttl_and_reads_a_tenth():
    """A write costs 1.25 times the base price for 5 minutes and 2 times for an hour; a read costs 0.1 times."""
    # Anthropic prompt caching docs (pricing): "5-minute cache write tokens are 1.25 times the base input tokens
    # price"; "1-hour cache write tokens are 2 times the base input tokens price"; "Cache read tokens are 0.1 times
    # the base input tokens price".
    texts = blocks(2000, 400)
    assert send(AnthropicCache(), body(texts, {0: M5})).cost == 1.25 * 2000 + 400
    cache = AnthropicCache()
    assert send(cache, body(texts, {0: H1})).cost == 2 * 2000 + 400
    assert send(cache, body(texts, {0: H1}), at=5).cost == 0.1 * 2000 + 400
    # mixed: a 1h breakpoint, then a 5m one after it; each segment at its breakpoint's price
    mixed = send(AnthropicCache(), body(blocks(1500, 1000, 10), {0: H1, 1: M5}))
    assert mixed.written_by_ttl == {"1h": 1500, "5m": 1000} and mixed.cost == 2 * 1500 + 1.25 * 1000 + 10


def test_tokens_between_breakpoints_are_written_once():
    """However many breakpoints a request holds, each token up to the last one is billed once."""
    # Anthropic prompt caching docs: cache_creation_input_tokens counts the tokens written to the cache.
    usage = send(AnthropicCache(), body(blocks(1100, 1000, 1000, 5), {0: H1, 1: H1, 2: H1}))
    assert usage.written_tokens == 3100 and usage.cost == 2 * 3100 + 5
    assert usage.written_positions == [0, 1, 2]


def test_prefix_order_is_tools_system_messages():
    """A changed tool invalidates every later entry; a changed message keeps the system prompt's entry."""
    # Anthropic prompt caching docs: "Prompt caching references the entire prompt - tools, system, and messages
    # (in that order) up to and including the block designated with cache_control."
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    system = blocks(2000, tag="s")
    cache = AnthropicCache()
    send(cache, body(blocks(500, 500), {1: H1}, system=system, tools=[tool]))  # positions: tool 0, system 1
    other_message = body(blocks(500, 500, tag="z"), {1: H1, 3: H1}, system=system, tools=[tool])
    assert send(cache, other_message, at=1).read_tokens == AnthropicPrompt.from_body(other_message).cum[1]
    other_tool = body(blocks(500, 500), {1: H1}, system=system, tools=[{**tool, "description": "e"}])
    assert send(cache, other_tool, at=2).read_tokens == 0


def test_more_than_four_breakpoints_is_refused():
    """A request with five breakpoints is refused: it reads and writes nothing and is billed at the base price."""
    # Anthropic prompt caching docs: "You can define up to 4 cache breakpoints"; clarifications §9: "at most 4
    # cache_control markers per request (400 otherwise)".
    texts = blocks(*[500] * 6)
    usage = send(AnthropicCache(), body(texts, {i: H1 for i in range(5)}))
    assert usage.rejected and usage.written_tokens == 0 and usage.cost == 3000
    assert not send(AnthropicCache(), body(texts, {i: H1 for i in range(4)})).rejected


@pytest.mark.parametrize("case", ["1h-after-5m", "marker-on-empty-text", "empty-text-block"])
def test_requests_the_api_refuses_cache_nothing(case):
    """A 1h marker after a 5m one, a marker on an empty text block, or any empty text block makes a refused request."""
    # clarifications §9 (WIRE): "none on an empty text block or a thinking block (400); a 1h marker must not follow
    # a 5m one (order: tools, system, messages; a marker without ttl counts as 5m)"; §10: empty text blocks are
    # refused.
    texts = blocks(1500, 1500)
    if case == "1h-after-5m":
        b = body(texts, {0: M5, 1: H1})
    else:
        b = body([*texts, ""], {2: H1} if case == "marker-on-empty-text" else {0: H1})
    assert send(AnthropicCache(), b).rejected


def test_only_the_entry_read_is_renewed():
    """A request reading a deep entry does not renew a shallower one (the simulator's stated assumption)."""
    texts = blocks(2000, 2000, 10)
    cache = AnthropicCache(AnthropicRules())
    send(cache, body(texts, {0: M5, 1: M5}), at=0)  # entries at 0 and 1
    send(cache, body(texts, {0: M5, 1: M5}), at=200)  # reads 1 only
    assert send(cache, body(blocks(2000, 7, tag="b"), {0: M5}), at=400).read_tokens == 0  # 0 expired at 300


def test_missed_and_unread_tokens_are_counted():
    """A live entry beyond the breakpoints' reach counts as missed, and a write no later request reads as unread."""
    texts = blocks(*[100] * 60)
    cache = AnthropicCache()
    send(cache, body(texts[:30], {29: H1}))
    late = send(cache, body(texts, {59: H1}), at=10)  # the entry at 29 is 30 blocks back
    assert late.read_tokens == 0 and late.missed_tokens == 3000
    usages = cache.finish()
    assert usages[0].unread_written_tokens == 3000 and usages[1].unread_written_tokens == 6000


# -- OpenAI and Codex --------------------------------------------------------------------------------------------


def chat(texts: list[str], key: str | None = "k", model: str = "m") -> dict:
    out = {"model": model, "messages": [{"role": "user", "content": t} for t in texts]}
    if key is not None:
        out["prompt_cache_key"] = key
    return out


def oa_send(cache: OpenAICache, b: dict, at: float = 0.0):
    return cache.request(OpenAIPrompt.from_body(b), at)


def _segment_text(tokens: int, tag: str) -> str:
    """A message whose serialised segment (``user\\n<text>\\n``) is exactly ``4 * tokens`` bytes."""
    return (tag + "y" * (4 * tokens))[: 4 * tokens - len("user\n\n")]


def test_openai_prompts_under_1024_tokens_are_not_cached():
    """A prompt of 1023 tokens is never cached; a prompt of 1024 tokens is read back whole by an identical one."""
    # OpenAI prompt caching guide: "Caching is enabled automatically for prompts that are 1024 tokens or longer."
    for size, cached in ((1023, 0), (1024, 1024)):
        cache = OpenAICache()
        b = chat([_segment_text(size, "a")])
        oa_send(cache, b)
        assert oa_send(cache, b, at=1).read_tokens == cached


@pytest.mark.parametrize("shared, cached", [(1000, 0), (1100, 1024), (1151, 1024), (1152, 1152), (1300, 1280)])
def test_openai_hits_come_in_128_token_steps(shared, cached):
    """The cached tokens are the shared prefix rounded down to a multiple of 128, and none under 1024."""
    # OpenAI prompt caching guide (Prompt Caching 201): "works automatically for prompts containing 1024 tokens or
    # more, with cache hits occurring in increments of 128 tokens."
    cache = OpenAICache()
    common = _segment_text(shared, "c")
    first, second = chat([common, "p" * 2000]), chat([common, "q" * 2000])
    second["messages"][1]["role"] = "system"  # the prompts part at the first byte after the shared message
    oa_send(cache, first)
    assert oa_send(cache, second, at=1).read_tokens == cached


def test_openai_a_shared_prefix_inside_a_message_counts():
    """A prefix shared inside the first differing message counts too: prefix matching is on the prompt's tokens."""
    # OpenAI prompt caching guide: "Cache hits are only possible for exact prefix matches within a prompt."
    cache = OpenAICache()
    oa_send(cache, chat(["user-text " + "z" * 6000 + "A"]))
    assert oa_send(cache, chat(["user-text " + "z" * 6000 + "B"]), at=1).read_tokens == 1408  # 6016 bytes → 1504


@pytest.mark.parametrize(
    "first, second, cached", [("k", "k", True), ("k", "other", False), (None, None, True), ("k", None, False)]
)
def test_openai_each_cache_key_is_its_own_cache(first, second, cached):
    """Identical prompts share the cache only under the same prompt_cache_key (or both without one)."""
    # OpenAI prompt caching guide: "prompt_cache_key ... is combined with the prefix hash" to route requests: a
    # different key is a different cache.
    cache = OpenAICache()
    texts = [_segment_text(3000, "s")]
    oa_send(cache, chat(texts, key=first))
    assert (oa_send(cache, chat(texts, key=second), at=1).read_tokens > 0) == cached


def test_openai_entries_expire_after_their_ttl():
    """An OpenAI prefix serves requests up to its TTL after its last use and not after; a read renews it."""
    # OpenAI prompt caching guide: "Cached prefixes generally remain active for 5 to 10 minutes of inactivity, up
    # to a maximum of one hour during off-peak periods."
    texts = [_segment_text(3000, "t")]
    for ttl in (600.0, 3600.0):
        cache = OpenAICache(OpenAIRules(ttl_seconds=ttl))
        oa_send(cache, chat(texts))
        assert oa_send(cache, chat(texts), at=ttl).read_tokens == 2944
        assert oa_send(cache, chat(texts), at=2 * ttl + 1).read_tokens == 0


@pytest.mark.parametrize("price", [0.1, 0.25, 0.5])
def test_openai_cached_tokens_cost_the_discounted_price(price):
    """Cached tokens cost the cached-input price (a parameter) and the rest the base price; there is no write premium."""
    # OpenAI prompt caching guide: cached input tokens are billed at the model's cached-input rate; caching "has no
    # additional fees".
    cache = OpenAICache(OpenAIRules(cached_price=price))
    texts = [_segment_text(3000, "u"), _segment_text(100, "v")]
    assert oa_send(cache, chat(texts)).cost == 3100
    usage = oa_send(cache, chat(texts), at=1)
    assert usage.read_tokens == 3072 and usage.cost == pytest.approx(3100 - 3072 + price * 3072)


def test_codex_responses_body_caches_instructions_and_input():
    """A Responses body is read as instructions then input items, routed by its prompt_cache_key."""
    # OpenAI prompt caching guide: "Prompt Caching works automatically on all your API requests" (Responses too).
    b = {
        "model": "m",
        "instructions": "i" * 8000,
        "prompt_cache_key": "k",
        "store": False,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q" * 40}]}],
    }
    cache = OpenAICache()
    oa_send(cache, b)
    prompt = OpenAIPrompt.from_body(b)
    assert prompt.route == ("m", "k") and len(prompt.segments) == 2
    assert oa_send(cache, b, at=1).read_tokens == 1920  # all 2015 tokens shared, in 128-token steps


def test_openai_optimum_is_the_same_requests_under_one_key():
    """The OpenAI optimum serves every shared prefix: the same requests under one stable key."""
    texts = [_segment_text(3000, "w")]
    requests = [TimedPrompt(OpenAIPrompt.from_body(chat(texts, key=f"k{i}")), float(i)) for i in range(3)]
    optimum = openai_optimum(requests)
    assert optimum.exact and [u.read_tokens for u in optimum.usages] == [0, 2944, 2944]


# -- the estimator -----------------------------------------------------------------------------------------------


def test_estimator_counts_utf8_bytes_over_four_rounded_up():
    """A block of n UTF-8 bytes counts ceil(n / 4) tokens: 5 ASCII bytes are 2 tokens, 'é' is 2 bytes."""
    assert [ESTIMATOR.tokens(n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]
    prompt = AnthropicPrompt.from_body(body(["abcde", "éé"]))
    assert prompt.cum == [2, 3]
