"""The handler: one request per call, the order of its steps, what consumes a use, and the note it returns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import answer_of, check, check_equal
from advisor_conformance.scenarios import (
    SNAPSHOT, budget_note, call, check_cap_holds, check_use_kept, declared, error_of, failure, reply, requests_of, result_of, run,
    scenario,
)
from advisor_conformance.shaping import shape_error
from advisor_conformance.workspace import workspace

SPEC = {"src/app.py": {"text": "print('hello')\n"}, "pipe": {"fifo": True}}


@pytest.mark.rule(id="handler.one-request")
@given(transcript=s.transcripts(max_size=5), question=s.questions())
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
def test_files_reach_the_request_as_loaded(impl):
    """Files named in the call reach the request's final message, read from the working directory."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": ["src/app.py"], "question": "ok?"})}], work_dir=str(work))
        answer = run(impl, params, "handler.one-request")
        (request,) = requests_of(answer, 0)
        check(request["messages"][-1]["content"].startswith(oracle.file_block("src/app.py", b"print('hello')\n")),
              "handler.one-request", "the file did not reach the request", input=params,
              actual=request["messages"][-1])


@pytest.mark.rule(id="handler.one-request")
def test_each_call_sends_the_conversation_as_it_is_then(impl):
    """Two calls of one turn each send the live snapshot of their own call, not one taken earlier."""
    later = [*SNAPSHOT[:2],
             {"role": "assistant", "content": "I ran the tests: two still fail."},
             {"role": "user", "content": "Fix them without touching the fixtures."},
             {"role": "assistant", "content": "",
              "tool_calls": [{"id": "call_adv2", "name": "advisor", "arguments": {"question": "Now what?"}}]}]
    params = scenario([{"call": call(input={"question": "first"})},
                       {"call": call(input={"question": "second"}, snapshot=later)}], runtime={"max_uses_per_run": 2})
    answer = run(impl, params, "handler.one-request")
    for index, (snapshot, question) in enumerate([(SNAPSHOT, "first"), (later, "second")]):
        requests = requests_of(answer, index)
        check_equal(len(requests), 1, "handler.one-request", f"call {index} did not send exactly one request",
                    input=params)
        shaped = answer_of(impl, "shape", {"transcript": snapshot, "question": question}, "handler.one-request")
        check_equal(requests[0]["messages"], shaped.get("messages"), "handler.one-request",
                    f"call {index} did not send its own call's snapshot", input=params)


def _nine_files_refused(impl, same_path=False):
    """A control: nine files given to shape (distinct, or nine copies of one path) are too many (files.max-count),
    before a count test blames the order of the checks."""
    request = {"transcript": [{"role": "user", "content": "look"}],
               "files": [{"path": "a.txt" if same_path else f"f{index}.txt", "content": "x"} for index in range(9)]}
    error = shape_error(impl, request, "files.max-count")
    check_equal(error["code"], "too_many_files", "files.max-count", "nine files were not too many", input=request,
                actual=error)


