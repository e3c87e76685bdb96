"""Provider-neutral requests for the reference's HTTP clients, as its unit tests and the benchmarks make them."""

from __future__ import annotations

from typing import Any

from advisor_reference import ProviderRequest, RenderedMessage


def provider_request(**fields: Any) -> ProviderRequest:
    """A request to model "m" of one user message ("go") and at most 5 tokens: no reasoning, no stream, no cache key,
    no sessions; ``fields`` replace any of these."""
    base: dict[str, Any] = {
        "model": "m",
        "messages": (RenderedMessage("user", "go"),),
        "max_tokens": 5,
        "reasoning": None,
        "stream": False,
        "prompt_cache_key": "",
        "transport_session": None,
        "parent_session": None,
    }
    return ProviderRequest(**{**base, **fields})
