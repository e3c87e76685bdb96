"""Flattening of tool calls, tool results and advisor notes (spec: Request flow; clarifications §2)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import (body, flattened, params, parse_args, rendered_arguments, shape, tool_call_lines,
                                         with_tool_call)

JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
USER = {"role": "user", "content": "look at the failing test"}
#: A message after the one under test: its flattening is checked, not the in-flight handling of a last message.
AFTER = {"role": "user", "content": "go on"}


def _closed(messages):
    """Close a transcript with a user message so no message is taken out as in flight."""
    return [*messages, {"role": "user", "content": "go on"}]


def _second(impl, request, rule):
    """The second message of the flattened snapshot (the one after the opening user message)."""
    return flattened(shape(impl, request, rule), 1, rule, input=request)


@pytest.mark.rule(id="flatten.tool-call-line")
def test_tool_call_line_shape(impl):
    """A tool call renders as `[tool_call: <name> <args-json>]` on a line of its own (byte for byte where the
    implementation declares the origin's JSON encoding)."""
    request = params(with_tool_call({"path": "src/app.py"}, name="read"))
    assistant = _second(impl, request, "flatten.tool-call-line")["content"]
    if impl.option("args_json", "semantic") == "origin":
        check_equal(assistant, '[tool_call: read {"path":"src/app.py"}]', "flatten.tool-call-line",
                    "the tool call is not rendered as [tool_call: <name> <args-json>]", input=request)
        return
    check(assistant.startswith("[tool_call: read ") and assistant.endswith("]") and "\n" not in assistant,
          "flatten.tool-call-line", "the tool call is not one line `[tool_call: read <args-json>]`", input=request,
          actual=assistant)
    check_equal(parse_args(assistant[len("[tool_call: read "):-1], "flatten.tool-call-line", request),
                {"path": "src/app.py"}, "flatten.tool-call-line", "the line's <args-json> is not the call's arguments",
                input=request, actual=assistant)


@pytest.mark.rule(id="flatten.tool-call-line")
@given(call=s.tool_calls())
def test_every_call_becomes_one_line(impl, call):
    """Each tool call yields one `[tool_call: ...]` line naming the tool."""
    request = params(_closed([USER, {"role": "assistant", "content": "", "tool_calls": [call]}]))
    assistant = _second(impl, request, "flatten.tool-call-line")
    lines = tool_call_lines(assistant["content"])
    check(len(lines) == 1 and lines[0][0] == call["name"] and assistant["content"].count("\n") == 0,
          "flatten.tool-call-line", "the call is not one [tool_call: <name> ...] line", input=request,
          actual=assistant["content"])


@pytest.mark.rule(id="flatten.assistant-with-calls")
@given(message=s.assistant_messages(with_calls=True))
def test_content_then_one_line_per_call(impl, message):
    """An assistant message with calls is its content, a newline if non-empty, then the call lines joined by newlines."""
    request = params(_closed([USER, message]))
    got = _second(impl, request, "flatten.assistant-with-calls")
    check_equal(got["role"], "assistant", "flatten.assistant-with-calls", "the message changed role", input=request)
    text = got["content"]
    head = message["content"] + "\n" if message["content"] else ""
    check(text.startswith(head), "flatten.assistant-with-calls", "the content does not come first, then a newline",
          input=request, actual=text)
    rest = text[len(head):].split("\n")
    check(len(rest) == len(message["tool_calls"]) and all(line.startswith("[tool_call: ") and line.endswith("]")
                                                          for line in rest),
          "flatten.assistant-with-calls", "after the content there is not exactly one line per call, no trailing newline",
          input=request, actual=text)
    names = [line[len("[tool_call: "):].split(" {", 1)[0] for line in rest]
    check_equal(names, [call["name"] for call in message["tool_calls"]], "flatten.assistant-with-calls",
                "the call lines are not in the calls' order", input=request)


@pytest.mark.rule(id="flatten.call-ids-hidden")
def test_call_ids_are_not_rendered(impl):
    """Tool-call ids appear nowhere in the request."""
    call_id = "call_ZX81secretid"
    transcript = [USER, {"role": "assistant", "content": "reading", "tool_calls": [
        {"id": call_id, "name": "read", "arguments": {"path": "a.go"}}]},
        {"role": "tool", "name": "read", "tool_call_id": call_id, "content": "package a"}]
    request = params(transcript)
    messages = shape(impl, request, "flatten.call-ids-hidden")
    check(all(call_id not in message["content"] for message in messages), "flatten.call-ids-hidden",
          "a tool-call id was rendered", input=request, actual=messages)


@pytest.mark.rule(id="flatten.call-ids-hidden")
@given(message=s.assistant_messages(with_calls=True), more=st.lists(s.tool_calls(), min_size=1, max_size=3))
def test_parallel_call_ids_are_not_rendered(impl, message, more):
    """Ids of parallel calls, and of the results that answer them, appear nowhere in the request."""
    calls = [{**call, "id": f"call_HIDDEN{index:02d}q"} for index, call in enumerate([*message["tool_calls"], *more])]
    results = [{"role": "tool", "name": call["name"], "tool_call_id": call["id"], "content": "ok"} for call in calls]
    request = params([USER, {**message, "tool_calls": calls}, *results])
    messages = shape(impl, request, "flatten.call-ids-hidden")
    shown = sorted({call["id"] for call in calls for m in messages if call["id"] in m["content"]})
    check(not shown, "flatten.call-ids-hidden", f"tool-call ids were rendered: {shown}", input=request,
          actual=messages)


@pytest.mark.rule(id="flatten.args-json")
@given(arguments=st.dictionaries(st.text(max_size=10), s.json_values(strings=st.text(max_size=40)), max_size=5))
def test_args_json_parses_back(impl, arguments):
    """The <args-json> of a call with no string long enough to elide parses back to exactly its arguments."""
    _, parsed = rendered_arguments(impl, arguments, "flatten.args-json")
    check_equal(oracle.normalise_numbers(parsed), oracle.normalise_numbers(arguments), "flatten.args-json",
                "the <args-json> does not parse back to the arguments", input=arguments)


def _requires_origin_encoding(impl):
    if impl.option("args_json", "semantic") != "origin":
        pytest.skip(f"{impl.name} declares args_json={impl.option('args_json', 'semantic')}, not the origin encoding")


@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"b": 1, "a": [True, None, 2.5]}, '{"a":[true,null,2.5],"b":1}'),
        ({"html": "<a href='x'>&</a>"}, '{"html":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e"}'),
        ({"sep": "line\u2028para\u2029end"}, '{"sep":"line\\u2028para\\u2029end"}'),
        ({"ctl": "tab\tnl\ncr\r\x01\x7f", "q": "\"\\"}, '{"ctl":"tab\\tnl\\ncr\\r\\u0001\x7f","q":"\\"\\\\"}'),
        ({"n": [1.0, 100.0, 1e21, 1e-7, 0.000001, 123456789012345678901234567890, -0.5]},
         '{"n":[1,100,1e+21,1e-7,0.000001,1.2345678901234568e+29,-0.5]}'),
        ({"é": "ü", "z": {}, "A": []}, '{"A":[],"z":{},"é":"ü"}'),
        ({"cut": "a" * 998 + "€" * 2}, '{"cut":"' + "a" * 998 + '\\ufffd\\ufffd\u2026[elided, 1004 bytes total]"}'),
    ],
    ids=["sorted-compact", "html-escapes", "line-separators", "control-chars", "float64-numbers", "key-order-bytes",
         "dangling-bytes"],
)
def test_origin_encoding_bytes(impl, arguments, expected):
    """With the origin encoding declared, <args-json> is byte-for-byte Go's encoding of the decoded arguments."""
    _requires_origin_encoding(impl)
    text, _ = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    check_equal(text, expected, "flatten.args-json-origin-encoding", "the <args-json> is not the origin's encoding",
                input=arguments)


