"""The schema summary of a bad answer is bounded by what it shows: it takes a window of errors from the validator,
``oneOf``/``anyOf`` keep a few errors of each form, ``uniqueItems`` is one pass, and no keyword quotes the
instance; and the bounded validator calls exactly the values valid that jsonschema does."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_conformance._bounded import FORM_ERRORS, SUMMARY_WINDOW, bounded_validator, summarise_errors
from advisor_conformance._contract.protocol import PROBES, _validator, schema_errors
from advisor_conformance._paths import SCHEMA_DIR
from advisor_reference.adapter import ReferenceAdapter

SCHEMA = json.loads((SCHEMA_DIR / "protocol-v1.json").read_text(encoding="utf-8"))
PLAIN = jsonschema.Draft202012Validator(SCHEMA)
DEFINITIONS = [name for name in SCHEMA["$defs"] if name.endswith((".result", ".params"))]


def _sub(validator, definition):
    return validator.evolve(schema={"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]})


def _errors(definition, value):
    return list(_sub(_validator(), definition).iter_errors(value))


def test_a_summary_takes_no_more_than_its_window_of_errors():
    """A summary pulls its window of errors, and one more to know there are more, from a long error stream."""
    error = _errors("shape.result", 0)[0]
    pulled = []

    def endless():  # ten windows: long enough to show a summary that takes them all, short enough not to hang it
        for index in range(10 * SUMMARY_WINDOW):
            pulled.append(index)
            yield error

    lines = summarise_errors(endless())
    assert len(pulled) == SUMMARY_WINDOW + 1
    assert len(lines) == 11 and "more" in lines[-1]


def test_a_summary_of_fewer_errors_than_its_window_counts_the_rest():
    """Twelve errors give ten lines and a last line that counts the other two."""
    lines = summarise_errors(_errors("shape.result", 0) * 12)
    assert len(lines) == 11 and "2" in lines[-1]


def test_an_answer_of_many_bad_items_keeps_a_few_errors_of_each_form():
    """A oneOf over an array of 100,000 bad items keeps at most FORM_ERRORS errors of each form, the first items'."""
    (error,) = _errors("shape.result", {"messages": [0] * 100_000})
    assert error.validator == "oneOf" and 0 < len(error.context) <= 2 * FORM_ERRORS
    assert [list(inner.path)[:2] for inner in error.context][:2] == [["messages", 0], ["messages", 1]]


def test_the_summary_of_four_million_bad_items_names_the_first_ones():
    """The summary of a shape answer of 4,000,000 bad items names the first items and what they should be."""
    (line,) = schema_errors("shape.result", {"messages": [0] * 4_000_000})
    assert "messages/0" in line and "object" in line and "integer" in line


@pytest.mark.parametrize(
    "items, unique",
    [
        ([1, 1.0], False),
        ([1, True], True),
        ([0, False], True),
        ([None, None], False),
        (["a", "b"], True),
        ([{"a": [1, 2]}, {"a": [1, 2.0]}], False),
        ([{"a": 1}, {"b": 1}], True),
        ([[1, 2], [2, 1]], True),
        ([1e2, 100], False),
        (["1.0", 1.0], True),
        ([{"e": "x", "f": 1}, {"f": 1.0, "e": "x"}], False),
        ([-0.0, 0], False),
        ([{"n": i} for i in range(5_000)], True),
        ([{"n": i % 4_999} for i in range(5_000)], False),
    ],
)
def test_unique_items_is_one_pass_with_json_equality(items, unique):
    """uniqueItems calls two items equal as JSON Schema does (1 and 1.0, not 1 and true), 20,000 objects in one pass."""
    validator = bounded_validator(jsonschema.Draft202012Validator)({"uniqueItems": True})
    assert validator.is_valid(items) == unique


def test_no_error_quotes_a_huge_instance():
    """An error about a 4,000,000-item array or a 20 MB string carries a message of a few words, not the value."""
    for value in ([0] * 4_000_000, {"messages": "y" * 20_000_000}):
        for error in _errors("shape.result", value):
            assert all(len(inner.message) < 200 for inner in (error, *error.context))


def _json():
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.sampled_from([1.0, 0.5, -0.0]),
        st.sampled_from(["", "user", "assistant", "anthropic", "k", "x" * 5, "7"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.sampled_from(
                    ["messages", "role", "content", "error", "code", "message", "at", "calls", "result", "name", "x"]
                ),
                inner,
                max_size=4,
            ),
        ),
        max_leaves=12,
    )


def _real_answers():
    adapter = ReferenceAdapter()
    answers = [("describe.result", adapter.describe({}))]
    answers += [(f"{op}.result", getattr(adapter, op)(params)) for op, params in PROBES.items()]
    answers += [(f"{op}.params", params) for op, params in PROBES.items()]
    return answers


@pytest.mark.parametrize(
    "definition, value", _real_answers(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_real_answers_are_valid_for_both_validators(definition, value):
    """The reference's answers to the probes, and the probes, are valid for jsonschema and for the bounded validator."""
    assert PLAIN.evolve(schema={"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).is_valid(value)
    assert schema_errors(definition, value) == []


@given(definition=st.sampled_from(DEFINITIONS), value=_json())
@example(definition="shape.result", value={"messages": [{"role": "user", "content": "a"}] * 2})
@example(definition="shape.result", value={"error": {"code": "invalid_input", "message": "m", "at": "x"}})
@example(definition="describe.params", value={})
def test_the_bounded_validator_finds_exactly_the_values_jsonschema_finds_invalid(definition, value):
    """For any JSON value and any operation's params or result, the bounded validator finds errors exactly when
    jsonschema does."""
    assert (schema_errors(definition, value) == []) == _sub(PLAIN, definition).is_valid(value)
