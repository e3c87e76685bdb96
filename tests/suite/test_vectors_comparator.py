"""The golden vectors' comparator: it finds every difference, blames each on the right rules, and never says equal
for values that differ."""

from __future__ import annotations

import pytest

from advisor_conformance.vectors import Case, VectorError, attribute, differences, fill, parse_pattern, refused

STRINGS = {"deduped_file_notice": "(see above)", "guidance_request": "Advise."}


def _case(rules=("a.x", "a.y", "a.z"), pins=None, transcript=None, op="shape", expect=None):
    return Case(
        "f",
        "c",
        "d",
        tuple(rules),
        op,
        {"transcript": transcript} if transcript else {},
        expect or {},
        {},
        None,
        {pattern: tuple(rules) for pattern, rules in (pins or {}).items()},
    )


def _diffs(expected, actual, **options):
    return differences(expected, actual, exact_args=options.pop("exact_args", True), **options)


def _blamed(case, expected, actual, **options):
    """The rules the one difference between ``expected`` and ``actual`` is blamed on."""
    (diff,) = _diffs(expected, actual, **options)
    return attribute(case, [diff], options.get("strings"))[diff]


def _blamed_by_field(case, expected, actual):
    """Where each difference between ``expected`` and ``actual`` is, with the rules it is blamed on."""
    return {diff.where: rules for diff, rules in attribute(case, _diffs(expected, actual)).items()}


@pytest.mark.parametrize(
    "value",
    [{"a": [1, "x", None, {"b": True}]}, [], "", 0, {"error": {"code": "c"}}],
    ids=["nested", "empty-list", "empty-string", "zero", "error"],
)
def test_equal_values_have_no_difference(value):
    """A value compared with itself has no difference."""
    assert _diffs(value, value) == []


@pytest.mark.parametrize(
    "expected, actual, where",
    [
        ({"a": 1}, {"a": 2}, "answer.a"),
        ({"a": 1}, {"a": 1.0}, "answer.a"),
        ({"a": 1}, {}, "answer.a"),
        ({}, {"b": 1}, "answer.b"),
        ([1, 2], [1, 2, 3], "answer"),
        ([{"x": "s"}], [{"x": "t"}], "answer[0].x"),
        ("abc", "abd", "answer"),
        ({"a": {"b": [0, {"c": False}]}}, {"a": {"b": [0, {"c": 0}]}}, "answer.a.b[1].c"),
    ],
    ids=["number", "int-vs-float", "missing-key", "extra-key", "longer-list", "item-field", "string", "deep-bool"],
)
def test_each_kind_of_difference_is_found_at_its_path(expected, actual, where):
    """A changed, missing or extra field, a list of another length and a changed string are found where they are."""
    found = _diffs(expected, actual)
    assert [diff.where for diff in found] == [where]


def test_every_difference_is_collected():
    """Several differing fields give one difference each, not just the first."""
    found = _diffs({"a": 1, "b": [1, 2], "c": "x"}, {"a": 2, "b": [1, 3], "c": "y"})
    assert sorted(diff.where for diff in found) == ["answer.a", "answer.b[1]", "answer.c"]


def test_string_difference_shows_where_and_the_region():
    """A differing string says at which character it departs and shows the text around it on both sides."""
    (diff,) = _diffs("x" * 100 + "EXPECTED" + "y" * 100, "x" * 100 + "ACTUAL" + "y" * 100)
    assert "100" in diff.what and "EXPECTED" in diff.what and "ACTUAL" in diff.what


def test_only_the_given_fields_of_an_error_are_compared():
    """Under an error, fields the vector leaves out are not compared."""
    assert _diffs({"error": {"code": "file_error"}}, {"error": {"code": "file_error", "message": "m", "at": "x"}}) == []
    assert _diffs({"error": {"code": "file_error"}}, {"error": {"code": "invalid_input", "message": "m"}}) != []


def test_fresh_keys_match_by_label():
    """$hex32 places with one label hold one key, different labels different keys, and only 32 hex digits match."""
    key, other = "0" * 32, "a" * 32
    same = [{"$hex32": "k"}, {"$hex32": "k"}]
    assert _diffs(same, [key, key]) == []
    assert _diffs(same, [key, other]) != []
    assert _diffs([{"$hex32": "k"}, {"$hex32": "j"}], [key, key]) != []
    assert _diffs({"$hex32": "k"}, "not-a-key") != []


