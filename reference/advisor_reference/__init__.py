"""The reference advisor: a minimal, real implementation of the advisor spec.

Public surface (everything else is private and may change):

* the transcript model: :class:`Message`, :class:`ToolCall`,
  :class:`RenderedMessage`, :func:`parse_transcript`, :func:`transcript_to_json`;
* request shaping: :class:`RequestBuilder`, :func:`build_request`,
  :class:`LoadedFile`, :class:`DeclaredStrings`, :data:`REFERENCE_STRINGS`;
* the rules as functions: :func:`elide_text`, :func:`elide_bytes`, :func:`elision_marker`,
  :func:`cap_arguments`, :func:`file_hash`, :func:`decode_utf8`,
  :func:`trim_space`, :func:`go_json`;
* the runtime: :class:`AdvisorRuntime` (one per process: the use counters,
  the path policy) with :class:`RuntimeConfig`, its per-turn
  :class:`AdvisorHandler`, the tool (:data:`TOOL_DEFINITION`,
  :func:`decode_tool_input`), the workspace (:class:`PathPolicy`,
  :func:`load_files`), budgets (:class:`UseCounter`, :class:`BudgetStore`),
  sessions and cache keys (:func:`transport_sessions`, :class:`CacheKeyStore`,
  :func:`new_cache_key`) and the provider boundary (:class:`Provider`,
  :class:`ProviderRequest`, :class:`ProviderAnswer`, :class:`ProviderError`,
  :class:`ScriptedProvider`);
* :class:`AdvisorInputError` (and :class:`FileRefused`), raised for input that
  does not fit the model and costing no use; :class:`AdvisorCallFailed`,
  raised when the provider fails after the use was counted.

The parts a variant replaces are public methods of these classes (every step of
:class:`RequestBuilder`, :class:`AdvisorHandler`, :class:`AdvisorRuntime`,
:class:`PathPolicy`; :meth:`UseCounter.take` with the counter's public ``used``
and ``lock``; :meth:`BudgetStore.new_counter`; :meth:`CacheKeyStore.setdefault`;
the steps of :class:`~advisor_reference.wire.HttpProvider`), the rule functions
above, and the types they exchange (:class:`CappedContent`, :class:`UseGrant`,
:func:`read_capped`, the defaults). A variant needs no underscore name: those
are private and may change. Two more public modules: :mod:`advisor_reference.adapter` answers
the conformance contract with all of this; :mod:`advisor_reference.wire` holds
the provider encoders, the HTTP client and the breakpoint rules.
"""

from __future__ import annotations

__version__ = "0.1.0"

from collections.abc import Sequence

from ._budget import DEFAULT_CHILD_MAX_USES, DEFAULT_MAX_USES, BudgetStore, UseCounter, UseGrant
from ._elision import MAX_TOOL_ARG_STRING_BYTES, cap_arguments, elide_bytes, elide_text, elision_marker
from ._errors import AdvisorInputError
from ._files import MAX_FILE_BYTES, MAX_FILES, MAX_FILES_TOTAL_BYTES, CappedContent, LoadedFile, file_hash
from ._gojson import go_json
from ._handler import AdvisorCallFailed, AdvisorHandler, AdvisorRuntime, RuntimeConfig
from ._prompt import MAX_QUESTION_BYTES, RequestBuilder
from ._provider import Provider, ProviderAnswer, ProviderError, ProviderRequest, ScriptedProvider, ScriptedReply
from ._sessions import CACHE_KEY_SLOT, CacheKeyStore, new_cache_key, transport_sessions
from ._strings import REFERENCE_STRINGS, DeclaredStrings
from ._text import decode_utf8, trim_space
from ._tool import TOOL_DEFINITION, ToolInput, decode_tool_input
from ._transcript import Message, RenderedMessage, ToolCall, parse_transcript, transcript_to_json
from ._workspace import FileRefused, PathPolicy, load_files, read_capped


def build_request(
    snapshot: Sequence[Message],
    question: str = "",
    files: Sequence[LoadedFile] = (),
    strings: DeclaredStrings = REFERENCE_STRINGS,
) -> list[RenderedMessage]:
    """The advisor request: system prompt, flattened snapshot, one trailing user message."""
    return RequestBuilder(strings).build(snapshot, question, files)


__all__ = [
    "CACHE_KEY_SLOT",
    "DEFAULT_CHILD_MAX_USES",
    "DEFAULT_MAX_USES",
    "CappedContent",
    "UseGrant",
    "read_capped",
    "TOOL_DEFINITION",
    "AdvisorCallFailed",
    "AdvisorHandler",
    "AdvisorRuntime",
    "BudgetStore",
    "CacheKeyStore",
    "FileRefused",
    "PathPolicy",
    "Provider",
    "ProviderAnswer",
    "ProviderError",
    "ProviderRequest",
    "RuntimeConfig",
    "ScriptedProvider",
    "ScriptedReply",
    "ToolInput",
    "UseCounter",
    "decode_tool_input",
    "load_files",
    "new_cache_key",
    "transport_sessions",
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
