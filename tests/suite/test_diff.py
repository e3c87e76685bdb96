"""Differential testing (``advisor-conformance diff``) in process: what it finds, how it shrinks, what is open, and
that it draws only from what both implementations declare."""

from __future__ import annotations

from typing import Any

import pytest

from advisor_conformance import load_target
from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._contract.transport import InProcessTransport
from advisor_conformance._tools import diff as _diff
from advisor_reference import RequestBuilder, elide_text
from advisor_reference.adapter import AREAS, ReferenceAdapter

from ..fakes import undeclared
from ..fakes.alternative import AlternativeAdapter
from ..fakes.partial import OneProvider


class QuestionSingleNewline(ReferenceAdapter):
    """The reference, with the question followed by one newline instead of a blank line."""

    name = "question-single-newline"

    class builder_class(RequestBuilder):
        def render_question(self, question):
            block = super().render_question(question)
            return block[:-1]


class ElideAt999(ReferenceAdapter):
    """The reference, with tool-call argument strings elided over 999 bytes instead of over 1000."""

    name = "elide-at-999"

    class builder_class(RequestBuilder):
        def elide_argument_string(self, text):
            return elide_text(text, 999)


def implementation(adapter: Any) -> Implementation:
    impl = Implementation(target=adapter.name, transport=InProcessTransport(adapter, adapter.name))
    impl.describe()
    return impl


@pytest.fixture(scope="module")
def reference() -> Implementation:
    return load_target("reference")


@pytest.mark.parametrize("op", _diff.OPERATIONS)
def test_the_reference_against_itself_diverges_nowhere(reference, op):
    """Two copies of the reference answer every drawn input alike: 30 inputs, no divergence."""
    outcome = _diff.search(op, (reference, implementation(ReferenceAdapter())), examples=30)
    assert outcome.divergence is None and outcome.skipped is None
    assert outcome.inputs == 30


def test_a_question_followed_by_one_newline_is_found_in_the_final_message(reference):
    """A question block without its blank line is found, at the final message. (How far it shrinks depends on the
    constants of the modules loaded in the process, which hypothesis draws from: tests/meta/test_diff_cli.py checks
    the shrunk input in a process of its own.)"""
    outcome = _diff.search("shape", (reference, implementation(QuestionSingleNewline())), examples=50)
    found = outcome.divergence
    assert found is not None and found.op == "shape"
    assert found.input["question"].strip()
    parts = found.parts()
    assert (
        len(parts) == 1 and parts[0]["path"].startswith("answer.messages[") and parts[0]["path"].endswith("].content")
    ), parts
    assert parts[0]["a"].endswith("\n\n{{guidance_request}}") and parts[0]["b"].endswith("\n{{guidance_request}}")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def test_an_argument_elided_at_999_bytes_shrinks_to_a_1000_byte_string(reference):
    """Elision one byte early is found, and shrunk to a tool call whose one long argument string is 1000 bytes."""
    outcome = _diff.search("shape", (reference, implementation(ElideAt999())), examples=200, seed=3)
    found = outcome.divergence
    assert found is not None
    arguments = [call["arguments"] for message in found.input["transcript"] for call in message.get("tool_calls", ())]
    sizes = sorted(len(text.encode("utf-8")) for text in _strings(arguments))
    assert sizes and sizes[-1] == 1000 and all(size < 1000 for size in sizes[:-1])
    assert all(part["path"].startswith("answer.messages[") for part in found.parts())


def test_the_same_seed_finds_the_same_divergence(reference):
    """Two searches with the same seed draw the same inputs: the divergence is found at the same input and
    shrinks to the same one."""
    pair = (reference, implementation(QuestionSingleNewline()))
    first, second = (_diff.search("shape", pair, examples=50, seed=3) for _ in range(2))
    assert first.found_after == second.found_after and first.inputs == second.inputs
    assert first.divergence.input == second.divergence.input


@pytest.mark.parametrize("op", ["shape", "encode", "scenario"])
def test_the_alternative_diverges_from_the_reference_only_in_open_choices(reference, op):
    """The alternative (every open choice made differently) answers every drawn shape, encode and scenario input as
    the reference does, modulo what is open."""
    outcome = _diff.search(op, (reference, implementation(AlternativeAdapter())), examples=60)
    assert outcome.divergence is None, outcome.divergence and outcome.divergence.parts()


# -- the open choices, one by one ----------------------------------------------------------------------------

A = {
    "strings": {
        "guidance_request": "Advise.",
        "deduped_file_notice": "(same as read)",
        "deduped_file_block": "File: {path}\n{notice}\n\n",
        "budget_spent": "spent {used}/{max}",
    },
    "options": {"args_json": "origin"},
}
B = {
    "strings": {
        "guidance_request": "What next?",
        "deduped_file_notice": "[unchanged]",
        "budget_spent": "{max} allowed, {used} used",
    },
    "options": {"args_json": "semantic"},
}
KEY_1, KEY_2 = "a" * 32, "b" * 32


