"""advisor_reference (the package): the curated public surface and its build_request shortcut."""

from __future__ import annotations

from dataclasses import replace

import advisor_reference
from advisor_reference import REFERENCE_STRINGS, RequestBuilder, parse_transcript

from ._helpers import SNAPSHOT as RAW_SNAPSHOT

SNAPSHOT = parse_transcript(RAW_SNAPSHOT)


def test_public_names_exist():
    """Every name the package exports is defined."""
    assert all(hasattr(advisor_reference, name) for name in advisor_reference.__all__)


def test_build_request_defaults():
    """build_request with only a snapshot builds the reference's request with no question or files."""
    messages = advisor_reference.build_request(SNAPSHOT)
    assert messages == RequestBuilder(REFERENCE_STRINGS).build(SNAPSHOT, "", [])
    assert messages[0].content == REFERENCE_STRINGS.system_prompt
    strings = replace(REFERENCE_STRINGS, system_prompt="Be brief.")
    assert advisor_reference.build_request(SNAPSHOT, "q?", [], strings)[0].content == "Be brief."
    assert "q?" in advisor_reference.build_request(SNAPSHOT, "q?")[-1].content
