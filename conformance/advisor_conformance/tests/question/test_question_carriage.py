"""Caller text carried byte for byte through ``shape`` (clarifications §5): the question reaches the request as it
was given, apart from its trim. No byte-order mark is removed, no Unicode normalisation applied, no line end changed,
no control or invisible character dropped (``advisor_conformance.carriage`` names the library defaults that do).
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS
from advisor_conformance.shaping import files_part, final, params, shape

from ..common.carriage import ASK, CLASSES, _carried


@pytest.mark.rule(id="question.trim")
@pytest.mark.parametrize("name", CLASSES)
def test_question_is_carried_byte_for_byte_inside_its_trim(impl, strings, name):
    """The question loses its surrounding white space and nothing else: a byte-order mark (not white space in Go),
    the Unicode form, line ends and control characters inside it are kept."""
    request = params(ASK, question=f" \n{TEXTS[name]}\t ")
    got = files_part(final(shape(impl, request, "question.trim")), strings, input=request)
    _carried(got.removesuffix("\n\n"), TEXTS[name], "question.trim", "the question was changed beyond its trim",
             request)