@pytest.mark.parametrize(
    "actual, ok", [(1024, True), (1500, True), (1023, False), (1501, False), (True, False), ("1200", False)]
)
def test_between_matches_integers_in_its_range(actual, ok):
    """$between matches an integer inside its inclusive bounds and nothing else."""
    assert (_diffs({"$between": [1024, 1500]}, actual) == []) is ok


def test_ignore_matches_anything():
    """$ignore matches any value."""
    assert _diffs({"a": {"$ignore": "not pinned"}}, {"a": [1, {"deep": True}]}) == []


def test_tool_call_arguments_compare_as_json_unless_exact():
    """Semantic comparison reads a tool-call line's JSON (key order, spacing, number forms); exact compares bytes."""
    expected, actual = '[tool_call: f {"a":1,"b":2}]', '[tool_call: f {"b": 2.0, "a": 1}]'
    assert _diffs(expected, actual, exact_args=False) == []
    assert _diffs(expected, actual, exact_args=True) != []


@pytest.mark.parametrize(
    "pattern, steps",
    [
        ("calls[*].result", ["calls", "*", "result"]),
        ("messages[-1].content", ["messages", -1, "content"]),
        ("headers.session-id", ["headers", "session-id"]),
        ("a[2]", ["a", 2]),
    ],
)
def test_patterns_parse_into_steps(pattern, steps):
    """A pins pattern is keys, indexes (negative from the end) and [*]."""
    assert parse_pattern(pattern) == steps


@pytest.mark.parametrize("pattern", ["", "a..b", "a[x]", "[", "a]"])
def test_malformed_patterns_are_refused(pattern):
    """A pattern that is not a path is a vector error."""
    with pytest.raises(VectorError):
        parse_pattern(pattern)


def test_longest_covering_pattern_decides_the_rules():
    """A difference is blamed on the rules of the longest pattern covering it; one no pattern covers, on all rules."""
    case = _case(pins={"messages": ["a.x"], "messages[-1].content": ["a.y"], "calls[*].result": ["a.z"]})
    blamed = _blamed_by_field(
        case,
        {"messages": [{"content": "p"}, {"content": "q"}], "calls": [{"result": 1}], "other": 0},
        {"messages": [{"content": "P"}, {"content": "Q"}], "calls": [{"result": 2}], "other": 1},
    )
    assert blamed == {
        "answer.messages[0].content": ("a.x",),
        "answer.messages[1].content": ("a.y",),
        "answer.calls[0].result": ("a.z",),
        "answer.other": ("a.x", "a.y", "a.z"),
    }


def test_fields_of_an_operation_pin_their_own_rules_over_an_enclosing_pattern():
    """A scenario's provider-request field (max tokens, cache key) is blamed on the rule of that field even when the
    vector pins only the whole request; the vector's own pins for the field still decide."""
    case = _case(
        ("b.cap",),
        pins={"provider_requests[*]": ["b.cap"], "provider_requests[*].prompt_cache_key": ["t.mine"]},
        op="scenario",
    )
    blamed = _blamed_by_field(
        case,
        {"provider_requests": [{"max_tokens": 2048, "prompt_cache_key": "k", "call": 0}]},
        {"provider_requests": [{"max_tokens": 4096, "prompt_cache_key": "x", "call": 1}]},
    )
    assert blamed == {
        "answer.provider_requests[0].max_tokens": ("handler.provider-request",),
        "answer.provider_requests[0].prompt_cache_key": ("t.mine",),
        "answer.provider_requests[0].call": ("b.cap",),
    }