@pytest.mark.rule(id="flatten.args-json-origin-encoding")
@given(arguments=s.arguments())
def test_origin_encoding_is_compact_sorted_and_escaped(impl, arguments):
    """With the origin encoding declared, <args-json> is compact, key-sorted and free of raw <, >, &, U+2028, U+2029."""
    _requires_origin_encoding(impl)
    text, parsed = rendered_arguments(impl, arguments, "flatten.args-json-origin-encoding")
    for char in "<>&\u2028\u2029":
        check(char not in text, "flatten.args-json-origin-encoding", f"{char!r} is not escaped", input=arguments,
              actual=text)

    def keys_sorted(pairs):
        keys = [key.encode("utf-8") for key, _ in pairs]
        check(keys == sorted(keys), "flatten.args-json-origin-encoding", "object keys are not sorted by their bytes",
              input=arguments, actual=text)
        return dict(pairs)

    json.loads(text, object_pairs_hook=keys_sorted)
    outside_strings = JSON_STRING.sub("", text)
    check(not any(char.isspace() for char in outside_strings), "flatten.args-json-origin-encoding",
          "the encoding is not compact: white space outside strings", input=arguments, actual=text)


@pytest.mark.rule(id="flatten.tool-result")
@given(name=s.tool_names().filter(lambda n: n != "advisor"), content=st.text(min_size=1, max_size=80))
@example(name="bash", content="  padded output\n")
def test_tool_result_becomes_user_message(impl, name, content):
    """A tool result is a user message `[tool_result: <name>]`, a newline, then the content."""
    transcript = [USER, {"role": "tool", "name": name, "tool_call_id": "call_1", "content": content}, AFTER]
    request = params(transcript)
    got = _second(impl, request, "flatten.tool-result")
    check_equal(got, {"role": "user", "content": f"[tool_result: {name}]\n{content}"}, "flatten.tool-result",
                "the tool result is not rendered as [tool_result: <name>] + newline + content", input=request)


