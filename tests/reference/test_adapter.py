"""advisor_reference.adapter: the ReferenceAdapter's operations (describe, shape, tool_definition, encode, scenario)
and the parts a variant replaces."""

from __future__ import annotations

import base64
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

import advisor_reference
from advisor_conformance.catalogue import load_catalogue
from advisor_reference import REFERENCE_STRINGS, TOOL_DEFINITION, RequestBuilder
from advisor_reference._http import encode
from advisor_reference._provider import provider_request_from_json
from advisor_reference._transcript import MAX_ARGUMENT_DEPTH
from advisor_reference.adapter import AREAS, ReferenceAdapter

from ._helpers import GOOD_REQUEST, SNAPSHOT, FakeHttp

GOOD_FILE = {"path": "a.txt", "content": "abc"}


def _shape_error(params):
    out = ReferenceAdapter().shape(params)
    assert set(out) == {"error"}, out
    return out["error"]


def _assert_error(error, code, at):
    """``error`` is one error with this code, at this path (none for the params themselves), naming it."""
    assert (error["code"], error.get("at")) == (code, at)
    assert (at or "params") in error["message"]


# --- describe -------------------------------------------------------------------------------------------------------


def test_describe():
    """describe names the reference, its version, language, protocol, areas, strings, the providers it speaks (all
    three), options, the capability home_dir and the catalogue it was checked against (the current one)."""
    version = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["version"]
    described = ReferenceAdapter().describe()
    assert described == {
        "name": "reference",
        "version": version,
        "language": "python",
        "protocol": 1,
        "areas": list(AREAS),
        "strings": REFERENCE_STRINGS.to_json(),
        "providers": ["anthropic", "openai", "codex"],
        "options": {"args_json": "origin", "confinement": True},
        "capabilities": {"home_dir": True},
        "catalogue": load_catalogue().version,
    }
    assert advisor_reference.__version__ == version and "workspace" in described["areas"]


def test_adapter_uses_the_given_builder():
    """An adapter made with a builder declares that builder's strings and shapes with it."""
    builder = RequestBuilder(replace(REFERENCE_STRINGS, guidance_request="Advise!"))
    adapter = ReferenceAdapter(builder)
    assert adapter.builder is builder and adapter.describe()["strings"]["guidance_request"] == "Advise!"
    assert adapter.shape({"transcript": []})["messages"][-1]["content"] == "Advise!"
    assert ReferenceAdapter().builder.strings == REFERENCE_STRINGS


# --- shape ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, code, at",
    [
        ([], "invalid_input", None),
        ({"transcript": [], "colour": 1}, "invalid_input", "colour"),
        ({}, "invalid_input", "transcript"),
        ({"transcript": [], "question": 1}, "invalid_input", "question"),
        ({"transcript": [], "files": {}}, "invalid_input", "files"),
        ({"transcript": [], "files": ["a"] * 9}, "too_many_files", "files"),
        ({"transcript": [], "files": ["a"]}, "invalid_input", "files[0]"),
    ],
    ids=["not-object", "unknown", "no-transcript", "question-type", "files-type", "nine-files", "file-not-object"],
)
def test_shape_errors(params, code, at):
    """A malformed shape request answers one error naming the field."""
    _assert_error(_shape_error(params), code, at)


@pytest.mark.parametrize(
    "item, at",
    [
        ({**GOOD_FILE, "mode": 1}, "files[1].mode"),
        ({"content": "x"}, "files[1].path"),
        ({**GOOD_FILE, "path": ""}, "files[1].path"),
        ({**GOOD_FILE, "path": 1}, "files[1].path"),
        ({"path": "a"}, "files[1]"),
        ({**GOOD_FILE, "content_base64": ""}, "files[1]"),
        ({"path": "a", "content": 1}, "files[1].content"),
        ({"path": "a", "content_base64": 1}, "files[1].content_base64"),
        ({"path": "a", "content_base64": "a"}, "files[1].content_base64"),
        ({"path": "a", "content_base64": "@@@@"}, "files[1].content_base64"),
        ({"path": "a", "content_base64": "Y\u00e9Jj"}, "files[1].content_base64"),
        ({"path": "a", "content_base64": "YWJj\u0660"}, "files[1].content_base64"),
        ({**GOOD_FILE, "size": -1}, "files[1].size"),
        ({**GOOD_FILE, "size": True}, "files[1].size"),
        ({**GOOD_FILE, "size": "3"}, "files[1].size"),
        ({**GOOD_FILE, "size": 2}, "files[1].size"),
    ],
    ids=[
        "unknown-field",
        "no-path",
        "empty-path",
        "number-path",
        "no-content",
        "both-contents",
        "number-content",
        "number-base64",
        "short-base64",
        "bad-base64",
        "non-ascii-base64",
        "arabic-digit-base64",
        "negative-size",
        "boolean-size",
        "string-size",
        "size-below-content",
    ],
)
def test_shape_file_errors_name_the_file_and_field(item, at):
    """A malformed file of a shape request is an invalid_input error at that file's field."""
    _assert_error(_shape_error({"transcript": [], "files": [GOOD_FILE, item]}), "invalid_input", at)


def _nested(depth):
    value = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "arguments, at",
    [
        (_nested(500), "transcript[0].tool_calls[0].arguments"),
        ({"n": float("inf")}, "transcript[0].tool_calls[0].arguments.n"),
        ({"n": [10**400]}, "transcript[0].tool_calls[0].arguments.n[0]"),
        ({"n": float("nan")}, "transcript[0].tool_calls[0].arguments.n"),
    ],
    ids=["500-deep", "1e400", "10**400", "nan"],
)
def test_shape_refuses_arguments_the_origin_cannot_decode(arguments, at):
    """Tool-call arguments nested 500 deep or holding a number outside float64 are an invalid_input at that field."""
    transcript = [
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "read", "arguments": arguments}]},
        {"role": "tool", "name": "read", "tool_call_id": "c"},
        {"role": "user", "content": "next"},
    ]
    _assert_error(_shape_error({"transcript": transcript}), "invalid_input", at)


