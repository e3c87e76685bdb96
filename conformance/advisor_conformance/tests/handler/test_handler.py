"""The handler: one request per call, the file count first, the order of its steps, and the provider request.

What consumes a use: ``test_handler_uses.py``; the note a call returns: ``test_handler_notes.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given

from advisor_conformance import strategies as s
from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import (
    SNAPSHOT,
    budget_note,
    call,
    check_cap_holds,
    error_of,
    failure,
    reply,
    requests_of,
    result_of,
    run,
    scenario,
)
from advisor_conformance.shaping import file_param, shape_error
from advisor_conformance.workspace import workspace

from .calls import RUNTIME, SPEC, VALIDATION_FAILURES, validation_cases

TOOL_SNAPSHOT = [
    {"role": "user", "content": "Why does the build fail?"},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [{"id": "c1", "name": "bash",
                                                                      "arguments": {"command": "make"}}]},
    {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "error: missing symbol"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "adv", "name": "advisor", "arguments": {}}]},
]


@pytest.mark.rule(id="handler.one-request")
@example(transcript=SNAPSHOT, question="Is my plan sound?").via("handler.one-request:question")
@example(transcript=SNAPSHOT, question="").via("handler.one-request:empty-question")
@example(transcript=TOOL_SNAPSHOT, question="  why?\n").via("handler.one-request:tool-calls-in-snapshot")
@example(transcript=[{"role": "user", "content": "hi"}], question="q" * 4001).via("handler.one-request:capped-question")
@example(transcript=[], question="why?").via("handler.one-request:empty-snapshot")
@given(transcript=s.transcripts(max_size=5), question=s.questions())
@pytest.mark.needs(areas=["request"])
def test_one_call_one_request_with_the_shaped_messages(impl, transcript, question):
    """A call sends exactly one provider request whose messages are what shape gives for the same input."""
    params = scenario([{"call": call(input={"question": question}, snapshot=transcript)}])
    answer = run(impl, params, "handler.one-request")
    requests = requests_of(answer, 0)
    check_equal(len(requests), 1, "handler.one-request", "the call did not send exactly one request", input=params)
    shaped = answer_of(impl, "shape", {"transcript": transcript, "question": question}, "handler.one-request")
    check_equal(requests[0]["messages"], shaped.get("messages"), "handler.one-request",
                "the request's messages differ from the shape operation's", input=params)


@pytest.mark.rule(id="handler.one-request")
@pytest.mark.parametrize("tool_input", [{}, {"files": []}, {"question": " \n"}, {"files": [], "question": "ok?"}],
                         ids=["no-arguments", "empty-file-list", "blank-question", "empty-file-list-and-question"])
def test_optional_arguments_may_be_left_out(impl, tool_input):
    """A call without files or a question, or with an empty file list and no working directory, sends one request
    with what shape gives for the same input."""
    params = scenario([{"call": call(input=tool_input)}])
    answer = run(impl, params, "handler.one-request")
    requests = requests_of(answer, 0)
    check_equal(len(requests), 1, "handler.one-request", "the call did not send exactly one request", input=params)
    shaped = answer_of(impl, "shape", {"transcript": SNAPSHOT, **tool_input}, "handler.one-request")
    check_equal(requests[0]["messages"], shaped.get("messages"), "handler.one-request",
                "the request's messages differ from the shape operation's", input=params)


@pytest.mark.rule(id="handler.one-request")
def test_files_reach_the_request_as_loaded(impl):
    """Files named in the call reach the request as shape renders them, read from the working directory."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": ["src/app.py", "pkg/f1.py"], "question": "ok?"})}],
                          work_dir=str(work))
        answer = run(impl, params, "handler.one-request")
    requests = requests_of(answer, 0)
    check_equal(len(requests), 1, "handler.one-request", "the call did not send exactly one request", input=params)
    shaped = answer_of(impl, "shape", {"transcript": SNAPSHOT, "question": "ok?",
                                       "files": [file_param("src/app.py", "print('hello')\n"),
                                                 file_param("pkg/f1.py", "# file 1\n")]}, "handler.one-request")
    check_equal(requests[0]["messages"], shaped.get("messages"), "handler.one-request",
                "the files did not reach the request as loaded", input=params)