def paths(
    op: str, a: Any, b: Any, params: Any = None, *, first: dict = A, second: dict = B, **kwargs: Any
) -> list[str]:
    found, _ = _diff.diverging(op, params or {}, (a, b), (first, second), **kwargs)
    return [diff.where for diff in found]


def messages(*texts: str) -> dict:
    return {"messages": [{"role": "user", "content": text} for text in texts]}


def test_declared_strings_compare_by_name_not_by_wording():
    """Each side's declared strings stand for their names: reworded strings are equal, a string elsewhere is not."""
    assert paths("shape", messages("q\n\nAdvise."), messages("q\n\nWhat next?")) == []
    assert paths("shape", messages("q\n\nAdvise."), messages("What next?\n\nq")) == ["answer.messages[0].content"]


def test_budget_notes_compare_by_their_counts():
    """The budget-spent notes of two templates are equal with the same counts, and differ with others."""
    assert paths("scenario", {"calls": [{"result": "spent 3/3"}]}, {"calls": [{"result": "3 allowed, 3 used"}]}) == []
    assert paths("scenario", {"calls": [{"result": "spent 3/3"}]}, {"calls": [{"result": "3 allowed, 2 used"}]}) == [
        "answer.calls[0].result"
    ]


def test_deduped_blocks_compare_by_path_whatever_their_layout():
    """A deduped block in a declared layout equals another layout naming the same path and notice, but not one
    that carries the file's content."""
    files = {"src/a.py": "print('a long enough line of content')\n"}
    a = messages("File: src/a.py\n(same as read)\n\nAdvise.")
    assert paths("shape", a, messages("File: src/a.py [unchanged]\nWhat next?"), files=files) == []
    carried = messages(f"File: src/a.py\n{files['src/a.py']}[unchanged]\nWhat next?")
    assert paths("shape", a, carried, files=files) == ["answer.messages[0].content"]


def test_args_json_compares_as_bytes_only_when_both_declare_the_origin_encoding():
    """Tool-call lines with the same arguments in other bytes are equal unless both sides declare args_json origin."""
    a, b = messages('[tool_call: edit {"a":1,"b":"<"}]'), messages('[tool_call: edit {"b": "\\u003c", "a": 1.0}]')
    assert paths("shape", a, b) == []
    assert paths("shape", a, b, second={**B, "options": {"args_json": "origin"}}) == ["answer.messages[0].content"]


def test_fresh_keys_compare_by_where_they_repeat():
    """Fresh cache keys are equal when they repeat in the same places, and differ when one side mints a new key
    where the other reuses one, or ignores the key it was given."""

    def requests(*keys):
        return {"provider_requests": [{"prompt_cache_key": key} for key in keys]}

    assert paths("scenario", requests(KEY_1, KEY_1), requests(KEY_2, KEY_2)) == []
    assert paths("scenario", requests(KEY_1, KEY_1), requests(KEY_1, KEY_2)) == [
        "answer.provider_requests[1].prompt_cache_key"
    ]
    given = {"runtime": {"cache_key_store": {"advisor": KEY_1}}}
    assert paths("scenario", requests(KEY_1), requests(KEY_2), given) == [
        "answer.provider_requests[0].prompt_cache_key"
    ]


def _call(result: str, key: str) -> dict:
    return {"calls": [{"result": result}], "tools": [], "provider_requests": [{"call": 0, "prompt_cache_key": key}]}


def test_token_limit_notes_compare_whatever_their_separator_and_order():
    """The white space before the token-limit note is open, and so is an empty cut answer's note: the token-limit
    note alone or after the no-content note; the answer before the note is not."""
    strings = {"no_content_note": "(nothing)", "token_limit_note": "[cut]"}
    described = {"strings": strings}
    for a, b in [("Use a lock.\n\n[cut]", "Use a lock. [cut]"), ("(nothing)\n\n[cut]", "[cut]")]:
        assert paths("scenario", _call(a, "k"), _call(b, "k"), {"runtime": {}}, first=described, second=described) == []
    assert paths(
        "scenario",
        _call("Use a lock.\n\n[cut]", "k"),
        _call("Use a lock!\n[cut]", "k"),
        {"runtime": {}},
        first=described,
        second=described,
    ) == ["answer.calls[0].result"]


def test_keys_of_a_store_without_an_advisor_key_compare_as_open():
    """A store without the slot `advisor` may give no key or mint one: its keys are open; with the slot they are
    not."""
    assert paths("scenario", _call("ok", KEY_1), _call("ok", "minted"), {"runtime": {"cache_key_store": {}}}) == []
    assert paths(
        "scenario", _call("ok", "k-1"), _call("ok", "minted"), {"runtime": {"cache_key_store": {"advisor": "k-1"}}}
    ) == ["answer.provider_requests[0].prompt_cache_key"]


