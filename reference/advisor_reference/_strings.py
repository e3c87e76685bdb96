"""The reference's wording for the strings the spec leaves to each implementation.

The conformance suite never pins this wording: an implementation declares its
own strings and the suite checks their position and order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class DeclaredStrings:
    """Implementation-defined text of the advisor request, its notes and the read tool.

    ``budget_spent`` is a template: ``{used}`` and ``{max}`` are replaced by
    the counts.
    """

    system_prompt: str
    guidance_request: str
    inflight_label: str
    advisor_note_prefix: str
    deduped_file_notice: str
    line_truncation_marker: str
    budget_spent: str
    no_content_note: str
    token_limit_note: str
    #: A deduped file's block: {path} and {notice} are filled in (the layout is the implementation's choice).
    deduped_file_block: str = "File: {path}\n{notice}\n\n"

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
    budget_spent=(
        "The advisor budget for this run is spent ({used}/{max} uses). Carry on with your own judgement; "
        "the advisor will not answer again in this run."
    ),
    no_content_note="The advisor returned no content. Carry on with your own judgement.",
    token_limit_note=(
        "[The advisor's answer was cut off at its token limit; raise the advisor's max_tokens for complete answers.]"
    ),
)