LATER = [*SNAPSHOT[:2],
         {"role": "assistant", "content": "I ran the tests: two still fail."},
         {"role": "user", "content": "Fix them without touching the fixtures."},
         {"role": "assistant", "content": "",
          "tool_calls": [{"id": "call_adv2", "name": "advisor", "arguments": {"question": "Now what?"}}]}]


@pytest.mark.rule(id="handler.one-request")
@pytest.mark.parametrize("conversation, turn", [(1, 1), (1, 2), (2, 1)],
                         ids=["same-turn", "next-turn", "other-conversation"])
def test_each_call_sends_the_conversation_as_it_is_then(impl, conversation, turn):
    """Each of two calls sends the live snapshot of its own call, not one taken earlier, in one turn or across turns
    and conversations."""
    params = scenario([{"call": call(input={"question": "first"})},
                       {"call": call(input={"question": "second"}, snapshot=LATER, conversation=conversation,
                                     turn=turn)}], runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "handler.one-request")
    for index, (snapshot, question) in enumerate([(SNAPSHOT, "first"), (LATER, "second")]):
        requests = requests_of(answer, index)
        check_equal(len(requests), 1, "handler.one-request", f"call {index} did not send exactly one request",
                    input=params)
        shaped = answer_of(impl, "shape", {"transcript": snapshot, "question": question}, "handler.one-request")
        check_equal(requests[0]["messages"], shaped.get("messages"), "handler.one-request",
                    f"call {index} did not send its own call's snapshot", input=params)


@pytest.mark.rule(id="handler.one-request")
@pytest.mark.parametrize("status", [500, 429])
def test_failed_request_is_not_sent_again(impl, status):
    """A call whose provider request fails (not with a stream-required error) sends no second request."""
    params = scenario([{"call": call(provider=[failure(status=status), reply()])}])
    answer = run(impl, params, "handler.one-request")
    check_equal(len(requests_of(answer, 0)), 1, ["handler.one-request", "streaming.no-other-retry"],
                f"a call whose request failed with {status} did not send exactly one request", input=params)
    error_of(answer, 0, "handler.one-request", params)


def _files_refused(impl, count=9, same_path=False):
    """A control: ``count`` files given to shape (distinct, or copies of one path) are too many (files.max-count),
    before a count test blames the order of the checks."""
    request = {"transcript": [{"role": "user", "content": "look"}],
               "files": [{"path": "a.txt" if same_path else f"f{index}.txt", "content": "x"} for index in range(count)]}
    error = shape_error(impl, request, "files.max-count")
    check_equal(error["code"], "too_many_files", "files.max-count", f"{count} files were not too many", input=request,
                actual=error)


@pytest.mark.rule(id="handler.file-count-first")
@pytest.mark.parametrize("count", [9, 20])
@pytest.mark.needs(areas=["files"])
def test_file_count_is_checked_before_any_file_is_read(impl, count):
    """Nine or more paths, one a FIFO and one missing, give too_many_files at once: no file opened, no use counted."""
    with workspace(SPEC) as work:
        paths = ["pipe", "missing.txt"] + ["src/app.py"] * (count - 2)
        params = scenario([{"call": call(input={"files": paths})}, {"call": call(turn=2)}],
                          runtime={"max_uses_per_run": 1}, work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
        if answer["calls"][0].get("error", {}).get("code") != "too_many_files":
            _files_refused(impl, count)
        error = error_of(answer, 0, "handler.file-count-first", params)
        check_equal(error["code"], "too_many_files", "handler.file-count-first",
                    f"{count} files did not fail on their count first", input=params, actual=error)
        result_of(answer, 1, "handler.file-count-first", params)


@pytest.mark.rule(id="handler.file-count-first")
@pytest.mark.needs(areas=["files"])
def test_nine_copies_of_one_path_are_too_many(impl):
    """Nine copies of the same path given to a call count as nine files."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": ["src/app.py"] * 9})}], work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
        if answer["calls"][0].get("error", {}).get("code") != "too_many_files":
            _files_refused(impl, same_path=True)  # duplicates not counted at all: files.max-count's
        error = error_of(answer, 0, "handler.file-count-first", params)
        check_equal(error["code"], "too_many_files", "handler.file-count-first", "duplicates were not counted",
                    input=params, actual=error)


@pytest.mark.rule(id="handler.file-count-first")
@pytest.mark.parametrize("cap", [1, 0], ids=["past-the-cap", "zero-cap"])
@pytest.mark.needs(areas=["files"])
def test_nine_files_with_no_use_left_are_too_many(impl, cap):
    """Nine files in a call with no use left give too_many_files, not the budget note: the count comes first."""
    with workspace(SPEC) as work:
        steps = [{"call": call()}] * cap + [{"call": call(turn=2, input={"files": ["src/app.py"] * 9})}]
        params = scenario(steps, runtime={"max_uses_per_run": cap}, work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
        if answer["calls"][-1].get("error", {}).get("code") != "too_many_files":
            _files_refused(impl, same_path=True)
        error = error_of(answer, cap, "handler.file-count-first", params)
        check_equal(error["code"], "too_many_files", "handler.file-count-first",
                    "nine files with no use left did not fail on their count", input=params, actual=error)


@pytest.mark.rule(id="handler.file-count-first")
@pytest.mark.parametrize("paths", [[f"pkg/f{i}.py" for i in range(8)], ["src/app.py"] * 8],
                         ids=["eight-files", "eight-copies"])
def test_eight_files_are_loaded(impl, paths):
    """A call with exactly 8 files, distinct or copies of one path, is not refused for its count: it sends one
    request."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": paths})}], work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
    if answer["calls"][0].get("error", {}).get("code") == "too_many_files":  # a control: does shape take 8 files?
        request = {"transcript": SNAPSHOT, "files": [file_param(path, "x") for path in paths]}
        shaped = answer_of(impl, "shape", request, "files.max-count")
        check("error" not in shaped, "files.max-count", "shape refused 8 files", input=request, actual=shaped)
    result_of(answer, 0, "handler.file-count-first", params)
    check_equal(len(requests_of(answer, 0)), 1, "handler.file-count-first", "8 files did not make one request",
                input=params)


