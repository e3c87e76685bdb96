"""advisor_reference._text: Go's per-byte UTF-8 decoding and Go's white-space trimming."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import advisor_reference
from advisor_conformance import oracle
from advisor_conformance import strategies as s


@given(data=st.binary(max_size=64))
def test_decoding_matches_the_suites_oracle(data):
    """The reference's per-byte U+FFFD decoding agrees with the oracle's table-driven decoder."""
    assert advisor_reference.decode_utf8(data) == oracle.go_decode(data)


@given(text=st.text(alphabet=st.sampled_from([*s.GO_SPACES, *s.NOT_GO_SPACES, "a", "é", " "]), max_size=12))
def test_trim_matches_the_suites_oracle(text):
    """The reference trims exactly Go's white space, like the oracle."""
    assert advisor_reference.trim_space(text) == oracle.trim(text)
