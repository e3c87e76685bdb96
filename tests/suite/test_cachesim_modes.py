"""The caching modes the providers document, as the cache simulator runs them: Anthropic's automatic caching and
refresh readings, OpenAI's retention policies, and the breakpoints of OpenAI's GPT-5.6 family; each test cites
the sentence it comes from (the profile table holds them all)."""

from __future__ import annotations

import pytest

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt
from advisor_conformance._tools.cachesim.facts import AnthropicRules, profile
from advisor_conformance._tools.cachesim.openai import (
    OpenAICache,
    OpenAIPrompt,
    RoutedBreakpointCache,
    breakpoint_prompt,
)

from ..support.anthropic_bodies import H1, M5, blocks, body, send

# -- Anthropic: automatic caching ---------------------------------------------------------------------------------


def automatic(texts: list[str], marks: dict | None = None, ttl: str | None = None) -> dict:
    out = body(texts, marks)
    out["cache_control"] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return out


@pytest.mark.parametrize("ttl, expected", [(None, "5m"), ("1h", "1h")])
def test_automatic_caching_marks_the_last_cacheable_block(ttl, expected):
    """A top-level cache_control puts one marker, of its TTL (5 minutes by default), on the last block that can
    carry one; an identical request then reads the whole prompt."""
    # Anthropic SDK: "Top-level cache control automatically applies a cache_control marker to the last cacheable
    # block in the request"; ttl "Defaults to 5m".
    texts = blocks(1500, 300, 20)
    prompt = AnthropicPrompt.from_body(automatic(texts, ttl=ttl))
    assert prompt.marks == [(2, expected)] and not prompt.problems
    cache = AnthropicCache()
    first = send(cache, automatic(texts, ttl=ttl))
    assert first.written_by_ttl == {expected: 1820}
    assert send(cache, automatic(texts, ttl=ttl), at=60).read_tokens == 1820


def test_automatic_caching_on_a_growing_conversation_reads_nothing_when_the_last_message_changes():
    """The next request of a conversation whose final message changed finds no entry at its own last block or within
    20 blocks of it: the automatic breakpoint wrote only at the old final message."""
    base = blocks(*[300] * 6)
    cache = AnthropicCache()
    send(cache, automatic([*base[:3], "question one " * 20]))
    assert send(cache, automatic([*base[:5], "question two " * 20]), at=60).read_tokens == 0


def test_automatic_caching_counts_toward_the_four_breakpoints():
    """Four explicit markers and a top-level cache_control make five: refused; on a block already marked it adds
    none."""
    # Anthropic prompt caching docs: "You can define up to 4 cache breakpoints"; the automatic one is a marker too.
    texts = blocks(*[500] * 6)
    assert AnthropicPrompt.from_body(automatic(texts, {i: H1 for i in range(4)})).problems
    on_last = AnthropicPrompt.from_body(automatic(texts, {0: H1, 1: H1, 2: H1, 5: M5}))
    assert not on_last.problems and len(on_last.marks) == 4


def test_an_automatic_five_minute_marker_after_one_hour_markers_is_accepted_and_before_is_not():
    """The automatic marker comes last in prefix order: a 5m one after 1h explicit markers is fine, a 1h one after a
    5m explicit marker is refused."""
    # clarifications section 9 (WIRE): "a 1h marker must not follow a 5m one".
    texts = blocks(1500, 1500, 10)
    assert not AnthropicPrompt.from_body(automatic(texts, {0: H1})).problems
    assert AnthropicPrompt.from_body(automatic(texts, {0: M5}, ttl="1h")).problems


# -- Anthropic: the refresh reading --------------------------------------------------------------------------------


