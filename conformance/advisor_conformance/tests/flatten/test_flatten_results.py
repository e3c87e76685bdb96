"""Flattening of tool results and advisor notes (spec: Request flow; clarifications §2)."""

from __future__ import annotations

import pytest
from hypothesis import example, given

from advisor_conformance import strategies as s
from advisor_conformance.checks import check, check_equal
from advisor_conformance.shaping import body, check_segments, flattened, params, shape

USER = {"role": "user", "content": "look at the failing test"}
#: A message after the one under test: its flattening is checked, not the in-flight handling of a last message.
AFTER = {"role": "user", "content": "go on"}


def _result(name, content, call_id="call_1"):
    return {"role": "tool", "name": name, "tool_call_id": call_id, "content": content}


def _shape(impl, request, rule):
    """The messages of ``request``; a call id shown in them is blamed on flatten.call-ids-hidden, not on ``rule``."""
    messages = shape(impl, request, rule)
    ids = {m.get("tool_call_id") for m in request["transcript"]} | {
        call["id"] for m in request["transcript"] for call in m.get("tool_calls") or []}
    shown = sorted(i for i in ids - {None} if any(i in m["content"] for m in messages)
                   and not any(i in (m.get("content") or "") for m in request["transcript"]))
    check(not shown, "flatten.call-ids-hidden", f"tool-call ids were rendered: {shown}", input=request,
          actual=messages)
    return messages


def _rendered_result(impl, message, rule):
    """The message a tool result ``message`` becomes, between a user message and another."""
    request = params([USER, message, AFTER])
    return flattened(_shape(impl, request, rule), 1, rule, input=request), request


def _check_result(impl, got, prefix, message, rule, request):
    """The rendered result ``got`` is the user message ``prefix``, a newline and the content (``rule``); a content that
    is not empty but was written as `(empty)` is blamed on flatten.empty-tool-result, unless a padded result is changed
    too (the content is trimmed, and a blank one is then empty: flatten.tool-result's)."""
    expected = {"role": "user", "content": f"{prefix}\n{message['content']}"}
    if got == expected:
        return
    if got["content"] == f"{prefix}\n(empty)":
        _padding_control(impl)
    check(got["content"] != f"{prefix}\n(empty)", "flatten.empty-tool-result",
          "a result that is not empty was written as (empty)", input=request, actual=got)
    check_equal(got, expected, rule, f"the result is not rendered as {prefix} + newline + content", input=request)


def _padding_control(impl):
    """Control: a result padded with white space keeps its padding (flatten.tool-result), so a result that is
    trimmed is never blamed on the rule under test."""
    got, request = _rendered_result(impl, _result("bash", " \tout \n"), "flatten.tool-result")
    check_equal(got["content"], "[tool_result: bash]\n \tout \n", "flatten.tool-result",
                "a padded tool result was changed", input=request)


# -- flatten.tool-result ------------------------------------------------------------------------------------------


@pytest.mark.rule(id="flatten.tool-result")
@example(name="bash", content="ok").via("flatten.tool-result:one-line")
@example(name="bash", content="  padded output\n").via("flatten.tool-result:padded")
@example(name="read", content="line 1\nline 2\n\nline 4\n").via("flatten.tool-result:multi-line")
@example(name="bash", content="\nstarts with a newline").via("flatten.tool-result:leading-newline")
@example(name="bash", content=" \n\t").via("flatten.tool-result:blank")
@example(name="mcp__github__get_issue", content="#7 open").via("flatten.tool-result:name-verbatim")
@example(name="Bash", content="ok").via("flatten.tool-result:name-letter-case")
@example(name="grep", content="[tool_result: x]\n[tool_call: y {}]").via("flatten.tool-result:looks-like-a-prefix")
@given(name=s.tool_names().filter(lambda n: n != "advisor"), content=s.texts(min_size=1, max_size=80))
def test_tool_result_becomes_user_message(impl, name, content):
    """A tool result is a user message `[tool_result: <name>]`, a newline, then the content."""
    message = _result(name, content)
    got, request = _rendered_result(impl, message, "flatten.tool-result")
    _check_result(impl, got, f"[tool_result: {name}]", message, "flatten.tool-result", request)


