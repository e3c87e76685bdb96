"""A conformant implementation that makes every choice the spec leaves open differently from the reference.

The precision meta-test (``tests/meta/test_alternative.py``) runs the whole
suite against it: every `must` test has to pass, and only `should` tests may
warn. A `must` test it fails is a test that fails conformant code (a test to
fix), not a bug here. It is the mirror of the broken implementations (Bowtie's
fake implementations are the model): those must fail exactly their rule.

What it does differently, each within what the spec and the clarifications allow:

* every declared string is reworded (system prompt, guidance request, in-flight label, advisor-note prefix,
  deduped-file notice, the read tool's line-truncation marker, the budget-spent, no-content and token-limit
  notes), the budget note with {max} before {used};
* a deduped file has another layout: its path and the notice on one line, no blank line after it;
* <args-json> is semantic, not the origin's bytes: Python's json.dumps with spaces, keys in their own order,
  non-ASCII escaped (option ``args_json: semantic``); confinement is not offered;
* unknown transcript fields are tolerated (ignored), and a message of an unknown role passes through with its
  role and content, as the origin does;
* tool calls on a message that is not an assistant's are passed through, not refused: a user or system message
  renders them as tool-call lines after its content (as an assistant message does), a tool message and a message of
  an unknown role ignore them (as the origin's flattening passes such a message through);
* the note: the answer trimmed, then the token-limit note appended after one newline, then the empty check on the
  result (the origin's order): an empty answer cut at the token limit is the token-limit note alone;
* fresh cache keys come from uuid4 (still 32 lower-case hex digits); a store that holds no key for the slot
  `advisor` (`cache_key_store: {}`) mints one on first use and gives it to every handler (a store given an empty key
  still gives none);
* every error message is worded differently, file errors carry the absolute host path, provider errors keep the
  status and the body excerpt in other words;
* the tool's description and property descriptions are other texts, with no maxItems;
* Anthropic thinking budgets come from another table; an empty user message is sent as a one-word text
  instead of being left out.
"""

from __future__ import annotations

import dataclasses
import os
import re
import uuid
from collections.abc import Mapping
from typing import Any

from advisor_reference import (
    REFERENCE_STRINGS,
    AdvisorHandler,
    AdvisorRuntime,
    RenderedMessage,
    RequestBuilder,
    trim_space,
)
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import WIRES, HttpProvider, HttpRequest

STRINGS = dataclasses.replace(
    REFERENCE_STRINGS,
    system_prompt="Act as a senior reviewer for an autonomous coding agent. Study the transcript and reply with "
    "the single most useful piece of advice for its next move.",
    guidance_request="What should the agent watch out for, and what should it do next?",
    inflight_label="Message in progress from the agent:",
    advisor_note_prefix="(advice given earlier, may be outdated)",
    deduped_file_notice="[unchanged: see the full read of this file earlier in the transcript]",
    line_truncation_marker="<<line cut>>",
    budget_spent="No advisor calls remain: {max} allowed, {used} used.",
    no_content_note="(the advisor had nothing to say)",
    token_limit_note="Note: the advice above was truncated by the token limit; a larger max_tokens avoids this.",
)

TRANSCRIPT_FIELDS = frozenset(
    {"role", "content", "tool_calls", "name", "tool_call_id", "reasoning_content", "metadata"}
)
TOOL_CALL_FIELDS = frozenset({"id", "name", "arguments"})
THINKING = {"minimal": 1024, "low": 1536, "medium": 4000, "high": 12000}


class _Builder(RequestBuilder):
    def flatten_message(self, message):
        if message.tool_calls and message.role in ("user", "system"):  # its calls as lines, as an assistant's
            lines = [self.render_tool_call(call) for call in message.tool_calls]
            return RenderedMessage(message.role, "\n".join([message.content, *lines] if message.content else lines))
        return super().flatten_message(message)  # a tool message or an unknown role: its calls are ignored

    def deduped_block(self, path):
        return (f"File: {path} {self.strings.deduped_file_notice}\n",)

    def encode_arguments(self, arguments):
        import json

        return json.dumps(arguments, ensure_ascii=True)


class _Handler(AdvisorHandler):
    def note(self, answer):
        note = trim_space(answer.text)
        if answer.finish_reason == "length":
            note = f"{note}\n{self.runtime.strings.token_limit_note}" if note else self.runtime.strings.token_limit_note
        return note or self.runtime.strings.no_content_note


class _Runtime(AdvisorRuntime):
    handler_class = _Handler

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        store = self.cache_keys
        # a store that mints the slot's key on first use
        stored = store.setdefault("advisor", uuid.uuid4().hex) if store is not None else ""
        handler.cache_key = stored or uuid.uuid4().hex
        return handler


def _anthropic_encode(request, stream):
    # The reference leaves an empty user message out; this one sends it as one word, in its place (before the
    # breakpoints are placed, so they count its block).
    messages = tuple(
        RenderedMessage("user", "(empty)") if m.role == "user" and m.content == "" else m for m in request.messages
    )
    encoded = WIRES["anthropic"].encode(dataclasses.replace(request, messages=messages), stream)
    body = {**encoded.body}
    if "thinking" in body:
        budget = min(THINKING.get(request.reasoning, THINKING["medium"]), request.max_tokens - 1)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return HttpRequest(encoded.method, encoded.path, dict(encoded.headers), body)