def test_errors_compare_by_code_and_field():
    """Errors with other messages are equal; another code or field differs; a call's field may be named from the
    call or from the params."""

    def call_error(code, at, message):
        return {"calls": [{"error": {"code": code, "message": message, "at": at}}]}

    assert (
        paths(
            "scenario",
            call_error("invalid_input", "input.question", "bad"),
            call_error("invalid_input", "steps[0].call.input.question", "question must be a string"),
        )
        == []
    )
    assert paths(
        "scenario", call_error("invalid_input", "input.files", "x"), call_error("file_error", "input.files", "x")
    ) == ["answer.calls[0].error.code"]
    assert paths(
        "shape",
        {"error": {"code": "invalid_input", "message": "x", "at": "transcript[0].role"}},
        {"error": {"code": "invalid_input", "message": "x", "at": "transcript[0]"}},
    ) == ["answer.error.at"]


def anthropic(messages_: list, thinking: Any = None, max_tokens: int = 4096) -> dict:
    body = {"model": "m", "max_tokens": max_tokens, "messages": messages_}
    if thinking is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": thinking}
    return {"method": "POST", "path": "/v1/messages", "headers": {}, "body": body}


def block(role: str, text: str, marked: bool = False) -> dict:
    marker = {"cache_control": {"type": "ephemeral", "ttl": "1h"}} if marked else {}
    content = {"type": "text", "text": text, **marker}
    return {"role": role, "content": [content]}


def test_thinking_budgets_compare_by_their_bounds():
    """Two thinking budgets of at least 1024 and below max_tokens are equal; one under 1024 differs."""
    params = {"provider": "anthropic", "request": {"messages": [{"role": "user", "content": "x"}]}}
    wire = [block("user", "x")]
    assert paths("encode", anthropic(wire, 3000), anthropic(wire, 2048), params) == []
    assert paths("encode", anthropic(wire, 1024, 1100), anthropic(wire, 1023, 1100), params) == [
        "answer.body.thinking.budget_tokens"
    ]


def test_an_empty_user_message_may_be_left_out_or_given_text_on_the_anthropic_wire():
    """An empty user message left out on one side and given a text on the other compares equal (the markers too,
    which depend on it); any other message left out differs."""
    request = {
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "reply"},
            {"role": "user", "content": ""},
            {"role": "user", "content": "advise"},
        ]
    }
    params = {"provider": "anthropic", "request": request}
    left_out = anthropic([block("user", "first"), block("assistant", "reply", marked=True), block("user", "advise")])
    given_text = anthropic(
        [
            block("user", "first"),
            block("assistant", "reply"),
            block("user", "(empty)", marked=True),
            block("user", "advise"),
        ]
    )
    assert paths("encode", left_out, given_text, params) == []
    dropped = anthropic([block("user", "first"), block("user", "(empty)", marked=True), block("user", "advise")])
    assert paths("encode", left_out, dropped, params) != []


@pytest.mark.parametrize("area, op", [("files", "shape"), ("breakpoints", "encode")])
def test_an_area_one_does_not_declare_is_not_drawn(reference, area, op):
    """Against an implementation that gets an area's rules wrong and does not declare it (the files, Anthropic's
    breakpoints), diff finds no divergence; declaring the area, the same implementation diverges."""
    undeclared_pair = (reference, implementation(undeclared.without(area)()))
    outcome = _diff.search(op, undeclared_pair, examples=10)
    assert outcome.skipped is None and outcome.inputs == 10 and outcome.divergence is None, outcome.to_json()
    declared_pair = (reference, implementation(undeclared.broken([area], AREAS, f"declaring-{area}")()))
    assert _diff.search(op, declared_pair, examples=10).divergence is not None


def test_encode_draws_only_the_providers_both_declare(reference):
    """Against an implementation of Anthropic alone (it answers unsupported_op for the others), every drawn encode is
    for Anthropic, and none diverges."""
    drawn = []
    pair = (reference, implementation(OneProvider()))
    original = _diff.compare

    def compare(op, params, implementations):
        drawn.append(params["provider"])
        return original(op, params, implementations)

    _diff.compare = compare
    try:
        outcome = _diff.search("encode", pair, examples=30)
    finally:
        _diff.compare = original
    assert outcome.divergence is None and set(drawn) == {"anthropic"}, (outcome.to_json(), set(drawn))


class ShapeAreasOnly(ReferenceAdapter):
    """The reference, declaring the areas of shape alone."""

    name = "shape-areas-only"

    def describe(self, params=None):
        return {**super().describe(params), "areas": ["transcript", "request", "flatten", "elision"]}


@pytest.mark.parametrize("op", ["encode", "scenario"])
def test_an_operation_of_no_area_both_declare_is_skipped_naming_it(reference, op):
    """An operation whose areas the two do not both declare is not searched: its outcome is skipped, naming it."""
    outcome = _diff.search(op, (reference, implementation(ShapeAreasOnly())), examples=10)
    assert outcome.inputs == 0 and outcome.skipped is not None and op in outcome.skipped, outcome.to_json()