def test_session_fields_and_cache_keys_are_blamed_on_the_rule_the_expected_value_shows():
    """A request's session fields are blamed on the main agent's, a sub-agent's or the no-session rule, and its
    cache key on the store's or the fresh-key rule, by what the vector expects there."""
    case = _case(
        ("b.cap",),
        pins={"provider_requests[*]": ["b.cap"]},
        op="scenario",
        expect={
            "provider_requests": [
                {"transport_session": "s-advisor", "parent_session": "s", "prompt_cache_key": "store-key"},
                {"transport_session": "s-subagent-advisor", "parent_session": "s", "prompt_cache_key": {"$hex32": "k"}},
                {"transport_session": None, "parent_session": None, "prompt_cache_key": "store-key"},
            ]
        },
    )
    wrong = {"transport_session": "x", "parent_session": "x", "prompt_cache_key": "x"}
    blamed = _blamed_by_field(case, case.expect, {"provider_requests": [wrong, wrong, wrong]})
    assert blamed == {
        "answer.provider_requests[0].transport_session": ("transport.main-session",),
        "answer.provider_requests[0].parent_session": ("transport.main-session",),
        "answer.provider_requests[0].prompt_cache_key": ("transport.cache-key-store",),
        "answer.provider_requests[1].transport_session": ("transport.subagent-session",),
        "answer.provider_requests[1].parent_session": ("transport.subagent-session",),
        "answer.provider_requests[1].prompt_cache_key": ("transport.fresh-key",),
        "answer.provider_requests[2].transport_session": ("transport.no-session",),
        "answer.provider_requests[2].parent_session": ("transport.no-session",),
        "answer.provider_requests[2].prompt_cache_key": ("transport.cache-key-store",),
    }


def test_text_running_on_past_the_end_is_blamed_on_the_declared_string_it_runs_from():
    """Text left over after a segment that ends in a declared string (a newline after the request for guidance) is
    blamed on that string's rule, not on the segment's."""
    expected = {"$segments": [["File: a\n", ["a.x"]], ["Advise.", ["a.x"]]]}
    assert _blamed(_case(), expected, "File: a\nAdvise.\n", strings=STRINGS) == ("request.guidance-request",)


def test_a_departure_in_a_tool_calls_frame_is_blamed_on_the_tool_call_line():
    """Text departing in the `[tool_call: <name> ` opening or the closing bracket of a tool-call line is blamed on
    flatten.tool-call-line whatever the case pins; a departure inside the arguments is left to the pins."""
    case = _case(pins={"messages": ["a.x"]})
    line = 'Looking.\n[tool_call: read {"path":"a.go"}]'
    for actual, rules, segment in [
        ('Looking.\n[tool_call: read] {"path":"a.go"}', ("flatten.tool-call-line",), None),
        ('Looking.\n[tool_call: view {"path":"a.go"}]', ("flatten.tool-call-line",), None),
        ('Looking.\n[tool_call: read {"path":"b.go"}]', ("a.x",), ("a.z",)),
        ('Looking!\n[tool_call: read {"path":"a.go"}]', ("a.x",), ("a.x",)),
        ('Looking.\n\n[tool_call: read {"path":"a.go"}]', ("flatten.assistant-with-calls",), None),
    ]:
        assert _blamed(case, {"messages": [line]}, {"messages": [actual]}) == rules, actual
        # the same line cut into segments (the frame's, the arguments'), each blamed on the case's own rule
        segments = {
            "$segments": [
                ["Looking.", ["a.x"]],
                ["\n[tool_call: read ", ["a.y"]],
                ['{"path":"a.go"}', ["a.z"]],
                ["]", ["a.y"]],
            ]
        }
        assert _blamed(case, {"messages": [segments]}, {"messages": [actual]}) == (segment or rules), actual


@pytest.mark.parametrize("segmented", [False, True])
def test_arguments_written_in_another_form_are_blamed_on_the_origin_encoding(segmented):
    """Compared byte for byte (the origin encoding declared), a text whose tool-call arguments differ only in how they
    are written (escapes, key order, number form) is blamed on flatten.args-json-origin-encoding, whatever the case
    pins; arguments that differ as values stay with the pins, and without the declaration they are equal."""
    case = _case(pins={"messages": ["a.x"]})
    line = '[tool_call: write {"n":1,"text":"\\u003c\\ufffd"}]'
    expected = {"$segments": [["Saving.\n", ["a.y"]], [line, ["a.x"]]]} if segmented else "Saving.\n" + line
    for actual, rules in [
        ('Saving.\n[tool_call: write {"n":1,"text":"<\ufffd"}]', ("flatten.args-json-origin-encoding",)),
        ('Saving.\n[tool_call: write {"text":"\\u003c\\ufffd","n":1.0}]', ("flatten.args-json-origin-encoding",)),
        ('Saving.\n[tool_call: write {"n":1,"text":"<>"}]', ("a.x",)),
    ]:
        assert _blamed(case, {"messages": [expected]}, {"messages": [actual]}) == rules, actual
    assert (
        _diffs(
            {"messages": [expected]},
            {"messages": ['Saving.\n[tool_call: write {"n":1,"text":"<\ufffd"}]']},
            exact_args=False,
        )
        == []
    )


