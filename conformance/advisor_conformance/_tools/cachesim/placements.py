"""Breakpoint placements the simulator can put on the same Anthropic requests: the spec's, and what-ifs.

``advisor-conformance cache-sim --placement NAME`` re-marks every request of the replay with one of them (the
request's own markers are replaced) and reports what it would cost: what a change of the spec's breakpoint rules
would save. Only ``spec`` is the spec's placement; every other one is a what-if, not conformant to the spec, and
the output says so. A placement sees one request and the previous request of the same conversation (``before``),
nothing later: it is a rule an implementation could follow, not hindsight (the optimum is the hindsight).

* ``spec``: the spec's advisor profile (clarifications section 9): the last system block, then every 15th block
  back from the last block before the final message, at most 4 marks, one hour each.
* ``bridge``: the spec's marks, but the third tail mark gives way to the block where the same conversation's previous
  advisor request ended (its last block before its final message). That block holds the entry the previous request
  wrote, however far back it now is: the read the 20-block lookback loses when a conversation grows by more than
  about 50 blocks between two advisor calls.
* ``spec-5m``: the spec's positions with the default five-minute TTL: cheaper writes (1.25 instead of 2), lost when
  the next call comes more than 5 minutes later.
* ``system-1h-tail-5m``: the system block for an hour (shared by every conversation of an agent type, and by the
  conversations after a compaction) and the tail marks for five minutes.
* ``automatic``: Anthropic's automatic caching (a top-level ``cache_control``): one five-minute mark on the last
  block that can carry one, the final message. The next request holds a different final message, so it reads
  nothing this one wrote: why the spec marks the tail instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .anthropic import AnthropicPrompt

Marks = list[tuple[int, str]]


@dataclass(frozen=True)
class Placement:
    name: str
    what_if: bool  # not the spec's placement, not the implementation's own: not conformant to the spec
    description: str
    place: Callable[[AnthropicPrompt, AnthropicPrompt | None], Marks] | None  # None: the request's own markers

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "what_if": self.what_if,
            "conformant_to_spec": not self.what_if,
            "description": self.description,
        }


def _tail_end(prompt: AnthropicPrompt) -> int:
    """The last block before the final message (-1: none)."""
    return len(prompt) - prompt.final_blocks - 1


def _spec(prompt: AnthropicPrompt, before: AnthropicPrompt | None) -> Marks:
    return prompt.spec_marks()


def _bridge(prompt: AnthropicPrompt, before: AnthropicPrompt | None) -> Marks:
    marks = dict(prompt.spec_marks())
    if before is None:
        return sorted(marks.items())
    end = _tail_end(before)
    if (
        not (prompt.head <= end < _tail_end(prompt))
        or end in marks
        or not prompt.markable[end]
        or prompt.hashes[end] != before.hashes[end]
    ):
        return sorted(marks.items())
    if len(marks) >= 4:  # the deepest-back tail mark gives way
        marks.pop(min(p for p in marks if p >= prompt.head))
    marks[end] = "1h"
    return sorted(marks.items())


def _spec_5m(prompt: AnthropicPrompt, before: AnthropicPrompt | None) -> Marks:
    return [(position, "5m") for position, _ in prompt.spec_marks()]


def _system_1h_tail_5m(prompt: AnthropicPrompt, before: AnthropicPrompt | None) -> Marks:
    return [(position, "1h" if position < prompt.head else "5m") for position, _ in prompt.spec_marks()]


def _automatic(prompt: AnthropicPrompt, before: AnthropicPrompt | None) -> Marks:
    last = prompt.last_markable()
    return [(last, "5m")] if last >= 0 else []


PLACEMENTS = {
    p.name: p
    for p in (
        Placement("implementation", False, "the implementation's own requests, as it encoded them", None),
        Placement(
            "spec",
            False,
            "the spec's advisor breakpoints (the system block, every 15th block back from the last "
            "block before the final message, at most 4, one hour)",
            _spec,
        ),
        Placement(
            "bridge",
            True,
            "the spec's marks, the third tail mark moved to where the conversation's previous advisor request ended",
            _bridge,
        ),
        Placement("spec-5m", True, "the spec's positions with a five-minute TTL", _spec_5m),
        Placement(
            "system-1h-tail-5m",
            True,
            "the spec's positions: the system block for an hour, the tail for five minutes",
            _system_1h_tail_5m,
        ),
        Placement(
            "automatic",
            True,
            "Anthropic's automatic caching: one five-minute mark on the last block that can carry one",
            _automatic,
        ),
    )
}