@pytest.mark.rule(id="flatten.tool-result")
def test_consecutive_results_each_become_a_message(impl):
    """The results of parallel calls become one user message each, in their order."""
    calls = [{"id": f"call_P{i}", "name": name, "arguments": {}} for i, name in enumerate(["read", "grep", "bash"])]
    results = [_result("read", "package a", "call_P0"), _result("grep", "a.go:1: x", "call_P1"),
               _result("bash", "ok", "call_P2")]
    request = params([USER, {"role": "assistant", "content": "", "tool_calls": calls}, *results, AFTER])
    messages = _shape(impl, request, "flatten.tool-result")
    expected = [{"role": "user", "content": f"[tool_result: {r['name']}]\n{r['content']}"} for r in results]
    check_equal(body(messages)[2:5], expected, "flatten.tool-result",
                "the parallel results are not one user message each, in order", input=request,
                actual=body(messages))


# -- flatten.empty-tool-result ------------------------------------------------------------------------------------


@pytest.mark.rule(id="flatten.empty-tool-result")
@pytest.mark.parametrize("name", ["bash", "advisor"])
def test_empty_result_reads_empty(impl, strings, name):
    """An empty tool result (of any tool, the advisor's included) is written as `(empty)`."""
    got, request = _rendered_result(impl, _result(name, ""), "flatten.empty-tool-result")
    owner = "flatten.advisor-note" if name == "advisor" else "flatten.tool-result"
    prefix = strings["advisor_note_prefix"] if name == "advisor" else f"[tool_result: {name}]"
    check_segments(got["content"], [(prefix + "\n", owner), ("(empty)", "flatten.empty-tool-result")], strings,
                   "an empty tool result is not written as its prefix, a newline and (empty)", input=request)


@pytest.mark.rule(id="flatten.empty-tool-result")
@pytest.mark.parametrize("message", [{"role": "tool", "name": "bash", "tool_call_id": "call_1"},
                                     _result("bash", None)], ids=["absent", "null"])
@pytest.mark.needs(areas=["transcript"])  # a null content is read as empty text
def test_result_without_content_reads_empty(impl, message):
    """A tool result without content (no content field, or null) is written as `(empty)`."""
    # null content is read as empty text (transcript.roles): an answer that refuses it is blamed there
    rule = "transcript.roles" if message.get("content", "") is None else "flatten.empty-tool-result"
    got, request = _rendered_result(impl, message, rule)
    check_segments(got["content"], [("[tool_result: bash]\n", "flatten.tool-result"),
                                    ("(empty)", "flatten.empty-tool-result")], {},
                   "a tool result without content is not written as (empty)", input=request)


@pytest.mark.rule(id="flatten.empty-tool-result")
@pytest.mark.parametrize("content", [" ", "\n", "\t\r\n ", "\u3000"],
                         ids=["space", "newline", "mixed-white-space", "unicode-space"])
def test_blank_result_is_not_empty(impl, content):
    """A blank tool result is not empty: it is sent as it is, not as `(empty)`."""
    _padding_control(impl)
    got, request = _rendered_result(impl, _result("bash", content), "flatten.empty-tool-result")
    check_equal(got["content"], f"[tool_result: bash]\n{content}", "flatten.empty-tool-result",
                "a blank tool result was not sent as it is", input=request)


# -- flatten.tool-result-uncapped ---------------------------------------------------------------------------------


