"""Replaying a session through an implementation, and measuring its requests against the simulated caches.

:func:`replay` turns a session's advisor calls into ``scenario`` steps (each call: its conversation's agent and
number, its turn, its tool input, its snapshot, the scripted answer), runs them through the implementation with
a stable cache-key store and a workspace holding the session's files, and encodes every provider-neutral request
with the implementation's own ``encode``. Calls go in batches of consecutive calls of at most
:data:`BATCH_BYTES` of snapshots (one runtime per batch, the same settings and key store in each), so no single
message of the harness protocol grows without bound. :func:`measure` feeds the bodies to the simulator in time
order (a call's requests at the call's time) and computes the optimum on the same requests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._contract.implementation import Implementation
from ...workspace import workspace
from .anthropic import AnthropicCache, AnthropicPrompt, Usage
from .facts import BreakpointRules, OpenAIRules, Profile, ProfileError, profile
from .openai import OpenAICache, OpenAIPrompt, RoutedBreakpointCache, breakpoint_prompt
from .optimum import (
    Optimum,
    TimedPrompt,
    breakpoint_optimum,
    common_prefix,
    openai_optimum,
)
from .placements import PLACEMENTS, Marks
from .sessions import Session

PROVIDERS = ("anthropic", "openai", "codex")
BATCH_BYTES = 24_000_000


class ReplayError(RuntimeError):
    """The implementation refused a whole scenario or broke the protocol while replaying a session."""


@dataclass
class Replayed:
    """A session's provider-neutral requests as one implementation made them, and what went wrong."""

    session: Session
    requests: list[tuple[int, dict[str, Any]]]  # (call index, provider-neutral request), in call order
    failed_calls: list[tuple[int, Any]] = field(default_factory=list)  # (call index, error)


def cache_key(session: Session) -> str:
    """The key the session's cache-key store holds: 32 hex digits from the session's name."""
    return hashlib.sha256(f"advisor-cache-session:{session.name}".encode()).hexdigest()[:32]


def _batches(session: Session) -> list[list[int]]:
    sizes = {}
    for conversation in session.conversations.values():
        total, running = [], 0
        for message in conversation.messages:
            content = message.get("content")
            running += len(content) if isinstance(content, str) else 200
            total.append(running)
        sizes[conversation.id] = total
    batches: list[list[int]] = [[]]
    load = 0
    for call in session.calls:
        size = sizes[call.conversation][call.messages - 1]
        if batches[-1] and load + size > BATCH_BYTES:
            batches.append([])
            load = 0
        batches[-1].append(call.index)
        load += size
    return [batch for batch in batches if batch]


def replay(impl: Implementation, session: Session) -> Replayed:
    """Run every advisor call of ``session`` through ``impl``'s ``scenario`` operation."""
    out = Replayed(session, [])
    runtime = {
        "session_id": session.session_id,
        "model": session.model,
        "max_uses_per_run": len(session.calls) + 1,
        "child_max_uses": len(session.calls) + 1,
        "cache_key_store": {"advisor": cache_key(session)},
    }
    with workspace({path: {"text": content} for path, content in session.workspace.items()}) as work_dir:
        for batch in _batches(session):
            steps = []
            for index in batch:
                call = session.calls[index]
                conversation = session.conversations[call.conversation]
                steps.append(
                    {
                        "call": {
                            "agent": conversation.agent,
                            "conversation": conversation.conversation,
                            "turn": call.turn,
                            "input": call.input,
                            "snapshot": session.snapshot(call),
                            "provider": [{"answer": session.answer(call)}],
                        }
                    }
                )
            params = {"runtime": runtime, "work_dir": str(work_dir), "steps": steps}
            answer = impl.call("scenario", params)
            if "error" in answer:
                raise ReplayError(f"{impl.name} refused the scenario of session {session.name}: {answer['error']}")
            for position, outcome in enumerate(answer["calls"]):
                if "error" in outcome:
                    out.failed_calls.append((batch[position], outcome["error"]))
            for request in answer["provider_requests"]:
                request = dict(request)
                position = request.pop("call")
                out.requests.append((batch[position], request))
    return out


