"""The cache simulation's figures as a table (``advisor-conformance cache-sim``) and as JSON (``--json``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .facts import ESTIMATOR
from .replay import Measurement, Settings


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def settings_line(provider: str, settings: Settings) -> str:
    if provider == "anthropic":
        a = settings.anthropic
        return (f"tokens = UTF-8 bytes / {ESTIMATOR.bytes_per_token}; prices per base input token: read {a.read_price:g}, "
                f"write {a.write_price['5m']:g} (5 min) or {a.write_price['1h']:g} (1 h); minimum {a.min_tokens} "
                f"tokens; lookback {a.lookback} blocks; at most {a.max_breakpoints} breakpoints")
    o = settings.openai
    return (f"tokens = UTF-8 bytes / {ESTIMATOR.bytes_per_token}; cached input at {o.cached_price:g} of the base price; "
            f"minimum {o.min_tokens} tokens, {o.step}-token steps; entries live {o.ttl_seconds:g} s after their last "
            f"use; one cache per prompt_cache_key")


def table(header: str, provider: str, settings: Settings, rows: Sequence[Measurement], total: Measurement) -> str:
    """The per-session table with its total and the notes that explain the columns."""
    anthropic = provider == "anthropic"
    columns = ["session", "calls", "input tok", "read tok"]
    if anthropic:
        columns += ["written tok"]
    columns += ["cost", "spec", "optimum", "share"] if anthropic else ["cost", "optimum", "share"]
    if anthropic:
        columns += ["missed tok", "unread writes"]
    lines = []
    bound = False
    for m in [*rows, total]:
        opt = _pct(m.optimum.cost / m.no_cache_cost if m.input_tokens else None)
        if not m.optimum.exact:
            opt += "*"
            bound = True
        cells = [m.session, f"{m.calls}", f"{m.input_tokens:,}", f"{m.read_tokens:,}"]
        if anthropic:
            cells.append(f"{m.written_tokens:,}")
        cells.append(_pct(m.cost / m.no_cache_cost if m.input_tokens else None))
        if anthropic:
            cells.append(_pct(m.spec_cost / m.no_cache_cost if m.input_tokens else None))
        cells += [opt, _pct(m.share)]
        if anthropic:
            cells += [f"{m.missed_tokens:,}", f"{m.unread_written_tokens:,}"]
        lines.append(cells)
    widths = [max(len(columns[i]), *(len(row[i]) for row in lines)) for i in range(len(columns))]

    def render(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(cells))

    out = [header, f"  {settings_line(provider, settings)}", "", render(columns)]
    out += [render(row) for row in lines[:-1]]
    out.append(render(["-" * widths[0], *("" for _ in columns[1:])]).rstrip())
    out.append(render(lines[-1]))
    out.append("")
    out.append("cost: the input cost against no caching; " + ("spec: the same requests with the spec's breakpoint "
               "placement; " if anthropic else "") + "optimum: the least cost the provider's rules allow on the "
               "same requests" + (" (at most 4 one-hour breakpoints per request, placed with hindsight)" if anthropic
                                  else " (one stable prompt_cache_key)") + "; share: the saving reached, as a share of "
               "the optimum's saving.")
    if anthropic:
        out.append("missed: tokens a live cache entry held on a request's path beyond its breakpoints' 20-block reach; "
                   "unread writes: written tokens no later request read before they expired.")
    if bound:
        out.append("*: a proven lower bound of the optimum's cost (the placement built to reach it costs more: "
                   + ", ".join(f"{m.session} {_pct(m.optimum.feasible_cost / m.no_cache_cost)}"
                               for m in [*rows, total] if not m.optimum.exact) + ").")
    for m in rows:
        if m.unstable:
            out.append(f"{m.session}: {len(m.unstable)} request(s) whose prefix (all but the final message) the next "
                       "call of the conversation does not repeat unchanged.")
    failed = [m for m in rows if m.failed_calls or m.rejected]
    for m in failed:
        out.append(f"{m.session}: {m.failed_calls} call(s) failed, {m.rejected} request(s) the API would refuse "
                   "(billed at the base price, nothing read or written).")
    return "\n".join(out)


def as_json(implementation: dict[str, Any], provider: str, settings: Settings, rows: Sequence[Measurement],
            total: Measurement) -> dict[str, Any]:
    if provider == "anthropic":
        a = settings.anthropic
        rules: dict[str, Any] = {"min_tokens": a.min_tokens, "lookback": a.lookback,
                                 "max_breakpoints": a.max_breakpoints, "read_price": a.read_price,
                                 "write_price": dict(a.write_price), "ttl_seconds": dict(a.ttl_seconds)}
    else:
        o = settings.openai
        rules = {"min_tokens": o.min_tokens, "step": o.step, "ttl_seconds": o.ttl_seconds,
                 "cached_price": o.cached_price}
    return {"implementation": implementation, "provider": provider,
            "estimator": f"UTF-8 bytes / {ESTIMATOR.bytes_per_token}", "rules": rules,
            "sessions": [m.to_json() for m in rows], "total": total.to_json()}
