"""One broken adapter per entry: a RequestBuilder variant that gets one rule wrong."""

from __future__ import annotations

import json

from reference import REFERENCE_STRINGS, RequestBuilder, decode_utf8, elide_text, file_hash
from reference._files import MAX_FILE_BYTES, cap_file
from reference._transcript import RenderedMessage
from reference.adapter import ReferenceAdapter


class MarkerOffByOne(RequestBuilder):
    """The elision marker counts one byte too many (the length plus a terminator)."""

    def elide_argument_string(self, text):
        data = text.encode("utf-8")
        if len(data) <= 1000:
            return text
        return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data) + 1} bytes total]"


class ThresholdInclusive(RequestBuilder):
    """Strings of exactly 1000 bytes are elided too (>= instead of >)."""

    def elide_argument_string(self, text):
        data = text.encode("utf-8")
        if len(data) < 1000:
            return text
        return decode_utf8(data[:1000]) + f"\u2026[elided, {len(data)} bytes total]"


class CutByCharacters(RequestBuilder):
    """Elision cuts 1000 characters instead of 1000 bytes."""

    def elide_argument_string(self, text):
        size = len(text.encode("utf-8"))
        if size <= 1000:
            return text
        return text[:1000] + f"\u2026[elided, {size} bytes total]"


class InFlightLeftInTranscript(RequestBuilder):
    """The in-flight assistant message is labelled in the final message but also left in the transcript."""

    def split_in_flight(self, snapshot):
        _, text = super().split_in_flight(snapshot)
        return snapshot, text


class AdvisorNoteAsToolResult(RequestBuilder):
    """Advisor results are rendered like any other tool result."""

    def flatten_message(self, message):
        if message.role == "tool":
            return RenderedMessage("user", f"[tool_result: {message.name}]\n{message.content or '(empty)'}")
        return super().flatten_message(message)


class ReasoningLeaked(RequestBuilder):
    """Reasoning content is kept, prepended to the assistant's text."""

    def flatten_message(self, message):
        rendered = super().flatten_message(message)
        if message.role == "assistant" and message.reasoning_content:
            return RenderedMessage("assistant", f"{message.reasoning_content}\n{rendered.content}")
        return rendered


class QuestionNotTrimmed(RequestBuilder):
    """The question is capped and sent as given, surrounding white space included."""

    def render_question(self, question):
        if not question.strip():
            return ""
        return elide_text(question, 4000) + "\n\n"


class QuestionBeforeFiles(RequestBuilder):
    """The question comes before the files in the final message."""

    def final_message(self, in_flight_block, file_blocks, question_block):
        return in_flight_block + question_block + "".join(file_blocks) + self.strings.guidance_request


class NoAggregateCap(RequestBuilder):
    """Only the per-file cap is applied; the 96 KiB aggregate is forgotten."""

    def cap_files(self, files, deduped):
        return [None if flag else cap_file(f) for f, flag in zip(files, deduped)]


class DedupeOnPartialRead(RequestBuilder):
    """Any read of the path with a matching hash dedupes, partial reads included."""

    def dedupe(self, files, snapshot):
        hashes = {}
        for message in snapshot:
            if message.role == "tool" and message.name == "read":
                try:
                    result = json.loads(message.content)
                    hashes[result["path"]] = result["file_hash"]
                except (ValueError, KeyError, TypeError):
                    continue
        return [f.size <= MAX_FILE_BYTES and hashes.get(f.path) == file_hash(f.data) for f in files]


class NineFilesAllowed(RequestBuilder):
    """The file count check is off by one: nine files pass."""

    def check_file_count(self, count, at="files"):
        if count > 9:
            super().check_file_count(count, at)


class PythonReplaceDecoding(RequestBuilder):
    """Invalid UTF-8 in files is decoded with Python's errors='replace' (one U+FFFD per bad sequence)."""

    def render_files(self, files, snapshot):
        contents = self.cap_files(files, self.dedupe(files, snapshot))
        return [
            f"File: {f.path}\n{self.strings.deduped_file_notice}\n\n" if content is None
            else f"File: {f.path}\n```\n{content.kept.decode('utf-8', 'replace')}{content.marker}\n```\n\n"
            for f, content in zip(files, contents)
        ]


def _adapter(broken):
    """An adapter that is the reference with ``broken`` (a RequestBuilder or AdvisorRuntime variant) in place."""
    from reference._handler import AdvisorRuntime

    class Broken(ReferenceAdapter):
        name = f"broken-{broken.__name__}"

        def __init__(self):
            super().__init__(broken(REFERENCE_STRINGS) if issubclass(broken, RequestBuilder) else None)

    if issubclass(broken, AdvisorRuntime):
        Broken.runtime_class = broken
    Broken.__name__ = broken.__name__ + "Adapter"
    Broken.__doc__ = broken.__doc__
    return Broken


marker_off_by_one = _adapter(MarkerOffByOne)
threshold_inclusive = _adapter(ThresholdInclusive)
cut_by_characters = _adapter(CutByCharacters)
in_flight_left_in_transcript = _adapter(InFlightLeftInTranscript)
advisor_note_as_tool_result = _adapter(AdvisorNoteAsToolResult)
reasoning_leaked = _adapter(ReasoningLeaked)
question_not_trimmed = _adapter(QuestionNotTrimmed)
question_before_files = _adapter(QuestionBeforeFiles)
no_aggregate_cap = _adapter(NoAggregateCap)
dedupe_on_partial_read = _adapter(DedupeOnPartialRead)
nine_files_allowed = _adapter(NineFilesAllowed)
python_replace_decoding = _adapter(PythonReplaceDecoding)


# -- runtime rules ----------------------------------------------------------------------------