def encode_all(impl: Implementation, replayed: Replayed, provider: str) -> list[tuple[int, dict[str, Any]]]:
    """Every request of a replay encoded for ``provider`` by the implementation: (call index, HTTP body)."""
    bodies = []
    for index, request in replayed.requests:
        answer = impl.call("encode", {"provider": provider, "request": request})
        if "error" in answer:
            raise ReplayError(
                f"{impl.name} could not encode a request of session {replayed.session.name} for "
                f"{provider}: {answer['error']}"
            )
        bodies.append((index, answer["body"]))
    return bodies


@dataclass
class Settings:
    """The simulation's parameters: the provider profile (``--provider-profile``), its assumptions (``--assume``), the
    command's overrides of its parameters, and the breakpoint placement (``--placement``)."""

    profile: str | None = None  # a profile name, FILE.toml or FILE.toml:NAME; None: the provider's default
    assume: Mapping[str, str] = field(default_factory=dict)
    min_tokens: int | None = None
    openai_ttl: float | None = None
    cached_price: float | None = None
    placement: str = "implementation"

    def profile_for(self, provider: str) -> Profile:
        return profile(self.profile, provider)

    def rules_for(self, provider: str) -> BreakpointRules | OpenAIRules:
        return self.profile_for(provider).rules(
            self.assume, min_tokens=self.min_tokens, ttl_seconds=self.openai_ttl, cached_price=self.cached_price
        )

    def check(self, provider: str) -> None:
        """Raise :class:`.facts.ProfileError` (naming what is wrong) for settings that do not fit ``provider``."""
        chosen = self.profile_for(provider)
        chosen.choices(self.assume)
        if self.placement not in PLACEMENTS:
            raise ProfileError(f"no placement {self.placement!r} (known: {', '.join(PLACEMENTS)})")
        if PLACEMENTS[self.placement].place is not None and not (
            chosen.model == "breakpoints" and provider == "anthropic"
        ):
            raise ProfileError(f"placement {self.placement} re-marks Anthropic requests: it needs --provider anthropic")
        if self.min_tokens is not None and chosen.model != "breakpoints":
            raise ProfileError(f"--min-tokens is a parameter of breakpoint profiles, not of {chosen.name}")
        if self.openai_ttl is not None and chosen.model != "prefix":
            raise ProfileError(f"--openai-ttl is a parameter of OpenAI's prefix profile, not of {chosen.name}")

    def overrides(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (
                ("min_tokens", self.min_tokens),
                ("openai_ttl", self.openai_ttl),
                ("cached_price", self.cached_price),
            )
            if v is not None
        }

    def to_json(self, provider: str) -> dict[str, Any]:
        chosen = self.profile_for(provider)
        return {
            "profile": chosen.to_json(self.assume),
            "assumptions": chosen.choices(self.assume),
            "overrides": self.overrides(),
            "placement": PLACEMENTS[self.placement].to_json(),
            "rules": _rules_json(self.rules_for(provider)),
        }


def _rules_json(rules: BreakpointRules | OpenAIRules) -> dict[str, Any]:
    out = {}
    for key, value in vars(rules).items():
        out[key] = dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, tuple) else value
    return out


