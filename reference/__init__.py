"""The reference advisor: a minimal, real implementation of the advisor spec.

Public surface (everything else is private and may change):

* the transcript model: :class:`Message`, :class:`ToolCall`,
  :class:`RenderedMessage`, :func:`parse_transcript`, :func:`transcript_to_json`;
* request shaping: :class:`RequestBuilder`, :func:`build_request`,
  :class:`LoadedFile`, :class:`DeclaredStrings`, :data:`REFERENCE_STRINGS`;
* the rules as functions: :func:`elide_text`, :func:`elision_marker`,
  :func:`cap_arguments`, :func:`file_hash`, :func:`decode_utf8`,
  :func:`trim_space`, :func:`go_json`;
* :class:`AdvisorInputError`, raised for input that does not fit the model.

``reference.adapter`` answers the conformance contract with all of this.
"""

from __future__ import annotations

__version__ = "0.1.0"

from collections.abc import Sequence

from ._elision import MAX_TOOL_ARG_STRING_BYTES, cap_arguments, elide_bytes, elide_text, elision_marker
from ._errors import AdvisorInputError
from ._files import MAX_FILE_BYTES, MAX_FILES, MAX_FILES_TOTAL_BYTES, LoadedFile, file_hash
from ._gojson import go_json
from ._prompt import MAX_QUESTION_BYTES, RequestBuilder
from ._strings import REFERENCE_STRINGS, DeclaredStrings
from ._text import decode_utf8, trim_space
from ._transcript import Message, RenderedMessage, ToolCall, parse_transcript, transcript_to_json


def build_request(
    snapshot: Sequence[Message],
    question: str = "",
    files: Sequence[LoadedFile] = (),
    strings: DeclaredStrings = REFERENCE_STRINGS,
) -> list[RenderedMessage]:
    """The advisor request: system prompt, flattened snapshot, one trailing user message."""
    return RequestBuilder(strings).build(snapshot, question, files)


__all__ = [
    "MAX_FILES",
    "MAX_FILES_TOTAL_BYTES",
    "MAX_FILE_BYTES",
    "MAX_QUESTION_BYTES",
    "MAX_TOOL_ARG_STRING_BYTES",
    "REFERENCE_STRINGS",
    "AdvisorInputError",
    "DeclaredStrings",
    "LoadedFile",
    "Message",
    "RenderedMessage",
    "RequestBuilder",
    "ToolCall",
    "build_request",
    "cap_arguments",
    "decode_utf8",
    "elide_bytes",
    "elide_text",
    "elision_marker",
    "file_hash",
    "go_json",
    "parse_transcript",
    "transcript_to_json",
    "trim_space",
]