@pytest.mark.rule(id="flatten.empty-tool-result")
@pytest.mark.parametrize("name", ["bash", "advisor"])
def test_empty_result_reads_empty(impl, strings, name):
    """An empty tool result (of any tool, the advisor's included) is written as `(empty)`."""
    transcript = [USER, {"role": "tool", "name": name, "tool_call_id": "call_1", "content": ""}, AFTER]
    request = params(transcript)
    got = _second(impl, request, "flatten.empty-tool-result")
    prefix = strings["advisor_note_prefix"] if name == "advisor" else f"[tool_result: {name}]"
    check_equal(got["content"], f"{prefix}\n(empty)", "flatten.empty-tool-result",
                "an empty tool result is not written as (empty)", input=request)


@pytest.mark.rule(id="flatten.tool-result-uncapped")
def test_large_tool_results_are_whole(impl):
    """A 200 KB tool result reaches the request whole, without elision."""
    content = ("line of build output " * 10)[:200] * 1000
    transcript = [USER, {"role": "tool", "name": "bash", "tool_call_id": "call_1", "content": content}, AFTER]
    request = params(transcript)
    got = _second(impl, request, "flatten.tool-result-uncapped")
    check_equal(got["content"], f"[tool_result: bash]\n{content}", "flatten.tool-result-uncapped",
                "a large tool result was capped or changed", input=request)


@pytest.mark.rule(id="flatten.advisor-note")
def test_advisor_prefix_is_not_a_tool_result(strings):
    """The declared advisor-note prefix is not `[tool_result: advisor]`."""
    prefix = strings["advisor_note_prefix"]
    check(prefix.strip() != "[tool_result: advisor]" and not prefix.startswith("[tool_result:"),
          "flatten.advisor-note", "the declared advisor-note prefix reads as a plain tool result", actual=prefix)