@pytest.mark.parametrize("segmented", [False, True])
def test_a_tool_call_id_shown_on_the_line_is_blamed_on_hidden_ids(segmented):
    """A text that departs on a line showing a tool call's id from the input (more often than the expected line
    does) is blamed on flatten.call-ids-hidden; an id that also stands in the expected line (an argument equal to
    it) is not."""
    line = '[tool_call: bash {"command":"echo c1"}]'
    expected = (
        {"$segments": [["[tool_call: bash ", ["a.x"]], ['{"command":"echo c1"}', ["a.y"]], ["]", ["a.z"]]]}
        if segmented
        else line
    )
    case = _case(
        pins={"messages": ["a.x"]},
        transcript=[
            {"role": "assistant", "tool_calls": [{"id": "c1", "name": "bash"}]},
            {"role": "user", "content": "go on"},
        ],
    )
    for actual, rules in [
        ('[tool_call: bash {"command":"echo c1"} id=c1]', ("flatten.call-ids-hidden",)),
        ('[tool_call: bash#c1 {"command":"echo c1"}]', ("flatten.call-ids-hidden",)),
        ('[tool_call: bash {"command":"echo c1"} ]', ("flatten.tool-call-line",)),
        ('[tool_call: bash {"command":"echo c2"}]', ("a.y",) if segmented else ("flatten.args-json",)),
    ]:
        assert _blamed(case, {"messages": ["S", expected]}, {"messages": ["S", actual]}) == rules, actual


@pytest.mark.parametrize("segmented", [False, True])
def test_the_newline_before_a_call_line_is_blamed_on_assistant_with_calls(segmented):
    """A blank line before a tool-call line, none (the line run onto the text above) or a newline after the last one
    is blamed on flatten.assistant-with-calls, whatever the segment or pins; other departures there are not."""
    text = 'Looking.\n[tool_call: read {"path":"a.go"}]\n[tool_call: ls {}]'
    expected = (
        {
            "$segments": [
                ["Looking.", ["a.x"]],
                ['\n[tool_call: read {"path":"a.go"}]', ["a.y"]],
                ["\n[tool_call: ls {}]", ["a.z"]],
            ]
        }
        if segmented
        else text
    )
    case = _case(pins={"messages": ["a.x"]})
    for actual, rules in [
        ('Looking.\n\n[tool_call: read {"path":"a.go"}]\n[tool_call: ls {}]', True),
        ('Looking.[tool_call: read {"path":"a.go"}]\n[tool_call: ls {}]', True),
        ('Looking.\n[tool_call: read {"path":"a.go"}]\n\n\n[tool_call: ls {}]', True),
        ('Looking.\n[tool_call: read {"path":"a.go"}][tool_call: ls {}]', True),
        ('Looking.\n[tool_call: read {"path":"a.go"}]\n[tool_call: ls {}]\n', True),
        ('Looking.\n[tool_call: read {"path":"a.go"}]\n[tool_call: ls {}] ', False),
        ('Looking.\n\nSee: [tool_call: read {"path":"a.go"}]\n[tool_call: ls {}]', False),
        ('Looking.\n(tool_call: read {"path":"a.go"})\n[tool_call: ls {}]', False),
    ]:
        blamed = _blamed(case, {"messages": [expected]}, {"messages": [actual]})
        assert (blamed == ("flatten.assistant-with-calls",)) is rules, actual


def test_a_departure_inside_an_arguments_elision_marker_is_blamed_on_its_format():
    """Text departing inside a tool-call argument's elision marker is blamed on elision.marker-format; at the marker's
    first character (where the cut ends) and inside a file's marker it is left to the segments or pins."""
    case = _case(pins={"messages": ["a.x"]})
    line = '[tool_call: write {"text":"abc\u2026[elided, 1002 bytes total]"}]'
    for actual, rules in [
        ('[tool_call: write {"text":"abc\u2026[elided, 1003 bytes total]"}]', ("elision.marker-format",)),
        ('[tool_call: write {"text":"abc\u2026[cut, 1002 bytes total]"}]', ("elision.marker-format",)),
        ('[tool_call: write {"text":"abcd\u2026[elided, 1002 bytes total]"}]', ("a.x",)),
    ]:
        assert _blamed(case, {"messages": [line]}, {"messages": [actual]}) == rules, actual
    marker = {"messages": ["abc\u2026[elided, 1002 bytes total]"]}
    assert _blamed(case, marker, {"messages": ["abc\u2026[elided, 1003 bytes total]"]}) == ("a.x",)


