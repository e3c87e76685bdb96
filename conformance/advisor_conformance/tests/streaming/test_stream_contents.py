"""Provider streams as real providers and gateways send them (clarifications §8 WIRE; the providers' documents):
chunks after the chat stream's finish chunk (a usage-only chunk, chunks whose finish_reason is null, content-filter
results), answer text that holds the chat stream's end marker or looks like event syntax, events and fields the
advisor does not use, and Responses events without their `event:` line. Each is read to the same note as the plain
stream: its text, and the token-limit note exactly when the stop reason said so.

Responses events carry their type twice, as the event name and as the data's `type` (the API reference documents
every streaming event by its `type`; the official SDKs read the data's `type` and never the name). A stream whose
events come without their names (as some gateways and servers of the Responses protocol send them) is read by the
data's `type`. Which of the two a reader trusts when they disagree is left open: no document shows them differing.
"""

from __future__ import annotations

import json
import re

import pytest

from advisor_conformance.scenarios import Reply

from ..common.providers import speaks
from .answers import _chunk, _event, anthropic_stream, chat_stream, read, responses_stream
from .deltas import _with_event

#: Every test of this module is over HTTP (to the suite's loopback provider).
pytestmark = pytest.mark.needs(capabilities=["http"])

TEXT = ["Check the float64 (\u03b5)", " rounding in refill() \u2014 \U0001f642."]
WHOLE = "".join(TEXT)

#: A chunk after the finish chunk whose choice has no delta text and a null finish reason.
NULL_FINISH = _chunk({}, None)
#: Azure OpenAI's content-filter annotation chunks: the prompt's results first (no choices), and the completion's
#: results after its finish chunk, with a null finish reason.
PROMPT_FILTER = {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": [
    {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]}
COMPLETION_FILTER = {**_chunk({}, None), "choices": [{"index": 0, "delta": {}, "finish_reason": None,
                                                      "content_filter_results": {"hate": {"filtered": False,
                                                                                          "severity": "safe"}}}]}
#: Fields the advisor does not read, on every kind of chunk: logprobs, a refusal of null, an obfuscation pad.
EXTRA_FIELDS = {**_chunk({"content": "", "refusal": None}, None), "system_fingerprint": "fp_1", "obfuscation": "x7Q",
                "usage": None}


def _chat_with_prompt_filter(answered):
    return Reply.events(_with_event(answered, "data: " + json.dumps(PROMPT_FILTER) + "\n\n", 0).body)


CHAT = {
    "null-finish-after-length": (chat_stream(TEXT, "length", trailing=[NULL_FINISH, NULL_FINISH]), [WHOLE], True),
    "null-finish-after-stop": (chat_stream(TEXT, "stop", trailing=[NULL_FINISH]), [WHOLE], False),
    "filter-results-after-length": (
        _chat_with_prompt_filter(chat_stream(TEXT, "length", trailing=[COMPLETION_FILTER])), [WHOLE], True),
    "unused-fields": (chat_stream(TEXT, trailing=[EXTRA_FIELDS]), [WHOLE], False),
    "end-marker-in-text": (chat_stream(["The stream ends with ", "[DONE]", " and data: [DONE]\n\n, not \u00e9"]),
                           ["The stream ends with [DONE] and data: [DONE]\n\n, not \u00e9"], False),
}


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("case", list(CHAT))
@speaks("openai")
def test_chat_stream_as_providers_send_it(impl, lb, strings, case):
    """A chat stream with chunks after its finish chunk (null finish reasons, content-filter results), fields the
    advisor does not read, or an answer that holds the end marker `[DONE]` is read to its text, with the token-limit
    note exactly when its finish chunk said `length`."""
    answered, parts, cut = CHAT[case]
    read(impl, lb, strings, "openai", answered, parts, cut, "streaming.openai-chunks", reasoning="medium")


UNUSED_ANTHROPIC = [
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
        "type": "citations_delta", "citation": {"type": "char_location", "cited_text": "\u03b5", "document_index": 0,
                                                "start_char_index": 0, "end_char_index": 1}}}),
    ("message_annotation", {"type": "message_annotation", "note": "an event type the API may add later"}),
    ("ping", {"type": "ping"}),
]


def _anthropic_with(events, at):
    answered = anthropic_stream([("text", TEXT)], "max_tokens")
    for name, data in reversed(events):
        answered = _with_event(answered, _event(name, data), at)
    return answered


ANTHROPIC = {
    "unused-events": (_anthropic_with(UNUSED_ANTHROPIC, 4), [WHOLE], True),
    "event-syntax-in-text": (anthropic_stream([("text", ["event: message_stop\ndata: {\"type\": \"message_stop\"}",
                                                         "\n\n\u2014 message_stop"])]),
                             ['event: message_stop\ndata: {"type": "message_stop"}\n\n\u2014 message_stop'], False),
}


@pytest.mark.rule(id="streaming.anthropic-events")
@pytest.mark.parametrize("case", list(ANTHROPIC))
@speaks("anthropic")
def test_anthropic_stream_as_providers_send_it(impl, lb, strings, case):
    """An Anthropic stream with events the advisor does not use (a citations delta, an event type the API may add,
    pings) or an answer that looks like event syntax (`event: message_stop`) is read to its text and stop reason."""
    answered, parts, cut = ANTHROPIC[case]
    read(impl, lb, strings, "anthropic", answered, parts, cut, "streaming.anthropic-events", reasoning="high")


def _without_names(answered):
    """A Responses stream with its `event:` lines left out: data lines only, each carrying its `type`."""
    return Reply.events(re.sub(r"(?m)^event: [^\n]*\n", "", answered.body))


UNUSED_RESPONSES = [
    ("response.in_progress", {"type": "response.in_progress", "response": {"id": "resp_1", "status": "in_progress"}}),
    ("response.content_part.added", {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0,
                                     "content_index": 0, "part": {"type": "output_text", "text": "",
                                                                  "annotations": []}}),
    ("response.output_text.annotation.added", {"type": "response.output_text.annotation.added", "item_id": "msg_1",
                                               "output_index": 0, "content_index": 0, "annotation_index": 0,
                                               "annotation": {"type": "url_citation", "url": "https://example.com"}}),
]

RESPONSES = {
    "without-event-names": (_without_names(responses_stream([TEXT])), [WHOLE], False),
    "without-event-names-incomplete": (_without_names(responses_stream([TEXT], incomplete="max_output_tokens")),
                                       [WHOLE], True),
    "unused-events": (Reply.events("".join(_event(name, data) for name, data in UNUSED_RESPONSES[:1])
                                   + responses_stream([TEXT]).body.replace(
                                       "event: response.output_text.delta",
                                       "".join(_event(name, data) for name, data in UNUSED_RESPONSES[1:])
                                       + "event: response.output_text.delta", 1)), [WHOLE], False),
    "event-syntax-in-text": (responses_stream([["event: response.completed\ndata: {\"type\": \"response.completed\"}",
                                                "\n\n\u2014 done"]]),
                             ['event: response.completed\ndata: {"type": "response.completed"}\n\n\u2014 done'], False),
}


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("case", list(RESPONSES))
@speaks("codex")
def test_responses_stream_as_providers_send_it(impl, lb, strings, case):
    """A Responses stream whose events come without their `event:` names (read by the data's `type`), with events the
    advisor does not use, or with an answer that looks like event syntax is read to its text and finish."""
    answered, parts, cut = RESPONSES[case]
    read(impl, lb, strings, "codex", answered, parts, cut, "streaming.openai-chunks", reasoning="medium")
