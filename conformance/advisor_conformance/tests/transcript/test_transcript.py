"""The transcript model: what a snapshot may hold, and what is rejected (clarifications §1)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import answer_of, check, check_equal, violation
from advisor_conformance.shaping import body, params, parse_args, shape, shape_error, tool_call_lines

CALL = {"id": "c1", "name": "bash", "arguments": {"cmd": "pytest -q"}}
NESTED = {"path": "src/app.py", "edits": [{"line": 3, "new": "x = 1"}, {"line": 9, "new": None}],
          "options": {"dry_run": False, "depth": 2.5, "tags": []}}


@pytest.mark.rule(id="transcript.roles")
@example(transcript=[]).via("transcript.roles:empty")
@example(transcript=[{"role": "system", "content": "You are a coding agent."},
                     {"role": "user", "content": "Fix the build."}]).via("transcript.roles:system-and-user")
@example(transcript=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."},
                     {"role": "user", "content": "go on"}]).via("transcript.roles:assistant-text")
@example(transcript=[{"role": "user", "content": "run it"}, {"role": "assistant", "content": "", "tool_calls": [CALL]},
                     {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "3 passed"}]
         ).via("transcript.roles:one-call-and-result")
@example(transcript=[{"role": "user", "content": "edit"},
                     {"role": "assistant", "content": "Three things at once.",
                      "tool_calls": [CALL, {"id": "c2", "name": "edit", "arguments": NESTED},
                                     {"id": "c3", "name": "list_dir", "arguments": {}}]},
                     {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "ok"},
                     {"role": "tool", "name": "edit", "tool_call_id": "c2", "content": ""},
                     {"role": "tool", "name": "list_dir", "tool_call_id": "c3", "content": "src/\ntests/"}]
         ).via("transcript.roles:several-calls-nested-arguments")
@example(transcript=[{"role": "user", "content": "think"},
                     {"role": "assistant", "content": "Done.", "reasoning_content": "first this, then that",
                      "metadata": {"thinking_signature": "c2lnbmF0dXJl"}},
                     {"role": "assistant", "content": "", "reasoning_content": "call it",
                      "metadata": {"thinking_signature": "b3RoZXI="}, "tool_calls": [CALL]},
                     {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "ok"}]
         ).via("transcript.roles:reasoning-and-metadata")
@example(transcript=[{"role": "user", "content": "ask"},
                     {"role": "assistant", "content": "",
                      "tool_calls": [{"id": "a1", "name": "advisor", "arguments": {"question": "ok?"}}]},
                     {"role": "tool", "name": "advisor", "tool_call_id": "a1", "content": "Looks fine."},
                     {"role": "user", "content": "\u00e9\u4e2d\U0001f600\nline two\ttab"}]
         ).via("transcript.roles:advisor-result-and-unicode")
@example(transcript=[{"role": "system", "content": "a"}, {"role": "system", "content": "b"},
                     {"role": "user", "content": ""}, {"role": "user", "content": "c"},
                     {"role": "assistant", "content": "d"}, {"role": "assistant", "content": " "}]
         ).via("transcript.roles:repeated-roles-and-empty-text")
@given(transcript=s.transcripts(max_size=10))
@pytest.mark.needs(areas=["request"])
def test_every_well_formed_transcript_is_accepted(impl, transcript):
    """A transcript of system, user, assistant (with calls, reasoning, metadata) and tool messages is shaped."""
    shape(impl, params(transcript), "transcript.roles")


@pytest.mark.rule(id="transcript.roles")
@pytest.mark.parametrize("tail", [[{"role": "tool", "name": "bash", "tool_call_id": "c", "content": "ok"}], []],
                         ids=["before-its-result", "in-flight"])
@pytest.mark.needs(areas=["request"])
def test_openai_style_null_content_is_empty(impl, tail):
    """An assistant message whose content is null (only tool calls) is shaped as one whose content is empty text."""
    def transcript(content):
        return [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": content, "tool_calls": [{"id": "c", "name": "bash", "arguments": {}}]},
                *tail]

    empty = shape(impl, params(transcript("")), "transcript.roles")
    null = shape(impl, params(transcript(None)), "transcript.roles")
    check_equal(null, empty, "transcript.roles", "a null content was not read as empty text",
                input=transcript(None))


def _tool_message(**extra):
    return {"role": "tool", "name": "bash", "tool_call_id": "c", "content": "x", **extra}


# (id, message, the field its error names: the text that must follow transcript[<index>] in the error's `at`)
MALFORMED = [
    ("missing-role", {"content": "no role"}, "role"),
    ("role-not-a-string", {"role": 7, "content": "role not a string"}, "role"),
    ("role-null", {"role": None, "content": "x"}, "role"),
    ("numeric-content", {"role": "user", "content": 42}, "content"),
    ("array-content", {"role": "user", "content": ["a", "b"]}, "content"),
    ("boolean-content", {"role": "system", "content": True}, "content"),
    ("assistant-object-content", {"role": "assistant", "content": {"text": "hi"}}, "content"),
    ("tool-content-object", _tool_message(content={"out": 1}), "content"),
    ("tool-calls-object", {"role": "assistant", "content": "", "tool_calls": {"id": "c"}}, "tool_calls"),
    ("tool-call-not-object", {"role": "assistant", "content": "", "tool_calls": ["bash {}"]}, "tool_calls"),
    ("arguments-string", {"role": "assistant", "content": "",
                          "tool_calls": [{"id": "c", "name": "bash", "arguments": "{}"}]}, "arguments"),
    ("arguments-array", {"role": "assistant", "content": "",
                         "tool_calls": [{"id": "c", "name": "bash", "arguments": [1]}]}, "arguments"),
    ("arguments-null", {"role": "assistant", "content": "",
                        "tool_calls": [{"id": "c", "name": "bash", "arguments": None}]}, "arguments"),
    ("arguments-number", {"role": "assistant", "content": "go",
                          "tool_calls": [{"id": "c", "name": "bash", "arguments": 3}]}, "arguments"),
    ("second-call-arguments", {"role": "assistant", "content": "",
                               "tool_calls": [CALL, {"id": "c2", "name": "read", "arguments": "src/a.py"}]},
     "tool_calls[1].arguments"),
    ("call-name-number", {"role": "assistant", "content": "",
                          "tool_calls": [{"id": "c", "name": 7, "arguments": {}}]}, "name"),
    ("tool-name-number", _tool_message(name=5), "name"),
    ("tool-call-id-number", _tool_message(tool_call_id=12), "tool_call_id"),
    ("reasoning-number", {"role": "user", "content": "hi", "reasoning_content": 3}, "reasoning_content"),
    ("assistant-reasoning-object", {"role": "assistant", "content": "hi", "reasoning_content": {"steps": []}},
     "reasoning_content"),
    ("message-not-object", "just a string", ""),
    ("message-null", None, ""),
    ("message-array", [{"role": "user", "content": "hi"}], ""),
]

BEFORE_LAST = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "run it"},
               {"role": "assistant", "content": "", "tool_calls": [CALL]},
               {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "ok"}]
TEN = [{"role": "user" if index % 2 == 0 else "assistant", "content": f"message {index}"} for index in range(10)]
MIDDLE = ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], [{"role": "user", "content": "c"}])
# Where the malformed message stands: alone, in the middle, last after system, assistant and tool messages (where an
# assistant message is the in-flight one), and at index 10.
POSITIONS = [([], []), MIDDLE, (BEFORE_LAST, []), (TEN, [{"role": "user", "content": "end"}])]


def _check_names(error, index, field, request, rule="transcript.malformed-rejected"):
    """The error is invalid_input and its `at` names transcript[index] and the field."""
    check_equal(error["code"], "invalid_input", rule, "the error code is not invalid_input", input=request,
                actual=error)
    at = error.get("at", "")
    check(at.startswith(f"transcript[{index}]") and field in at[len(f"transcript[{index}]"):], rule,
          f"the error's 'at' does not name transcript[{index}] and the field {field!r}", input=request, actual=error)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("bad, field", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
@pytest.mark.parametrize("before, after", POSITIONS, ids=["first", "middle", "last", "two-digit-index"])
def test_malformed_message_is_rejected_naming_index_and_field(impl, bad, field, before, after):
    """A malformed message, first, in the middle, last (the in-flight place) or at a two-digit index, is an
    invalid_input error that names its index and field."""
    request = params([*before, bad, *after])
    error = shape_error(impl, request, "transcript.malformed-rejected")
    _check_names(error, len(before), field, request)


@pytest.mark.rule(id="transcript.malformed-rejected")
@given(before=s.transcripts(max_size=4), case=st.sampled_from(MALFORMED), after=s.transcripts(max_size=2))
@example(before=[], case=MALFORMED[0], after=[]).via("transcript.malformed-rejected:alone")
def test_malformed_message_among_any_messages_is_rejected(impl, before, case, after):
    """A malformed message among any well-formed ones is an invalid_input error that names its index and field."""
    _, bad, field = case
    request = params([*before, bad, *after])
    error = shape_error(impl, request, "transcript.malformed-rejected")
    _check_names(error, len(before), field, request)


#: Provider metadata that is not an object (the protocol's message schema: `metadata` is an object).
METADATA_NOT_AN_OBJECT = {"string": "sig-abc123", "number": 7, "array": [{"signature": "sig-abc123"}]}


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("role", ["assistant", "user"])
@pytest.mark.parametrize("kind", list(METADATA_NOT_AN_OBJECT))
def test_metadata_that_is_not_an_object_is_rejected_naming_it(impl, kind, role):
    """Provider metadata that is not an object (a string, a number, an array), on any role, is an invalid_input error
    that names the message's index and its metadata."""
    bad = {"role": role, "content": "hi", "metadata": METADATA_NOT_AN_OBJECT[kind]}
    request = params([{"role": "user", "content": "look at it"}, bad, {"role": "user", "content": "go on"}])
    error = shape_error(impl, request, "transcript.malformed-rejected")
    _check_names(error, 1, "metadata", request)


