"""Caller text carried byte for byte through ``shape`` (clarifications §4): the in-flight text reaches its block
as it was given, apart from its trim. No byte-order mark is removed, no Unicode normalisation applied, no line end
changed, no control or invisible character dropped (``advisor_conformance.carriage`` names the library defaults
that do).
"""

from __future__ import annotations

import pytest

from advisor_conformance.carriage import TEXTS
from advisor_conformance.checks import check
from advisor_conformance.shaping import check_in_flight_block, final, params, shape

from ..common.carriage import ASK, CLASSES, _carried, _head_and_rest


@pytest.mark.rule(id="inflight.block-layout")
@pytest.mark.parametrize("name", CLASSES)
def test_in_flight_text_is_carried_byte_for_byte_inside_its_trim(impl, strings, name):
    """The in-flight text loses its surrounding white space and nothing else."""
    request = params([*ASK, {"role": "assistant", "content": f"\n {TEXTS[name]} \n"}])
    got = final(shape(impl, request, "inflight.block-layout"))
    check_in_flight_block(impl, strings, got, "inflight.empty-dropped", input=request)
    rest = _head_and_rest(got, strings["inflight_label"] + "\n", "inflight.block-layout", "the in-flight block",
                          request)
    text, blank, _ = rest.partition("\n\n" + strings["guidance_request"])
    check(bool(blank), "inflight.block-layout", "the in-flight block does not end with a blank line before the "
          "guidance request", input=request, actual=got)
    _carried(text, TEXTS[name], "inflight.block-layout", "the in-flight text was changed beyond its trim", request)