@pytest.mark.parametrize("refresh, renewed", [("read-entry", False), ("prefix", True)])
def test_the_refresh_reading_decides_whether_a_shorter_entry_is_renewed(refresh, renewed):
    """A read of a deep entry renews a shallower live entry on its prefix under the prefix reading and not under the
    read-entry reading (the default, which credits the cache with less)."""
    # Anthropic prompt caching docs: "The cache is refreshed for no additional cost each time the cached content is
    # used." Which entries count as used is the profile's assumption `refresh`.
    texts = blocks(2000, 2000, 10)
    cache = AnthropicCache(AnthropicRules(refresh=refresh))
    send(cache, body(texts, {0: M5, 1: M5}), at=0)  # entries at 0 and 1
    send(cache, body(texts, {0: M5, 1: M5}), at=200)  # reads 1
    other = send(cache, body(blocks(2000, 7, tag="b"), {0: M5}), at=400)  # shares block 0 only
    assert other.read_tokens == (2000 if renewed else 0)


# -- OpenAI before GPT-5.6: retention ------------------------------------------------------------------------------


def chat(tokens: int, key: str = "k", retention: str | None = None) -> dict:
    out = {
        "model": "m",
        "prompt_cache_key": key,
        "messages": [{"role": "user", "content": "x" * (4 * tokens - len("user\n\n"))}],
    }
    if retention:
        out["prompt_cache_retention"] = retention
    return out


@pytest.mark.parametrize(
    "preset, lives", [("in-memory-5m", 300), ("in-memory-10m", 600), ("in-memory-1h", 3600), ("extended-24h", 86400)]
)
def test_a_retention_preset_sets_how_long_an_entry_lives(preset, lives):
    """Under each retention preset an entry serves a request at its lifetime after its last use and not after."""
    # OpenAI prompt caching guide: "Cached prefixes generally remain active for 5 to 10 minutes of inactivity, up to
    # a maximum of one hour"; SDK: 24h "keeps cached prefixes active for longer, up to a maximum of 24 hours".
    rules = profile(None, "openai").rules({"retention": preset})
    for at, read in ((lives, True), (lives + 1, False)):
        cache = OpenAICache(rules)
        cache.request(OpenAIPrompt.from_body(chat(3000)), 0)
        assert (cache.request(OpenAIPrompt.from_body(chat(3000)), at).read_tokens > 0) == read


def test_a_requests_own_retention_chooses_its_policy():
    """A request asking prompt_cache_retention 24h keeps its entries a day under an in_memory preset."""
    # OpenAI SDK: "Set to 24h to enable extended prompt caching".
    cache = OpenAICache(profile(None, "openai").rules())
    cache.request(OpenAIPrompt.from_body(chat(3000, retention="24h")), 0)
    assert cache.request(OpenAIPrompt.from_body(chat(3000)), 80000).read_tokens == 2944


# -- OpenAI GPT-5.6: breakpoints --------------------------------------------------------------------------------


GPT = profile("openai-gpt-5-6", "openai").rules()


def gpt_chat(
    texts: list[str], key: str = "k", marks: dict[int, str | None] | None = None, mode: str | None = None
) -> dict:
    messages = []
    for i, text in enumerate(texts):
        part = {"type": "text", "text": text}
        if marks and i in marks:
            part["prompt_cache_breakpoint"] = {"mode": "explicit", **({"ttl": marks[i]} if marks[i] else {})}
        messages.append({"role": "assistant" if i % 2 else "user", "content": [part]})
    out = {"model": "m", "prompt_cache_key": key, "messages": messages}
    if mode:
        out["prompt_cache_options"] = {"mode": mode}
    return out


def test_gpt_5_6_writes_its_implicit_breakpoint_at_the_last_non_assistant_message():
    """The implicit breakpoint ends the last message that is not the assistant's, with the request's 30m TTL."""
    # OpenAI SDK: "By default, OpenAI automatically chooses one implicit cache breakpoint"; "The ttl defaults to 30m".
    prompt = breakpoint_prompt(gpt_chat(blocks(500, 500, 500, 500)))
    assert prompt.marks == [(2, "30m")] and prompt.markable == [True, False, True, False]


