"""The reference under another name, as a third-party implementation would appear; ``reworded`` changes one prompt,
``NamedReference`` takes the reference's own name, ``CutEmoji`` answers with a lone surrogate."""

from __future__ import annotations

from dataclasses import replace

from advisor_reference import REFERENCE_STRINGS, RequestBuilder
from advisor_reference.adapter import ReferenceAdapter


class Renamed(ReferenceAdapter):
    name = "acme-advisor"


class Reworded(ReferenceAdapter):
    """Same name as Renamed, but its team changed the guidance request."""

    name = "acme-advisor"

    def __init__(self):
        super().__init__(RequestBuilder(replace(REFERENCE_STRINGS, guidance_request="Tell the agent what to do next.")))


class OldCatalogue(Renamed):
    """Says it was last checked against a catalogue version that is not this suite's."""

    def describe(self, params=None):
        return {**super().describe(params or {}), "catalogue": "000000000000"}


adapter = Renamed()


class NamedReference(ReferenceAdapter):
    """Calls itself ``reference`` (describe's name) but renders another guidance request: not the bundled reference."""

    name = "reference"

    def __init__(self):
        super().__init__(RequestBuilder(replace(REFERENCE_STRINGS, guidance_request="Not the reference's request.")))


class CutEmoji(ReferenceAdapter):
    """Ends every rendered request with an emoji cut between its UTF-16 halves (a lone surrogate), as an implementation
    in JavaScript that slices a string by code units can."""

    name = "cut-emoji"

    def shape(self, params):
        answer = super().shape(params)
        if "messages" in answer:
            answer["messages"][-1]["content"] += "\n\ud83d"
        return answer
