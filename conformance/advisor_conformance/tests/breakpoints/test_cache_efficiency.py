"""The saving the providers' prompt caches give an implementation's requests over realistic sessions
(spec: Payload shaping, Transport and cache; clarifications §5, §7, §9; ``advisor-conformance cache-sim``).

Two small shipped sessions (a main agent alone that calls a few times; a review sub-agent that calls every few
steps) are replayed through the implementation's ``scenario`` and ``encode`` operations and simulated against each
provider's documented cache rules, one test per provider and session. Two things are checked: every request's
prefix (all but its final message) comes back unchanged at the head of the next request of its conversation, and
the requests save at least 95% of what the spec's own cache settings save on the same requests (its breakpoint
placement for Anthropic, one stable key for OpenAI and Codex).
``advisor-conformance cache-sim --impl ...`` shows every shipped session, with the optimum.
"""

from __future__ import annotations

import pytest

from advisor_conformance._contract.protocol import ContractError
from advisor_conformance._tools.cachesim.replay import PROVIDERS, ReplayError, encode_all, measure, replay
from advisor_conformance._tools.cachesim.sessions import find_session, load_session
from advisor_conformance.checks import violation

RULE = "breakpoints.cache-efficiency"
SESSIONS = ("bugfix-small", "review-dense")
THRESHOLD = 0.95
_REPLAYS: dict[tuple[int, str], list] = {}


def _replays(impl):
    """The test sessions replayed through ``impl``, once per implementation (a scenario is provider-neutral)."""
    key = (id(impl), impl.target)
    if key not in _REPLAYS:
        sessions = [load_session(find_session(name)) for name in SESSIONS]
        try:
            _REPLAYS[key] = [(session, replay(impl, session)) for session in sessions]
        except (ReplayError, ContractError) as exc:
            raise violation(RULE, f"the sessions could not be replayed: {exc}", input={"sessions": list(SESSIONS)}) \
                from None
    return _REPLAYS[key]


def _measured(impl, provider, name):
    out = []
    for session, replayed in _replays(impl):
        if session.name != name:
            continue
        try:
            bodies = encode_all(impl, replayed, provider)
        except (ReplayError, ContractError) as exc:
            raise violation(RULE, f"encode failed for {provider}: {exc}", input={"session": session.name}) from None
        out.append(measure(session, bodies, provider, failed_calls=len(replayed.failed_calls)))
    return out


def _short(m) -> bool:
    """The saving falls under 95% of the spec settings' saving (or, where those lose, costs 5% of it more)."""
    return m.cost > m.spec_cost + (1 - THRESHOLD) * abs(m.no_cache_cost - m.spec_cost) + 1e-6


def _figures(m) -> dict:
    pct = lambda cost: f"{100 * cost / m.no_cache_cost:.1f}%"  # noqa: E731
    return {
        "requests": m.requests, "cost against no caching": pct(m.cost),
        "the spec's settings on the same requests": pct(m.spec_cost),
        "share of their saving": "n/a" if m.spec_share is None else f"{100 * m.spec_share:.1f}%",
        "optimum (hindsight)": f"{pct(m.optimum.cost)} ({m.optimum.label})", "tokens read": m.read_tokens,
        "tokens written": m.written_tokens,
        "refused by the API": m.rejected, "failed calls": m.failed_calls,
        "requests whose prefix the next one changes": len(m.unstable),
    }


def _leg(provider, session):
    """One provider and session; the OpenAI and Codex encodings are the wire area's (breakpoints are Anthropic's)."""
    marks = [] if provider == "anthropic" else [pytest.mark.needs(areas=["wire"])]
    return pytest.param(provider, session, id=f"{provider}-{session}", marks=marks)


@pytest.mark.rule(id=RULE)
@pytest.mark.parametrize("provider, session", [_leg(provider, session) for provider in PROVIDERS
                                               for session in SESSIONS])
# the calls are judged by their prefix: the request's frame, the call in flight left out
@pytest.mark.needs(areas=["request", "inflight"])
def test_prefixes_stay_put_and_the_cache_serves_them(impl, provider, session):
    """Each request's prefix reappears unchanged in the next call of its conversation, and the requests save at least
    95% of what the spec's cache settings save on them."""
    measured = _measured(impl, provider, session)
    unstable = [dict(item, session=m.session) for m in measured for item in m.unstable]
    if unstable:
        raise violation(
            RULE, f"on {provider}, {len(unstable)} request(s) have a prefix (all but the final message) that the next "
            "call of the same conversation does not repeat unchanged at its head: the cache written for them cannot "
            "be read ('kept' of 'prefix' blocks or messages survive)",
            input={"session": session, "provider": provider}, actual=unstable[:8])
    short = [m for m in measured if _short(m)]
    if short:
        raise violation(
            RULE, f"on {provider} the requests save less than {100 * THRESHOLD:.0f}% of what the spec's cache "
            f"settings save on them in {session} (advisor-conformance cache-sim --provider {provider} shows every "
            "session)",
            input={"session": session, "provider": provider, "estimator": "UTF-8 bytes / 4"},
            expected=f"at least {100 * THRESHOLD:.0f}% of the spec settings' saving",
            actual={m.session: _figures(m) for m in measured})