@dataclass
class Measurement:
    """One session, one provider: the implementation's figures and the optimum's."""

    session: str
    provider: str
    calls: int
    requests: int
    failed_calls: int
    rejected: int
    input_tokens: int
    read_tokens: int
    written_tokens: int
    cost: float
    optimum: Optimum
    optimum_read_tokens: int
    optimum_written_tokens: int
    missed_tokens: int = 0  # Anthropic: live cache on a request's path beyond its breakpoints' reach
    unread_written_tokens: int = 0  # Anthropic: written tokens no later request read before they expired
    short_tokens: int = 0  # breakpoints: tokens up to a breakpoint that could not be written (under the minimum)
    placement: str = "implementation"
    #: The cost of the same requests under the spec's own cache settings: its breakpoint placement (Anthropic, one
    #: hour) or one stable key (OpenAI, Codex).
    spec_cost: float = 0.0
    #: Requests whose prefix (all but the final message) is not kept whole at the head of the next request of
    #: their conversation: {"call", "next_call", "kept", "prefix"} in blocks (Anthropic) or messages (OpenAI).
    unstable: list[dict[str, Any]] = field(default_factory=list)  # in an aggregate, each also names its session
    usages: list[Usage] = field(default_factory=list, repr=False)

    @property
    def no_cache_cost(self) -> float:
        return float(self.input_tokens)

    @property
    def saving(self) -> float:
        return self.no_cache_cost - self.cost

    @property
    def optimum_saving(self) -> float:
        return self.no_cache_cost - self.optimum.cost

    @property
    def spec_share(self) -> float | None:
        """The saving as a fraction of what the spec's own cache settings save on the same requests."""
        spec_saving = self.no_cache_cost - self.spec_cost
        if spec_saving <= 1e-9:
            return None
        return self.saving / spec_saving

    @property
    def share(self) -> float | None:
        """The implementation's saving as a fraction of the optimum's (None when the optimum saves nothing)."""
        if self.optimum_saving <= 1e-9:
            return None
        return self.saving / self.optimum_saving

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "provider": self.provider,
            "calls": self.calls,
            "requests": self.requests,
            "failed_calls": self.failed_calls,
            "rejected_requests": self.rejected,
            "input_tokens": self.input_tokens,
            "read_tokens": self.read_tokens,
            "written_tokens": self.written_tokens,
            "cost": round(self.cost, 3),
            "missed_tokens": self.missed_tokens,
            "unread_written_tokens": self.unread_written_tokens,
            "short_tokens": self.short_tokens,
            "placement": self.placement,
            "cost_vs_no_cache": round(self.cost / self.no_cache_cost, 6) if self.input_tokens else None,
            "optimum": {
                "label": self.optimum.label,
                "cost": round(self.optimum.cost, 3),
                "exact": self.optimum.exact,
                "feasible_cost": round(self.optimum.feasible_cost, 3),
                "method": self.optimum.method,
                **({"why": self.optimum.why} if self.optimum.why else {}),
                "cost_vs_no_cache": round(self.optimum.cost / self.no_cache_cost, 6) if self.input_tokens else None,
                "read_tokens": self.optimum_read_tokens,
                "written_tokens": self.optimum_written_tokens,
            },
            "saving": round(self.saving, 3),
            "optimum_saving": round(self.optimum_saving, 3),
            "share_of_optimum_saving": None if self.share is None else round(self.share, 6),
            "spec_settings": {
                "cost": round(self.spec_cost, 3),
                "share_of_saving": None if self.spec_share is None else round(self.spec_share, 6),
            },
            "unstable_prefixes": self.unstable[:20],
            "unstable_prefix_count": len(self.unstable),
        }


def prompt_of(body: Mapping[str, Any], provider: str, model: str) -> Any:
    """A body as the profile's cache model reads it."""
    if model == "prefix":
        return OpenAIPrompt.from_body(body)
    return AnthropicPrompt.from_body(body) if provider == "anthropic" else breakpoint_prompt(body)


def measure(
    session: Session,
    bodies: Sequence[tuple[int, dict[str, Any]]],
    provider: str,
    settings: Settings | None = None,
    failed_calls: int = 0,
    name: str | None = None,
) -> Measurement:
    """Simulate the bodies of one session in time order, and the optimum on the same requests."""
    settings = settings or Settings()
    model = settings.profile_for(provider).model
    ordered = sorted(bodies, key=lambda item: (session.calls[item[0]].at, item[0]))
    timed = []
    for index, body in ordered:
        call = session.calls[index]
        timed.append(TimedPrompt(prompt_of(body, provider, model), call.at, call.conversation, index))
    return measure_prompts(timed, provider, settings, name or session.name, len(session.calls), failed_calls)


def placed(timed: Sequence[TimedPrompt], placement: str) -> list[Marks | None]:
    """Each request's breakpoints under a placement (None: its own)."""
    place = PLACEMENTS[placement].place
    if place is None:
        return [None] * len(timed)
    out: list[Marks | None] = []
    before: dict[Any, Any] = {}  # each chain's previous prompt
    for t in timed:
        out.append(place(t.prompt, before.get(t.chain)))
        before[t.chain] = t.prompt
    return out


