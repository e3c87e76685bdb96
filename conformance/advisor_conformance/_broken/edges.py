"""Broken implementations at the documented edges and in the corners issue 35 names: a reasoning parameter at its
documented values and minimum, the one-hour TTL written another way, a cache key made lazily on first use without a
guard (by a handler, or by a store that mints), and three older misses (the stream-required test's operator
precedence, file hashes compared without their letter case, breakpoints that pass over white-space-only blocks).
Each is the reference with that one step done wrong; they are variants of rules whose first broken implementation
lives elsewhere."""

from __future__ import annotations

import dataclasses
import threading

from advisor_reference import CACHE_KEY_SLOT, AdvisorHandler, RequestBuilder, new_cache_key
from advisor_reference import wire as reference_wire
from advisor_reference.wire import HttpProvider, StreamRequired

from . import breaks
from .wire import AnthropicBodyRewrite, all_blocks, rewrites

#: How long a first use takes to make its value (a store looked up, entropy read): the window the concurrent first
#: calls of a scenario meet in.
FIRST_USE_S = 0.05


@breaks("wire.reasoning", variant="minimal-as-low", modules=("test_wire_parameters.py",))
@rewrites("openai")
def OpenAIMinimalEffortAsLow(body, headers, request, stream):
    """OpenAI chat's reasoning effort `minimal` is sent as `low` (an enum of the efforts the client knew, without
    minimal)"""
    if body.get("reasoning_effort") == "minimal":
        body["reasoning_effort"] = "low"


@breaks("wire.reasoning", variant="budget-above-the-minimum", modules=("test_wire_parameters.py",))
@rewrites("anthropic")
def AnthropicBudgetAboveTheMinimum(body, headers, request, stream):
    """an Anthropic thinking budget is sent only when it is above 1,024 (the documented minimum taken as excluded), so
    a max_tokens of 1,025 or the effort `minimal` sends no thinking"""
    thinking = body.get("thinking") or {}
    if thinking.get("budget_tokens", 2048) <= 1024:
        body.pop("thinking")


@breaks(
    "breakpoints.advisor-ttl",
    variant="ttl-in-seconds",
    modules=(
        "test_breakpoints.py::test_the_profile_flag_decides_the_ttl",
        "test_breakpoints.py::test_every_advisor_marker_lasts_an_hour",
    ),
)
class OneHourTTLInSeconds(AnthropicBodyRewrite):
    """the one-hour TTL is written as a number of seconds (`"ttl": 3600`), which the API does not document"""

    def rewrite(self, body, request):
        for block in all_blocks(body):
            if (block.get("cache_control") or {}).get("ttl") == "1h":
                block["cache_control"] = {"type": "ephemeral", "ttl": 3600}


@breaks(
    "breakpoints.spacing",
    variant="blank-blocks-unmarked",
    modules=("test_breakpoints.py::test_distances_count_the_blocks_on_the_wire",),
)
class BlankBlocksNeverMarked(AnthropicBodyRewrite):
    """advisor breakpoints pass over white-space-only blocks (a marker only where the text is not blank after a strip),
    so a blank block at a multiple of 15 leaves its marker out"""

    def rewrite(self, body, request):
        if not request.advisor_cache_profile:
            return
        tail = [block for message in body["messages"][:-1] for block in message["content"]]
        marks = 1 if body.get("system") else 0
        for distance, block in enumerate(reversed(tail)):
            block.pop("cache_control", None)
            if distance % reference_wire.BREAKPOINT_SPACING == 0 and block["text"].strip() and marks < 4:
                block["cache_control"] = reference_wire.advisor_cache_control()
                marks += 1


@breaks(
    "streaming.stream-required-detection",
    variant="operator-precedence",
    modules=(
        "test_streaming.py::test_stream_required_means_400_with_stream_and_must_or_required",
        "test_streaming.py::test_stream_required_body_on_another_status_is_not_retried",
    ),
)
class StreamRequiredPrecedence(HttpProvider):
    """the stream-required test is written `status == 400 and "stream" in body and "must" in body or "required" in
    body`, so any error whose body says `required` is retried as a stream"""

    def raise_for_status(self, status, body, *, stream):
        text = body.lower()
        if (
            status >= 400
            and not stream
            and (status == 400 and "stream" in text and "must" in text or "required" in text)
        ):
            raise StreamRequired(f"{self.wire.kind} answered HTTP {status}: {body[:300]}", status=status)
        super().raise_for_status(status, body, stream=stream)


@breaks(
    "dedupe.file-hash",
    variant="case-insensitive",
    modules=("test_dedupe_reads.py::test_hash_in_lower_case_does_not_match",),
)
class HashesComparedWithoutCase(RequestBuilder):
    """file hashes are compared without their letter case (both upper-cased first), so a read whose file_hash is the
    content's CRC in lower case dedupes it"""

    def dedupe(self, files, snapshot):
        hashes = {path: digest.upper() for path, digest in self.full_read_hashes(snapshot).items()}
        return [
            file.path in hashes and self.may_dedupe(file) and self.hash_file(file.data).upper() == hashes[file.path]
            for file in files
        ]


def _store_key(handler):
    store = handler.runtime.cache_keys
    return store.key(CACHE_KEY_SLOT) if store is not None else ""


@breaks("transport.fresh-key", variant="lazy-unguarded", modules=("test_transport_first_use.py",))
class HandlerKeyMadeLazily(AdvisorHandler):
    """a handler without a store key mints its own on its first call, checked and set without a lock, so concurrent
    first calls of one handler each mint a key"""

    def request(self, messages):
        request = super().request(messages)
        if _store_key(self):
            return request
        if getattr(self, "minted", None) is None:
            threading.Event().wait(FIRST_USE_S)
            self.minted = new_cache_key()
        return dataclasses.replace(request, prompt_cache_key=self.minted)


@breaks("transport.cache-key-store", variant="mints-unguarded", modules=("test_transport_first_use.py",))
class StoreMintsUnguarded(AdvisorHandler):
    """a store without a key for the slot mints one on first use, checked and set without a lock, so the concurrent
    first calls of the runtime's handlers mint several keys for the slot"""

    def request(self, messages):
        request = super().request(messages)
        store = self.runtime.cache_keys
        if store is None or store.key(CACHE_KEY_SLOT):
            return request
        minted = self.runtime.__dict__.setdefault("minted", {})
        if CACHE_KEY_SLOT not in minted:
            threading.Event().wait(FIRST_USE_S)
            minted[CACHE_KEY_SLOT] = new_cache_key()
        return dataclasses.replace(request, prompt_cache_key=minted[CACHE_KEY_SLOT])