@pytest.mark.rule(id="handler.file-count-first")
def test_file_count_is_checked_before_any_file_is_read(impl):
    """Nine paths, one a FIFO and one missing, give too_many_files at once: no file is opened, no use counted."""
    with workspace(SPEC) as work:
        paths = ["pipe", "missing.txt"] + ["src/app.py"] * 7
        params = scenario([{"call": call(input={"files": paths})}, {"call": call(turn=2)}],
                          runtime={"max_uses_per_run": 1}, work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
        if answer["calls"][0].get("error", {}).get("code") != "too_many_files":
            _nine_files_refused(impl)
        error = error_of(answer, 0, "handler.file-count-first", params)
        check_equal(error["code"], "too_many_files", "handler.file-count-first",
                    "nine files did not fail on their count first", input=params, actual=error)
        result_of(answer, 1, "handler.file-count-first", params)


@pytest.mark.rule(id="handler.file-count-first")
def test_nine_copies_of_one_path_are_too_many(impl):
    """Nine copies of the same path given to a call count as nine files."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": ["src/app.py"] * 9})}], work_dir=str(work))
        answer = run(impl, params, "handler.file-count-first")
        if answer["calls"][0].get("error", {}).get("code") != "too_many_files":
            _nine_files_refused(impl, same_path=True)  # duplicates not counted at all: files.max-count's
        error = error_of(answer, 0, "handler.file-count-first", params)
        check_equal(error["code"], "too_many_files", "handler.file-count-first", "duplicates were not counted",
                    input=params, actual=error)


#: Each validation failure, its error code, and the rule that makes it an error (the failure's own rule; whether it
#: then consumes a use is handler.validation-no-use's).
VALIDATION_FAILURES = [
    (call(input={"question": 1}), "invalid_input", "tool.wrong-type-error"),
    (call(input={"files": ["src/app.py"] * 9}), "too_many_files", "files.max-count"),
    (call(input={"files": ["missing.txt"]}), "file_error", "workspace.missing-file"),
    (call(input={"files": ["pipe"]}), "file_error", "workspace.special-files"),
    (call(snapshot=None), "missing_snapshot", "handler.validation-no-use"),
]


@pytest.mark.rule(id="handler.validation-no-use")
@pytest.mark.parametrize("bad, code, erring", VALIDATION_FAILURES,
                         ids=["argument-type", "too-many-files", "missing-file", "special-file", "no-snapshot"])
def test_validation_failures_consume_no_use(impl, bad, code, erring):
    """A call that fails validation returns its error and leaves the whole budget to the next call."""
    with workspace(SPEC) as work:
        params = scenario([{"call": bad}, {"call": call(turn=2)}], runtime={"max_uses_per_run": 1},
                          work_dir=str(work))
        answer = run(impl, params, "handler.validation-no-use")
        error = error_of(answer, 0, erring, params)
        check_equal(error["code"], code, erring, "the wrong error code", input=params, actual=error)
        check_equal(result_of(answer, 1, "handler.validation-no-use", params), "Looks fine; run the tests next.",
                    "handler.validation-no-use", "the failed call consumed the only use", input=params)


@pytest.mark.rule(id="handler.failure-consumes-use")
@pytest.mark.parametrize("status", [500, 429, 400])
def test_provider_failure_consumes_the_use(impl, strings, status):
    """A provider failure is a provider_error, and the use it counted stays spent."""
    params = scenario([{"call": call(provider=[failure(status=status)])}, {"call": call(turn=2)}],
                      runtime={"max_uses_per_run": 1})
    answer = run(impl, params, "handler.failure-consumes-use")
    error = error_of(answer, 0, "handler.failure-consumes-use", params)
    check_equal(error["code"], "provider_error", "handler.failure-consumes-use", "the wrong error code",
                input=params, actual=error)
    check_use_kept(impl, answer, params, strings, "handler.failure-consumes-use")


@pytest.mark.rule(id="handler.note-trimmed")
@given(pad_left=st.lists(st.sampled_from(s.GO_SPACES), max_size=3).map("".join),
       text=st.text(min_size=1, max_size=200).filter(lambda t: oracle.trim(t) == t),
       pad_right=st.lists(st.sampled_from(s.GO_SPACES), max_size=3).map("".join))
def test_note_is_the_answer_trimmed(impl, pad_left, text, pad_right):
    """The note is the advisor's answer trimmed of surrounding white space."""
    params = scenario([{"call": call(provider=[reply(pad_left + text + pad_right)])}])
    note = result_of(run(impl, params, "handler.note-trimmed"), 0, "handler.note-trimmed", params)
    check_equal(note, text, "handler.note-trimmed", "the note is not the trimmed answer", input=params)


@pytest.mark.rule(id="handler.note-trimmed")
@pytest.mark.parametrize("edge", s.NOT_GO_SPACES + ["\x1d\x1e\x1f"],
                         ids=["file-separator", "byte-order-mark", "zero-width-space", "other-separators"])
def test_note_keeps_what_go_does_not_count_as_white_space(impl, edge):
    """Characters outside Go's white space (U+001C..U+001F, U+FEFF, U+200B) stay at the edges of the note."""
    text = f"{edge}Check the retry loop first.{edge}"
    params = scenario([{"call": call(provider=[reply(" \n" + text + "\t ")])}])
    note = result_of(run(impl, params, "handler.note-trimmed"), 0, "handler.note-trimmed", params)
    check_equal(note, text, "handler.note-trimmed", "the note was trimmed of more than Go's white space",
                input=params)


@pytest.mark.rule(id="handler.token-limit-note")
def test_answer_cut_at_the_token_limit_says_so(impl, strings):
    """An answer that stopped on the token limit gets the declared token-limit note after a blank line."""
    params = scenario([{"call": call(provider=[reply("  Partial advice: first, ", finish_reason="length")])}])
    note = result_of(run(impl, params, "handler.token-limit-note"), 0, "handler.token-limit-note", params)
    limit_note = declared(strings, "token_limit_note", "handler.token-limit-note")
    check_equal(note, "Partial advice: first,\n\n" + limit_note, "handler.token-limit-note",
                "the token-limit note is missing or misplaced", input=params)


@pytest.mark.rule(id="handler.token-limit-note")
def test_complete_answer_has_no_token_limit_note(impl, strings):
    """An answer that stopped normally carries no token-limit note."""
    params = scenario([{"call": call(provider=[reply("Done.", finish_reason="stop")])}])
    note = result_of(run(impl, params, "handler.token-limit-note"), 0, "handler.token-limit-note", params)
    check_equal(note, "Done.", "handler.token-limit-note", "a complete answer was marked as cut", input=params)


@pytest.mark.rule(id="handler.empty-answer-note")
@pytest.mark.parametrize("text", ["", "   ", "\n\t\u3000"], ids=["empty", "spaces", "blanks"])
def test_empty_answer_becomes_the_no_content_note(impl, strings, text):
    """An answer that is empty after trimming becomes the declared no-content note."""
    params = scenario([{"call": call(provider=[reply(text)])}])
    note = result_of(run(impl, params, "handler.empty-answer-note"), 0, "handler.empty-answer-note", params)
    check_equal(note, declared(strings, "no_content_note", "handler.empty-answer-note"), "handler.empty-answer-note",
                "an empty answer did not become the no-content note", input=params)


@pytest.mark.rule(id="handler.step-order")
def test_file_errors_come_before_the_budget(impl, strings):
    """Past the cap, a call with a missing file still gets the file error, not the budget note."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call()}, {"call": call(turn=2, input={"files": ["missing.txt"]})},
                           {"call": call(turn=3)}], runtime={"max_uses_per_run": 1}, work_dir=str(work))
        answer = run(impl, params, "handler.step-order")
        spent = budget_note(strings, 1, 1, "handler.step-order")
        second = answer["calls"][1] if len(answer["calls"]) > 1 else {}
        # the budget note instead of the file error: the budget came first, unless a missing file is no error even
        # with the budget whole (a control); any other note: the missing file was not an error at all
        erring = "handler.step-order" if second.get("result") in (None, spent) else "workspace.missing-file"
        if "result" in second and erring == "handler.step-order":
            alone = scenario([{"call": call(input={"files": ["missing.txt"]})}], work_dir=str(work))
            error_of(run(impl, alone, "workspace.missing-file"), 0, "workspace.missing-file", alone)
        error = error_of(answer, 1, erring, params)
        check_equal(error["code"], "file_error", "handler.step-order", "the budget was checked before the files",
                    input=params, actual=error)
        third = answer["calls"][2] if len(answer["calls"]) > 2 else {}
        if third.get("result") != spent:  # the cap itself, and its note, first: the controls
            check_cap_holds(impl, strings=strings)
            check_cap_holds(impl, shared=True)
        check_equal(result_of(answer, 2, "handler.step-order", params), spent, "handler.step-order",
                    "the call past the cap did not get the budget note", input=params)


@pytest.mark.rule(id="handler.step-order")
def test_input_types_come_before_the_file_count(impl):
    """A call with a wrongly typed question and nine files fails on the type."""
    params = scenario([{"call": call(input={"question": 3, "files": ["a"] * 9})}])
    error = error_of(run(impl, params, "handler.step-order"), 0, "handler.step-order", params)
    check_equal(error["code"], "invalid_input", "handler.step-order", "the file count was checked before the types",
                input=params, actual=error)


@pytest.mark.rule(id="handler.step-order")
@pytest.mark.parametrize("bad_input, code", [({"question": 3}, "invalid_input"),
                                             ({"files": ["src/app.py"] * 9}, "missing_snapshot"),
                                             ({"files": ["missing.txt"]}, "missing_snapshot"),
                                             ({"files": ["pipe"]}, "missing_snapshot")],
                         ids=["type-first", "then-snapshot-before-count", "snapshot-before-missing-file",
                              "snapshot-before-special-file"])
def test_snapshot_is_checked_after_the_types_and_before_the_files(impl, bad_input, code):
    """Without a snapshot, a wrongly typed input fails on its type, and any file problem waits for the snapshot."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input=bad_input, snapshot=None)}], work_dir=str(work))
        error = error_of(run(impl, params, "handler.step-order"), 0, "handler.step-order", params)
        check_equal(error["code"], code, "handler.step-order", "the checks did not run in the order types, snapshot, "
                    "file count, files", input=params, actual=error)


@pytest.mark.rule(id="handler.provider-request")
@pytest.mark.parametrize("reasoning", [None, "high"], ids=["no-reasoning", "reasoning"])
def test_provider_request_carries_the_configuration(impl, reasoning):
    """The request carries the configured model, max tokens and reasoning, and no tools."""
    runtime = {"model": "advisor-large-2", "max_tokens": 1234, "reasoning": reasoning}
    params = scenario([{"call": call()}], runtime=runtime)
    (request,) = requests_of(run(impl, params, "handler.provider-request"), 0)
    got = {key: request[key] for key in ("model", "max_tokens", "reasoning", "tools")}
    check_equal(got, {"model": "advisor-large-2", "max_tokens": 1234, "reasoning": reasoning, "tools": []},
                "handler.provider-request", "the request does not carry the configuration", input=params)
    # the shaped messages are what shape renders for the same snapshot (how it renders them is shaping's concern)
    shaped = answer_of(impl, "shape", {"transcript": SNAPSHOT}, "handler.provider-request")
    check_equal(request["messages"], shaped.get("messages"), "handler.provider-request",
                "the request does not carry the shaped messages", input=params)
