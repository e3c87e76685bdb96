"""advisor_reference._prompt: the RequestBuilder that turns a snapshot, files and a question into the request."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given

from advisor_conformance import strategies as s
from advisor_reference import (
    REFERENCE_STRINGS,
    LoadedFile,
    RenderedMessage,
    RequestBuilder,
    build_request,
    parse_transcript,
)

from ._helpers import SNAPSHOT


@given(transcript=s.transcripts(), question=s.questions(), files=s.files(max_size=3))
def test_building_never_mutates_the_input(transcript, question, files):
    """build_request leaves the parsed transcript's arguments and the raw JSON exactly as they were."""
    before = copy.deepcopy(transcript)
    messages = parse_transcript(transcript)
    loaded = [LoadedFile(path, data, len(data)) for path, data in files]
    build_request(messages, question, loaded)
    assert transcript == before


def test_build_request_puts_the_loaded_files_in_the_final_message():
    """build_request renders each loaded file as a block in the trailing user message."""
    messages = build_request(parse_transcript(SNAPSHOT), "Why?", [LoadedFile("notes.txt", b"hello", 5)])
    assert "File: notes.txt\n```\nhello\n```\n\n" in messages[-1].content


def test_build_without_a_question_has_no_question_block():
    """RequestBuilder.build called with only a snapshot ends on the bare request for guidance."""
    messages = RequestBuilder().build(parse_transcript(SNAPSHOT))
    assert messages[-1] == RenderedMessage("user", REFERENCE_STRINGS.guidance_request)


def test_builder_variant_that_loses_a_capped_file_fails_loudly():
    """A builder whose cap_files returns fewer contents than files raises instead of leaving a file out."""

    class Dropping(RequestBuilder):
        def cap_files(self, files, deduped):
            return super().cap_files(files, deduped)[:-1]

    files = [LoadedFile("a.txt", b"a", 1), LoadedFile("b.txt", b"b", 1)]
    with pytest.raises(ValueError):
        Dropping().build(parse_transcript(SNAPSHOT), "", files)
