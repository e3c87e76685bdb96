"""The reference under another name, as a third-party implementation would appear; ``reworded`` changes one prompt."""

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