@pytest.mark.rule(id="handler.step-order")
@pytest.mark.parametrize("bad, code, erring", validation_cases())
@pytest.mark.needs(areas=["budget"])
def test_validation_failures_come_before_the_budget(impl, strings, bad, code, erring):
    """Past the cap, a call that fails validation still gets its error, not the budget note."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call()}, {"call": {**bad, "turn": 2}}, {"call": call(turn=3)}], runtime=RUNTIME,
                          work_dir=str(work))
        answer = run(impl, params, "handler.step-order")
        spent = budget_note(strings, 1, 1, "handler.step-order")
        second = answer["calls"][1] if len(answer["calls"]) > 1 else {}
        if second.get("error", {}).get("code") != code:
            # the budget note instead of the error: the budget came first, unless the failure is no such error even
            # with the budget whole (a control, blamed on the failure's own rule)
            alone = scenario([{"call": bad}], runtime=RUNTIME, work_dir=str(work))
            error = error_of(run(impl, alone, erring), 0, erring, alone)
            check_equal(error["code"], code, erring, "the wrong error code", input=alone, actual=error)
        error = error_of(answer, 1, "handler.step-order", params)
        check_equal(error["code"], code, "handler.step-order", "the budget was checked before the input",
                    input=params, actual=error)
        third = answer["calls"][2] if len(answer["calls"]) > 2 else {}
        if third.get("result") != spent:  # the cap itself, and its note, first: the controls
            check_cap_holds(impl, strings=strings)
            check_cap_holds(impl, shared=True)
        check_equal(result_of(answer, 2, "handler.step-order", params), spent, "handler.step-order",
                    "the call past the cap did not get the budget note", input=params)


@pytest.mark.rule(id="handler.step-order")
@pytest.mark.parametrize("index", validation_cases([0, 3, 4, 8], whole=False))
def test_validation_failures_come_before_a_zero_cap(impl, strings, index):
    """With a cap of 0, a call that fails validation still gets its error, not the budget note 0/0."""
    bad, code, erring = VALIDATION_FAILURES[index]
    with workspace(SPEC) as work:
        params = scenario([{"call": bad}], runtime={**RUNTIME, "max_uses_per_run": 0}, work_dir=str(work))
        got = run(impl, params, "handler.step-order")["calls"]
        if not got or got[0].get("error", {}).get("code") != code:  # a control: that error with the budget whole
            alone = scenario([{"call": bad}], runtime=RUNTIME, work_dir=str(work))
            error = error_of(run(impl, alone, erring), 0, erring, alone)
            check_equal(error["code"], code, erring, "the wrong error code", input=alone, actual=error)
    check_equal(got[0].get("error", {}).get("code") if got else None, code, "handler.step-order",
                "with a cap of 0, the budget was checked before the input", input=params, actual=got)


@pytest.mark.rule(id="handler.step-order")
def test_a_wrong_type_and_nine_files_fail_before_any_file_is_read(impl):
    """A call with a wrongly typed question and nine files that do not exist fails on the type or the count (both are
    its arguments; which comes first is open), never on a file: the count comes before any file is read."""
    params = scenario([{"call": call(input={"question": 3, "files": ["a"] * 9})}])
    error = error_of(run(impl, params, "handler.step-order"), 0, "handler.step-order", params)
    check(error["code"] in ("invalid_input", "too_many_files"), "handler.step-order",
          "a call with a wrongly typed question and nine files did not fail on either", input=params, actual=error)


@pytest.mark.rule(id="handler.step-order")
@pytest.mark.parametrize("bad_input, codes", [({"question": 3}, ["invalid_input"]),
                                              ({"files": ["src/app.py"] * 9}, ["missing_snapshot", "too_many_files"]),
                                              ({"files": ["missing.txt"]}, ["missing_snapshot", "file_error"]),
                                              ({"files": ["pipe"]}, ["missing_snapshot", "file_error"])],
                         ids=["type-first", "snapshot-or-count", "snapshot-or-missing-file",
                              "snapshot-or-special-file"])
def test_snapshot_is_checked_after_the_arguments(impl, bad_input, codes):
    """Without a snapshot, a wrongly typed input fails on its type (the arguments are loaded before the snapshot is
    taken); nine files or a bad file fail on the snapshot or on the files (their order is open), never otherwise."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input=bad_input, snapshot=None)}], work_dir=str(work))
        error = error_of(run(impl, params, "handler.step-order"), 0, "handler.step-order", params)
        check(error["code"] in codes, "handler.step-order", f"the call did not fail with {' or '.join(codes)}",
              input=params, actual=error)