from reference._budget import UseCounter  # noqa: E402
from reference._handler import AdvisorHandler, AdvisorRuntime  # noqa: E402
from reference._sessions import new_cache_key  # noqa: E402
from reference._tool import decode_tool_input  # noqa: E402
from reference._workspace import load_files  # noqa: E402


class BudgetPerHandler(AdvisorRuntime):
    """Each handler (a new one every turn) gets a fresh counter, so the cap resets every turn."""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        handler.counter = UseCounter(handler.counter.limit)
        return handler


class ChildSharesParentCounter(AdvisorRuntime):
    """Child agents count against the parent's counter."""

    def counter_for(self, agent_id):
        return self.counter


class SubagentUsesAdvisorSession(AdvisorRuntime):
    """Sub-agent advisors use `<session>-advisor`, sharing the parent's pooled transport."""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        if self.config.session_id:
            handler.transport_session = self.config.session_id + "-advisor"
        return handler


class StoreKeyIgnored(AdvisorRuntime):
    """Every handler mints its own key even when the store holds one."""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        handler.cache_key = new_cache_key()
        return handler


class UseCountedBeforeFiles(AdvisorHandler):
    """The use is counted before the files are loaded, so a missing file costs a use."""

    def handle(self, raw_input, snapshot):
        tool_input = decode_tool_input(raw_input)
        if tool_input.files and self.runtime.policy is not None and len(tool_input.files) <= 8:
            if not self.counter.take().granted:
                return super().handle(raw_input, snapshot)
            load_files(self.runtime.policy, tool_input.files)  # a bad file raises: the use stays taken
            self.counter._used -= 1  # loaded fine: the reference counts it again below
        return super().handle(raw_input, snapshot)


class UseOnMissingFile(AdvisorRuntime):
    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        return UseCountedBeforeFiles(**{k: getattr(handler, k) for k in
                                        ("runtime", "counter", "cache_key", "transport_session", "parent_session")})


budget_per_handler = _adapter(BudgetPerHandler)
child_shares_parent_counter = _adapter(ChildSharesParentCounter)
subagent_uses_advisor_session = _adapter(SubagentUsesAdvisorSession)
store_key_ignored = _adapter(StoreKeyIgnored)
use_on_missing_file = _adapter(UseOnMissingFile)


# -- wire rules --------------------------------------------------------------------------------

from reference import _anthropic  # noqa: E402
from reference._http import HttpProvider, StreamRequired  # noqa: E402
from reference._provider import ProviderError  # noqa: E402
from reference._wire import HttpRequest  # noqa: E402


def _encode_adapter(name, rewrite, doc):
    """The reference whose encode operation passes the Anthropic body through ``rewrite``."""

    class Broken(ReferenceAdapter):
        def encode_request(self, kind, request):
            encoded = super().encode_request(kind, request)
            if kind != "anthropic":
                return encoded
            body = json.loads(json.dumps(encoded.body))
            rewrite(body, request)
            return HttpRequest(encoded.method, encoded.path, dict(encoded.headers), body)

    Broken.name = f"broken-{name}"
    Broken.__name__ = name
    Broken.__doc__ = doc
    return Broken


def _clear_marks(body):
    for block in [*body.get("system", []), *(b for m in body["messages"] for b in m["content"])]:
        block.pop("cache_control", None)


def _spacing_16(body, request):
    if request.advisor_cache_profile:
        _clear_marks(body)
        _anthropic.assign_advisor_breakpoints(body.get("system", []), body["messages"], spacing=16)


def _final_marked(body, request):
    if request.advisor_cache_profile and body["messages"]:
        body["messages"][-1]["content"][-1]["cache_control"] = _anthropic.advisor_cache_control()


def _five_minute_ttl(body, request):
    for block in [*body.get("system", []), *(b for m in body["messages"] for b in m["content"])]:
        if "cache_control" in block:
            block["cache_control"] = {"type": "ephemeral"}


def _key_sent(body, request):
    if request.prompt_cache_key:
        body["metadata"] = {"user_id": request.prompt_cache_key}


breakpoint_spacing_16 = _encode_adapter("BreakpointSpacing16", _spacing_16, "Advisor breakpoints every 16 blocks.")
final_message_marked = _encode_adapter("FinalMessageMarked", _final_marked, "The final message gets a breakpoint too.")
five_minute_advisor_ttl = _encode_adapter("FiveMinuteAdvisorTTL", _five_minute_ttl,
                                          "Advisor breakpoints keep the default five-minute TTL.")
cache_key_sent_to_anthropic = _encode_adapter("CacheKeySentToAnthropic", _key_sent,
                                              "The cache key travels to Anthropic as metadata.user_id.")


class RetryOnEvery400(HttpProvider):
    """Every HTTP 400 on a plain call is retried as a stream, not only stream-required ones."""

    def _raise_for_status(self, status, body, *, stream):
        if status == 400 and not stream:
            raise StreamRequired(f"HTTP 400: {body[:100]}", status=status)
        super()._raise_for_status(status, body, stream=stream)


class NoStreamRequiredRetry(HttpProvider):
    """A stream-required error is treated like any other error: no retry."""

    def complete(self, request):
        if request.stream or request.reasoning is not None:
            return self._stream(request)
        try:
            return self._plain(request)
        except StreamRequired as exc:
            raise ProviderError(str(exc), status=exc.status) from None


def _http_adapter(http_class):
    class Broken(ReferenceAdapter):
        name = f"broken-{http_class.__name__}"

    Broken.http_provider_class = http_class
    Broken.__name__ = http_class.__name__ + "Adapter"
    Broken.__doc__ = http_class.__doc__
    return Broken


retry_on_every_400 = _http_adapter(RetryOnEvery400)
no_stream_required_retry = _http_adapter(NoStreamRequiredRetry)
