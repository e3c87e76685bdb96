"""The reference's wording for the strings the spec leaves to each implementation.

The conformance suite never pins this wording: an implementation declares its
own strings and the suite checks their position and order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class DeclaredStrings:
    """Implementation-defined text of the advisor request and the read tool."""

    system_prompt: str
    guidance_request: str
    inflight_label: str
    advisor_note_prefix: str
    deduped_file_notice: str
    line_truncation_marker: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


REFERENCE_STRINGS = DeclaredStrings(
    system_prompt=(
        "You advise a coding agent that is in the middle of a task. Read the conversation so far "
        "and give it brief, concrete guidance for its next step: point out risks, gaps in its "
        "reasoning and the most promising move. You have no tools; do not pretend to run any, "
        "and speak to the agent, not to its user."
    ),
    guidance_request=(
        "Based on everything above, write a short note of advice for the agent: what it may be "
        "missing, what could go wrong, and what it should do next."
    ),
    inflight_label="The agent's message that asked for this advice (still waiting for your answer):",
    advisor_note_prefix="[your earlier advice; revise it if the situation has changed]",
    deduped_file_notice=(
        "(content not repeated: identical to the latest full read of this file in the conversation above)"
    ),
    line_truncation_marker="\u2026[line truncated]",
)