#: The figures of a measurement that are the sums of its requests' usages (and a total's, of its sessions').
_USAGE_FIGURES = (
    "rejected",
    "input_tokens",
    "read_tokens",
    "written_tokens",
    "cost",
    "missed_tokens",
    "unread_written_tokens",
    "short_tokens",
)


def _sums(items: Sequence[Any], names: Sequence[str]) -> dict[str, Any]:
    """Each named attribute summed over ``items``, by name."""
    return {name: sum(getattr(item, name) for item in items) for name in names}


def measure_prompts(
    timed: Sequence[TimedPrompt], provider: str, settings: Settings, name: str, calls: int, failed_calls: int = 0
) -> Measurement:
    """Simulate prompts already read from their bodies (in time order), and the optimum on them."""
    rules = settings.rules_for(provider)
    if isinstance(rules, BreakpointRules):
        anthropic = provider == "anthropic"
        cache = AnthropicCache(rules) if anthropic else RoutedBreakpointCache(rules)
        for t, marks in zip(timed, placed(timed, settings.placement), strict=True):
            cache.request(t.prompt, t.at, marks)
        usages = cache.finish()
        optimum = breakpoint_optimum(timed, rules)
        spec = AnthropicCache(rules)  # the spec's settings: its placement (Anthropic); one stable key (OpenAI)
        spec_cost = sum(spec.request(t.prompt, t.at, t.prompt.spec_marks() if anthropic else None).cost for t in timed)
    else:
        openai_cache = OpenAICache(rules)
        usages = [openai_cache.request(t.prompt, t.at) for t in timed]
        optimum = openai_optimum(timed, rules)
        spec_cost = optimum.cost
    return Measurement(
        session=name,
        provider=provider,
        calls=calls,
        requests=len(timed),
        failed_calls=failed_calls,
        **_sums(usages, _USAGE_FIGURES),
        optimum=optimum,
        optimum_read_tokens=sum(u.read_tokens for u in optimum.usages),
        optimum_written_tokens=sum(u.written_tokens for u in optimum.usages),
        placement=settings.placement,
        spec_cost=spec_cost,
        unstable=unstable_prefixes(timed, provider),
        usages=usages,
    )


def unstable_prefixes(timed: Sequence[TimedPrompt], provider: str) -> list[dict[str, int]]:
    """Requests whose prefix (every block or message but the final message's) does not reappear whole at the head
    of the next request of the same conversation: the spec's reason for its shaping rules ("so the system prompt
    and snapshot prefix do not change between calls")."""
    out = []
    last: dict[Any, TimedPrompt] = {}
    for t in timed:
        before = last.get(t.chain)
        last[t.chain] = t
        if before is None:
            continue
        prompt = before.prompt
        prefix = len(prompt.hashes) - (prompt.final_blocks if isinstance(prompt, AnthropicPrompt) else 1)
        kept = common_prefix(prompt, t.prompt)
        if kept < prefix:
            out.append({"call": before.call, "next_call": t.call, "kept": kept, "prefix": prefix})
    return out


def total(measurements: Iterable[Measurement], provider: str) -> Measurement:
    """The sum of several sessions' measurements (the optimum is exact only if every session's is)."""
    items = list(measurements)
    bounded = [m.session for m in items if not m.optimum.exact]
    optimum = Optimum(
        sum(m.optimum.cost for m in items),
        not bounded,
        sum(m.optimum.feasible_cost for m in items),
        "the sum of the sessions'",
        why=f"the sum holds the lower bounds of {', '.join(bounded)}" if bounded else "",
    )
    return Measurement(
        session="total",
        provider=provider,
        **_sums(items, ("calls", "requests", "failed_calls", *_USAGE_FIGURES)),
        optimum=optimum,
        **_sums(items, ("optimum_read_tokens", "optimum_written_tokens", "spec_cost")),
        placement=items[0].placement if items else "implementation",
        unstable=[dict(item, session=m.session) for m in items for item in m.unstable],
    )
