"""advisor_reference._dedupe: which tool results are full reads of a file."""

from __future__ import annotations

import json

import pytest

from advisor_reference._dedupe import full_read
from advisor_reference._transcript import Message

READ = json.dumps(
    {
        "path": "a.py",
        "start_line": 1,
        "end_line": 2,
        "total_lines": 2,
        "file_hash": "0A1B2C3D",
        "output": "x = 1\ny = 2\n",
    }
)


@pytest.mark.parametrize(
    "before, full",
    [("", True), (" \t\n\r", True), ("\f", False), ("\u00a0", False), ("x", False)],
    ids=["none", "json-white-space", "form-feed", "no-break-space", "text"],
)
def test_a_read_result_is_decoded_after_json_white_space_only(before, full):
    """A read result is a full read when its content is the read object after JSON's own white space only (space,
    tab, LF, CR), as the JSON decoder reads it; anything else before the object makes it no full read."""
    message = Message(role="tool", name="read", tool_call_id="c1", content=before + READ)
    assert full_read(message, "…<truncated>") == (("a.py", "0A1B2C3D") if full else None)


@pytest.mark.parametrize("content", ["[1, 2]", '"text"', "def f():\n    return 1\n", "", "{not json"])
def test_a_read_result_that_is_no_json_object_is_no_full_read(content):
    """A read result whose content is not a JSON object (an array, a string, source text, nothing, broken JSON)
    is never a full read."""
    assert full_read(Message(role="tool", name="read", tool_call_id="c1", content=content), "") is None
