"""Caller text carried byte for byte through ``shape`` (clarifications §2, §4, §5): tool results, the advisor's
earlier notes, plain messages, an assistant's text before its calls and tool-call arguments reach the request as they
were given (files/, question/ and inflight/ hold the carriage of the other parts of a request). No byte-order mark is
removed, no Unicode normalisation (NFC, NFD, NFKC) applied, no line end changed, no control or invisible character
dropped (``advisor_conformance.carriage`` names the library defaults that do).

With the origin encoding declared, the <args-json> also writes these texts raw and sorts object keys by their UTF-8
bytes (Go's ``encoding/json``), which orders characters beyond U+FFFF after U+E000..U+FFFF, unlike a sort by UTF-16
code units (JavaScript's default sort, Java's ``String.compareTo``).
"""

from __future__ import annotations

import json

import pytest

from advisor_conformance.carriage import JSON_RAW_TEXTS, KEY_ORDERS, TEXTS
from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.shaping import flattened, params, rendered_arguments, shape, with_tool_call

from ..common.carriage import CLASSES, _carried, _head_and_rest

# -- files ------------------------------------------------------------------------------------------------------------


# -- the question -----------------------------------------------------------------------------------------------------


# -- transcript messages --------------------------------------------------------------------------------------------

def _snapshot_message(impl, transcript, index, rule):
    request = params(transcript)
    return flattened(shape(impl, request, rule), index, rule, input=request)["content"], request


