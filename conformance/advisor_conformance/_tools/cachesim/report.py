"""The cache simulation's figures as a table (``advisor-conformance cache-sim``) and as JSON (``--json``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .facts import ESTIMATOR, BreakpointRules
from .placements import PLACEMENTS
from .replay import Measurement, Settings


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def settings_lines(provider: str, settings: Settings) -> list[str]:
    """The profile, its assumptions and the rules in force, one line each."""
    chosen = settings.profile_for(provider)
    rules = settings.rules_for(provider)
    assumptions = ", ".join(f"{name} = {value}" for name, value in chosen.choices(settings.assume).items())
    lines = [f"profile {chosen.name} ({chosen.origin}): {chosen.description}"]
    if assumptions:
        lines.append(f"assumptions (the documents do not say; --assume NAME=VALUE): {assumptions}")
    if isinstance(rules, BreakpointRules):
        writes = ", ".join(f"{rules.write_price[t]:g} ({t})" for t in rules.ttls)
        lookback = f"lookback {rules.lookback} blocks" if rules.lookback is not None else "no lookback limit"
        window = f"; the latest {rules.match_window} breakpoints of a routing" if rules.match_window else ""
        lines.append(
            f"tokens = UTF-8 bytes / {ESTIMATOR.bytes_per_token}; prices per base input token: read "
            f"{rules.read_price:g}, write {writes}; minimum {rules.min_tokens} tokens; {lookback}; at most "
            f"{rules.max_breakpoints} breakpoints{window}"
        )
    else:
        lines.append(
            f"tokens = UTF-8 bytes / {ESTIMATOR.bytes_per_token}; cached input at {rules.cached_price:g} of "
            f"the base price, no write fee; minimum {rules.min_tokens} tokens, {rules.step}-token steps; "
            f"default retention {rules.default_policy} (in_memory entries live {rules.ttl_seconds:g} s after "
            f"their last use, 24h ones {rules.extended_ttl_seconds:g} s); one cache per prompt_cache_key"
        )
    placement = PLACEMENTS[settings.placement]
    if placement.what_if:
        lines.append(f"placement {placement.name}: {placement.description}. A WHAT-IF: not conformant to the spec.")
    elif placement.place is not None:
        lines.append(f"placement {placement.name}: {placement.description} (the requests' own markers replaced)")
    return lines


def table(header: str, provider: str, settings: Settings, rows: Sequence[Measurement], total: Measurement) -> str:
    """The per-session table with its total and the notes that explain the columns."""
    breakpoints = isinstance(settings.rules_for(provider), BreakpointRules)
    columns = ["session", "calls", "input tok", "read tok"]
    if breakpoints:
        columns += ["written tok"]
    columns += ["cost", "spec", "optimum", "optimum is", "share"]
    if breakpoints:
        columns += ["missed tok", "unread writes"]
    lines = []
    for m in [*rows, total]:
        cells = [m.session, f"{m.calls}", f"{m.input_tokens:,}", f"{m.read_tokens:,}"]
        if breakpoints:
            cells.append(f"{m.written_tokens:,}")
        cells.append(pct(m.cost / m.no_cache_cost if m.input_tokens else None))
        cells.append(pct(m.spec_cost / m.no_cache_cost if m.input_tokens else None))
        cells += [pct(m.optimum.cost / m.no_cache_cost if m.input_tokens else None), m.optimum.label, pct(m.share)]
        if breakpoints:
            cells += [f"{m.missed_tokens:,}", f"{m.unread_written_tokens:,}"]
        lines.append(cells)
    widths = [max(len(columns[i]), *(len(row[i]) for row in lines)) for i in range(len(columns))]

    def render(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(cells))

    out = [header, *(f"  {line}" for line in settings_lines(provider, settings)), "", render(columns)]
    out += [render(row) for row in lines[:-1]]
    out.append(render(["-" * widths[0], *("" for _ in columns[1:])]).rstrip())
    out.append(render(lines[-1]))
    out.append("")
    spec = (
        "the same requests with the spec's breakpoint placement"
        if provider == "anthropic" and breakpoints
        else "the same requests under one stable prompt_cache_key"
    )
    optimum = (
        "any placement of breakpoints, each with any TTL or none, chosen with hindsight"
        if breakpoints
        else "one stable prompt_cache_key"
    )
    out.append(
        f"cost: the input cost against no caching; spec: {spec}; optimum: the least cost the provider's rules "
        f"allow on the same requests ({optimum}); optimum is: exact, or a proven lower bound of the least "
        "cost; share: the saving reached, as a share of the optimum's saving."
    )
    if breakpoints:
        out.append(
            "missed: tokens a live cache entry held on a request's path beyond its breakpoints' reach; "
            "unread writes: written tokens no later request read before they expired."
        )
    bounded = [m for m in [*rows, total] if not m.optimum.exact]
    if bounded:
        out.append(
            "lower bound: "
            + "; ".join(
                f"{m.session}, {m.optimum.why} (the placement built to reach it "
                f"costs {pct(m.optimum.feasible_cost / m.no_cache_cost)})"
                for m in bounded
                if m.input_tokens
            )
            + "."
        )
    for m in rows:
        if m.unstable:
            out.append(
                f"{m.session}: {len(m.unstable)} request(s) whose prefix (all but the final message) the next "
                "call of the conversation does not repeat unchanged."
            )
    failed = [m for m in rows if m.failed_calls or m.rejected]
    for m in failed:
        out.append(
            f"{m.session}: {m.failed_calls} call(s) failed, {m.rejected} request(s) the API would refuse "
            "(billed at the base price, nothing read or written)."
        )
    return "\n".join(out)


def as_json(
    implementation: dict[str, Any], provider: str, settings: Settings, rows: Sequence[Measurement], total: Measurement
) -> dict[str, Any]:
    return {
        "implementation": implementation,
        "provider": provider,
        "estimator": f"UTF-8 bytes / {ESTIMATOR.bytes_per_token}",
        **settings.to_json(provider),
        "sessions": [m.to_json() for m in rows],
        "total": total.to_json(),
    }
