"""Broken implementations measured by the cache simulator (``advisor-conformance cache-sim``).

:class:`BreakpointsFromTheStart` is the registered broken implementation of ``breakpoints.cache-efficiency``.
:class:`QuestionBeforeSnapshot` and :class:`FreshKeyPerCall` are not registered (they break rules that have
broken implementations of their own: the request's shape, the cache-key store); they are two of the mistakes whose
loss ``advisor-conformance cache-sim --impl advisor_conformance._broken.cache:NAME`` measures, as it does for
``shaping:InFlightLeftInTranscript``, ``wire:BreakpointSpacing16``, ``wire:FinalMessageMarked`` and
``runtime:StoreKeyIgnored`` (a fresh key per handler, so per turn).
"""

from __future__ import annotations

import dataclasses

from advisor_reference import AdvisorHandler, AdvisorRuntime, RenderedMessage, RequestBuilder, new_cache_key
from advisor_reference import wire as reference_wire
from advisor_reference.adapter import ReferenceAdapter

from . import breaks
from .wire import AdvisorTailMarked, all_blocks


@breaks("breakpoints.cache-efficiency", also=("breakpoints.spacing",))
class BreakpointsFromTheStart(AdvisorTailMarked):
    """the advisor breakpoints are counted forward from the first block of the transcript (blocks 0, 15, 30) instead of
    back from its last block, so later calls find little of the cache the earlier ones wrote (counted forward: not
    the spacing either)"""

    def unmark(self, body, tail):
        for block in all_blocks(body):
            block.pop("cache_control", None)
        system = body.get("system", [])
        if system:
            system[-1]["cache_control"] = reference_wire.advisor_cache_control()

    def positions(self, size, system):
        return range(0, size, reference_wire.BREAKPOINT_SPACING)[: 4 - (1 if system else 0)]


class QuestionBeforeSnapshot(ReferenceAdapter):
    """The question goes in a user message between the system prompt and the snapshot, so every call's prefix
    differs right after the system prompt."""

    name = "question-before-snapshot"

    class builder_class(RequestBuilder):
        def build(self, snapshot, question="", files=()):
            messages = super().build(snapshot, "", files)
            asked = self.render_question(question).strip()
            if asked:
                messages.insert(1, RenderedMessage("user", asked))
            return messages


class FreshKeyPerCall(ReferenceAdapter):
    """Every advisor request carries a freshly minted cache key, whatever the store holds."""

    name = "fresh-key-per-call"

    class runtime_class(AdvisorRuntime):
        class handler_class(AdvisorHandler):
            def request(self, messages):
                return dataclasses.replace(super().request(messages), prompt_cache_key=new_cache_key())