CONFIGURATIONS = [("advisor-large-2", 1234, None), ("advisor-large-2", 1234, "high"),
                  ("vendor/model:2025-01", 1, "low"), ("m", 200000, "minimal")]


@pytest.mark.rule(id="handler.provider-request")
@pytest.mark.parametrize("model, max_tokens, reasoning", CONFIGURATIONS,
                         ids=["no-reasoning", "reasoning", "one-token", "long-answer-minimal-reasoning"])
def test_provider_request_carries_the_configuration(impl, model, max_tokens, reasoning):
    """The request carries the configured model, max tokens and reasoning, and no tools."""
    runtime = {"model": model, "max_tokens": max_tokens, "reasoning": reasoning}
    params = scenario([{"call": call()}], runtime=runtime)
    (request,) = requests_of(run(impl, params, "handler.provider-request"), 0)
    got = {key: request[key] for key in ("model", "max_tokens", "reasoning", "tools")}
    check_equal(got, {"model": model, "max_tokens": max_tokens, "reasoning": reasoning, "tools": []},
                "handler.provider-request", "the request does not carry the configuration", input=params)
    # the shaped messages are what shape renders for the same snapshot (how it renders them is shaping's concern)
    shaped = answer_of(impl, "shape", {"transcript": SNAPSHOT}, "handler.provider-request")
    check_equal(request["messages"], shaped.get("messages"), "handler.provider-request",
                "the request does not carry the shaped messages", input=params)


@pytest.mark.rule(id="handler.provider-request")
def test_every_handler_sends_the_configuration(impl):
    """The requests of a child agent, of a later turn and of another conversation carry the same configuration."""
    runtime = {"model": "advisor-large-2", "max_tokens": 777, "reasoning": "medium", "max_uses_per_run": 4}
    steps = [call(), call(agent="worker-a"), call(turn=2), call(conversation=2)]
    params = scenario([{"call": step} for step in steps], runtime=runtime)
    answer = run(impl, params, "handler.provider-request")
    for index in range(len(steps)):
        requests = requests_of(answer, index)
        check_equal(len(requests), 1, "handler.one-request", f"call {index} did not send exactly one request",
                    input=params)
        got = {key: requests[0][key] for key in ("model", "max_tokens", "reasoning", "tools")}
        check_equal(got, {"model": "advisor-large-2", "max_tokens": 777, "reasoning": "medium", "tools": []},
                    "handler.provider-request", f"the request of call {index} does not carry the configuration",
                    input=params)
