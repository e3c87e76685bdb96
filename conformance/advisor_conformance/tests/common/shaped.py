"""The parts of the trailing message of a shaped request, shared by the tests of several areas."""

from __future__ import annotations

from advisor_conformance.shaping import files_part, final, shape


def files_part_of(impl, strings, request, rule):
    """The files part of the trailing message ``impl`` shapes for ``request`` (a refusal breaks ``rule``): the message
    without its closing request for guidance."""
    __tracebackhide__ = True
    return files_part(final(shape(impl, request, rule)), strings, input=request)