@pytest.mark.rule(id="flatten.tool-result")
@pytest.mark.parametrize("name", CLASSES)
def test_tool_result_is_carried_byte_for_byte(impl, name):
    """A tool result's content follows its `[tool_result: <name>]` line exactly as the tool returned it."""
    transcript = [{"role": "user", "content": "run it"},
                  {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "bash", "arguments": {}}]},
                  {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": TEXTS[name]}]
    got, request = _snapshot_message(impl, transcript, 2, "flatten.tool-result")
    rest = _head_and_rest(got, "[tool_result: bash]\n", "flatten.tool-result", "the tool result", request)
    _carried(rest, TEXTS[name], "flatten.tool-result", "the tool result's content was not carried byte for byte",
             request)


@pytest.mark.rule(id="flatten.advisor-note")
@pytest.mark.parametrize("name", CLASSES)
def test_earlier_advisor_note_is_carried_byte_for_byte(impl, strings, name):
    """An earlier advisor result follows the declared prefix exactly as it was returned."""
    transcript = [{"role": "user", "content": "ask the advisor"},
                  {"role": "assistant", "content": "", "tool_calls": [{"id": "a1", "name": "advisor", "arguments": {}}]},
                  {"role": "tool", "name": "advisor", "tool_call_id": "a1", "content": TEXTS[name]}]
    got, request = _snapshot_message(impl, transcript, 2, "flatten.advisor-note")
    rest = _head_and_rest(got, strings["advisor_note_prefix"] + "\n", "flatten.advisor-note", "the advisor note",
                          request)
    _carried(rest, TEXTS[name], "flatten.advisor-note", "the earlier note was not carried byte for byte", request)


@pytest.mark.rule(id="flatten.plain-messages-kept")
@pytest.mark.parametrize("role", ["system", "user", "assistant"])
@pytest.mark.parametrize("name", CLASSES)
def test_plain_message_is_carried_byte_for_byte(impl, name, role):
    """A system, user or assistant message without calls keeps its text exactly."""
    transcript = [{"role": "user", "content": "start"}, {"role": role, "content": TEXTS[name]},
                  {"role": "user", "content": "go on"}]
    got, request = _snapshot_message(impl, transcript, 1, "flatten.plain-messages-kept")
    _carried(got, TEXTS[name], "flatten.plain-messages-kept", f"the {role} message was not kept byte for byte",
             request)


@pytest.mark.rule(id="flatten.assistant-with-calls")
@pytest.mark.parametrize("name", CLASSES)
def test_assistant_text_before_its_calls_is_carried_byte_for_byte(impl, name):
    """The text of an assistant message with calls opens its flattened message exactly as written."""
    transcript = with_tool_call({"path": "a.go"}, name="read", content=TEXTS[name])
    got, request = _snapshot_message(impl, transcript, 1, "flatten.assistant-with-calls")
    text, newline, _ = got.rpartition("\n[tool_call: ")
    check(bool(newline), "flatten.assistant-with-calls", "no tool-call line follows the text", input=request,
          actual=got)
    _carried(text, TEXTS[name], "flatten.assistant-with-calls", "the assistant's text was not carried byte for byte",
             request)


# -- tool-call arguments --------------------------------------------------------------------------------------------

@pytest.mark.rule(id="flatten.args-json")
@pytest.mark.parametrize("name", CLASSES)
def test_argument_strings_and_keys_are_carried_byte_for_byte(impl, name):
    """Argument strings, at the top and nested, and object keys parse back exactly as given."""
    arguments = {"text": TEXTS[name], TEXTS[name]: 1, "nested": [{"deep": TEXTS[name]}]}
    _, parsed = rendered_arguments(impl, arguments, "flatten.args-json")
    if parsed != arguments:
        shown = json.dumps(parsed, ensure_ascii=True)[:600]
        raise violation("flatten.args-json", "the <args-json> does not parse back to the arguments as given "
                        f"(every character escaped here): {shown}", input=arguments, expected=arguments, actual=parsed)


ORIGIN_ENCODING = pytest.mark.needs(options={"args_json": "origin"})


def _go_object(pairs):
    """Go's compact encoding of an object of strings and integers, for strings it writes raw (no <, >, &, control
    characters, U+2028 or U+2029): keys in the order given."""
    return "{" + ",".join(f'"{key}":' + (f'"{value}"' if isinstance(value, str) else str(value))
                          for key, value in pairs) + "}"


@ORIGIN_ENCODING
@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@pytest.mark.parametrize("name", list(JSON_RAW_TEXTS))
def test_origin_encoding_writes_carried_text_raw(impl, name):
    """With the origin encoding declared, a string and a key of these classes are written raw, byte for byte."""
    text = JSON_RAW_TEXTS[name]
    arguments = {"s": text, text: 1}
    expected = _go_object(sorted(arguments.items(), key=lambda pair: pair[0].encode("utf-8")))
    got, _ = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    _carried(got, expected, "flatten.args-json-origin-encoding", "the <args-json> is not the origin's bytes",
             arguments)


@ORIGIN_ENCODING
@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@pytest.mark.parametrize("case", list(KEY_ORDERS))
def test_origin_encoding_sorts_keys_by_their_utf8_bytes(impl, case):
    """With the origin encoding declared, object keys (at the top and nested) are in the order of their UTF-8 bytes,
    as Go sorts map keys: not by UTF-16 code units, not case-insensitively, not numerically, not by locale."""
    given, ordered = KEY_ORDERS[case]
    arguments: dict = {"outer": {key: index for index, key in enumerate(given)}}
    arguments.update({key: index for index, key in enumerate(given)})
    top = sorted(arguments, key=lambda key: key.encode("utf-8"))
    inner = _go_object((key, given.index(key)) for key in ordered)
    expected = "{" + ",".join(f'"{key}":' + (inner if key == "outer" else str(arguments[key])) for key in top) + "}"
    got, parsed = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    check_equal(parsed, arguments, "flatten.args-json", "the <args-json> does not parse back to the arguments",
                input=arguments)
    nested = list(parsed["outer"]) if isinstance(parsed, dict) and isinstance(parsed.get("outer"), dict) else []
    if got != expected:
        raise violation("flatten.args-json-origin-encoding", "object keys are not in the order of their UTF-8 bytes: "
                        f"the nested keys came in the order {[ascii(key) for key in nested]}, Go's order is "
                        f"{[ascii(key) for key in ordered]}", input=arguments, expected=expected, actual=got)

