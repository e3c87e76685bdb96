"""Unit tests of the reference's Python surface: parsing errors, purity, and its byte-level helpers."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import advisor_reference
from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_reference import AdvisorInputError, LoadedFile, build_request, go_json, parse_transcript


@pytest.mark.parametrize(
    "transcript, at",
    [
        ([{"role": "user", "content": "a"}, {"role": "robot"}], "transcript[1].role"),
        ([{"role": "user", "content": "a", "colour": "red"}], "transcript[0].colour"),
        ([{"role": "user", "tool_calls": []}], "transcript[0].tool_calls"),
        ([{"role": "assistant", "tool_calls": [{"name": "x"}]}], "transcript[0].tool_calls[0].arguments"),
        ([{"role": "assistant", "tool_calls": [{"name": "", "arguments": {}}]}], "transcript[0].tool_calls[0].name"),
        ([{"role": "tool", "name": "bash", "content": "x"}], "transcript[0].tool_call_id"),
        ([{"role": "user", "name": "bob", "content": "x"}], "transcript[0].name"),
        ([{"role": "user", "metadata": []}], "transcript[0].metadata"),
        ({"role": "user"}, "transcript"),
    ],
    ids=["role", "unknown-field", "calls-on-user", "missing-arguments", "empty-call-name", "missing-tool-call-id",
         "name-on-user", "metadata-array", "not-a-list"],
)
def test_parse_errors_name_the_field(transcript, at):
    """A malformed transcript raises AdvisorInputError whose ``at`` is the message index and field."""
    with pytest.raises(AdvisorInputError) as info:
        parse_transcript(transcript)
    assert info.value.at == at, f"expected the error at {at}, got {info.value.at!r} ({info.value})"
    assert str(info.value).startswith(at + ": ")


@given(transcript=s.transcripts(), question=s.questions(), files=s.files(max_size=3))
def test_building_never_mutates_the_input(transcript, question, files):
    """build_request leaves the parsed transcript's arguments and the raw JSON exactly as they were."""
    before = copy.deepcopy(transcript)
    messages = parse_transcript(transcript)
    loaded = [LoadedFile(path, data, len(data)) for path, data in files]
    build_request(messages, question, loaded)
    assert transcript == before


def test_loaded_file_rejects_a_size_below_its_content():
    """A file cannot be smaller on disk than the bytes read from it."""
    with pytest.raises(ValueError, match="smaller than"):
        LoadedFile("a.txt", b"abc", 2)


@given(data=st.binary(max_size=64))
def test_decoding_matches_the_suites_oracle(data):
    """The reference's per-byte U+FFFD decoding agrees with the oracle's table-driven decoder."""
    assert advisor_reference.decode_utf8(data) == oracle.go_decode(data)


@given(text=st.text(alphabet=st.sampled_from([*s.GO_SPACES, *s.NOT_GO_SPACES, "a", "é", " "]), max_size=12))
def test_trim_matches_the_suites_oracle(text):
    """The reference trims exactly Go's white space, like the oracle."""
    assert advisor_reference.trim_space(text) == oracle.trim(text)


@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1"),
        (-0.0, "-0"),
        (0.1, "0.1"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (5e-324, "5e-324"),
        (1.5e300, "1.5e+300"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (10**25, "1e+25"),
        ({"b": [1, "x"], "a": None}, '{"a":null,"b":[1,"x"]}'),
        ("<&>\u2028", '"\\u003c\\u0026\\u003e\\u2028"'),
    ],
)
def test_go_json_forms(value, text):
    """go_json writes numbers in Go's float64 form and escapes like Go's encoder."""
    assert go_json(value) == text


def test_go_json_rejects_values_json_cannot_carry():
    """NaN has no JSON form, so encoding it is an error rather than invalid output."""
    with pytest.raises(ValueError):
        go_json(math.nan)


def test_lone_surrogates_become_replacement_characters():
    """A lone surrogate (legal as a JSON escape) is read as U+FFFD, as Go's decoder does."""
    (message,) = parse_transcript([{"role": "user", "content": "a\ud800b"}])
    assert message.content == "a\ufffdb"


def test_elided_argument_with_lone_surrogate():
    """A long argument string holding a lone surrogate counts it as the 3 bytes of U+FFFD when elided."""
    call = {"id": "c", "name": "edit", "arguments": {"text": "\udfff" + "x" * 1500}}
    messages = build_request(parse_transcript([{"role": "assistant", "tool_calls": [call]},
                                               {"role": "user", "content": "ok"}]))
    assert '"text":"\ufffd' in messages[1].content and "[elided, 1503 bytes total]" in messages[1].content