@pytest.mark.rule(id="transcript.malformed-rejected")
def test_of_two_malformed_messages_one_is_named(impl):
    """With two malformed messages, the error names the index and field of one of them."""
    transcript = [{"role": "user", "content": "a"}, {"role": "user", "content": 1},
                  {"role": "assistant", "content": "b"}, {"role": "user", "content": "c", "tool_calls": [CALL]}]
    request = params(transcript)
    error = shape_error(impl, request, "transcript.malformed-rejected")
    at = error.get("at", "")
    check(error["code"] == "invalid_input" and (at.startswith("transcript[1].content")
                                                or at.startswith("transcript[3].tool_calls")),
          "transcript.malformed-rejected", "the error does not name transcript[1].content or transcript[3].tool_calls",
          input=request, actual=error)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("transcript", ["not a list", {"role": "user"}, None, 3],
                         ids=["string", "object", "null", "number"])
def test_snapshot_that_is_not_a_list_is_rejected(impl, transcript):
    """A snapshot that is not an array of messages is an invalid_input error."""
    error = shape_error(impl, {"transcript": transcript}, "transcript.malformed-rejected")
    check_equal(error["code"], "invalid_input", "transcript.malformed-rejected", "the error code is not invalid_input",
                input={"transcript": transcript})


def _unknown_role_outcome(impl, transcript, index, rule="transcript.malformed-rejected"):
    """A message of an unknown role at ``index``: rejected naming that index, or kept with its role and content."""
    request = params(transcript)
    answer = answer_of(impl, "shape", request, rule)
    if "error" in answer:
        error = answer["error"]
        check(error["code"] == "invalid_input" and error.get("at", "").startswith(f"transcript[{index}]"), rule,
              f"the message of an unknown role at {index} was refused, but not as invalid_input naming "
              f"transcript[{index}]", input=request, actual=error)
        return
    kept = body(answer["messages"])
    message = transcript[index]
    check(index < len(kept) and kept[index] == {"role": message["role"], "content": message.get("content") or ""},
          rule, f"the message of an unknown role at {index} was neither refused nor kept with its role and content",
          input=request, actual=kept)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("index", [0, 1, 2], ids=["first", "middle", "last"])