def test_segments_blame_the_segment_where_the_text_departs():
    """A string of segments blames the rules of the segment where the text first departs; extra text at the end, the
    last segment's."""
    expected = {"$segments": [["File: a\n", ["a.x"]], ["Q?\n\n", ["a.y"]], ["Advise.", ["a.z"]]]}
    case = _case()
    for actual, rules in [
        ("File: a\nQ?\n\nAdvise!", ("a.z",)),
        ("File: a\nQ?\nAdvise.", ("a.y",)),
        ("File: b\nQ?\n\nAdvise.", ("a.x",)),
        ("File: a\nQ?\n\nAdvise. more", ("a.z",)),
    ]:
        assert _blamed(case, expected, actual) == rules, actual
    assert _diffs(expected, "File: a\nQ?\n\nAdvise.") == []


def test_deduped_slot_checks_what_the_block_must_hold():
    """An undeclared deduped layout matches any block that names the path and carries the notice but no content; a
    declared one is compared exactly."""
    expected = fill("{{deduped:src/a.py}}Advise.", STRINGS)
    options = {"strings": STRINGS, "contents": {"src/a.py": "def function_with_a_long_name(): pass"}}
    assert _diffs(expected, "File: src/a.py (see above)\nAdvise.", **options) == []
    assert _diffs(expected, "File: src/b.py (see above)\nAdvise.", **options) != []
    assert _diffs(expected, "File: src/a.py\nAdvise.", **options) != []
    assert _diffs(expected, "File: src/a.py (see above)\ndef function_with_a_long_name(): pass\nAdvise.", **options)
    declared = {**STRINGS, "deduped_file_block": "[{path}: {notice}]\n"}
    exact = fill("{{deduped:src/a.py}}Advise.", declared)
    assert exact == "[src/a.py: (see above)]\nAdvise."


@pytest.mark.parametrize(
    "at, rules", [("transcript[1].content", ("transcript.roles",)), ("files[0]", None), (None, None)]
)
def test_an_unexpected_refusal_is_the_one_difference(at, rules):
    """An error where the vector expects an answer is the only difference reported (the missing messages follow from
    it); a refused transcript message is blamed on transcript.roles, any other refusal is left to the pins."""
    expected = {"messages": [{"role": "user", "content": "Hi."}]}
    answer = {"error": {"code": "invalid_input", **({"at": at} if at else {})}}
    found, blame = refused(_diffs(expected, answer), expected, answer)
    assert [diff.where for diff in found] == ["answer.error"]
    assert blame == rules
    assert refused(_diffs(expected, {"messages": []}), expected, {"messages": []})[1] is None
    assert len(refused(_diffs(expected, {"messages": []}), expected, {"messages": []})[0]) == 1


def _compared(value, path=()):
    """Every place a vector's expected answer compares: each field and list (its count), each $segments part."""
    if (
        isinstance(value, dict)
        and len(value) == 1
        and next(iter(value)) in ("$segments", "$ignore", "$hex32", "$between")
    ):
        if "$segments" in value:
            yield from ((path, ("segment", text, rules)) for text, rules in value["$segments"])
        elif "$ignore" not in value:
            yield path, None
        return
    yield path, None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _compared(item, (*path, (key, len(value) if isinstance(value, list) else 0)))


def _covering(case, path):
    """The length of the longest pins, FIELD_RULES or message pattern that covers ``path`` (0: none)."""
    from advisor_conformance.vectors import FIELD_RULES, covers, message_rules

    patterns = [parse_pattern(pattern) for pattern in (case.pins or {})]
    patterns += [parse_pattern(pattern) for pattern in FIELD_RULES.get(case.op, {})]
    patterns += [steps for steps, _ in message_rules(case)]
    return max((len(steps) for steps in patterns if covers(steps, path)), default=0)


