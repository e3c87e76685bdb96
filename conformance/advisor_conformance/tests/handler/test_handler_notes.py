"""The note a call returns to the main agent: the answer trimmed, the token-limit note, the no-content note.

Scripted answers give the neutral finish reason (``stop``, ``length``); answers served over HTTP to a loopback provider
give each provider's own (Anthropic's ``stop_reason``, OpenAI's ``finish_reason``, the Responses ``status``).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import example, given

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import Reply, call, declared, recorded_answer, reply, result_of, run, scenario

TEXT = ("Check the float64 (\u03b5) rounding in refill(): compare with a small epsilon or keep tokens as integer "
        "nanoseconds \u2014 never \u00b5s \U0001f642.")


def _note(impl, answer, finish_reason, rule):
    params = scenario([{"call": call(provider=[reply(answer, finish_reason=finish_reason)])}])
    return result_of(run(impl, params, rule), 0, rule, params), params


def check_cut_note(note, kept, limit_note, kept_rule, what, **context):
    """The note of an answer cut at the token limit: ``kept`` (the trimmed answer, blamed on ``kept_rule``), then
    white space (the reference writes a blank line; the separator is not in the text), then the declared token-limit
    note, at the end."""
    __tracebackhide__ = True
    rule = "handler.token-limit-note"
    check(note.endswith(limit_note), rule, f"{what}: the note does not end with the declared token-limit note",
          expected=limit_note, actual=note, **context)
    head = note[:len(note) - len(limit_note)]
    check(head.startswith(kept), kept_rule, f"{what}: the token-limit note does not follow the trimmed answer",
          expected=kept, actual=note, **context)
    check(head[len(kept):].strip() == "", rule,
          f"{what}: something other than white space stands between the answer and the token-limit note",
          actual=note, **context)


def _trim_control(impl, edge):
    """Control: ``edge`` around a word, with white space outside it, is kept (handler.note-trimmed), before a test
    of an answer of ``edge`` alone blames the no-content note."""
    note, params = _note(impl, f" {edge}ok{edge}\n", "stop", "handler.note-trimmed")
    check_equal(note, f"{edge}ok{edge}", "handler.note-trimmed", "the note is not the answer with Go's white space alone trimmed",
                input=params)


@pytest.mark.rule(id="handler.note-trimmed")
@example(pad_left=" \n", text="Check the retry loop.", pad_right="\n\n").via("handler.note-trimmed:ascii-padding")
@example(pad_left="\u3000\u00a0", text="Use a lock.", pad_right="\u2028\u0085").via(
    "handler.note-trimmed:unicode-padding")
@example(pad_left="", text="Done.", pad_right=" \n\t").via("handler.note-trimmed:one-side")
@example(pad_left=" ", text="First this.\n\n  Then\tthat.", pad_right="\n").via("handler.note-trimmed:inner-space")
@example(pad_left="", text="Done.", pad_right="").via("handler.note-trimmed:no-padding")
@given(pad_left=s.go_padding(3),
       text=s.go_trimmed_text(200),
       pad_right=s.go_padding(3))
def test_note_is_the_answer_trimmed(impl, pad_left, text, pad_right):
    """The note is the advisor's answer trimmed of surrounding white space, and nothing inside it changes."""
    note, params = _note(impl, pad_left + text + pad_right, "stop", "handler.note-trimmed")
    check_equal(note, text, "handler.note-trimmed", "the note is not the trimmed answer", input=params)


@pytest.mark.rule(id="handler.note-trimmed")
@pytest.mark.parametrize("edge", s.NOT_GO_SPACES + ["\x1d\x1e\x1f"],
                         ids=["file-separator", "byte-order-mark", "zero-width-space", "other-separators"])
def test_note_keeps_what_go_does_not_count_as_white_space(impl, edge):
    """Characters outside Go's white space (U+001C..U+001F, U+FEFF, U+200B) stay at the edges of the note."""
    text = f"{edge}Check the retry loop first.{edge}"
    note, params = _note(impl, " \n" + text + "\t ", "stop", "handler.note-trimmed")
    check_equal(note, text, "handler.note-trimmed", "the note is not the answer with Go's white space alone trimmed",
                input=params)


@pytest.mark.rule(id="handler.token-limit-note")
@pytest.mark.parametrize("answer, kept", [("  Partial advice: first, ", "Partial advice: first,"),
                                          ("Step one.\n\n\n", "Step one."), ("\u3000Use a lock.\u2028", "Use a lock.")],
                         ids=["padded", "trailing-newlines", "unicode-padding"])
