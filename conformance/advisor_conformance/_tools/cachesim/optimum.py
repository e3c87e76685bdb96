"""The optimum: the lowest cost the provider's rules allow on the same requests, exact or a proven lower bound.

**OpenAI's prefix cache** (models before GPT-5.6). There is nothing to place: the cache serves every shared prefix
of a routing. The optimum is the same requests with one stable ``prompt_cache_key`` for the whole session (nothing
routed apart), under the same minimum, steps and retention: :func:`openai_optimum`. Exact by construction.

**Breakpoint caches** (Anthropic; OpenAI's GPT-5.6 family under one stable key). The least total cost over the
session's requests, in time order, of any placement of breakpoints: on each request, which blocks to mark and, at
each mark, which TTL (Anthropic: none, 5 minutes or an hour; no write is a placement too), under the same
limits, minimum, lookback, TTL order and refresh rule: :func:`breakpoint_optimum`. It is computed as a lower
bound ``LB`` and checked by building a real placement from the computation's choices and simulating it (``UB``):
``LB <= optimum <= UB``, and when they are equal the optimum is exact, and labelled so. The optimum reported is
``LB`` either way, so an implementation is never credited with more than it reached.

Notation. Requests are grouped in *chains* (one conversation each: the session says which). ``c(i, j)`` is the
number of leading blocks requests ``i`` and ``j`` share. For request ``k`` of a chain, ``a_k`` is the most it
shares with a later request of its chain and ``N_k`` all its tokens. Prices per base input token: ``r`` to read,
``w_T`` to write with TTL ``T``. A request that reads an entry of ``R`` tokens and writes breakpoints costs
``N - (1 - r) R`` plus, for each written breakpoint, ``(w_T - 1)`` times the tokens between it and the previous
written breakpoint (or ``R``): the segment rule of :mod:`.anthropic`.

**The relaxation.** In the *relaxed* problem a request may read any entry live on its path (not only the
longest its marks reach: no lookback, no lookup order) and write any set of positions after it, without the limit
of 4 or the TTL order. Every real placement is a relaxed one of the same cost (its read is some live entry), so
the relaxed optimum is a lower bound.

A chain is *regular* when every later request of the chain shares all of ``a_k`` with request ``k``
(``c(k, l) = a_k`` for ``l > k``) and ``a_k`` never decreases: a conversation that grows by appending, with a
stable rendering, is regular. For a regular chain, the relaxed optimum is reached by a placement in which each
request takes one of the actions the programme tries:

1. *Positions.* An entry deeper than ``a_k`` is never read by the chain: drop it. Fix every discrete decision (who
   reads which entry, who writes) and move one written position ``p`` of request ``k`` among the positions that
   can carry a marker and reach the minimum: the cost is linear in ``T(p)``, the tokens through ``p`` (the
   writer's segments, its readers' reads and their own first segments), so an end of ``p``'s interval is optimal.
   Its low end is just past what precedes it (the read, or the request's previous written position); its high end
   is ``a_k``'s last such position ``w_k``, or just below the lowest position a reader of ``p`` writes at (that
   reader's own high end, or the position just past ``p``). Following readers, each strictly later, down from
   their ``w_j``: the high end is one of the ``D_k + 1`` eligible positions ending at ``w_k``, where
   ``D_k = rank(w_k) - min_j (rank(w_j) - (j - k))`` over the chain's requests ``j >= k`` (``rank``: the position's
   index among the eligible ones). ``D_k`` is 0 unless later requests add (almost) nothing to the shared prefix.
   (Under the ``prefix`` refresh reading, moving ``p`` past the position of another entry that a later request
   reads changes whether that read renews ``p``'s entry too, a case this argument does not cover; the tests'
   exhaustive comparisons exercise it under both readings and found no counterexample. The default reading,
   ``read-entry``, has no such case.)
2. *One write per request.* Its coefficient is ``(w_T - 1) - (1 - r) L - ...`` for ``L`` reads of the entry.
   With ``w_T - 1 < 1 - r`` (a 5-minute write: 0.25 < 0.9) a read pushes ``p`` to the high end, and no read makes
   the write useless. Two writes with TTLs ``T1`` before ``T2`` (an hour, then 5 minutes): if the first entry is
   read, pushing it up to the second position and giving it the longer TTL saves ``(1 - r) - (w_T1 - w_T2)`` per
   token and read (0.9 - 0.75 > 0) and lets it live as long as both; if it is never read, dropping it saves
   ``(w_T1 - w_T2)`` per token. So each request writes nothing, or one entry of some TTL at one of the high-end
   positions of 1, or, for a TTL with ``w_T - 1 >= 1 - r`` (an hour: 1 >= 0.9), one entry just past its read: a
   *renewal* that turns the prefix read into an entry of that TTL for the price of the next block.
3. *Reads.* Under the read-entry and prefix refresh rules, reading the deepest live entry ``H`` of the longest
   TTL dominates reading anything shallower: more tokens, and ``H`` lives as long as any shallower entry read
   would (a renewal just past a shallower read ends at or below ``H``, which ``H`` already covers). So a request
   reads ``H``, or an entry deeper than ``H``, or (with no ``H``) any live entry or none; and an entry that ``H``'s
   kind covers (shallower and expiring no later than an entry of the longest TTL) never matters again.

The programme walks the chain's requests in time order over the set of live entries (position, TTL, expiry),
pruned by 3, trying every read of 3 and every write of 2, and keeps the cheapest cost per set (and drops a set
that a cheaper one covers entry by entry): the least cost of the relaxed problem restricted to the chain, which is
a lower bound of the chain's cost in any placement. (The relaxed problem lets a request write where a live entry
is, which the real lookup would read instead: more freedom, still a lower bound.) Under the
``none`` refresh rule (GPT-5.6's default), reads renew nothing, every live entry is a possible read, and an entry is
pruned only when a deeper one expires no earlier and no later request may write between the two (a request that
reads the shallower one can write a fresh entry there, which reading the deeper one cannot).

*Other chains* (say sub-agents of one type, or the conversations before and after a compaction) share at most a
prefix ``x_k`` of request ``k``: what it shares with earlier requests of other chains. An entry there can be live at
``k`` only if some request through it ran within the longest TTL, so request ``k`` reads at most
``s_k = min(x_k, max{c(i, k) : i earlier, within that TTL})`` blocks from other chains (when they reach the
minimum). The bound lets any request read ``s_k`` for free, without renewing anything (a *stem* read), and never
pays to write it: with two conversations sharing a prompt the optimum is a lower bound, labelled so. An irregular
chain falls back to the weaker bound ``N_k - (1 - r) T_k(c*_k)`` per request, ``c*_k`` the longest prefix shared with
any earlier request. A request the API would refuse for its content (an empty text block) costs ``N_k`` in any
placement.

**The check.** :func:`breakpoint_optimum` then builds a real placement from the programme's choices (a breakpoint
on the entry read, one on the entry written with its TTL, and free ones, under the same TTL, on the prefixes later
requests of other chains share), runs it through the simulator, and reports its cost as ``feasible_cost``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .anthropic import AnthropicCache, AnthropicPrompt, Usage
from .facts import BreakpointRules, OpenAIRules
from .openai import OpenAICache, OpenAIPrompt

EXACT, BOUND = "exact", "lower bound"


@dataclass
class Optimum:
    """The optimum of one provider over one request sequence."""

    cost: float  # the optimum's cost (a lower bound of every placement's cost; exact when ``exact``)
    exact: bool
    feasible_cost: float  # the cost of the placement built to reach it
    method: str  # how it was found
    usages: list[Usage] = field(default_factory=list)  # per request, of the placement built
    why: str = ""  # why it is only a lower bound

    @property
    def label(self) -> str:
        return EXACT if self.exact else BOUND


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
        stable = OpenAIPrompt(
            (prompt.route[0], key), prompt.segments, prompt.hashes, prompt.cum, prompt.root, prompt.retention
        )
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
    for p in range(min(count, len(prompt)) - 1, -1, -1):
        if prompt.markable[p]:
            return p
    return -1


# An entry of the programme's state: (block position, TTL, expiry). A read: None, ("entry", entry) or ("stem",).
Entry = tuple[int, str, float]


@dataclass
class _Node:
    index: int  # position in the session's request list
    prompt: AnthropicPrompt
    at: float
    total: int
    write_pos: int = -1  # where a write of a_k goes (-1: no useful write)
    write_tokens: int = 0
    positions: list[int] = field(default_factory=list)  # where a write may go: write_pos and the ones just below it
    stem_pos: int = -1  # the block a stem read ends on (-1: none)
    stem_tokens: int = 0  # s_k in tokens (0: none)
    foreign_later: list[int] = field(default_factory=list)  # prefixes later requests of other chains share
    eligible: list[int] = field(default_factory=list)  # the positions a write may take (markable, at the minimum)

    def renewal(self, read_pos: int) -> int:
        """The first position past ``read_pos`` a write may take, if it is before ``write_pos`` (-1: none)."""
        for p in self.eligible:
            if p > read_pos:
                return p if p < self.write_pos else -1
        return -1


@dataclass
class _Session:
    """The requests as the optimum reads them: in time order, the ones the API refuses apart, grouped in chains."""

    requests: Sequence[TimedPrompt]
    prompts: list[AnthropicPrompt]
    order: list[int]  # every request, in time order
    refused: list[bool]  # refused for its content (an empty text block): it costs N_k in any placement
    nodes: dict[int, _Node]
    live: list[int]  # the requests not refused, in time order
    rank: dict[int, int]  # a live request's place in ``live``
    chains: dict[Any, list[int]]  # each chain's live requests, in time order
    common: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, requests: Sequence[TimedPrompt]) -> _Session:
        n = len(requests)
        prompts: list[AnthropicPrompt] = [req.prompt for req in requests]
        order = sorted(range(n), key=lambda i: (requests[i].at, i))
        refused = [any("empty text block" in p for p in prompt.problems) for prompt in prompts]
        nodes = {i: _Node(i, prompts[i], requests[i].at, prompts[i].total) for i in range(n)}
        live = [i for i in order if not refused[i]]
        chains: dict[Any, list[int]] = {}
        for i in live:
            chains.setdefault(requests[i].chain, []).append(i)
        return cls(requests, prompts, order, refused, nodes, live, {i: k for k, i in enumerate(live)}, chains)

    def c(self, i: int, j: int) -> int:
        """``c(i, j)``: how many leading blocks requests ``i`` and ``j`` share."""
        key = (i, j) if i < j else (j, i)
        if key not in self.common:
            self.common[key] = common_prefix(self.prompts[i], self.prompts[j])
        return self.common[key]


def breakpoint_optimum(
    requests: Sequence[TimedPrompt],
    rules: BreakpointRules | None = None,
    cache_factory: Callable[[BreakpointRules], Any] | None = None,
) -> Optimum:
    """The optimum over every placement of breakpoints and TTLs (see the module's docstring); ``cache_factory``
    makes the cache the placement built is simulated in (default: one :class:`.anthropic.AnthropicCache`)."""
    rules = rules or BreakpointRules()
    session = _Session.of(requests)
    foreign_reads = _other_chains(session, rules)
    lower, plan, irregular = _lower_bound(session, rules)
    # The check: a real placement from those choices, through the simulator.
    usages = _simulate_placement(session, rules, plan, (cache_factory or AnthropicCache)(rules))
    upper = sum(u.cost for u in usages)
    close = abs(upper - lower) <= 1e-6 * max(1.0, upper)
    exact = not irregular and close
    why = "" if exact else _why_a_bound(foreign_reads, bool(irregular))
    return Optimum(upper if exact else lower, exact, upper, "dynamic programme, checked by simulation", usages, why)


def _other_chains(session: _Session, rules: BreakpointRules) -> bool:
    """What each live request shares with other chains (the module's docstring): its stem read ``s_k``, what earlier
    requests of other chains share with it if some request through it is recent, and the prefixes later requests of
    other chains share (free writes); and the positions a write may take. Whether any request has a stem read."""
    longest_ttl = max(rules.ttl_seconds.values())
    requests, prompts, live, c = session.requests, session.prompts, session.live, session.c
    foreign_reads = False
    for i in live:
        node = session.nodes[i]
        earlier = live[: session.rank[i]]
        foreign = [c(j, i) for j in earlier if requests[j].chain != requests[i].chain]
        recent = [c(j, i) for j in earlier if node.at - requests[j].at <= longest_ttl]
        blocks = min(max(foreign, default=0), max(recent, default=0))
        tokens = prompts[i].tokens_through(blocks)
        if tokens >= rules.min_tokens:
            node.stem_pos, node.stem_tokens = blocks - 1, tokens
            foreign_reads = True
        later = [c(j, i) for j in live[session.rank[i] + 1 :] if requests[j].chain != requests[i].chain]
        node.foreign_later = sorted(
            {x for x in later if prompts[i].tokens_through(x) >= rules.min_tokens}, reverse=True
        )
        node.eligible = [
            p for p in range(len(prompts[i])) if prompts[i].markable[p] and prompts[i].cum[p] >= rules.min_tokens
        ]
    return foreign_reads


def _lower_bound(session: _Session, rules: BreakpointRules) -> tuple[float, dict[int, tuple[Any, Any]], list[Any]]:
    """``LB``: the programme's least cost on each regular chain, the weaker bound on each irregular one, and each
    refused request's whole price; with each request's (read, write) of the programme, and the irregular chains."""
    lower = 0.0
    plan: dict[int, tuple[Any, Any]] = {}
    irregular = []
    for chain, members in session.chains.items():
        nodes = [session.nodes[k] for k in members]
        if _write_targets(session, members, rules):
            _write_positions(nodes)
            cost, chosen = _chain_programme(nodes, rules)
            lower += cost
            plan.update(chosen)
        else:
            irregular.append(chain)
            for k in members:
                lower += _irregular_bound(session, k, rules)
    lower += sum(session.prompts[i].total for i in range(len(session.prompts)) if session.refused[i])
    return lower, plan, irregular


def _write_targets(session: _Session, members: Sequence[int], rules: BreakpointRules) -> bool:
    """Each request's write target ``w_k``: the deepest position within ``a_k`` (the most it shares with a later
    request of its chain) that can carry a marker, if it reaches the minimum. Whether the chain is regular."""
    c = session.c
    reach = [max((c(k, later) for later in members[pos + 1 :]), default=0) for pos, k in enumerate(members)]
    regular = all(c(k, later) == reach[pos] for pos, k in enumerate(members) for later in members[pos + 1 :]) and all(
        reach[p] <= reach[p + 1] for p in range(len(members) - 2)
    )
    for pos, k in enumerate(members):
        node = session.nodes[k]
        node.write_pos = _deepest_markable(node.prompt, reach[pos])
        node.write_tokens = node.prompt.cum[node.write_pos] if node.write_pos >= 0 else 0
        if node.write_tokens < rules.min_tokens:
            node.write_pos, node.write_tokens = -1, 0
    return regular


def _irregular_bound(session: _Session, k: int, rules: BreakpointRules) -> float:
    """The weaker bound of a request of an irregular chain: ``N_k - (1 - r) T_k(c*_k)``."""
    best = max((session.c(j, k) for j in session.live[: session.rank[k]]), default=0)
    tokens = session.prompts[k].tokens_through(best)
    return session.nodes[k].total - (1 - rules.read_price) * (tokens if tokens >= rules.min_tokens else 0)


def _simulate_placement(
    session: _Session, rules: BreakpointRules, plan: dict[int, tuple[Any, Any]], cache: Any
) -> list[Usage]:
    """Each request's usage under the placement built from the programme's choices, simulated in ``cache``."""
    read_ttl = rules.ttl_order[0] if rules.ttl_order else rules.longest_ttl
    usages: list[Usage] = [Usage()] * len(session.prompts)
    for i in session.order:
        if session.refused[i]:
            usages[i] = cache.request(session.prompts[i], session.requests[i].at)
            continue
        node = session.nodes[i]
        marks = _placement_marks(node, plan.get(i), cache, rules, read_ttl)
        usages[i] = cache.request(node.prompt, node.at, sorted(marks.items()))
    cache.finish()
    return usages


def _placement_marks(
    node: _Node, planned: tuple[Any, Any] | None, cache: Any, rules: BreakpointRules, read_ttl: str
) -> dict[int, str]:
    """A request's breakpoints in the placement built: one on the entry read, one on the entry written with its
    TTL, and free ones, under the same TTL, on the prefixes later requests of other chains share. A request of an
    irregular chain (``planned`` None) reads what is live and writes ``a_k`` for the longest TTL."""
    prompt = node.prompt
    marks: dict[int, str] = {}
    if planned is not None:
        read, write = planned
        read_pos = (
            read[1][0] if read and read[0] == "entry" else _deepest_markable(prompt, node.stem_pos + 1) if read else -1
        )
    else:
        read_pos = cache.deepest_live(prompt, node.at)
        write = (node.write_pos, rules.longest_ttl) if node.write_pos > read_pos else None
    if read_pos >= 0:
        marks[read_pos] = read_ttl
    top, top_ttl = read_pos, read_ttl
    if write is not None:
        marks[write[0]] = top_ttl = write[1]
        top = write[0]
    for shared in node.foreign_later:  # free writes for other chains, deepest first
        position = _deepest_markable(prompt, shared)
        if len(marks) < rules.max_breakpoints and read_pos < position < top:
            marks[position] = top_ttl
    return marks


def _why_a_bound(foreign_reads: bool, irregular: bool) -> str:
    """Why the optimum is only a lower bound."""
    if foreign_reads and not irregular:
        return "conversations share a prefix: the bound counts reads of it from other conversations free"
    if irregular:
        return (
            "a conversation's requests do not repeat each other's prefixes: the bound counts every shared prefix read"
        )
    return "the placement built from the programme costs more than its bound"


#: The former name: the optimum of Anthropic's cache.
anthropic_optimum = breakpoint_optimum


def _write_positions(chain: Sequence[_Node]) -> None:
    """Each request's candidate write positions (the module's docstring, 1): ``write_pos`` and the ``D`` eligible
    positions just below it, ``D`` the most a chain of later readers, each writing one eligible position below the
    next, can push a write under ``write_pos``: ``rank(write_pos_k) - min_j (rank(write_pos_j) - (j - k))``."""
    ranks = [node.eligible.index(node.write_pos) if node.write_pos >= 0 else None for node in chain]
    for k, node in enumerate(chain):
        rank = ranks[k]
        if rank is None:
            continue
        lowest = min(other - (j - k) for j, other in enumerate(ranks[k:], start=k) if other is not None)
        depth = max(0, rank - lowest)
        node.positions = node.eligible[max(0, rank - depth) : rank + 1]


def _chain_programme(chain: Sequence[_Node], rules: BreakpointRules) -> tuple[float, dict[int, tuple[Any, Any]]]:
    """The least cost of one regular chain in the relaxed problem (the module's docstring), and each request's
    (read, write) of a placement reaching it."""
    programme = _Programme(chain, rules)
    states: dict[tuple[Entry, ...], tuple[float, Any]] = {(): (0.0, None)}
    for step, node in enumerate(chain):
        states = programme.undominated(programme.step(states, node, step), step)
    cost, path = min(states.values(), key=lambda item: item[0])
    chosen = {}
    while path is not None:
        path, index, read, write = path
        chosen[index] = (read, write)
    return cost, chosen


#: The programme's states: a set of live entries -> (the least cost reaching it, the path: the previous path, the
#: request, its read and its write).
States = dict[tuple[Entry, ...], tuple[float, Any]]


class _Programme:
    """The dynamic programme over one regular chain (the module's docstring): each request's reads (3) and writes (2)
    from each set of live entries, pruned by what covers what."""

    def __init__(self, chain: Sequence[_Node], rules: BreakpointRules) -> None:
        self.rules = rules
        self.refresh, self.longest = rules.refresh, rules.longest_ttl
        #: The TTLs worth a write just past the read (a renewal).
        self.renewing = [t for t in rules.ttls if rules.write_price[t] - 1 >= 1 - rules.read_price]
        # Where a write may go on each request after the k-th: a shallower entry can be worth more than a deeper one
        # when reads renew nothing, for a later request may read it and write a fresh entry between the two.
        self.later: list[list[int]] = []
        for k in range(len(chain)):
            positions = sorted(
                {p for node in chain[k + 1 :] for p in (node.eligible if self.renewing else node.positions)}
            )
            self.later.append(positions)

    def covers(self, f: Entry, e: Entry, k: int) -> bool:
        """Whether entry ``f`` does all ``e`` could do after request ``k`` (the module's docstring, 3): ``e`` itself; a
        deeper entry of the longest TTL expiring no earlier, with reads that renew; with reads that renew nothing, a
        deeper entry expiring no earlier with no later write position between the two."""
        if f == e:
            return True
        if f[0] < e[0] or f[2] < e[2]:
            return False
        if self.refresh != "none":
            return f[1] == self.longest
        positions = self.later[k]
        return bisect.bisect_right(positions, e[0]) == bisect.bisect_right(positions, f[0])

    def prune(self, entries: list[Entry], k: int) -> tuple[Entry, ...]:
        """The entries no other one covers (strictly)."""
        covers = self.covers
        unique = sorted(set(entries))
        return tuple(e for e in unique if not any(f != e and covers(f, e, k) and not covers(e, f, k) for f in unique))

    def undominated(self, states: States, k: int) -> States:
        """The states after request ``k`` without those another, no dearer state covers entry by entry (they have no
        cheaper future)."""
        covers = self.covers
        kept: States = {}
        for key, value in sorted(states.items(), key=lambda item: item[1][0]):
            if not any(all(any(covers(f, e, k) for f in entries) for e in key) for entries in kept):
                kept[key] = value
        return kept

    def step(self, states: States, node: _Node, k: int) -> States:
        """The states after request ``k`` (``node``): from each state before it, each of its reads and, after each
        read, no write or each of its writes; the least cost of each set of entries, once pruned."""
        t, cum = node.at, node.prompt.cum
        r, ttl_s, price = self.rules.read_price, self.rules.ttl_seconds, self.rules.write_price
        after_step: States = {}

        def relax(entries: list[Entry], cost: float, path: Any) -> None:
            key = self.prune(entries, k)
            if key not in after_step or cost < after_step[key][0] - 1e-9:
                after_step[key] = (cost, path)

        for state, (cost, path) in states.items():
            alive = [e for e in state if e[2] >= t]
            for read in self.reads(alive, node):
                read_pos, read_tokens, after = self.after_read(read, alive, node)
                base = cost + node.total - (1 - r) * read_tokens
                relax(after, base, (path, node.index, read, None))
                for position, ttl in self.writes(node, read_pos, read_tokens):
                    relax(
                        [*after, (position, ttl, t + ttl_s[ttl])],
                        base + (price[ttl] - 1) * (cum[position] - read_tokens),
                        (path, node.index, read, (position, ttl)),
                    )
        return after_step

    def reads(self, alive: list[Entry], node: _Node) -> list[Any]:
        """What a request may read (the module's docstring, 3): the deepest live entry of the longest TTL, or a deeper
        one; with none such, or with reads that renew nothing, nothing or any live entry; and its stem, if it has one."""
        if self.refresh == "none":
            reads: list[Any] = [None, *(("entry", e) for e in alive)]
        else:
            deepest = max((e for e in alive if e[1] == self.longest), default=None)
            reads = (
                [("entry", deepest), *(("entry", e) for e in alive if e[0] > deepest[0])]
                if deepest is not None
                else [None, *(("entry", e) for e in alive)]
            )
        if node.stem_pos >= 0:
            reads.append(("stem",))
        return reads

    def after_read(self, read: Any, alive: list[Entry], node: _Node) -> tuple[int, int, list[Entry]]:
        """Where a read ends, its tokens, and the live entries after it (those it renews under the refresh rule)."""
        if read is None:
            return -1, 0, list(alive)
        if read[0] == "stem":
            return node.stem_pos, node.stem_tokens, list(alive)
        e = read[1]
        t, ttl_s, refresh = node.at, self.rules.ttl_seconds, self.refresh
        if refresh == "read-entry":
            after = [(x[0], x[1], t + ttl_s[x[1]]) if x == e else x for x in alive]
        elif refresh == "prefix":
            after = [(x[0], x[1], t + ttl_s[x[1]]) if x[0] <= e[0] else x for x in alive]
        else:
            after = list(alive)
        return e[0], node.prompt.cum[e[0]], after

    def writes(self, node: _Node, read_pos: int, read_tokens: int) -> Iterator[tuple[int, str]]:
        """What a request may write after its read (the module's docstring, 2), as (position, TTL): one entry of any
        TTL at a candidate position past the read, or a renewal just past it; nothing when ``a_k`` is no deeper."""
        if node.write_pos <= read_pos or node.write_tokens <= read_tokens:
            return
        for position in node.positions:
            if position <= read_pos:
                continue
            for ttl in self.rules.ttls:
                yield position, ttl
        renewal = node.renewal(read_pos)
        if renewal >= 0 and renewal not in node.positions:
            for ttl in self.renewing:
                yield renewal, ttl