def _big(size, unit="line of build output\n"):
    """``size`` characters: ``unit`` repeated, then a full stop (no white space at either end)."""
    return (unit * (size // len(unit) + 1))[:size - 1] + "."


@pytest.mark.rule(id="flatten.tool-result-uncapped")
@pytest.mark.parametrize("content", [_big(1001), _big(4001), _big(32769), _big(98305), _big(200_000),
                                     _big(40_000, "é中😀")],
                         ids=["over-argument-cap", "over-question-cap", "over-file-cap", "over-aggregate-cap",
                              "200-kb", "multibyte"])
def test_large_tool_results_are_whole(impl, content):
    """A tool result reaches the request whole, without elision, whatever its size (past every cap of the spec)."""
    got, request = _rendered_result(impl, _result("bash", content), "flatten.tool-result-uncapped")
    check_equal(got["content"], f"[tool_result: bash]\n{content}", "flatten.tool-result-uncapped",
                "a large tool result was capped or changed", input=request)


@pytest.mark.rule(id="flatten.tool-result-uncapped")
def test_several_large_results_are_whole(impl):
    """Two 64 KiB tool results (together over the files' 96 KiB aggregate) both reach the request whole."""
    results = [_result("read", _big(65536, "a"), "call_1"), _result("read", _big(65536, "b"), "call_2")]
    request = params([USER, *results, AFTER])
    messages = body(_shape(impl, request, "flatten.tool-result-uncapped"))
    check_equal(messages[1:3], [{"role": "user", "content": f"[tool_result: read]\n{r['content']}"} for r in results],
                "flatten.tool-result-uncapped", "the two large tool results are not both in the request whole",
                input=request)


@pytest.mark.rule(id="flatten.tool-result-uncapped")
def test_large_advisor_note_is_whole(impl, strings):
    """A 40 KB advisor result reaches the request whole."""
    content = _big(40_000, "advice, ")
    got, request = _rendered_result(impl, _result("advisor", content), "flatten.tool-result-uncapped")
    check_segments(got["content"], [(strings["advisor_note_prefix"] + "\n", "flatten.advisor-note"),
                                    (content, "flatten.tool-result-uncapped")], strings,
                   "a large advisor result was capped or changed", input=request)


# -- flatten.advisor-note -----------------------------------------------------------------------------------------


@pytest.mark.rule(id="flatten.advisor-note")
def test_advisor_prefix_is_not_a_tool_result(strings):
    """The declared advisor-note prefix is not `[tool_result: advisor]`."""
    prefix = strings["advisor_note_prefix"]
    check(prefix.strip() != "[tool_result: advisor]" and not prefix.startswith("[tool_result:"),
          "flatten.advisor-note", "the declared advisor-note prefix reads as a plain tool result", actual=prefix)


@pytest.mark.rule(id="flatten.advisor-note")
@example(content="Prefer a per-process cache keyed by URL.").via("flatten.advisor-note:one-line")
@example(content="  1. Run the tests.\n2. Then refactor.\n\n").via("flatten.advisor-note:multi-line-padded")
@example(content=" ").via("flatten.advisor-note:blank")
@given(content=s.texts(min_size=1, max_size=120))
def test_advisor_result_becomes_revisable_note(impl, strings, content):
    """An advisor result is a user message: the declared note prefix, a newline, then the content."""
    message = _result("advisor", content, "call_9")
    got, request = _rendered_result(impl, message, "flatten.advisor-note")
    _check_result(impl, got, strings["advisor_note_prefix"], message, "flatten.advisor-note", request)


@pytest.mark.rule(id="flatten.advisor-note")
def test_each_advisor_result_is_a_note_among_others(impl, strings):
    """Among other results, each advisor result, and only it, becomes a note: the others keep `[tool_result: ...]`."""
    calls = [{"id": "call_A1", "name": "advisor", "arguments": {}},
             {"id": "call_B1", "name": "bash", "arguments": {}}]
    again = [{"id": "call_A2", "name": "advisor", "arguments": {"question": "still?"}}]
    transcript = [USER, {"role": "assistant", "content": "", "tool_calls": calls},
                  _result("advisor", "first opinion", "call_A1"), _result("bash", "ok", "call_B1"),
                  {"role": "assistant", "content": "", "tool_calls": again},
                  _result("advisor", "second opinion", "call_A2"), AFTER]
    request = params(transcript)
    messages = body(_shape(impl, request, "flatten.advisor-note"))
    note = strings["advisor_note_prefix"]
    expected = [f"{note}\nfirst opinion", "[tool_result: bash]\nok", f"{note}\nsecond opinion"]
    check_equal([m["content"] for m in messages[2:4] + messages[5:6]], expected, "flatten.advisor-note",
                "advisor results and other results are not told apart", input=request, actual=messages)


@pytest.mark.rule(id="flatten.advisor-note")
def test_empty_advisor_result_is_a_note(impl, strings):
    """An empty advisor result is still a note: the declared prefix, a newline, then `(empty)`."""
    got, request = _rendered_result(impl, _result("advisor", ""), "flatten.advisor-note")
    check_segments(got["content"], [(strings["advisor_note_prefix"] + "\n", "flatten.advisor-note"),
                                    ("(empty)", "flatten.empty-tool-result")], strings,
                   "an empty advisor result is not the note prefix, a newline and (empty)", input=request)


@pytest.mark.rule(id="flatten.advisor-note")
@pytest.mark.parametrize("name", ["Advisor", "ADVISOR", "advisor_history", "sub_advisor", "advisor2"])
def test_only_the_advisor_tool_gives_a_note(impl, name):
    """A result of a tool whose name only resembles `advisor` (another letter case, a prefix or a suffix) is a plain
    tool result."""
    got, request = _rendered_result(impl, _result(name, "an answer"), "flatten.advisor-note")
    check_equal(got["content"], f"[tool_result: {name}]\nan answer", "flatten.advisor-note",
                f"the result of the tool {name!r} was not rendered as a plain tool result", input=request)
