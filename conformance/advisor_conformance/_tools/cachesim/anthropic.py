"""Anthropic's prompt cache (and every breakpoint cache), simulated from the documented rules (:class:`.facts.BreakpointRules`).

A request body is read as a sequence of content blocks in prefix order (tools, system, messages); each block
position has the identity of the whole prefix up to it (a chained hash of the model, every earlier block, the
message boundaries and roles) and a cumulative token count (:data:`.facts.ESTIMATOR`). The cache is a map from
prefix identity to an entry with its TTL and expiry.

A request's breakpoints are its ``cache_control`` markers in wire order, and, with a top-level ``cache_control``
(automatic caching), one more on its last block that can carry one (Anthropic SDK: "Top-level cache control
automatically applies a cache_control marker to the last cacheable block in the request"). One request:

1. **Read.** From each breakpoint the lookup walks back over at most ``lookback`` (20) block positions, the
   breakpoint's own block first, to the first position holding a live entry; the request reads the longest such
   prefix over all breakpoints (Anthropic prompt caching docs: "checks for cache hits at all previous content
   block boundaries (up to 20 blocks before your explicit breakpoint)"; "the system ... uses the longest
   matching prefix"). With ``lookback`` None (OpenAI's GPT-5.6 family: "without a content-block lookback
   limit") the request reads the longest prefix of it that a live entry holds, wherever it is. Its tokens cost
   ``read_price``.
2. **Write.** Every breakpoint after the read position whose prefix holds at least ``min_tokens`` writes an entry
   there (Anthropic prompt caching docs: cache entries are created at the breakpoints; "Shorter prompts cannot
   be cached"). The tokens between the read position (or the previous written breakpoint) and a written
   breakpoint are billed at that breakpoint's write price (1.25 for 5 minutes, 2 for an hour).
3. **Refresh.** The entry read lives again for its TTL from now ("The cache is refreshed for no additional cost
   each time the cached content is used"); a written entry lives for its breakpoint's TTL. ASSUMPTION (the
   profile's ``refresh``): ``read-entry`` (the default), only the entry the read comes from is refreshed, an entry
   at a breakpoint before the read position is neither refreshed nor rewritten; ``prefix``, every live entry on
   the prefix read is refreshed too; ``none``, entries live their TTL from their write.
4. Every other token costs the base price (1).

A request the API would refuse (more than 4 breakpoints, one on an empty text block or a thinking block, an
empty text block at all, a 1-hour breakpoint after a 5-minute one) is counted as ``rejected``: it reads and
writes nothing and is billed at the base price, so a loss shows in the figures, and the count says why.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .facts import ESTIMATOR, AnthropicRules, Estimator

_NOT_MARKABLE = ("thinking", "redacted_thinking")


def _nbytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


@dataclass
class AnthropicPrompt:
    """A request body as the cache sees it: one entry per content block, in prefix order."""

    model: str
    hashes: list[bytes]  # identity of the prefix through block i
    cum: list[int]  # tokens of blocks 0..i
    markable: list[bool]  # whether block i may carry a cache_control marker
    marks: list[tuple[int, str]]  # (block position, ttl) of every marker, in wire order
    problems: list[str]  # what the API would refuse in this body
    head: int = 0  # blocks of the tools and the system prompt
    final_blocks: int = 0  # blocks of the final message
    system_blocks: int = 0  # blocks of the system prompt (the last ``system_blocks`` of ``head``)
    route: tuple[str, str | None] = ("", None)  # (model, prompt_cache_key): a routed cache's (OpenAI) partition

    @property
    def total(self) -> int:
        return self.cum[-1] if self.cum else 0

    def tokens_through(self, count: int) -> int:
        """Tokens of the first ``count`` blocks."""
        return self.cum[count - 1] if count > 0 else 0

    def __len__(self) -> int:
        return len(self.hashes)

    def spec_marks(self) -> list[tuple[int, str]]:
        """Where the spec's advisor profile puts its breakpoints in this prompt (clarifications §9): the last system
        block, then every 15th block back from the last block before the final message, at most 4 in all, one
        hour each; blocks that cannot carry a marker are passed over."""
        from ...wire import expected_advisor_positions

        marks = []
        if self.system_blocks and self.markable[self.head - 1]:
            marks.append((self.head - 1, "1h"))
        tail = len(self) - self.head - self.final_blocks
        for position in expected_advisor_positions(tail, self.system_blocks):
            if self.markable[self.head + position]:
                marks.append((self.head + position, "1h"))
        return sorted(marks)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], estimator: Estimator = ESTIMATOR) -> AnthropicPrompt:
        model = str(body.get("model", ""))
        digest = hashlib.blake2b(model.encode("utf-8"), digest_size=16)
        hashes: list[bytes] = []
        cum: list[int] = []
        markable: list[bool] = []
        marks: list[tuple[int, str]] = []
        problems: list[str] = []
        total = 0

        def add(section: str, role: str, starts_message: bool, block: Any) -> None:
            nonlocal total
            position = len(hashes)
            if isinstance(block, str):
                kind, text, control = "text", block, None
            elif isinstance(block, Mapping):
                kind = str(block.get("type", ""))
                control = block.get("cache_control")
                if kind == "text":
                    text = str(block.get("text", ""))
                else:
                    text = json.dumps(
                        {k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True, ensure_ascii=False
                    )
            else:
                kind, text, control = "json", json.dumps(block, sort_keys=True, ensure_ascii=False), None
            data = text.encode("utf-8", "surrogatepass")
            head = f"\x1e{section}\x1f{role if starts_message else ''}\x1f{kind}\x1f{len(data)}\x1f"
            digest.update(head.encode("utf-8"))
            digest.update(data)
            hashes.append(digest.copy().digest())
            total += estimator.tokens(len(data))
            cum.append(total)
            empty_text = kind == "text" and not text
            can_mark = isinstance(block, Mapping) and kind not in _NOT_MARKABLE and not empty_text
            markable.append(can_mark)
            if empty_text:
                problems.append(f"an empty text block at {section} block {position}")
            if control is not None:
                if not can_mark:
                    problems.append(
                        f"a cache_control marker on a block that cannot carry one ({section} block {position})"
                    )
                ttl = control.get("ttl") if isinstance(control, Mapping) else None
                marks.append((position, "1h" if ttl == "1h" else "5m"))

        for tool in body.get("tools") or []:
            add("tools", "", True, tool if isinstance(tool, Mapping) else {"type": "tool", "value": tool})
        tools = len(hashes)
        system = body.get("system")
        if isinstance(system, str):
            if system:
                add("system", "", True, system)
        elif isinstance(system, list):
            for block in system:
                add("system", "", True, block)
        head = len(hashes)
        final_blocks = 0
        for message in body.get("messages") or []:
            role = str(message.get("role", ""))
            content = message.get("content")
            before = len(hashes)
            if isinstance(content, str):
                add("messages", role, True, content)
            else:
                for index, block in enumerate(content or []):
                    add("messages", role, index == 0, block)
            final_blocks = len(hashes) - before
        automatic = body.get("cache_control")
        if automatic is not None:  # automatic caching: a marker on the last block that can carry one
            last = next((p for p in range(len(markable) - 1, -1, -1) if markable[p]), -1)
            ttl = automatic.get("ttl") if isinstance(automatic, Mapping) else None
            if last >= 0 and all(position != last for position, _ in marks):
                marks.append((last, "1h" if ttl == "1h" else "5m"))
        prompt = cls(model, hashes, cum, markable, marks, problems, head, final_blocks, head - tools)
        prompt.problems.extend(marker_problems(marks))
        return prompt

    def last_markable(self) -> int:
        """The last block that can carry a marker (-1: none): where automatic caching puts its breakpoint."""
        return next((p for p in range(len(self) - 1, -1, -1) if self.markable[p]), -1)


def marker_problems(
    marks: Sequence[tuple[int, str]],
    limit: int = AnthropicRules().max_breakpoints,
    order: Sequence[str] = AnthropicRules().ttl_order,
) -> list[str]:
    """The 400s of a set of markers: more than the limit, a marker whose TTL comes later in ``order`` than one
    after it (Anthropic: a 1h marker after a 5m one, in prefix order)."""
    problems = []
    if len(marks) > limit:
        problems.append(f"{len(marks)} cache_control markers (at most {limit})")
    rank = {ttl: i for i, ttl in enumerate(order)}
    worst = -1
    for position, ttl in sorted(marks):
        if ttl in rank and rank[ttl] < worst:
            problems.append(f"a {ttl} marker at block {position} follows a {order[worst]} marker")
        worst = max(worst, rank.get(ttl, -1))
    return problems


@dataclass
class Usage:
    """What one simulated request cost: tokens in, read, written, and the cost in base-price tokens."""

    input_tokens: int = 0
    read_tokens: int = 0
    written_tokens: int = 0
    written_by_ttl: dict[str, int] = field(default_factory=dict)
    cost: float = 0.0
    rejected: bool = False
    read_position: int = -1  # the block the read came from (-1: none)
    written_positions: list[int] = field(default_factory=list)
    #: Tokens a live entry held on this request's path beyond what its breakpoints read (out of their reach).
    missed_tokens: int = 0
    #: Tokens this request wrote that no later request read before they expired (set by ``finish``).
    unread_written_tokens: int = 0
    #: Tokens up to its deepest breakpoint beyond the read that the request could not write: that prefix held fewer
    #: than the minimum.
    short_tokens: int = 0


@dataclass
class _Entry:
    ttl: str
    expiry: float
    writer: int = -1  # the request that wrote it (its index in this cache's log)
    position: int = -1
    seq: int = 0  # the order of its write in this cache (for a match window)


class AnthropicCache:
    """The prompt cache of one Anthropic organisation, fed requests in time order."""

    def __init__(self, rules: AnthropicRules | None = None) -> None:
        self.rules = rules or AnthropicRules()
        self.entries: dict[bytes, _Entry] = {}
        self._log: list[tuple[Usage, list[int]]] = []  # every request's usage and cumulative tokens
        self._used: dict[int, int] = {}  # request -> deepest of its written positions a later request read
        self.writes = 0  # entries written so far

    def clone(self) -> AnthropicCache:
        """An independent copy of the cache's state (for searches that try several placements)."""
        twin = AnthropicCache(self.rules)
        twin.entries = {key: _Entry(e.ttl, e.expiry, e.writer, e.position, e.seq) for key, e in self.entries.items()}
        twin._log = list(self._log)
        twin._used = dict(self._used)
        twin.writes = self.writes
        return twin

    def state(self) -> frozenset:
        """What the future of this cache depends on: its entries (for searches that merge equal states)."""
        return frozenset(
            (key, e.ttl, e.expiry, e.seq if self.rules.match_window else 0) for key, e in self.entries.items()
        )

    def _live(self, entry: _Entry | None, at: float) -> bool:
        window = self.rules.match_window
        return entry is not None and at <= entry.expiry and (window is None or entry.seq > self.writes - window)

    def alive(self, prefix: bytes, at: float) -> bool:
        return self._live(self.entries.get(prefix), at)

    def request(self, prompt: AnthropicPrompt, at: float, marks: Sequence[tuple[int, str]] | None = None) -> Usage:
        """Simulate one request at time ``at`` (seconds); ``marks`` replaces the prompt's own markers."""
        rules = self.rules
        total = prompt.total
        usage = Usage(input_tokens=total)
        if marks is None:
            marks, problems = prompt.marks, prompt.problems
        else:
            problems = [p for p in prompt.problems if "marker" not in p] + marker_problems(
                marks, rules.max_breakpoints, rules.ttl_order
            )
            problems += [f"a marker on block {p} that cannot carry one" for p, _ in marks if not prompt.markable[p]]
        self._log.append((usage, prompt.cum))
        if problems:
            usage.rejected = True
            usage.cost = float(total)
            return usage
        writer = len(self._log) - 1
        ordered = sorted(marks)
        # 1. Read: from each breakpoint, back over `lookback` positions (the breakpoint first), to the first live
        #    entry; the longest prefix found over all breakpoints is read. No lookback: the longest live prefix.
        read, entries, hashes = -1, self.entries, prompt.hashes
        deepest = self.deepest_live(prompt, at)
        if rules.lookback is None:
            read = deepest
        else:
            for position, _ in ordered:
                for p in range(position, max(-1, position - rules.lookback), -1):
                    if p <= read:
                        break
                    if self._live(entries.get(hashes[p]), at):
                        read = p
                        break
        read_tokens = prompt.cum[read] if read >= 0 else 0
        if deepest > read:  # a live entry on the path that the breakpoints did not reach
            usage.missed_tokens = prompt.cum[deepest] - read_tokens
        # 2. Write: each breakpoint after the read whose prefix reaches the minimum; its segment at its TTL's price.
        done = read_tokens
        cost = rules.read_price * read_tokens
        beyond = [position for position, _ in ordered if position > read]
        if beyond and prompt.cum[beyond[-1]] < rules.min_tokens:
            usage.short_tokens = prompt.cum[beyond[-1]] - read_tokens
        for position, ttl in ordered:
            if position <= read or prompt.cum[position] < rules.min_tokens:
                continue
            segment = prompt.cum[position] - done
            usage.written_by_ttl[ttl] = usage.written_by_ttl.get(ttl, 0) + segment
            cost += rules.write_price[ttl] * segment
            done = prompt.cum[position]
            usage.written_positions.append(position)
            self.writes += 1
            entries[hashes[position]] = _Entry(ttl, at + rules.ttl_seconds[ttl], writer, position, self.writes)
        # 3. Refresh the entry read (ASSUMPTION, the profile's `refresh`: or every live entry on its prefix, or none).
        if read >= 0:
            entry = entries[hashes[read]]
            if rules.refresh != "none":
                entry.expiry = at + rules.ttl_seconds[entry.ttl]
            if rules.refresh == "prefix":
                for p in range(read):
                    shorter = entries.get(hashes[p])
                    if shorter is not None and self._live(shorter, at):
                        shorter.expiry = at + rules.ttl_seconds[shorter.ttl]
            if entry.position > self._used.get(entry.writer, -1):
                self._used[entry.writer] = entry.position
        cost += total - done  # 4. the rest at the base price
        usage.read_tokens = read_tokens
        usage.read_position = read
        usage.written_tokens = done - read_tokens
        usage.cost = cost
        return usage

    def finish(self) -> list[Usage]:
        """Every request's usage so far, with ``unread_written_tokens`` set: what it wrote beyond the deepest of
        its entries (or its own read) that a later request read."""
        for writer, (usage, cum) in enumerate(self._log):
            if not usage.written_positions:
                continue
            used = max(self._used.get(writer, -1), usage.read_position)
            usage.unread_written_tokens = cum[usage.written_positions[-1]] - (cum[used] if used >= 0 else 0)
        return [usage for usage, _ in self._log]

    def deepest_live(self, prompt: AnthropicPrompt, at: float) -> int:
        """The deepest block position of ``prompt`` whose prefix has a live entry (-1: none)."""
        entries = self.entries
        for p in range(len(prompt) - 1, -1, -1):
            if self._live(entries.get(prompt.hashes[p]), at):
                return p
        return -1