def test_unknown_role_is_refused_or_kept_never_dropped(impl, index):
    """A message of a role the model does not know is refused naming its index, or kept with its role and content
    (as the origin's flattening passes it); it is never dropped silently."""
    transcript = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
                  {"role": "user", "content": "three"}]
    transcript[index] = {"role": "narrator", "content": f"narrated at {index}"}
    _unknown_role_outcome(impl, transcript, index)


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("role, index", [("User", 1), ("ASSISTANT", 2), ("Tool", 2), ("system ", 0)],
                         ids=["user-capitalised-middle", "assistant-upper-case-last", "tool-capitalised-last",
                              "system-trailing-space-first"])
def test_role_in_another_spelling_is_an_unknown_role(impl, role, index):
    """Roles are matched exactly: a known role in other letter case or with a space is an unknown role, refused naming
    its index or kept with that very role, never read as the known role nor dropped."""
    transcript = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
                  {"role": "user", "content": "three"}]
    transcript[index] = {"role": role, "content": f"spelt {role!r}"}
    _unknown_role_outcome(impl, transcript, index)


#: Messages that are not an assistant's, each with tool calls: clarifications §1 says assistant messages may carry
#: them, and nothing more; §10 says roles are open and other roles pass through.
NOT_ASSISTANT = {"user": {"role": "user", "content": "run this"}, "system": {"role": "system", "content": ""},
                 "tool": _tool_message(), "unknown-role": {"role": "planner", "content": "plan"}}