@pytest.mark.rule(id="flatten.advisor-note")
@given(content=st.text(min_size=1, max_size=120))
def test_advisor_result_becomes_revisable_note(impl, strings, content):
    """An advisor result is a user message: the declared note prefix, a newline, then the content."""
    transcript = [USER, {"role": "tool", "name": "advisor", "tool_call_id": "call_9", "content": content}]
    request = params(transcript)
    got = _second(impl, request, "flatten.advisor-note")
    check_equal(got, {"role": "user", "content": f"{strings['advisor_note_prefix']}\n{content}"},
                "flatten.advisor-note", "the advisor result is not rendered with the declared note prefix",
                input=request)


REASONING = "SECRET-REASONING-7f3a"
SIGNATURE = "SECRET-SIGNATURE-91c2"


@pytest.mark.rule(id="flatten.reasoning-cleared")
@given(transcript=s.transcripts(max_size=5), where=st.integers(0, 4))
def test_reasoning_never_reaches_the_request(impl, transcript, where):
    """Reasoning content of any message, the in-flight one included, appears nowhere in the request."""
    transcript = [*transcript, {"role": "assistant", "content": "thinking it over", "reasoning_content": REASONING,
                                "tool_calls": [{"id": "c", "name": "bash", "arguments": {"cmd": "ls"}}]}]
    transcript.insert(min(where, len(transcript) - 1),
                      {"role": "assistant", "content": "ok", "reasoning_content": REASONING})
    request = params(transcript)
    messages = shape(impl, request, "flatten.reasoning-cleared")
    check(all(REASONING not in message["content"] for message in messages), "flatten.reasoning-cleared",
          "reasoning content reached the request", input=request, actual=messages)


@pytest.mark.rule(id="flatten.metadata-cleared")
def test_metadata_never_reaches_the_request(impl):
    """Provider metadata such as a thinking signature appears nowhere in the request."""
    meta = {"anthropic": {"thinking_signature": SIGNATURE}}
    transcript = [{"role": "user", "content": "hi", "metadata": meta},
                  {"role": "assistant", "content": "hello", "metadata": meta},
                  {"role": "assistant", "content": "", "metadata": meta,
                   "tool_calls": [{"id": "c", "name": "bash", "arguments": {}}]},
                  {"role": "tool", "name": "bash", "tool_call_id": "c", "content": "ok", "metadata": meta}]
    request = params(transcript)
    messages = shape(impl, request, "flatten.metadata-cleared")
    check(all(SIGNATURE not in message["content"] for message in messages), "flatten.metadata-cleared",
          "provider metadata reached the request", input=request, actual=messages)


@pytest.mark.rule(id="flatten.plain-messages-kept")
@given(plain=st.lists(st.one_of(s.system_messages(), s.user_messages(), s.assistant_messages(with_calls=False)),
                      max_size=6))
@example(plain=[{"role": "assistant", "content": "ends with white space \n"}])
def test_plain_messages_keep_role_and_content(impl, plain):
    """System, user and call-free assistant messages keep their role and content."""
    request = params(_closed(plain))
    got = body(shape(impl, request, "flatten.plain-messages-kept"))
    expected = [{"role": m["role"], "content": m["content"]} for m in _closed(plain)]
    check_equal(got, expected, "flatten.plain-messages-kept", "a plain message changed", input=request)


@pytest.mark.rule(id="flatten.deterministic")
@given(transcript=s.transcripts(), question=s.questions())
def test_same_input_same_bytes(impl, transcript, question):
    """Shaping the same input twice gives identical messages and leaves the input as it was."""
    request = params(transcript, question=question)
    first = shape(impl, request, "flatten.deterministic", check_mutation=True)
    second = shape(impl, request, "flatten.deterministic", check_mutation=True)
    check_equal(second, first, "flatten.deterministic", "two calls with the same input differ", input=request)