def test_every_field_a_golden_vector_compares_is_pinned_to_its_rules():
    """Each field and list a golden vector compares is pinned to rules of its own (a pin, a field rule, the rule a
    message is rendered by, or its $segments part), never left to every rule of the case; a message of a request is
    never blamed on the rule of the list of messages as a whole (its count); a deduped file's slot names the dedupe
    decision besides the notice (a file sent whole breaks the decision, a block without the notice the notice)."""
    from advisor_conformance.vectors import load_all

    loose = []
    for case in load_all():
        for path, segment in _compared(case.expect):
            if segment is not None:
                _, text, rules = segment
                if (
                    isinstance(text, str)
                    and "{{deduped:" in text
                    and not {rule for rule in rules if rule.startswith("dedupe.") and rule != "dedupe.notice"}
                ):
                    loose.append(f"{case.key}: the deduped slot {text!r} names no dedupe decision rule")
                continue
            if not path:
                continue  # the answer as a whole: an error where an answer was expected (refused())
            length = _covering(case, path)
            where = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step, _ in path)
            if not length and len(case.rules) > 1:
                loose.append(f"{case.key}: answer{where} is pinned to no rule of its own")
            elif case.op == "shape" and path[0][0] == "messages" and len(path) > 1 and length < 2:
                loose.append(f"{case.key}: answer{where} is pinned only by the count of messages")
    assert not loose, "\n".join(loose[:40])


@pytest.mark.parametrize(
    "block, kind",
    [("File: {path}\n```\n\n```\n\n", "notice"), ("File: {path}\n```\n{content}\n```\n\n", "decision")],
    ids=["block-without-notice", "file-sent-whole"],
)
def test_a_deduped_slot_is_blamed_on_its_own_rules(block, kind):
    """In every golden vector with a deduped file, a block without the notice (the content left out, as decided) is
    blamed on dedupe.notice, and a file sent whole on the slot's dedupe decision alone, never on a rule of the case
    the slot does not name (the count of messages, say)."""
    from advisor_conformance.vectors import load_all

    strings = {
        **{
            name: f"<{name}>"
            for name in (
                "system_prompt",
                "guidance_request",
                "inflight_label",
                "advisor_note_prefix",
                "no_content_note",
                "token_limit_note",
                "line_truncation_marker",
            )
        },
        "deduped_file_notice": "(see above)",
    }
    checked = 0
    for case in load_all():
        for _path, segment in _compared(case.expect):
            if segment is None or "{{deduped:" not in str(segment[1]):
                continue
            params, expected = fill(case.input, strings), fill(case.expect, strings)
            contents = {file["path"]: file.get("content", "") for file in params.get("files", [])}
            actual = _rendered(
                expected, lambda slot, contents=contents: block.format(path=slot, content=contents.get(slot, ""))
            )
            found = differences(expected, actual, exact_args=False, strings=strings, contents=contents)
            blamed = {rule for rules in attribute(case, found, strings).values() for rule in rules}
            slot = set(segment[2])
            want = {"dedupe.notice"} if kind == "notice" else slot - {"dedupe.notice"}
            assert found and blamed == want, (case.key, blamed, want)
            checked += 1
    assert checked >= 2  # deduped-file-takes-no-aggregate, deduped-and-sent-files-in-order


def _rendered(value, block):
    """An expected answer as text, each deduped slot rendered by ``block(path)``."""
    import re

    if isinstance(value, dict) and set(value) == {"$segments"}:
        return "".join(_rendered(text, block) for text, _ in value["$segments"])
    if isinstance(value, dict):
        return {key: _rendered(item, block) for key, item in value.items()}
    if isinstance(value, list):
        return [_rendered(item, block) for item in value]
    if isinstance(value, str):
        return re.sub("\ue000([^\ue001]*)\ue001", lambda match: block(match[1]), value)
    return value


def test_a_list_of_the_same_items_in_another_order_is_one_difference_of_the_list():
    """A list holding exactly the expected items in another order is one difference at the list (blamed on the list's
    own pin), not one per item (blamed on each item's rules)."""
    expected = {
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": "a"},
            {"role": "system", "content": "b"},
            {"role": "user", "content": "F"},
        ]
    }
    actual = {"messages": [expected["messages"][i] for i in (0, 2, 1, 3)]}
    (diff,) = _diffs(expected, actual)
    assert diff.where == "answer.messages" and "another order" in diff.what
    case = _case(
        ("a.x", "flatten.plain-messages-kept"),
        pins={"messages": ["a.x"]},
        transcript=[{"role": "user", "content": "a"}, {"role": "system", "content": "b"}],
    )
    assert attribute(case, [diff])[diff] == ("a.x",)
    changed = {"messages": [*expected["messages"][:2], {"role": "system", "content": "c"}, expected["messages"][3]]}
    assert [d.where for d in _diffs(expected, changed)] == ["answer.messages[2].content"]