def test_gpt_5_6_keeps_the_latest_explicit_breakpoints():
    """Implicit mode writes the implicit breakpoint and the latest three explicit ones; explicit mode the latest
    four and no implicit one; explicit mode without explicit breakpoints caches nothing."""
    # OpenAI SDK: "With implicit, OpenAI creates one implicit breakpoint and writes up to the latest three explicit
    # breakpoints in the request. With explicit, OpenAI does not create an implicit breakpoint and writes up to the
    # latest four explicit breakpoints. If there are no explicit breakpoints, the request does not use prompt caching."
    texts = blocks(*[300] * 11)
    marks = {0: None, 2: "12h", 4: None, 6: None, 8: None}
    implicit = breakpoint_prompt(gpt_chat(texts, marks=marks)).marks
    assert implicit == [(4, "30m"), (6, "30m"), (8, "30m"), (10, "30m")]
    assert breakpoint_prompt(gpt_chat(texts, marks=marks, mode="explicit")).marks == [
        (2, "12h"),
        (4, "30m"),
        (6, "30m"),
        (8, "30m"),
    ]
    assert breakpoint_prompt(gpt_chat(texts, mode="explicit")).marks == []


def test_gpt_5_6_reads_an_entry_however_far_back_and_writes_at_1_25():
    """A request reads an entry 60 blocks before its breakpoint (no lookback limit) and pays 1.25 for what it
    writes beyond it."""
    # OpenAI SDK: "For cache matching, OpenAI considers up to the latest 80 breakpoints in the conversation, without a
    # content-block lookback limit"; guide: "For GPT-5.6 models and later model families, cache writes cost 1.25x".
    texts = blocks(*[100] * 130)
    cache = RoutedBreakpointCache(GPT)
    short, long = breakpoint_prompt(gpt_chat(texts[:11])), breakpoint_prompt(gpt_chat(texts[:71]))
    first = cache.request(short, 0)
    assert first.written_tokens == short.total and first.cost == 1.25 * short.total
    later = cache.request(long, 60)
    assert long.marks == [(70, "30m")] and later.read_tokens == short.total
    assert later.cost == pytest.approx(
        0.1 * short.total + 1.25 * (long.cum[70] - short.total) + long.total - long.cum[70]
    )


def test_gpt_5_6_entries_live_their_ttl_from_the_write_and_apart_per_key():
    """An entry read 29 minutes after its write is gone a minute later (reads renew nothing: the default reading);
    a request under another prompt_cache_key reads nothing."""
    # OpenAI SDK: ttl is "The minimum lifetime applied to every implicit and explicit cache breakpoint written by the
    # request"; nothing is said of reads.
    texts = blocks(*[400] * 5)
    prompt = breakpoint_prompt(gpt_chat(texts))
    cache = RoutedBreakpointCache(GPT)
    cache.request(prompt, 0)
    assert cache.request(breakpoint_prompt(gpt_chat(texts, key="other")), 10).read_tokens == 0
    assert cache.request(prompt, 1740).read_tokens == prompt.total
    assert cache.request(prompt, 1801).read_tokens == 0


def test_gpt_5_6_reads_only_the_latest_80_breakpoints():
    """An entry written before the latest 80 breakpoints of its routing is no longer matched."""
    # OpenAI SDK: "OpenAI considers up to the latest 80 breakpoints in the conversation".
    cache = RoutedBreakpointCache(GPT)
    old = blocks(2000, 10)
    cache.request(breakpoint_prompt(gpt_chat(old)), 0)
    for i in range(80):
        cache.request(breakpoint_prompt(gpt_chat(blocks(1100, 10, tag=f"n{i}"))), 1 + i)
    assert cache.request(breakpoint_prompt(gpt_chat(old)), 100).read_tokens == 0
    fresh = RoutedBreakpointCache(GPT)
    fresh.request(breakpoint_prompt(gpt_chat(old)), 0)
    assert fresh.request(breakpoint_prompt(gpt_chat(old)), 100).read_tokens == breakpoint_prompt(gpt_chat(old)).cum[0]