def test_answer_cut_at_the_token_limit_says_so(impl, strings, answer, kept):
    """An answer that stopped on the token limit is trimmed, then gets the declared token-limit note appended after it
    (with white space between)."""
    note, params = _note(impl, answer, "length", "handler.token-limit-note")
    limit_note = declared(strings, "token_limit_note", "handler.token-limit-note")
    check_cut_note(note, kept, limit_note, "handler.note-trimmed", "the token-limit note is missing or misplaced",
                   input=params)


@pytest.mark.rule(id="handler.token-limit-note")
@pytest.mark.parametrize("finish_reason", ["stop", "content_filter"], ids=["stop", "other-reason"])
def test_answer_not_cut_has_no_token_limit_note(impl, finish_reason):
    """An answer that stopped for any reason but the token limit carries no token-limit note."""
    note, params = _note(impl, "Done.", finish_reason, "handler.token-limit-note")
    check_equal(note, "Done.", "handler.token-limit-note", f"an answer that stopped on {finish_reason!r} was marked "
                "as cut", input=params)


@pytest.mark.rule(id="handler.empty-answer-note")
@pytest.mark.parametrize("text", ["", "   ", "\n\t\u3000"], ids=["empty", "spaces", "blanks"])
def test_empty_answer_becomes_the_no_content_note(impl, strings, text):
    """An answer that is empty after trimming becomes the declared no-content note."""
    note, params = _note(impl, text, "stop", "handler.empty-answer-note")
    check_equal(note, declared(strings, "no_content_note", "handler.empty-answer-note"), "handler.empty-answer-note",
                "an empty answer did not become the no-content note", input=params)


@pytest.mark.rule(id="handler.empty-answer-note")
@pytest.mark.parametrize("edge", ["\x1c", "\u200b", "\ufeff"], ids=["file-separator", "zero-width-space",
                                                                   "byte-order-mark"])
def test_answer_of_characters_go_keeps_is_not_empty(impl, edge):
    """An answer of characters Go does not count as white space is not empty: it is the note, not the no-content
    note."""
    _trim_control(impl, edge)
    note, params = _note(impl, f" {edge}\n", "stop", "handler.empty-answer-note")
    check_equal(note, edge, "handler.empty-answer-note", "an answer that is not empty became another note",
                input=params)


@pytest.mark.rule(id="handler.empty-answer-note")
@pytest.mark.rule(id="handler.token-limit-note")
@pytest.mark.parametrize("text", ["", " \n"], ids=["empty", "blank"])
def test_empty_answer_cut_at_the_token_limit_gets_the_token_limit_note(impl, strings, text):
    """An empty answer that stopped on the token limit ends with the token-limit note: after the no-content note (the
    empty check before the note is appended), or alone (the steps in clarifications §8's order: trim, append, then
    the empty check on the result, which is no longer empty)."""
    note, params = _note(impl, text, "length", ["handler.empty-answer-note", "handler.token-limit-note"])
    no_content = declared(strings, "no_content_note", "handler.empty-answer-note")
    limit_note = declared(strings, "token_limit_note", "handler.token-limit-note")
    kept = no_content if note.lstrip().startswith(no_content) else ""
    check_cut_note(note, kept, limit_note, "handler.empty-answer-note",
                   "an empty answer cut at the token limit is neither the token-limit note nor the no-content note "
                   "followed by it", input=params)


# -- answers over HTTP ------------------------------------------------------------------------------------------------

def _recorded(name):
    return json.loads(recorded_answer(name))


def _anthropic(blocks, stop_reason="end_turn"):
    body = _recorded("anthropic-message.json")
    body["content"], body["stop_reason"] = blocks, stop_reason
    return Reply.json(body)


def _openai(content, finish_reason="stop"):
    body = _recorded("openai-completion.json")
    body["choices"][0]["message"]["content"], body["choices"][0]["finish_reason"] = content, finish_reason
    return Reply.json(body)


def _codex(text, reason=None):
    body = _recorded("codex-response.json")
    if text is None:
        body["output"] = []
    else:
        body["output"][0]["content"][0]["text"] = text
    if reason is not None:
        body["status"], body["incomplete_details"] = "incomplete", {"reason": reason}
    return Reply.json(body)


THINKING = {"type": "thinking", "thinking": "hm", "signature": "sig"}


def _text(text):
    return {"type": "text", "text": text}


def _over_http(impl, lb, provider, answered, rule, reasoning=None):
    """The note of one call whose answer the loopback provider serves; a failed call is blamed on ``rule`` (how the
    provider's answer is read)."""
    lb.expect(copy.deepcopy(answered))
    runtime = {"http_provider": {"kind": provider, "base_url": lb.base_url, "timeout_ms": 5000},
               "reasoning": reasoning}
    params = scenario([{"call": call(provider=[])}], runtime=runtime)
    answer = run(impl, params, rule)
    if lb.received:  # a control: the first request streams exactly when reasoning is set
        streamed = isinstance(lb.received[0].body, dict) and bool(lb.received[0].body.get("stream"))
        control = "streaming.reasoning-streams" if reasoning else "streaming.non-streaming-default"
        check(streamed == bool(reasoning), control, f"a call {'with' if reasoning else 'without'} reasoning sent its "
              f"first request {'streamed' if streamed else 'unstreamed'}", input=params)
    shown = {"scenario": params, "answered": answered.body[:2000]}
    return result_of(answer, 0, rule, shown), shown


