"""The reference implementation behind the conformance contract.

Each operation takes one JSON-shaped ``dict`` and returns one; failures the
spec calls errors come back as ``{"error": {"code", "message", "at"}}`` and
are never raised. ``pytest --impl=reference`` runs the suite against
:data:`adapter`.
"""

from __future__ import annotations

import base64
import binascii
import copy
from collections.abc import Mapping
from typing import Any

from . import __version__
from ._errors import AdvisorInputError, reject_unknown_keys
from ._files import LoadedFile
from ._handler import AdvisorRuntime
from ._http import HttpProvider, encode
from ._prompt import RequestBuilder
from ._provider import ProviderRequest, provider_request_from_json
from ._scenario import run_scenario
from ._strings import REFERENCE_STRINGS
from ._text import to_valid_unicode
from ._tool import TOOL_DEFINITION
from ._transcript import parse_transcript
from ._wire import PROVIDER_KINDS, HttpRequest

PROTOCOL_VERSION = 1
#: The version of the rule catalogue this reference was last checked against (``advisor-conformance rules --json``);
#: a test holds it equal to the catalogue's, so a change of the rules is a deliberate step here too.
CATALOGUE = "088b61635d24"
AREAS = (
    "transcript",
    "request",
    "flatten",
    "elision",
    "files",
    "question",
    "dedupe",
    "inflight",
    "tool",
    "workspace",
    "handler",
    "budget",
    "transport",
    "wire",
    "streaming",
    "breakpoints",
)

_SHAPE_KEYS = frozenset({"transcript", "question", "files"})
_FILE_KEYS = frozenset({"path", "content", "content_base64", "size"})


def _parse_files(raw: Any, builder: RequestBuilder) -> list[LoadedFile]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise AdvisorInputError("must be an array of file objects", at="files")
    # rule: files.max-count
    builder.check_file_count(len(raw))  # before any file is looked at, as the origin does
    files = []
    for index, item in enumerate(raw):
        at = f"files[{index}]"
        if not isinstance(item, Mapping):
            raise AdvisorInputError("must be an object", at=at)
        reject_unknown_keys(item, _FILE_KEYS, at)
        path = item.get("path")
        if not isinstance(path, str) or not path:
            raise AdvisorInputError("must be a non-empty string", at=f"{at}.path")
        if ("content" in item) == ("content_base64" in item):
            raise AdvisorInputError("exactly one of content and content_base64 is required", at=at)
        if "content" in item:
            if not isinstance(item["content"], str):
                raise AdvisorInputError("must be a string", at=f"{at}.content")
            data = to_valid_unicode(item["content"]).encode("utf-8")
        else:
            if not isinstance(item["content_base64"], str):
                raise AdvisorInputError("must be a base64 string", at=f"{at}.content_base64")
            if not item["content_base64"].isascii():  # b64decode raises a bare ValueError for these
                raise AdvisorInputError(
                    "is not valid base64: it holds characters outside ASCII", at=f"{at}.content_base64"
                )
            try:
                data = base64.b64decode(item["content_base64"], validate=True)
            except (binascii.Error, ValueError) as exc:
                raise AdvisorInputError(f"is not valid base64: {exc}", at=f"{at}.content_base64") from None
        size = item.get("size", len(data))
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise AdvisorInputError("must be a non-negative integer", at=f"{at}.size")
        if size < len(data):
            raise AdvisorInputError(f"is {size}, smaller than the {len(data)} bytes of content", at=f"{at}.size")
        files.append(LoadedFile(path=to_valid_unicode(path), data=data, size=size))
    return files


class ReferenceAdapter:
    """Answers the conformance operations with the reference implementation."""

    name = "reference"
    #: The parts an adapter assembles; a variant replaces one of them.
    strings = REFERENCE_STRINGS
    builder_class = RequestBuilder
    runtime_class = AdvisorRuntime
    http_provider_class = HttpProvider
    #: Whether a message of a role the model does not know passes through (as in the origin) instead of failing.
    open_roles = False

    def __init__(self, builder: RequestBuilder | None = None) -> None:
        self.builder = builder or self.builder_class(self.strings)

    def describe(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": __version__,
            "language": "python",
            "protocol": PROTOCOL_VERSION,
            "areas": list(AREAS),
            "strings": self.builder.strings.to_json(),
            "providers": list(PROVIDER_KINDS),
            # rules: flatten.args-json-origin-encoding, workspace.confinement
            "options": {"args_json": "origin", "confinement": True},
            # runtime.home_dir names what ~ stands for in blocked paths (rule: workspace.path-policy)
            "capabilities": {"home_dir": True},
            "catalogue": CATALOGUE,
        }

    def shape(self, params: Mapping[str, Any]) -> dict[str, Any]:
        try:
            if not isinstance(params, Mapping):
                raise AdvisorInputError("params must be an object")
            reject_unknown_keys(params, _SHAPE_KEYS)
            if "transcript" not in params:
                raise AdvisorInputError("is required", at="transcript")
            snapshot = parse_transcript(params["transcript"], open_roles=self.open_roles)
            question = params.get("question", "")
            if not isinstance(question, str):
                raise AdvisorInputError("must be a string", at="question")
            files = _parse_files(params.get("files"), self.builder)
            messages = self.builder.build(snapshot, to_valid_unicode(question), files)
        except AdvisorInputError as error:  # names the message index and field (rule: transcript.malformed-rejected)
            return {"error": error.to_json()}
        return {"messages": [message.to_json() for message in messages]}

    def tool_definition(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return copy.deepcopy(TOOL_DEFINITION)  # rule: tool.definition

    def encode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        try:
            if not isinstance(params, Mapping):
                raise AdvisorInputError("params must be an object")
            reject_unknown_keys(params, frozenset({"provider", "request"}))
            kind = params.get("provider")
            if kind not in PROVIDER_KINDS:
                raise AdvisorInputError(f"must be one of {', '.join(PROVIDER_KINDS)}", at="provider")
            request = provider_request_from_json(params.get("request"))
        except AdvisorInputError as error:
            return {"error": error.to_json()}
        return self.encode_request(kind, request).to_json()

    def encode_request(self, kind: str, request: ProviderRequest) -> HttpRequest:
        """The encoding behind the encode operation (a seam for variants)."""
        return encode(kind, request)

    def scenario(self, params: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return run_scenario(
                params, self.builder, self.runtime_class, self.http_provider_class, open_roles=self.open_roles
            )
        except AdvisorInputError as error:
            return {"error": error.to_json()}


adapter = ReferenceAdapter()
