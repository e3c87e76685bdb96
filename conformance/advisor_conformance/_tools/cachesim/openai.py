"""OpenAI's prompt caches (chat completions and the Responses API of Codex), simulated from the documented rules.

**Models before the GPT-5.6 family** (:class:`.facts.OpenAIRules`, profile ``openai``). A request body is read as a
sequence of segments in prompt order: the tools, the instructions (Responses), then one segment per message or
input item, each serialised as ``<role>\\n<text>\\n`` for the estimator (text parts joined; other parts as JSON).
Caches are kept per routing: the pair (model, ``prompt_cache_key``); a request without a key has a routing of its
own (OpenAI prompt caching guide: "prompt_cache_key ... is combined with the prefix hash", so a different key is a
different cache). One request of ``n`` tokens:

1. **Read.** If ``n >= 1024`` (OpenAI prompt caching guide: "Caching is enabled automatically for prompts that
   are 1024 tokens or longer"), the longest prefix it shares byte for byte with a live cached prompt of its
   routing ("Cache hits are only possible for exact prefix matches within a prompt"), counted in tokens
   (bytes // 4) and rounded down to a multiple of 128 ("cache hits occurring in increments of 128 tokens"), is
   read if it is at least 1024 tokens. Those tokens cost ``cached_price``; the others the base price (1). There
   is no write premium ("Cache writes have no additional fee on models before the GPT-5.6 family").
2. **Store.** A request of at least 1024 tokens stores its whole prompt in its routing; every prefix of it lives
   its retention from this use: the ``in_memory`` policy's lifetime (the profile's retention preset; "Cached
   prefixes generally remain active for 5 to 10 minutes of inactivity") or, when the request's
   ``prompt_cache_retention`` is ``24h`` or the preset's default policy is, the extended one ("up to a maximum of
   24 hours").

**The GPT-5.6 family** (profile ``openai-gpt-5-6``) caches at breakpoints: :func:`breakpoint_prompt` reads the same
bodies as content blocks with the request's breakpoints (the implicit one and its explicit
``prompt_cache_breakpoint`` ones), and :class:`RoutedBreakpointCache` simulates them with the breakpoint cache of
:mod:`.anthropic` under the profile's rules, one cache per routing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .anthropic import AnthropicCache, AnthropicPrompt, Usage
from .facts import ESTIMATOR, BreakpointRules, Estimator, OpenAIRules


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                parts.append(json.dumps(part, sort_keys=True, ensure_ascii=False))
        return "".join(parts)
    return "" if content is None else json.dumps(content, sort_keys=True, ensure_ascii=False)


@dataclass
class OpenAIPrompt:
    """A chat-completions or Responses body as the cache sees it: segments with their prefix identities."""

    route: tuple[str, str | None]  # (model, prompt_cache_key)
    segments: list[bytes]  # the serialised segments
    hashes: list[bytes]  # identity of the prefix through segment i
    cum: list[int]  # bytes of segments 0..i
    root: bytes
    retention: str | None = None  # the request's prompt_cache_retention

    @property
    def total_bytes(self) -> int:
        return self.cum[-1] if self.cum else 0

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> OpenAIPrompt:
        model = str(body.get("model", ""))
        key = body.get("prompt_cache_key")
        pieces: list[tuple[str, str]] = []
        for tool in body.get("tools") or []:
            pieces.append(("tool", json.dumps(tool, sort_keys=True, ensure_ascii=False)))
        if "messages" in body:  # chat completions
            for message in body.get("messages") or []:
                pieces.append((str(message.get("role", "")), _text_of(message.get("content"))))
        else:  # Responses: instructions, then the input items
            if body.get("instructions"):
                pieces.append(("instructions", str(body["instructions"])))
            items = body.get("input")
            if isinstance(items, str):
                pieces.append(("user", items))
            for item in items if isinstance(items, list) else []:
                if isinstance(item, Mapping) and ("role" in item or item.get("type") == "message"):
                    pieces.append((str(item.get("role", "")), _text_of(item.get("content"))))
                else:
                    pieces.append(("item", json.dumps(item, sort_keys=True, ensure_ascii=False)))
        root = hashlib.blake2b(model.encode("utf-8"), digest_size=16)
        root_digest = root.digest()
        segments, hashes, cum = [], [], []
        total = 0
        for role, text in pieces:
            data = f"{role}\n{text}\n".encode("utf-8", "surrogatepass")
            root.update(len(data).to_bytes(8, "little"))
            root.update(data)
            segments.append(data)
            hashes.append(root.copy().digest())
            total += len(data)
            cum.append(total)
        retention = body.get("prompt_cache_retention")
        return cls(
            (model, key if isinstance(key, str) and key else None),
            segments,
            hashes,
            cum,
            root_digest,
            retention if isinstance(retention, str) else None,
        )


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of two byte strings (binary search on slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass
class _Routing:
    boundaries: dict[bytes, float] = field(default_factory=dict)  # prefix identity -> expiry
    nexts: dict[bytes, dict[bytes, float]] = field(default_factory=dict)  # prefix -> {next segment: expiry}


class OpenAICache:
    """The automatic prompt cache of one OpenAI organisation, fed requests in time order."""

    def __init__(self, rules: OpenAIRules | None = None, estimator: Estimator = ESTIMATOR) -> None:
        self.rules = rules or OpenAIRules()
        self.estimator = estimator
        self.routes: dict[tuple[str, str | None], _Routing] = {}

    def shared_bytes(self, prompt: OpenAIPrompt, at: float) -> int:
        """The longest prefix (bytes) ``prompt`` shares with a live cached prompt of its routing."""
        routing = self.routes.get(prompt.route)
        if routing is None:
            return 0
        horizon = at
        boundaries = routing.boundaries
        # Whole segments: a live boundary implies live boundaries before it (every prompt stores all of its
        # prefixes at once), so the deepest live one is found by binary search.
        lo, hi = 0, len(prompt.hashes)
        while lo < hi:
            mid = (lo + hi) // 2
            if boundaries.get(prompt.hashes[mid], float("-inf")) >= horizon:
                lo = mid + 1
            else:
                hi = mid
        matched = lo  # segments 0..matched-1 are shared
        shared = prompt.cum[matched - 1] if matched else 0
        if matched < len(prompt.segments):  # part of the next segment
            before = prompt.hashes[matched - 1] if matched else prompt.root
            ours = prompt.segments[matched]
            best = 0
            for theirs, used in routing.nexts.get(before, {}).items():
                if used >= horizon and theirs[:1] == ours[:1]:
                    best = max(best, _common_prefix(theirs, ours))
            shared += best
        return shared

    def request(self, prompt: OpenAIPrompt, at: float) -> Usage:
        rules, estimator = self.rules, self.estimator
        total = estimator.tokens(prompt.total_bytes)
        usage = Usage(input_tokens=total)
        cached = 0
        if total >= rules.min_tokens:
            shared = estimator.floor_tokens(self.shared_bytes(prompt, at))
            cached = min(shared, total) // rules.step * rules.step
            if cached < rules.min_tokens:
                cached = 0
            routing = self.routes.setdefault(prompt.route, _Routing())
            expiry = at + rules.ttl_for(prompt.retention)
            before = prompt.root
            for segment, digest in zip(prompt.segments, prompt.hashes, strict=True):
                routing.boundaries[digest] = max(expiry, routing.boundaries.get(digest, expiry))
                nexts = routing.nexts.setdefault(before, {})
                nexts[segment] = max(expiry, nexts.get(segment, expiry))
                before = digest
        usage.read_tokens = cached
        usage.cost = total - cached + rules.cached_price * cached
        return usage


# -- the GPT-5.6 family: breakpoints --------------------------------------------------------------------------

_NOT_ELIGIBLE = ("assistant", "item", "tool-definition", "instructions")


def breakpoint_prompt(body: Mapping[str, Any], estimator: Estimator = ESTIMATOR) -> AnthropicPrompt:
    """A chat-completions or Responses body as a breakpoint cache sees it (the GPT-5.6 family): one block per tool,
    per instructions, per message (a string content) or content part, with the request's breakpoints.

    OpenAI SDK (``prompt_cache_options.mode``): "With implicit, OpenAI creates one implicit breakpoint and writes up
    to the latest three explicit breakpoints in the request. With explicit, OpenAI does not create an implicit
    breakpoint and writes up to the latest four explicit breakpoints." ASSUMPTION (the profile's
    ``implicit_breakpoint``): the implicit breakpoint ends the last message that is not the assistant's, and
    explicit ``prompt_cache_breakpoint`` markers count on the content parts of such messages only. A breakpoint's
    TTL is its own ``ttl``, else the request's ``prompt_cache_options.ttl``, else 30m."""
    model = str(body.get("model", ""))
    key = body.get("prompt_cache_key")
    raw_options = body.get("prompt_cache_options")
    options: Mapping[str, Any] = raw_options if isinstance(raw_options, Mapping) else {}
    asked = options.get("ttl")
    request_ttl: str = asked if asked in ("30m", "12h") else "30m"
    pieces: list[tuple[str, bool, Any]] = []  # (role, starts a message, part)
    for tool in body.get("tools") or []:
        pieces.append(("tool-definition", True, tool))
    if "messages" in body:
        for message in body.get("messages") or []:
            role, content = str(message.get("role", "")), message.get("content")
            parts = content if isinstance(content, list) and content else [content]
            for index, part in enumerate(parts):
                pieces.append((role, index == 0, part))
    else:
        if body.get("instructions"):
            pieces.append(("instructions", True, str(body["instructions"])))
        items = body.get("input")
        for item in [{"role": "user", "content": items}] if isinstance(items, str) else (items or []):
            if isinstance(item, Mapping) and ("role" in item or item.get("type") == "message"):
                content = item.get("content")
                parts = content if isinstance(content, list) and content else [content]
                for index, part in enumerate(parts):
                    pieces.append((str(item.get("role", "")), index == 0, part))
            else:
                pieces.append(("item", True, item))
    digest = hashlib.blake2b(model.encode("utf-8"), digest_size=16)
    hashes, cum, markable = [], [], []
    explicit: list[tuple[int, str]] = []  # (position, TTL) of each explicit breakpoint
    last_eligible, total = -1, 0
    for position, (role, starts, part) in enumerate(pieces):
        if isinstance(part, str):
            text = part
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            text = part["text"]
        else:
            text = (
                ""
                if part is None
                else json.dumps(
                    {k: v for k, v in part.items() if k != "prompt_cache_breakpoint"}
                    if isinstance(part, Mapping)
                    else part,
                    sort_keys=True,
                    ensure_ascii=False,
                )
            )
        data = (f"{role}\n" if starts else "").encode("utf-8") + text.encode("utf-8", "surrogatepass")
        digest.update(f"\x1e{role if starts else ''}\x1f{len(data)}\x1f".encode())
        digest.update(data)
        hashes.append(digest.copy().digest())
        total += estimator.tokens(len(data))
        cum.append(total)
        eligible = role not in _NOT_ELIGIBLE
        markable.append(eligible)
        if eligible:
            last_eligible = position
        mark = part.get("prompt_cache_breakpoint") if isinstance(part, Mapping) else None
        if eligible and isinstance(mark, Mapping):
            marked = mark.get("ttl")
            ttl: str = marked if marked in ("30m", "12h") else request_ttl
            explicit.append((position, ttl))
    if options.get("mode") == "explicit":
        marks = explicit[-4:]
    else:
        marks = explicit[-3:]
        if last_eligible >= 0 and all(p != last_eligible for p, _ in marks):
            marks.append((last_eligible, request_ttl))
    final = 0
    for _role, starts, _ in reversed(pieces):
        final += 1
        if starts:
            break
    return AnthropicPrompt(
        model,
        hashes,
        cum,
        markable,
        sorted(marks),
        [],
        head=0,
        final_blocks=final,
        system_blocks=0,
        route=(model, key if isinstance(key, str) and key else None),
    )


class RoutedBreakpointCache:
    """Breakpoint caches partitioned by routing (model and ``prompt_cache_key``), fed requests in time order."""

    def __init__(self, rules: BreakpointRules) -> None:
        self.rules = rules
        self.caches: dict[tuple[str, str | None], AnthropicCache] = {}
        self._usages: list[Usage] = []

    def cache(self, route: tuple[str, str | None]) -> AnthropicCache:
        if route not in self.caches:
            self.caches[route] = AnthropicCache(self.rules)
        return self.caches[route]

    def request(self, prompt: AnthropicPrompt, at: float, marks=None) -> Usage:
        usage = self.cache(prompt.route).request(prompt, at, marks)
        self._usages.append(usage)
        return usage

    def deepest_live(self, prompt: AnthropicPrompt, at: float) -> int:
        return self.cache(prompt.route).deepest_live(prompt, at)

    def finish(self) -> list[Usage]:
        for cache in self.caches.values():
            cache.finish()
        return list(self._usages)