def test_shape_renders_arguments_nested_to_the_limit():
    """Tool-call arguments nested MAX_ARGUMENT_DEPTH deep are capped and rendered as JSON, nothing refused."""
    arguments = _nested(MAX_ARGUMENT_DEPTH - 1)
    transcript = [
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "read", "arguments": {"a": arguments}}]},
        {"role": "tool", "name": "read", "tool_call_id": "c"},
        {"role": "user", "content": "next"},
    ]
    out = ReferenceAdapter().shape({"transcript": transcript})
    rendered = out["messages"][1]["content"]
    assert rendered.count("{") == MAX_ARGUMENT_DEPTH and rendered.endswith("1" + "}" * MAX_ARGUMENT_DEPTH + "]")


@pytest.mark.parametrize(
    "item, block",
    [
        ({"path": "a.txt", "content": "abc"}, "File: a.txt\n```\nabc\n```"),
        ({"path": "b.bin", "content_base64": base64.b64encode(b"x\xffy").decode()}, "File: b.bin\n```\nx\ufffdy\n```"),
        ({"path": "c.txt", "content": "abc", "size": 3}, "File: c.txt\n```\nabc\n```"),
        ({"path": "d.txt", "content": "", "size": 0}, "File: d.txt\n```\n\n```"),
        ({"path": "e.txt", "content": "a\ud800"}, "File: e.txt\n```\na\ufffd\n```"),
        ({"path": "f\ud800", "content": "x"}, "File: f\ufffd\n```\nx\n```"),
    ],
    ids=["text", "base64", "size", "empty", "surrogate-content", "surrogate-path"],
)
def test_shape_renders_given_files(item, block):
    """Files given as text or base64 are rendered under their path in the final message."""
    out = ReferenceAdapter().shape({"transcript": [], "files": [item]})
    assert block in out["messages"][-1]["content"]


def test_shape_file_with_a_larger_true_size_is_capped_by_it():
    """A file whose true size exceeds its content is marked elided with that size once over the cap."""
    item = {"path": "big", "content": "a" * 40000, "size": 50000}
    final = ReferenceAdapter().shape({"transcript": [], "files": [item]})["messages"][-1]["content"]
    assert "a" * 32768 + "\u2026[elided, 50000 bytes total]" in final
    assert "a" * 32769 not in final


def test_shape_null_files_and_surrogate_question():
    """Null files are none; a lone surrogate in the question becomes U+FFFD."""
    out = ReferenceAdapter().shape({"transcript": [], "files": None, "question": "why\ud800"})
    assert "why\ufffd" in out["messages"][-1]["content"]


# --- tool_definition ------------------------------------------------------------------------------------------------


def test_tool_definition_answer_is_a_copy():
    """Changing the answer of tool_definition leaves the next answer unchanged."""
    adapter = ReferenceAdapter()
    first = adapter.tool_definition()
    first["input_schema"]["properties"].clear()
    first["name"] = "other"
    assert adapter.tool_definition() == TOOL_DEFINITION
    assert TOOL_DEFINITION["name"] == "advisor" and TOOL_DEFINITION["input_schema"]["properties"]


# --- encode ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, at",
    [
        ("x", None),
        ({"provider": "openai", "request": GOOD_REQUEST, "x": 1}, "x"),
        ({"request": GOOD_REQUEST}, "provider"),
        ({"provider": "gemini", "request": GOOD_REQUEST}, "provider"),
        ({"provider": "openai"}, "request"),
        ({"provider": "codex", "request": {**GOOD_REQUEST, "stream": "no"}}, "request.stream"),
    ],
    ids=["not-object", "unknown", "no-provider", "bad-provider", "no-request", "bad-request"],
)
def test_encode_errors(params, at):
    """A malformed encode request answers one invalid_input error naming the field."""
    out = ReferenceAdapter().encode(params)
    assert set(out) == {"error"}, out
    _assert_error(out["error"], "invalid_input", at)


@pytest.mark.parametrize("kind", ["anthropic", "openai", "codex"])
def test_encode_answers_the_http_request(kind):
    """encode answers the encoding of the neutral request for the provider."""
    assert (
        ReferenceAdapter().encode({"provider": kind, "request": GOOD_REQUEST})
        == encode(kind, provider_request_from_json(GOOD_REQUEST)).to_json()
    )


# --- scenario -------------------------------------------------------------------------------------------------------


def test_scenario_errors_are_answers():
    """A malformed scenario answers an error rather than raising."""
    out = ReferenceAdapter().scenario([])
    assert set(out) == {"error"}, out
    _assert_error(out["error"], "invalid_input", "params")


def test_scenario_uses_the_adapters_builder_and_http_provider_class():
    """An adapter variant's scenario builds requests with its own strings and reaches its own HTTP provider class."""

    class Variant(ReferenceAdapter):
        strings = replace(REFERENCE_STRINGS, system_prompt="A variant's own system prompt.")
        http_provider_class = FakeHttp

    out = Variant().scenario(
        {
            "runtime": {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:1"}},
            "steps": [{"call": {"input": {}, "snapshot": SNAPSHOT}}],
        }
    )
    assert out["calls"] == [{"result": "over openai"}]
    (request,) = out["provider_requests"]
    assert request["messages"][0] == {"role": "system", "content": "A variant's own system prompt."}
