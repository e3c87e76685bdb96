"""``docs/cache-efficiency.md``, written from the simulator's own figures for the reference over the shipped sessions.

    python3 -m advisor_conformance._tools.cachesim.page docs/cache-efficiency.md          # rewrite the page
    python3 -m advisor_conformance._tools.cachesim.page docs/cache-efficiency.md --check  # exit 1 if it differs

The page embeds the table ``advisor-conformance cache-sim`` prints (a test runs the command and compares), and the
totals under each placement and each assumption, from the same functions the command uses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._contract.implementation import Implementation
from .facts import builtin_profiles
from .optimum import TimedPrompt
from .placements import PLACEMENTS
from .replay import (
    Measurement,
    Settings,
    encode_all,
    measure_prompts,
    prompt_of,
    replay,
    total,
)
from .report import pct, table
from .sessions import Session, load_session, shape, shipped_sessions

MINIMUMS = (1024, 2048, 4096)


@dataclass
class Run:
    """The shipped sessions replayed once through an implementation, their bodies per provider, their prompts per
    cache model (read once: the page measures them under many settings)."""

    impl: Implementation
    sessions: list[Session] = field(default_factory=list)
    bodies: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    prompts: dict[tuple[str, str, str], list[TimedPrompt]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        replays = []
        for path in shipped_sessions():
            session = load_session(path)
            self.sessions.append(session)
            replays.append(replay(self.impl, session))
        for provider in ("anthropic", "openai", "codex"):
            for session, replayed in zip(self.sessions, replays, strict=True):
                self.bodies[session.name, provider] = encode_all(self.impl, replayed, provider)

    def timed(self, session: Session, provider: str, model: str) -> list[TimedPrompt]:
        key = (session.name, provider, model)
        if key not in self.prompts:
            ordered = sorted(self.bodies[session.name, provider], key=lambda item: (session.calls[item[0]].at, item[0]))
            self.prompts[key] = [
                TimedPrompt(prompt_of(body, provider, model), session.calls[i].at, session.calls[i].conversation, i)
                for i, body in ordered
            ]
        return self.prompts[key]

    def measure(self, provider: str, settings: Settings) -> tuple[list[Measurement], Measurement]:
        model = settings.profile_for(provider).model
        rows = [
            measure_prompts(self.timed(s, provider, model), provider, settings, s.name, len(s.calls))
            for s in self.sessions
        ]
        return rows, total(rows, provider)


def header(impl: Implementation, provider: str) -> str:
    """The first line of ``advisor-conformance cache-sim``'s table."""
    d = impl.description
    return (
        f"advisor-conformance cache-sim: {d.get('name')} {d.get('version')} ({d.get('language')}), provider {provider}"
    )


