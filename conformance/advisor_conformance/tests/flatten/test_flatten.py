"""Flattening of tool calls: the call lines, the assistant message that holds them, hidden ids (spec: Request flow;
clarifications §2). Arguments: test_flatten_args.py; results: test_flatten_results.py; what is cleared or kept:
test_flatten_cleared.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import (
    check_segments,
    flattened,
    params,
    parse_args,
    shape,
    tool_call_lines,
    with_tool_call,
)

USER = {"role": "user", "content": "look at the failing test"}
#: A message after the one under test: its flattening is checked, not the in-flight handling of a last message.
AFTER = {"role": "user", "content": "go on"}


def _closed(messages):
    """Close a transcript with a user message so no message is taken out as in flight."""
    return [*messages, AFTER]


def _second(impl, request, rule):
    """The second message of the flattened snapshot (the one after the opening user message)."""
    return flattened(shape(impl, request, rule), 1, rule, input=request)


def _call(name, arguments, call_id="call_1"):
    return {"id": call_id, "name": name, "arguments": arguments}


def _check_line(line, name, arguments, request):
    """``line`` is one `[tool_call: <name> <args-json>]` line (flatten.tool-call-line) whose <args-json> parses back to
    ``arguments`` (flatten.args-json; arguments with strings to elide are the elision rules' tests)."""
    head = f"[tool_call: {name} "
    check(line.startswith(head) and line.endswith("]") and "\n" not in line, "flatten.tool-call-line",
          f"the call is not one line `{head}<args-json>]`", input=request, actual=line)
    parsed = parse_args(line[len(head):-1], "flatten.args-json", request)
    if oracle.cap_arguments(arguments) != arguments:
        return
    check_equal(oracle.normalise_numbers(parsed), oracle.normalise_numbers(oracle.cap_arguments(arguments)),
                "flatten.args-json", "the line's <args-json> is not the call's arguments", input=request, actual=line)


def _lone_line(impl, call):
    """Control: the line of ``call`` made alone by a message without content is one `[tool_call: <name> ...]` line
    (flatten.tool-call-line), so a wrong line is never blamed on the message that joins the lines."""
    request = params(_closed([USER, {"role": "assistant", "content": "", "tool_calls": [call]}]))
    line = _second(impl, request, "flatten.tool-call-line")["content"]
    head = f"[tool_call: {call['name']} "
    check(line.startswith(head) and line.endswith("]") and "\n" not in line, "flatten.tool-call-line",
          f"the call is not one line `{head}<args-json>]`", input=request, actual=line)
    return line


def _ids_control(request, messages):
    """Control: no call id of ``request`` is in the messages (flatten.call-ids-hidden)."""
    ids = {call["id"] for m in request["transcript"] for call in m.get("tool_calls") or [] if call.get("id")}
    shown = sorted(i for i in ids if any(i in message["content"] for message in messages))
    check(not shown, "flatten.call-ids-hidden", f"tool-call ids were rendered: {shown}", input=request,
          actual=messages)


# -- flatten.tool-call-line ---------------------------------------------------------------------------------------


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
    _check_line(assistant, "read", {"path": "src/app.py"}, request)


@pytest.mark.rule(id="flatten.tool-call-line")
@pytest.mark.parametrize("name, arguments", [
    ("advisor", {}),
    ("edit", {"path": "a.go", "edits": [{"old": "x := 1", "new": "x := 2"}], "options": {"dry_run": False, "n": 3}}),
    ("bash", {"command": "printf 'a\\nb'\n echo ]", "note": "[tool_call: fake {}]\n[tool_result: fake]"}),
    ("mcp__github__get_issue", {"number": 7}),
    ("ReadFile", {"path": "README.md"}),
    ("fs.read-2", {"path": "x"}),
    ("advisor", {"question": "Is the cache per request?"}),
    ("write", {"path": "big.txt", "content": "x" * 1500}),
], ids=["empty-arguments", "nested-arguments", "newlines-and-brackets", "double-underscores", "upper-case",
        "dots-hyphens-digits", "advisor-call", "elided-arguments"])
def test_call_is_name_then_arguments_on_one_line(impl, name, arguments):
    """A call is one line: `[tool_call: `, its name as given (letter case and punctuation kept), a space, its
    <args-json>, `]`; newlines and brackets inside argument strings do not break the line."""
    request = params(_closed([USER, {"role": "assistant", "content": "", "tool_calls": [_call(name, arguments)]}]))
    _check_line(_second(impl, request, "flatten.tool-call-line")["content"], name, arguments, request)


@pytest.mark.rule(id="flatten.tool-call-line")
def test_each_of_several_calls_is_a_line(impl):
    """Each of several calls of one message is its own `[tool_call: <name> <args-json>]` line, in order."""
    calls = [_call("read", {"path": "a.go"}, "call_L1x"), _call("grep", {"pattern": "x"}, "call_L2y"),
             _call("read", {}, "call_L3z")]
    request = params(_closed([USER, {"role": "assistant", "content": "", "tool_calls": calls}]))
    messages = shape(impl, request, "flatten.tool-call-line")
    _ids_control(request, messages)
    lines = tool_call_lines(flattened(messages, 1, "flatten.tool-call-line", input=request)["content"])
    check_equal(sorted(name for name, _ in lines), ["grep", "read", "read"], "flatten.tool-call-line",
                "the message does not hold one [tool_call: <name> <args-json>] line per call", input=request)
    got = [(name, parse_args(text, "flatten.args-json", request)) for name, text in lines]
    want = [(call["name"], call["arguments"]) for call in calls]
    shown = lambda pairs: [f"{name} {json.dumps(arguments, sort_keys=True)}" for name, arguments in pairs]  # noqa: E731
    if sorted(shown(got)) == sorted(shown(want)):
        check_equal(shown(got), shown(want), "flatten.assistant-with-calls",
                    "the message holds a line for each call, in another order than the calls", input=request)
    for (name, arguments), (want_name, want_arguments) in zip(got, want, strict=True):
        check_equal(name, want_name, "flatten.tool-call-line", "a line does not name its call's tool",
                    input=request)
        check_equal(arguments, want_arguments, "flatten.args-json", "a line's <args-json> is not its call's arguments",
                    input=request)


@pytest.mark.rule(id="flatten.tool-call-line")
@example(call=_call("read", {"path": "src/app.py"})).via("flatten.tool-call-line:each-call-one-line")
@given(call=s.tool_calls())
def test_every_call_becomes_one_line(impl, call):
    """Each tool call yields one `[tool_call: ...]` line naming the tool."""
    request = params(_closed([USER, {"role": "assistant", "content": "", "tool_calls": [call]}]))
    assistant = _second(impl, request, "flatten.tool-call-line")
    lines = tool_call_lines(assistant["content"])
    check(len(lines) == 1 and lines[0][0] == call["name"] and assistant["content"].count("\n") == 0,
          "flatten.tool-call-line", "the call is not one [tool_call: <name> ...] line", input=request,
          actual=assistant["content"])


# -- flatten.assistant-with-calls ---------------------------------------------------------------------------------

READ = _call("read", {"path": "src/app.py"}, "call_r1")
GREP = _call("grep", {"pattern": "retry", "path": "internal/"}, "call_g2")
BASH = _call("bash", {"command": "go test ./..."}, "call_b3")
TWO_CALLS = {"role": "assistant", "content": "Reading both.", "tool_calls": [GREP, READ]}


@pytest.mark.rule(id="flatten.assistant-with-calls")
@pytest.mark.parametrize("message", [
    {"content": "", "tool_calls": [READ]},
    {"tool_calls": [READ]},
    {"content": "", "tool_calls": [READ, GREP, BASH]},
    {"content": "Let me look.", "tool_calls": [READ]},
    {"content": "Let me look around.", "tool_calls": [GREP, READ]},
    {"content": " ", "tool_calls": [READ]},
    {"content": "\n\t ", "tool_calls": [READ, BASH]},
    {"content": "Checking.\n", "tool_calls": [BASH]},
    {"content": "  two lines\nof text  ", "tool_calls": [BASH]},
    {"content": "Twice.", "tool_calls": [BASH, {**BASH, "id": "call_b4"}]},
    {"content": "t" * 2000, "tool_calls": [READ]},
], ids=["empty-content-one-call", "absent-content", "no-content-several-calls", "text-one-call", "text-several-calls",
        "space-content", "blank-content", "content-ending-in-newline", "padded-multiline-content", "repeated-call",
        "long-content"])
def test_message_is_content_then_call_lines(impl, message):
    """An assistant message with calls is its content as given and a newline when the content is not empty (blank
    content included), then one line per call in the calls' order, joined by newlines, with no trailing newline."""
    request = params(_closed([USER, {"role": "assistant", **message}]))
    messages = shape(impl, request, "flatten.assistant-with-calls")
    _ids_control(request, messages)
    lines = [_lone_line(impl, call) for call in message["tool_calls"]]
    got = flattened(messages, 1, "flatten.assistant-with-calls", input=request)
    check_equal(got["role"], "assistant", "flatten.assistant-with-calls", "the message changed role", input=request)
    content = message.get("content") or ""
    segments = [(content + "\n", "flatten.assistant-with-calls")] if content else []
    for index, line in enumerate(lines):
        segments.append((("\n" if index else "") + line, "flatten.assistant-with-calls"))
    check_segments(got["content"], segments, {}, "the message is not its content, a newline, then one line per call",
                   input=request)


@pytest.mark.rule(id="flatten.assistant-with-calls")
@example(message=TWO_CALLS).via("flatten.assistant-with-calls:calls-in-order")
@given(message=s.assistant_messages(with_calls=True))
def test_content_then_one_line_per_call(impl, message):
    """An assistant message with calls is its content, a newline if non-empty, then the call lines joined by
    newlines."""
    request = params(_closed([USER, message]))
    got = _second(impl, request, "flatten.assistant-with-calls")
    check_equal(got["role"], "assistant", "flatten.assistant-with-calls", "the message changed role", input=request)
    text = got["content"]
    head = message["content"] + "\n" if message["content"] else ""
    check(text.startswith(head), "flatten.assistant-with-calls", "the content does not come first, then a newline",
          input=request, actual=text)
    rest = text[len(head):].split("\n")
    if not (len(rest) == len(message["tool_calls"])
            and all(line.startswith("[tool_call: ") and line.endswith("]") for line in rest)):
        for call in message["tool_calls"]:  # a wrong line of its own is the line's rule, not this one
            _lone_line(impl, call)
        check(False, "flatten.assistant-with-calls",
              "after the content there is not exactly one line per call, no trailing newline", input=request,
              actual=text)
    names = [line[len("[tool_call: "):].split(" {", 1)[0] for line in rest]
    check_equal(names, [call["name"] for call in message["tool_calls"]], "flatten.assistant-with-calls",
                "the call lines are not in the calls' order", input=request)


# -- flatten.call-ids-hidden --------------------------------------------------------------------------------------


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


def _assistant(content, *calls):
    return {"role": "assistant", "content": content, "tool_calls": [_call(name, args, i) for i, name, args in calls]}


def _result(call_id, name="bash", content="ok"):
    return {"role": "tool", "name": name, "tool_call_id": call_id, "content": content}


#: Transcripts as functions of an id naming scheme, so the same transcript can be shaped with two sets of ids.
ID_CASES = {
    "parallel-calls": lambda i: [USER, _assistant("both", (i(1), "read", {"path": "a.go"}), (i(2), "grep", {"p": "x"})),
                                 _result(i(1), "read"), _result(i(2), "grep"), AFTER],
    "call-and-result": lambda i: [USER, _assistant("", (i(1), "bash", {"cmd": "ls"})), _result(i(1)), AFTER],
    "several-messages": lambda i: [USER, _assistant("", (i(1), "bash", {"cmd": "ls"})), _result(i(1)),
                                   _assistant("then", (i(2), "bash", {"cmd": "pwd"})), _result(i(2)), AFTER],
    "advisor-call": lambda i: [USER, _assistant("", (i(1), "advisor", {"question": "ok?"})),
                               _result(i(1), "advisor", "looks fine"), AFTER],
    "in-flight-calls": lambda i: [USER, _assistant("Now asking.", (i(1), "advisor", {}), (i(2), "bash", {"c": "x"}))],
}
ID_SCHEMES = [lambda n: f"call_Q7xk{n}ZpA9", lambda n: f"toolu_01HxYz{n}Wq"]


@pytest.mark.rule(id="flatten.call-ids-hidden")
@pytest.mark.parametrize("case", list(ID_CASES))
def test_other_ids_give_the_same_request(impl, case):
    """Call ids (of calls, of the results that answer them, of the in-flight message) appear nowhere, and shaping
    the same transcript with other ids gives the same request."""
    requests = [params(ID_CASES[case](scheme)) for scheme in ID_SCHEMES]
    first, second = (shape(impl, request, "flatten.call-ids-hidden") for request in requests)
    ids = {ID_SCHEMES[0](n) for n in (1, 2)}
    shown = sorted(i for i in ids if any(i in message["content"] for message in first))
    check(not shown, "flatten.call-ids-hidden", f"tool-call ids were rendered: {shown}", input=requests[0],
          actual=first)
    check_equal(second, first, "flatten.call-ids-hidden", "the request changes with the call ids alone",
                input=requests)


@pytest.mark.rule(id="flatten.call-ids-hidden")
@example(message=TWO_CALLS, more=[BASH]).via("flatten.call-ids-hidden:parallel-calls")
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