@pytest.mark.rule(id="handler.note-trimmed")
@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("provider, answered", [
    ("anthropic", _anthropic([THINKING, _text("\n  Use a lock. \n")])),
    ("anthropic", _anthropic([_text("\n\n"), _text("Use a lock."), _text(" \n")])),
    ("openai", _openai("\n  Use a lock. \n")),
    ("codex", _codex("\n  Use a lock. \n")),
], ids=["anthropic", "anthropic-blank-first-block", "openai", "codex"])
def test_answer_over_http_is_trimmed(impl, lb, provider, answered):
    """Each provider's answer, however its text blocks are padded, becomes the note trimmed."""
    note, shown = _over_http(impl, lb, provider, answered, "streaming.non-streaming-default")
    check_equal(note, "Use a lock.", "handler.note-trimmed", "the note is not the provider's answer trimmed",
                input=shown)


TOKEN_LIMIT = [
    ("anthropic", _anthropic([THINKING, _text(TEXT + "\n")], "max_tokens"), None, True),
    ("anthropic", _anthropic([_text(TEXT)], "stop_sequence"), None, False),
    ("openai", _openai(TEXT, "length"), None, True),
    ("openai", _openai(TEXT, "content_filter"), None, False),
    ("codex", _codex(TEXT, "max_output_tokens"), None, True),
    ("codex", _codex(TEXT, "content_filter"), None, False),
    ("anthropic", Reply.recorded("anthropic-stream-max-tokens.sse"), "high", True),
    ("openai", Reply.recorded("openai-stream-length.sse"), "medium", True),
    ("codex", Reply.recorded("codex-stream-incomplete.sse"), "medium", True),
]

#: The rule that reads each provider's answer (plain JSON, or a stream), blamed when its text is not read.
READ_BY = {**{(False, provider): "streaming.non-streaming-default" for provider in ("anthropic", "openai", "codex")},
           (True, "anthropic"): "streaming.anthropic-events", (True, "openai"): "streaming.openai-chunks",
           (True, "codex"): "streaming.openai-chunks"}


@pytest.mark.rule(id="handler.token-limit-note")
@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("provider, answered, reasoning, cut", TOKEN_LIMIT, ids=[
    "anthropic-max-tokens", "anthropic-stop-sequence", "openai-length", "openai-content-filter",
    "responses-max-output-tokens", "responses-content-filter", "anthropic-stream-max-tokens", "openai-stream-length",
    "responses-stream-incomplete"])
def test_each_providers_token_limit_gets_the_note(impl, lb, strings, provider, answered, reasoning, cut):
    """An answer each provider reports as stopped on the token limit gets the token-limit note; one it reports as
    stopped for another reason does not."""
    rule = READ_BY[(reasoning is not None, provider)]
    note, shown = _over_http(impl, lb, provider, answered, rule, reasoning)
    if not cut:
        check(note.startswith(TEXT), rule, "the provider's answer was not read to its text", input=shown,
              expected=TEXT, actual=note)
        check_equal(note, TEXT, "handler.token-limit-note", "an answer that did not stop on the token limit was marked "
                    "as cut", input=shown)
        return
    limit_note = declared(strings, "token_limit_note", "handler.token-limit-note")
    check(note.startswith(TEXT), rule, "the provider's answer was not read to its text", input=shown, expected=TEXT,
          actual=note)
    check_cut_note(note, TEXT, limit_note, rule, "the answer cut at the token limit did not get the token-limit note",
                   input=shown)


@pytest.mark.rule(id="handler.empty-answer-note")
@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("provider, answered", [
    ("anthropic", _anthropic([THINKING])), ("anthropic", _anthropic([_text(""), _text(" \n")])),
    ("openai", _openai(None)), ("openai", _openai("")), ("codex", _codex(None)),
], ids=["anthropic-thinking-only", "anthropic-blank-blocks", "openai-null-content", "openai-empty",
        "responses-no-message"])
def test_empty_answer_over_http_becomes_the_no_content_note(impl, lb, strings, provider, answered):
    """A provider answer with no text, or only blank text, becomes the declared no-content note."""
    note, shown = _over_http(impl, lb, provider, answered, "streaming.non-streaming-default")
    check_equal(note, declared(strings, "no_content_note", "handler.empty-answer-note"), "handler.empty-answer-note",
                "an empty answer did not become the no-content note", input=shown)
