"""The providers' documented prompt-cache behaviour, as data.

Every number the simulator uses is here, with the sentence of the provider's documentation it comes from.
The simulator (:mod:`.anthropic`, :mod:`.openai`) reads these objects and nothing else, so a change of the
providers' rules is a change of this file.

Where the documentation is silent the simulator has to choose; each choice is marked ``ASSUMPTION`` here
and in the code that applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: Anthropic's models' minimum cacheable prompt lengths, in tokens (a parameter of the simulation).
#: Anthropic prompt caching docs: "The minimum cacheable prompt length is: 1024 tokens for Claude Opus 4.1,
#: Claude Opus 4, Claude Sonnet 4.5, Claude Sonnet 4, ... 2048 tokens for Claude Haiku 3.5 and Claude Haiku 3,
#: 4096 tokens for Claude Opus 4.5 and Claude Haiku 4.5"; "Shorter prompts cannot be cached, even if marked
#: with cache_control."
ANTHROPIC_MINIMUMS = (1024, 2048, 4096)


@dataclass(frozen=True)
class AnthropicRules:
    """Anthropic Messages API prompt caching (explicit ``cache_control`` breakpoints)."""

    #: Anthropic prompt caching docs: "Shorter prompts cannot be cached, even if marked with cache_control."
    #: A breakpoint whose prefix holds fewer tokens writes no entry and its tokens are billed at the base price.
    min_tokens: int = 1024
    #: Anthropic prompt caching docs: "You can define up to 4 cache breakpoints" (more is a 400).
    max_breakpoints: int = 4
    #: Anthropic prompt caching docs: "The system automatically checks for cache hits at all previous content
    #: block boundaries (up to 20 blocks before your explicit breakpoint)"; "the automatic prefix checking only
    #: looks back approximately 20 content blocks from each explicit breakpoint". The breakpoint's own block
    #: counts as the first of the 20 (clarifications §9: "a cache read looks back at most 20 blocks from a
    #: breakpoint, which is why the spacing is 15").
    lookback: int = 20
    #: Anthropic prompt caching docs: "By default, the cache has a 5-minute lifetime"; "ttl ... 1h" for the
    #: one-hour cache; "The cache is refreshed for no additional cost each time the cached content is used."
    #: A marker without ``ttl`` is a 5-minute one.
    ttl_seconds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({"5m": 300.0, "1h": 3600.0}))
    #: Anthropic prompt caching docs (pricing): "5-minute cache write tokens are 1.25 times the base input
    #: tokens price"; "1-hour cache write tokens are 2 times the base input tokens price".
    write_price: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({"5m": 1.25, "1h": 2.0}))
    #: Anthropic prompt caching docs (pricing): "Cache read tokens are 0.1 times the base input tokens price."
    read_price: float = 0.1
    #: Anthropic prompt caching docs: "Prompt caching references the entire prompt - tools, system, and messages
    #: (in that order) up to and including the block designated with cache_control."
    prefix_order: tuple[str, ...] = ("tools", "system", "messages")


#: OpenAI prompt caching guide: "Cached prefixes generally remain active for 5 to 10 minutes of inactivity, up
#: to a maximum of one hour during off-peak periods." The simulator's default is the top of the usual range;
#: ``--openai-ttl`` changes it (OpenAI's extended retention, ``prompt_cache_retention: "24h"``, is 86400).
OPENAI_DEFAULT_TTL = 600.0


@dataclass(frozen=True)
class OpenAIRules:
    """OpenAI's automatic prompt caching: chat completions and the Responses API (Codex)."""

    #: OpenAI prompt caching guide: "Caching is enabled automatically for prompts that are 1024 tokens or
    #: longer."
    min_tokens: int = 1024
    #: OpenAI prompt caching guide: "cache hits occurring in increments of 128 tokens" (the cached tokens of a
    #: request are 0, or 1024, 1152, 1280, ...).
    step: int = 128
    #: OpenAI prompt caching guide (see OPENAI_DEFAULT_TTL): an entry lives this long after its last use.
    ttl_seconds: float = OPENAI_DEFAULT_TTL
    #: OpenAI prompt caching guide: "Prompt Caching can reduce ... input token costs by up to 90%"; the cached
    #: input price is the model's (GPT-5 family: $0.125 per M tokens against $1.25, so 0.1). A parameter.
    cached_price: float = 0.1
    #: OpenAI prompt caching guide: "Cache hits are only possible for exact prefix matches within a prompt"; the
    #: prompt is the tools, the instructions (Responses) and the messages, in that order.
    prefix_order: tuple[str, ...] = ("tools", "instructions", "messages")
    #: OpenAI prompt caching guide: "Requests are routed to a machine based on a hash of the initial prefix of the
    #: prompt"; "prompt_cache_key ... is combined with the prefix hash". ASSUMPTION (the issue's reading): requests
    #: with different keys never share a cache; requests without a key share one routing of their own.
    routing: str = "model and prompt_cache_key"


@dataclass(frozen=True)
class Estimator:
    """The token estimator, the same for every implementation: UTF-8 bytes / 4.

    A block (Anthropic) or a message (OpenAI) of ``n`` bytes counts ``ceil(n / 4)`` tokens; within one OpenAI
    message a shared prefix of ``b`` bytes counts ``b // 4`` tokens. Deterministic and independent of any
    tokenizer library, so every implementation is measured by the same ruler. Absolute counts are estimates;
    the comparisons the simulator reports (against no caching, against the optimum) are ratios of the same
    ruler.
    """

    bytes_per_token: int = 4

    def tokens(self, nbytes: int) -> int:
        return -(-nbytes // self.bytes_per_token)

    def floor_tokens(self, nbytes: int) -> int:
        return nbytes // self.bytes_per_token


ESTIMATOR = Estimator()
