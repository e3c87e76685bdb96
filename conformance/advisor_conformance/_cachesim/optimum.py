"""The optimum: the lowest cost the provider's rules allow on the same requests.

**OpenAI and Codex.** There is nothing to place: the cache serves every shared prefix of a routing. The optimum
is the same requests with one stable ``prompt_cache_key`` for the whole session (nothing routed apart), under the
same minimum, steps and TTL: :func:`openai_optimum`. Exact by construction.

**Anthropic.** The lowest total cost over the session's requests, in time order, of any placement of at most 4
one-hour breakpoints per request (the advisor profile's TTL; the optimum does not choose 5-minute ones) on blocks
that can carry one, under the same lookback, minimum and TTL rules: :func:`anthropic_optimum`. It is computed as
a lower bound ``LB`` and checked by building a placement that reaches it.

Notation. Requests are grouped in *chains* (one conversation each: the session says which). ``c(i, j)`` is the
number of leading blocks requests ``i`` and ``j`` share. For request ``k`` of a chain, ``a_k`` is the most it
shares with a later request of its chain, ``T_k(n)`` the tokens of its first ``n`` blocks, ``N_k`` all its
tokens. With read point ``R`` and deepest written breakpoint ``W >= R`` (both in tokens), a request costs
``N - (1 - r) R + (w - 1)(W - R)`` where ``r = 0.1`` and ``w = 2`` are the read and one-hour write prices: the
tokens between the read and the last written breakpoint are billed once, at the write price, however many
breakpoints sit between them (the segment rule of :mod:`.anthropic`).

**The bound.** A chain is *regular* when every later request of the chain shares all of ``a_k`` with request
``k`` (``c(k, l) = a_k`` for ``l > k``) and ``a_k`` never decreases: a conversation that grows by appending,
with a stable rendering, is regular. Then:

1. *Reading the deepest live entry is optimal*: reading more tokens lowers this request's cost and only refreshes
   an entry that every later request of the chain can also read.
2. *Only the deepest live chain entry matters.* Entries deeper in the chain are written later, and a read
   refreshes only the entry read, so a shallower chain entry never outlives a deeper one (induction over the
   requests: the first read of the shallower entry after the deeper one was written would need the deeper one
   dead and the shallower one used more recently than it, but its last use is at most the deeper one's write).
3. *A request writes all of ``a_k`` or nothing new*: for a fixed set of later readers the total cost is linear in
   the tokens of the deepest write ``W`` on ``[R, T_k(a_k)]`` (every reader of a shallower write could read a
   deeper one at the same times), so an end of the interval is optimal. Writes between ``R`` and ``W`` are free
   but by 2 never read.
4. *Other chains* (say sub-agents of one type, or the conversations before and after a compaction) share at most
   a prefix ``x_k`` of request ``k``: what it shares with earlier requests of other chains. An entry there can be
   live at ``k`` only if some request through it ran in the last TTL, so request ``k`` reads at most
   ``s_k = min(x_k, max{c(i, k) : i earlier, within the TTL})`` blocks from other chains (when they reach the
   minimum). The bound lets every request without a live chain entry read ``s_k`` and never pays to write it.

So per chain the state is (the request that wrote the deepest live entry, the request that last used it) or
*cold*; a dynamic programme over the chain's requests with the two choices of 3 gives the chain's least cost
under 1 to 4, which is a lower bound of its cost in any placement. An irregular chain falls back to the weaker
bound ``N_k - (1 - r) T_k(c*_k)`` per request, ``c*_k`` the longest prefix shared with any earlier request. A
request the API would refuse for its content (an empty text block) costs ``N_k`` in any placement.

**The check.** :func:`anthropic_optimum` then builds a real placement from the programme's choices (a breakpoint
on the deepest live entry, one on ``a_k`` where the programme writes, and free ones on the prefixes later
requests of other chains share), runs it through the simulator, and reports its cost ``UB``. ``LB <= optimum <=
UB``; when they are equal (within 1e-6) the optimum is exact and reported as such. The optimum reported is
``LB`` either way, so an implementation is never credited with more than it reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .anthropic import AnthropicCache, AnthropicPrompt, Usage
from .facts import AnthropicRules, OpenAIRules
from .openai import OpenAICache, OpenAIPrompt

OPTIMUM_TTL = "1h"


@dataclass
class Optimum:
    """The optimum of one provider over one request sequence."""

    cost: float  # the optimum's cost (a lower bound of every placement's cost; exact when ``exact``)
    exact: bool
    feasible_cost: float  # the cost of the placement built to reach it
    method: str  # "exact", "bound" or "same requests, one stable key"
    usages: list[Usage] = field(default_factory=list)  # per request, of the placement built

    def to_json(self) -> dict[str, Any]:
        return {"cost": self.cost, "exact": self.exact, "feasible_cost": self.feasible_cost, "method": self.method}


@dataclass
class TimedPrompt:
    """One request of a session: its prompt, when it was sent, and the chain (conversation) it belongs to."""

    prompt: Any
    at: float
    chain: Any = None
    call: int = -1  # the session's call that made it (for messages)


def openai_optimum(requests: Sequence[TimedPrompt], rules: OpenAIRules | None = None) -> Optimum:
    """Every request with one stable key (the first request's, else one of the simulator's own)."""
    cache = OpenAICache(rules)
    key = next((r.prompt.route[1] for r in requests if r.prompt.route[1]), "cache-sim-stable-key")
    usages = []
    for request in requests:
        prompt = request.prompt
        stable = OpenAIPrompt((prompt.route[0], key), prompt.segments, prompt.hashes, prompt.cum, prompt.root)
        usages.append(cache.request(stable, request.at))
    cost = sum(u.cost for u in usages)
    return Optimum(cost, True, cost, "same requests, one stable key", usages)


def common_prefix(a: Any, b: Any) -> int:
    """The number of leading blocks (Anthropic) or segments (OpenAI) two prompts share (prefix identities are
    chained: binary search)."""
    lo, hi = 0, min(len(a.hashes), len(b.hashes))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.hashes[mid - 1] == b.hashes[mid - 1]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _deepest_markable(prompt: AnthropicPrompt, count: int) -> int:
    """The deepest block position below ``count`` that can carry a marker (-1: none)."""
    for p in range(count - 1, -1, -1):
        if prompt.markable[p]:
            return p
    return -1


@dataclass
class _Node:
    index: int  # position in the session's request list
    prompt: AnthropicPrompt
    at: float
    total: int
    write_pos: int = -1  # where a write of a_k goes (-1: no useful write)
    write_tokens: int = 0
    stem_tokens: int = 0  # s_k in tokens
    foreign_later: list[int] = field(default_factory=list)  # prefixes later requests of other chains share


def anthropic_optimum(requests: Sequence[TimedPrompt], rules: AnthropicRules | None = None) -> Optimum:
    """The optimum of at most four one-hour breakpoints per request (see the module's docstring)."""
    rules = rules or AnthropicRules()
    r, w = rules.read_price, rules.write_price[OPTIMUM_TTL]
    ttl = rules.ttl_seconds[OPTIMUM_TTL]
    n = len(requests)
    prompts: list[AnthropicPrompt] = [req.prompt for req in requests]
    order = sorted(range(n), key=lambda i: (requests[i].at, i))
    refused = [any("empty text block" in p for p in prompt.problems) for prompt in prompts]
    nodes = {i: _Node(i, prompts[i], requests[i].at, prompts[i].total) for i in range(n)}
    chains: dict[Any, list[int]] = {}
    for i in order:
        if not refused[i]:
            chains.setdefault(requests[i].chain, []).append(i)
    common: dict[tuple[int, int], int] = {}

    def c(i: int, j: int) -> int:
        key = (i, j) if i < j else (j, i)
        if key not in common:
            common[key] = common_prefix(prompts[i], prompts[j])
        return common[key]

    live = [i for i in order if not refused[i]]
    rank = {i: k for k, i in enumerate(live)}
    for i in live:  # s_k: what other chains' earlier requests share, if some request through it is recent
        node = nodes[i]
        earlier = live[: rank[i]]
        foreign = [c(j, i) for j in earlier if requests[j].chain != requests[i].chain]
        recent = [c(j, i) for j in earlier if node.at - requests[j].at <= ttl]
        blocks = min(max(foreign, default=0), max(recent, default=0))
        tokens = prompts[i].tokens_through(blocks)
        node.stem_tokens = tokens if tokens >= rules.min_tokens else 0
        later = [c(j, i) for j in live[rank[i] + 1:] if requests[j].chain != requests[i].chain]
        node.foreign_later = sorted({x for x in later if prompts[i].tokens_through(x) >= rules.min_tokens},
                                    reverse=True)

    lower = 0.0
    writes: set[int] = set()  # the requests the programme (or the fallback) has write their a_k
    regular_all = True
    for members in chains.values():
        reach = [max((c(k, l) for l in members[pos + 1:]), default=0) for pos, k in enumerate(members)]
        regular = all(c(k, l) == reach[pos] for pos, k in enumerate(members) for l in members[pos + 1:]) and \
            all(reach[p] <= reach[p + 1] for p in range(len(members) - 2))
        for pos, k in enumerate(members):
            node = nodes[k]
            node.write_pos = _deepest_markable(node.prompt, reach[pos])
            node.write_tokens = node.prompt.cum[node.write_pos] if node.write_pos >= 0 else 0
            if node.write_tokens < rules.min_tokens:
                node.write_pos, node.write_tokens = -1, 0
        if regular:
            cost, chosen = _chain_programme([nodes[k] for k in members], r, w, ttl)
            lower += cost
            writes.update(chosen)
        else:
            regular_all = False
            for k in members:
                best = max((c(j, k) for j in live[: rank[k]]), default=0)
                tokens = prompts[k].tokens_through(best)
                lower += nodes[k].total - (1 - r) * (tokens if tokens >= rules.min_tokens else 0)
                if nodes[k].write_pos >= 0:
                    writes.add(k)
    lower += sum(prompts[i].total for i in range(n) if refused[i])

    # The check: a real placement from those choices, through the simulator.
    cache = AnthropicCache(rules)
    usages: list[Usage] = [Usage()] * n
    for i in order:
        prompt = prompts[i]
        if refused[i]:
            usages[i] = cache.request(prompt, requests[i].at)
            continue
        node = nodes[i]
        read = cache.deepest_live(prompt, node.at)
        marks = set()
        if read >= 0:
            marks.add(read)
        top = read
        if i in writes and node.write_pos > read:
            marks.add(node.write_pos)
            top = node.write_pos
        for shared in node.foreign_later:  # free writes for other chains, deepest first
            position = _deepest_markable(prompt, shared)
            if len(marks) < rules.max_breakpoints and read < position < top:
                marks.add(position)
        usages[i] = cache.request(prompt, node.at, [(p, OPTIMUM_TTL) for p in sorted(marks)])
    cache.finish()
    upper = sum(u.cost for u in usages)
    exact = regular_all and abs(upper - lower) <= 1e-6 * max(1.0, upper)
    return Optimum(upper if exact else lower, exact, upper, "exact" if exact else "bound", usages)


def _chain_programme(chain: Sequence[_Node], r: float, w: float, ttl: float) -> tuple[float, set[int]]:
    """The least cost of one regular chain under the rules of the module docstring, and the requests that write."""
    cold = (-1, -1)
    states: dict[tuple[int, int], tuple[float, tuple]] = {cold: (0.0, ())}
    for k, node in enumerate(chain):
        nxt: dict[tuple[int, int], tuple[float, tuple]] = {}

        def relax(state: tuple[int, int], cost: float, path: tuple) -> None:
            if state not in nxt or cost < nxt[state][0] - 1e-9:
                nxt[state] = (cost, path)

        for (writer, used), (cost, path) in states.items():
            warm = writer >= 0 and node.at - chain[used].at <= ttl
            read = max(chain[writer].write_tokens, node.stem_tokens) if warm else node.stem_tokens
            base = cost + node.total - (1 - r) * read
            relax((writer, k) if warm else cold, base, path)
            if node.write_pos >= 0 and node.write_tokens > read:
                relax((k, k), base + (w - 1) * (node.write_tokens - read), (*path, node.index))
        states = nxt
    cost, path = min(states.values(), key=lambda item: item[0])
    return cost, set(path)
