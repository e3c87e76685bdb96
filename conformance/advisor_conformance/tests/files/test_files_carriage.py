"""Caller text carried byte for byte through ``shape`` into a file block (clarifications §2, §4): a file's content, as
text or base64, and its display path reach the request as they were given. No byte-order mark is removed, no Unicode
normalisation applied, no line end changed, no control or invisible character dropped
(``advisor_conformance.carriage`` names the library defaults that do).
"""

from __future__ import annotations

import base64

import pytest

from advisor_conformance.carriage import NAME_TEXTS, TEXTS
from advisor_conformance.shaping import check_segments, file_segments, files_part, final, params, shape

from ..common.carriage import ASK, CLASSES, _carried, _head_and_rest


@pytest.mark.rule(id="files.render-format")
@pytest.mark.parametrize("form", ["content", "content-base64"])
@pytest.mark.parametrize("name", CLASSES)
def test_file_content_is_carried_byte_for_byte(impl, strings, name, form):
    """A file's content, given as text or as base64 bytes, is its bytes decoded and nothing else: a leading byte-order
    mark, the Unicode form, the line ends and control characters are kept."""
    data = TEXTS[name].encode("utf-8")
    file = {"path": "notes.txt", "content": TEXTS[name]} if form == "content" else \
        {"path": "notes.txt", "content_base64": base64.b64encode(data).decode("ascii")}
    request = params(ASK, files=[file])
    got = files_part(final(shape(impl, request, "files.render-format")), strings, input=request)
    check_segments(got[:len("File: notes.txt\n```\n")], [("File: notes.txt\n```\n", "files.render-format")], strings,
                   "the file block does not open as the format says", input=request)
    content = got[len("File: notes.txt\n```\n"):].removesuffix("\n```\n\n")
    _carried(content, TEXTS[name], "files.render-format", "the file's content was not carried byte for byte", request)
    check_segments(got, file_segments("notes.txt", data, "files.render-format"), strings,
                   "the file block is not the format's", input=request)


@pytest.mark.rule(id="files.render-format")
@pytest.mark.parametrize("name", list(NAME_TEXTS))
def test_display_path_is_carried_as_given(impl, strings, name):
    """A display path is written as given: not normalised to NFC or NFKC, its byte-order mark and joiners kept."""
    path = f"docs/{NAME_TEXTS[name]}"
    request = params(ASK, files=[{"path": path, "content": "x"}])
    got = files_part(final(shape(impl, request, "files.render-format")), strings, input=request)
    shown = _head_and_rest(got, "File: ", "files.render-format", "the file block", request).partition("\n")[0]
    _carried(shown, path, "files.render-format", "the display path was not written as given", request)
