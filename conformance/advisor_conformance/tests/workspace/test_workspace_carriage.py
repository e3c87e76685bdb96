"""Caller text carried byte for byte through a call (``scenario``): files read from the workspace and their names
reach the request as they are on disk. No byte-order mark is removed, no Unicode normalisation applied, no line end
changed (``advisor_conformance.carriage`` names the library defaults that do: a text-mode read, a BOM-stripping
decoder, a normaliser, ``splitlines``).

What a call loads is compared with what ``shape`` renders for the same input, so a shaping mistake is the shaping
rules' (files/test_files_carriage.py pins those) and only what the call path adds is blamed here.
"""

from __future__ import annotations

import base64

import pytest

from advisor_conformance.carriage import NAME_TEXTS, TEXTS
from advisor_conformance.scenarios import SNAPSHOT, call, requests_of, result_of, run, scenario
from advisor_conformance.shaping import final, params, shape
from advisor_conformance.workspace import workspace

from ..common.carriage import CLASSES, _carried


def _shaped_final(impl, snapshot, rule, *, question=None, files=None):
    """What ``shape`` renders as the trailing message for the same input (the shaping rules judge it)."""
    return final(shape(impl, params(snapshot, question=question, files=files), rule))


def _loaded(impl, spec, paths, rule, **call_input):
    """The trailing message of one call with ``paths`` read from a workspace of ``spec``; and the params."""
    with workspace(spec) as work:
        shown = scenario([{"call": call(input={"files": paths, **call_input})}], work_dir=str(work))
        answer = run(impl, shown, rule)
        result_of(answer, 0, rule, shown)
        (request,) = requests_of(answer, 0)
    return request["messages"][-1]["content"], shown


@pytest.mark.rule(id="workspace.capped-reader")
@pytest.mark.parametrize("name", CLASSES)
def test_file_bytes_from_disk_are_carried_byte_for_byte(impl, name):
    """A file read from the workspace is sent as ``shape`` renders its exact bytes: read as bytes, never in a text
    mode that changes line ends or drops a byte-order mark."""
    data = TEXTS[name].encode("utf-8")
    got, shown = _loaded(impl, {"notes.txt": {"base64": base64.b64encode(data).decode("ascii")}}, ["notes.txt"],
                         "workspace.capped-reader")
    expected = _shaped_final(impl, SNAPSHOT, "workspace.capped-reader",
                             files=[{"path": "notes.txt", "content_base64": base64.b64encode(data).decode("ascii")}])
    _carried(got, expected, "workspace.capped-reader", "the file read from disk is not sent as its bytes", shown)


@pytest.mark.rule(id="workspace.display-path")
@pytest.mark.parametrize("name", list(NAME_TEXTS))
def test_file_names_are_shown_as_they_are_on_disk(impl, name):
    """A file whose name is decomposed, holds compatibility characters, joiners or a byte-order mark is shown under
    that very name (relative to the working directory), not a normalised spelling."""
    path = f"docs/{NAME_TEXTS[name]}"
    got, shown = _loaded(impl, {path: {"text": "x\n"}}, [path], "workspace.display-path")
    expected = _shaped_final(impl, SNAPSHOT, "workspace.display-path", files=[{"path": path, "content": "x\n"}])
    _carried(got, expected, "workspace.display-path", "the file is not shown under its name as given", shown)