def _row(cells: Sequence[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def render(run: Run) -> str:
    """The page."""
    anthropic = Settings()
    rows, whole = run.measure("anthropic", anthropic)
    out = [
        "# Cache efficiency",
        "",
        "How much of the advisor's input the providers' prompt caches serve, measured by `advisor-conformance "
        "cache-sim` for the reference over the shipped sessions (`fixtures/sessions`), against the optimum: the "
        "least cost the provider's rules allow on the same requests, chosen with hindsight. Every figure is the "
        "input cost against no caching, in base-price tokens (a read costs 0.1 of a token, an Anthropic write "
        "1.25 for five minutes or 2 for an hour); *share* is the saving reached as a share of the optimum's.",
        "",
        "This page is written by `python3 -m advisor_conformance._tools.cachesim.page docs/cache-efficiency.md`, and a "
        "test checks that it is what the simulator gives and that its first table is what `cache-sim` prints. The "
        "providers' rules come from one table, every fact with the document and sentence it comes from "
        "(`advisor-conformance cache-sim --list-profiles`); what the documents do not say is an assumption, whose "
        "default credits the cache with less.",
        "",
        "## The sessions",
        "",
        _row(
            [
                "session",
                "messages",
                "advisor calls",
                "sub-agents (their calls)",
                "compactions",
                "gaps between calls: median, longest",
                "over 5 min / over 1 h",
                "what it models",
            ]
        ),
        _row(["---"] * 8),
    ]
    for session in run.sessions:
        s = shape(session)
        out.append(
            _row(
                [
                    f"`{session.name}`",
                    f"{s.messages:,}",
                    s.calls,
                    f"{s.subagents} ({s.subagent_calls})",
                    s.compactions,
                    f"{_minutes(s.median_gap)}, {_minutes(s.longest_gap)}",
                    f"{s.gaps_over_5m} / {s.gaps_over_1h}",
                    session.description,
                ]
            )
        )
    out += [
        "",
        "## Anthropic: the spec's placement against the optimum",
        "",
        "`advisor-conformance cache-sim` (the reference, whose breakpoints are the spec's):",
        "",
        "```text",
        table(header(run.impl, "anthropic"), "anthropic", anthropic, rows, whole),
        "```",
        "",
        "The optimum is *exact* where a dynamic programme over each conversation finds it and a real placement "
        "built from its choices costs the same when simulated; it is a *lower bound* where conversations share a "
        "prefix (sub-agents of one type, the conversations before and after a compaction share the system "
        "prompt): the bound lets a request read what another conversation wrote for free, so the true optimum "
        "lies between the bound and the placement built. The proof is in "
        "`conformance/advisor_conformance/_tools/cachesim/optimum.py`; tests compare the programme with an exhaustive "
        "search over every placement and TTL on small sessions, and check, over generated sessions, that the "
        "optimum never costs more than any placement the simulator can evaluate.",
        "",
    ]
    out += _losses(run, rows, whole)
    out += _placements(run, whole)
    out += _assumptions(run, whole)
    return "\n".join(out) + "\n"


def _losses(run: Run, rows: list[Measurement], whole: Measurement) -> list[str]:
    bridge_rows, bridge = run.measure("anthropic", Settings(placement="bridge"))
    out = [
        "## Where the spec's placement loses",
        "",
        "Three things keep the spec's placement from the optimum, and the simulator counts each:",
        "",
        "- **the lookback**: a breakpoint finds an entry at most 20 blocks back, so when a conversation grows by "
        "more than about 50 blocks between two advisor calls (the spec's marks reach 0 to 49 blocks back), the "
        "entry the previous call wrote is live but missed (*missed tok*). The `bridge` placement, which marks the "
        "block where the conversation's previous advisor request ended, reads it: what is left is loss of the "
        "other kinds.",
        "- **unread writes**: an hour's write costs twice the input price and pays only if read; the spec writes "
        "on every call, so the last call of a conversation, and calls before a long break, write what nothing "
        "reads (*unread writes*). Only foresight avoids them: the optimum writes for five minutes before a close "
        "call, for an hour before a later one, and nothing before the end.",
        "- **the minimum length**: a prefix under the model's minimum is not cached even when marked (1,024 tokens "
        "by default; 2,048 or 4,096 for some models, below).",
        "",
        _row(
            [
                "session",
                "spec",
                "bridge",
                "optimum",
                "missed tok (spec)",
                "missed tok (bridge)",
                "unread writes tok (spec)",
            ]
        ),
        _row(["---"] * 7),
    ]
    for m, b in [*zip(rows, bridge_rows, strict=True), (whole, bridge)]:
        n = m.no_cache_cost
        out.append(
            _row(
                [
                    m.session,
                    pct(m.cost / n),
                    pct(b.cost / n),
                    pct(m.optimum.cost / n) + ("" if m.optimum.exact else " (bound)"),
                    f"{m.missed_tokens:,}",
                    f"{b.missed_tokens:,}",
                    f"{m.unread_written_tokens:,}",
                ]
            )
        )
    out.append("")
    return out


def _placements(run: Run, whole: Measurement) -> list[str]:
    out = [
        "## What-if placements",
        "",
        "`advisor-conformance cache-sim --placement NAME` re-marks every request and reports what it would cost. "
        "Only `spec` is the spec's placement; the others are what-ifs, not conformant to the spec (the command says "
        "so), each a rule an implementation could follow without knowing the future. Totals over the shipped "
        "sessions (optimum " + pct(whole.optimum.cost / whole.no_cache_cost) + f", {whole.optimum.label}):",
        "",
        _row(["placement", "what it does", "cost", "share", "missed tok", "unread writes tok"]),
        _row(["---"] * 6),
    ]
    for name, placement in PLACEMENTS.items():
        if placement.place is None:
            continue
        _, m = run.measure("anthropic", Settings(placement=name))
        n = m.no_cache_cost
        out.append(
            _row(
                [
                    f"`{name}`",
                    placement.description,
                    pct(m.cost / n),
                    pct(m.share),
                    f"{m.missed_tokens:,}",
                    f"{m.unread_written_tokens:,}",
                ]
            )
        )
    out.append("")
    return out


def _totals(m: Measurement) -> list[str]:
    n = m.no_cache_cost
    return [pct(m.cost / n), pct(m.spec_cost / n), pct(m.optimum.cost / n), m.optimum.label, pct(m.share)]


def _totals_row(label: str, m: Measurement) -> str:
    return _row([label, *_totals(m)])


def _both_row(run: Run, label: str, settings: Settings) -> str:
    """One row for OpenAI's and Codex's bodies when their figures agree, else one each."""
    openai, codex = (_totals(run.measure(provider, settings)[1]) for provider in ("openai", "codex"))
    if openai == codex:
        return _row([f"openai and codex, {label}", *openai])
    return "\n".join((_row([f"openai, {label}", *openai]), _row([f"codex, {label}", *codex])))


def _assumptions(run: Run, whole: Measurement) -> list[str]:
    profiles = builtin_profiles()
    head = [_row(["setting", "cost", "spec's settings", "optimum", "optimum is", "share"]), _row(["---"] * 6)]
    out = [
        "## The figures under each assumption",
        "",
        "Totals over the shipped sessions, the reference's requests. *spec's settings*: its breakpoint placement "
        "(Anthropic), one stable `prompt_cache_key` (OpenAI). The rule `breakpoints.cache-efficiency` asks an "
        "implementation for 95% of the spec's settings' saving, not of the optimum's.",
        "",
        "### Anthropic",
        "",
        f"Refresh (`--assume refresh=...`): {profiles['anthropic'].assumptions['refresh'].says} "
        f"{profiles['anthropic'].assumptions['refresh'].why}",
        "",
        *head,
        _totals_row("refresh = read-entry (default)", whole),
    ]
    _, prefix = run.measure("anthropic", Settings(assume={"refresh": "prefix"}))
    out.append(_totals_row("refresh = prefix", prefix))
    out += [
        "",
        "The model's minimum (`--min-tokens`): a breakpoint whose prefix is shorter writes nothing, so the "
        "shorter prefixes conversations share (a system prompt, the start of a conversation) stop being cached.",
        "",
        _row(["minimum", "cost", "spec's settings", "optimum", "optimum is", "share"]),
        _row(["---"] * 6),
    ]
    for minimum in MINIMUMS:
        _, m = run.measure("anthropic", Settings(min_tokens=minimum))
        out.append(_row([f"{minimum:,} tokens" + (" (default)" if minimum == MINIMUMS[0] else ""), *_totals(m)]))
    retention = profiles["openai"].assumptions["retention"]
    out += [
        "",
        "### OpenAI, models before GPT-5.6 (profile `openai`)",
        "",
        f"Retention (`--assume retention=...`): {retention.says} {retention.why} The optimum is the same "
        "requests under one stable key: the reference, which keeps its key, reaches it.",
        "",
        *head,
    ]
    for preset in retention.choices:
        default = " (default)" if preset == retention.default else ""
        out.append(_both_row(run, f"{preset}{default}", Settings(assume={"retention": preset})))
    gpt = profiles["openai-gpt-5-6"]
    out += [
        "",
        "### OpenAI, the GPT-5.6 family (profile `openai-gpt-5-6`)",
        "",
        f"{gpt.description}. The spec places no OpenAI breakpoints, so every request writes only its implicit "
        "one, which the profile puts at the request's last message that is not the assistant's (the assumption "
        "`implicit_breakpoint`: OpenAI's reference says only that OpenAI chooses it): the final user message, "
        "which the next request, whose final message differs, cannot read. The optimum places explicit "
        "breakpoints with hindsight. Refresh (`--assume refresh=...`): "
        f"{gpt.assumptions['refresh'].says} {gpt.assumptions['refresh'].why}",
        "",
        *head,
    ]
    for choice in gpt.assumptions["refresh"].choices:
        default = " (default)" if choice == gpt.assumptions["refresh"].default else ""
        out.append(_both_row(run, f"refresh = {choice}{default}", Settings("openai-gpt-5-6", {"refresh": choice})))
    out.append("")
    return out


def main(argv: list[str] | None = None) -> int:
    from ..._contract.implementation import load_target
    from ..._outputs import unwritable, write_atomic

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="the page to write (docs/cache-efficiency.md)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page differs from what is written")
    args = parser.parse_args(argv)
    reason = None if args.check else unwritable(args.path)
    if reason:  # before the replays, not after them
        parser.error(f"{args.path}: cannot be written: {reason}")
    impl = load_target("reference")
    try:
        text = render(Run(impl))
    finally:
        impl.close()
    if args.check:
        if not args.path.exists() or args.path.read_text(encoding="utf-8") != text:
            print(f"{args.path} is stale: python3 -m advisor_conformance._tools.cachesim.page {args.path}")
            return 1
        return 0
    write_atomic(args.path, text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