ANTHROPIC = dataclasses.replace(WIRES["anthropic"], encode=_anthropic_encode)


class _Http(HttpProvider):
    def __init__(self, kind, base_url, **options):
        super().__init__(kind, base_url, **options)
        if kind == "anthropic":
            self.wire = ANTHROPIC


_HTTP_STATUS = re.compile(r"^\w+ answered HTTP (\d+): (.*)$", re.S)


def _reworded(error: Mapping[str, Any], work_dir: str | None) -> dict[str, Any]:
    out = dict(error)
    message = str(error.get("message", ""))
    status = _HTTP_STATUS.match(message.removeprefix("the advisor call failed: "))
    if status:
        out["message"] = f"upstream failure, status {status[1]}; the provider said: {status[2]}"
    elif error.get("code") == "provider_error":
        out["message"] = f"the model provider could not answer ({message.removeprefix('the advisor call failed: ')})"
    elif error.get("code") == "file_error" and work_dir and "at" in error:
        out["message"] = f"refused to read a file under {os.path.realpath(work_dir)} ({error['at']}): {message}"
    else:
        out["message"] = f"{error.get('code')} at {error.get('at', '(top)')}: rejected"
    return out


def _tolerant(transcript: Any) -> Any:
    """The transcript with unknown fields of messages and tool calls dropped (tolerated, not refused)."""
    if not isinstance(transcript, list):
        return transcript
    out = []
    for message in transcript:
        if isinstance(message, Mapping):
            message = {key: value for key, value in message.items() if key in TRANSCRIPT_FIELDS}
            if isinstance(message.get("tool_calls"), list):
                message["tool_calls"] = [
                    {key: value for key, value in call.items() if key in TOOL_CALL_FIELDS}
                    if isinstance(call, Mapping)
                    else call
                    for call in message["tool_calls"]
                ]
        out.append(message)
    return out


class AlternativeAdapter(ReferenceAdapter):
    name = "alternative"
    open_roles = True
    strings = STRINGS
    builder_class = _Builder
    runtime_class = _Runtime
    http_provider_class = _Http

    def describe(self, params=None):
        described = super().describe(params)
        strings = {name: text for name, text in described["strings"].items() if name != "deduped_file_block"}
        return {**described, "version": "0.0.1", "strings": strings, "options": {"args_json": "semantic"}}

    def tool_definition(self, params=None):
        return {
            "name": "advisor",
            "description": "Consult a reviewer model about the current plan; it reads the whole conversation.",
            "input_schema": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "question": {"type": "string", "description": "The question for the reviewer."},
                    "files": {"type": "array", "items": {"type": "string"}, "description": "Files to attach."},
                },
            },
        }

    def shape(self, params):
        if isinstance(params, Mapping) and "transcript" in params:
            params = {**params, "transcript": _tolerant(params["transcript"])}
        answer = super().shape(params)
        return {"error": _reworded(answer["error"], None)} if "error" in answer else answer

    def encode_request(self, kind, request):
        if kind == "anthropic":
            return ANTHROPIC.encode(request, request.stream)
        return super().encode_request(kind, request)

    def encode(self, params):
        answer = super().encode(params)
        return {"error": _reworded(answer["error"], None)} if "error" in answer else answer

    def scenario(self, params):
        work_dir = params.get("work_dir") if isinstance(params, Mapping) else None
        if isinstance(params, Mapping) and isinstance(params.get("steps"), list):
            params = {**params, "steps": [_tolerant_step(step) for step in params["steps"]]}
        answer = super().scenario(params)
        if "error" in answer:
            return {"error": _reworded(answer["error"], None)}
        answer["calls"] = [
            {"error": _reworded(call["error"], work_dir)} if call and "error" in call else call
            for call in answer["calls"]
        ]
        return answer


def _tolerant_step(step: Any) -> Any:
    if not isinstance(step, Mapping):
        return step
    if isinstance(step.get("call"), Mapping) and isinstance(step["call"].get("snapshot"), list):
        return {**step, "call": {**step["call"], "snapshot": _tolerant(step["call"]["snapshot"])}}
    if isinstance(step.get("concurrent"), list):
        return {**step, "concurrent": [_tolerant_step({"call": call})["call"] for call in step["concurrent"]]}
    return step


class WithoutHttp(AlternativeAdapter):
    """The alternative without an HTTP client, declining black-box HTTP as such an implementation does without a word
    of the protocol's capabilities: describe declares neither wire nor streaming (and no capabilities), and scenario
    answers unsupported_op when runtime.http_provider is set."""

    def describe(self, params=None):
        described = super().describe(params)
        return {**described, "areas": [area for area in described["areas"] if area not in ("wire", "streaming")]}

    def scenario(self, params):
        if (
            isinstance(params, Mapping)
            and isinstance(params.get("runtime"), Mapping)
            and params["runtime"].get("http_provider") is not None
        ):
            return {
                "error": {"code": "unsupported_op", "message": "no HTTP client: runtime.http_provider is not supported"}
            }
        return super().scenario(params)


adapter = AlternativeAdapter()