#: One short call, and one whose string is over 1000 bytes: rendered, its lines are elided as an assistant's are.
OTHER_CALLS = [CALL, {"id": "c2", "name": "edit", "arguments": {"path": "a.go", "text": "\u00e9" * 600}}]


def _calls_outcome(impl, transcript, index, rule="transcript.malformed-rejected"):
    """Message ``index`` carries tool calls though it is not an assistant's. It is refused (invalid_input naming its
    index and its tool_calls, or its role when the role is unknown), or passed through: the request is the request
    of the same transcript without those calls (the calls ignored), or, for a message that is not a tool result, the
    same with the message's text followed by its calls' lines, as an assistant's calls are flattened."""
    request = params(transcript)
    answer = answer_of(impl, "shape", request, rule)
    message = transcript[index]
    if "error" in answer:
        error, at = answer["error"], answer["error"].get("at", "")
        fields = ("tool_calls", "role") if message["role"] not in ("user", "system", "tool") else ("tool_calls",)
        check(error["code"] == "invalid_input" and at.startswith(f"transcript[{index}]")
              and any(field in at[len(f"transcript[{index}]"):] for field in fields), rule,
              f"the message at {index}, which carries tool calls, was refused, but not as invalid_input naming "
              f"transcript[{index}] and its {' or its '.join(fields)}", input=request, actual=error)
        return
    bare = [dict(item) for item in transcript]
    del bare[index]["tool_calls"]
    control = shape(impl, params(bare), rule)  # the same transcript without the calls is shaped
    got = answer["messages"]
    check(isinstance(got, list) and len(got) == len(control), rule,
          f"tool calls on the message at {index} changed the number of messages of the request", input=request,
          expected=control, actual=got)
    differing = [at for at, (mine, theirs) in enumerate(zip(got, control, strict=True)) if mine != theirs]
    if not differing:
        return  # the calls are ignored
    # Where the message lands is the implementation's (a system message may join the system prompt): the calls may
    # change one message of the request, the one that holds the message's text, and nothing else.
    check(len(differing) == 1, rule, f"tool calls on the message at {index} changed {len(differing)} messages of the "
          f"request (at {differing[:5]}), more than the message's own", input=request, expected=control, actual=got)
    where = differing[0]
    text, calls = control[where].get("content"), message["tool_calls"]
    content = got[where].get("content") if isinstance(got[where], dict) else None
    passed = message["role"] != "tool" and isinstance(text, str) and isinstance(content, str) \
        and got[where].get("role") == control[where].get("role") and content.startswith(text + "\n" if text else "")
    if passed and isinstance(content, str):  # passed says it is
        lines = content[len(text) + 1 if text else 0:].split("\n")
        rendered = [(name, parse_args(args, rule, request)) for name, args in tool_call_lines("\n".join(lines))]
        expected = [(call["name"], oracle.normalise_numbers(oracle.cap_arguments(call["arguments"]))) for call in calls]
        passed = len(lines) == len(calls) and [(name, oracle.normalise_numbers(args)) for name, args in rendered] \
            == expected
    if not passed:
        raise violation(rule, f"the message at {index} was passed through neither as it is without its tool calls nor "
                        "with its calls' lines after its text", input=request, expected=control[where],
                        actual=got[where])


@pytest.mark.rule(id="transcript.malformed-rejected")
@pytest.mark.parametrize("before, after", POSITIONS, ids=["first", "middle", "last", "two-digit-index"])
@pytest.mark.parametrize("role", list(NOT_ASSISTANT))
def test_tool_calls_on_a_message_not_an_assistants_are_refused_or_passed_through(impl, role, before, after):
    """Tool calls on a user, system, tool or unknown-role message are refused naming the message's index and field,
    or passed through: ignored, or (but on a tool result) flattened as an assistant's are; nothing else changes."""
    message = {**NOT_ASSISTANT[role], "tool_calls": OTHER_CALLS}
    _calls_outcome(impl, [*before, message, *after], len(before))


@pytest.mark.rule(id="transcript.malformed-rejected")
@given(transcript=s.transcripts(min_size=1, max_size=5), data=st.data())
def test_nothing_is_dropped_silently(impl, transcript, data):
    """Replacing any message's role with an unknown one makes the call fail at that message, or keeps the message
    with its role: it is never dropped."""
    index = data.draw(st.integers(0, len(transcript) - 1), label="index")
    transcript[index] = {"role": "narrator", "content": transcript[index].get("content") or ""}
    _unknown_role_outcome(impl, transcript, index)
