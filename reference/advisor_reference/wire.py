"""The provider wire, public: each provider's encoder and decoders, the HTTP client, and the Anthropic
breakpoint rules as functions. These are the parts a variant of the reference replaces (the conformance
suite's broken implementations do); the modules behind them stay private.

* :data:`WIRES` (provider kind → :class:`WireFormat`: ``encode``, ``decode``, ``stream_event``),
  :data:`PROVIDER_KINDS`, :func:`encode`, :class:`HttpRequest`, :class:`StreamState`;
* :class:`HttpProvider`, whose steps are its public methods, each a place a variant overrides: ``complete``
  (which kind of call, and the stream-required retry), ``complete_plain`` and ``complete_stream`` (one call of
  each kind), ``open_response``, ``read_error_body``, ``raise_for_status`` (an HTTP error to a
  :class:`~advisor_reference.ProviderError`) and ``send`` (a call under the deadline, its failures reported);
  :class:`StreamRequired`, :func:`is_stream_required`;
* Anthropic: :func:`advisor_cache_control`, :func:`default_cache_control`,
  :func:`assign_advisor_breakpoints`, :func:`assign_default_breakpoints`, :data:`BREAKPOINT_SPACING`,
  :data:`MAX_BREAKPOINTS`, :data:`THINKING_BUDGETS`.
"""

from __future__ import annotations

from ._anthropic import (
    BREAKPOINT_SPACING,
    MAX_BREAKPOINTS,
    THINKING_BUDGETS,
    advisor_cache_control,
    assign_advisor_breakpoints,
    assign_default_breakpoints,
    default_cache_control,
)
from ._http import WIRES, HttpProvider, StreamRequired, encode, is_stream_required
from ._wire import PROVIDER_KINDS, HttpRequest, StreamState, WireFormat

__all__ = [
    "BREAKPOINT_SPACING",
    "MAX_BREAKPOINTS",
    "PROVIDER_KINDS",
    "THINKING_BUDGETS",
    "WIRES",
    "HttpProvider",
    "HttpRequest",
    "StreamRequired",
    "StreamState",
    "WireFormat",
    "advisor_cache_control",
    "assign_advisor_breakpoints",
    "assign_default_breakpoints",
    "default_cache_control",
    "encode",
    "is_stream_required",
]
