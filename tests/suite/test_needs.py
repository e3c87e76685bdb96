"""What a test needs (advisor_conformance._pytest_plugin.needs): the names of what an implementation does not
declare, and the calls a test makes beyond what it declares."""

from __future__ import annotations

import pytest

from advisor_conformance._contract.implementation import Implementation
from advisor_conformance._pytest_plugin.needs import Needs, unknown, unmet
from advisor_conformance.catalogue import load_catalogue


def _needs(areas=(), operations=(), capabilities=(), options=(), providers=()):
    return Needs(frozenset(areas), frozenset(operations), frozenset(capabilities), tuple(options), frozenset(providers))


def _implementation(areas, **described):
    return Implementation("fake", transport=None, description={"name": "fake", "areas": list(areas), **described})


HTTP = {"runtime": {"http_provider": {"kind": "openai", "base_url": "http://127.0.0.1:9"}}, "steps": []}


@pytest.mark.parametrize(
    "needs, op, params, fix",
    [
        (_needs(["handler"], ["scenario"]), "scenario", {"runtime": {}, "steps": []}, None),
        (_needs(["handler"], ["scenario"]), "describe", {}, None),
        (_needs(["request"], ["shape"]), "scenario", {"steps": []}, "operations=['scenario']"),
        (_needs(["handler"], ["scenario"]), "scenario", HTTP, "capabilities=['http']"),
        (_needs(["handler"], ["scenario"], ["http"], providers=["openai"]), "scenario", HTTP, None),
        (
            _needs(["workspace"], ["scenario"]),
            "scenario",
            {"runtime": {"confine_to_work_dir": True}},
            "options={'confinement': True}",
        ),
        (_needs(["breakpoints"], ["encode"], providers=["anthropic"]), "encode", {"provider": "anthropic"}, None),
        (_needs(["breakpoints"], ["encode"], providers=["codex"]), "encode", {"provider": "codex"}, "areas=['wire']"),
        (_needs(["breakpoints", "wire"], ["encode"], providers=["openai"]), "encode", {"provider": "openai"}, None),
        (_needs(["wire"], ["encode"], providers=["openai"]), "encode", {"provider": "codex"}, "providers=['codex']"),
        (
            _needs(["handler"], ["scenario"], ["http"], providers=["anthropic"]),
            "scenario",
            HTTP,
            "providers=['openai']",
        ),
        (_needs(["handler"], ["scenario"], ["http"], providers=["openai"]), "scenario", HTTP, None),
    ],
    ids=[
        "declared-op",
        "describe",
        "other-op",
        "http-undeclared",
        "http-declared",
        "confined-undeclared",
        "anthropic-encoding",
        "codex-encoding-without-wire",
        "openai-encoding-with-wire",
        "provider-undeclared",
        "http-to-an-undeclared-provider",
        "http-to-a-declared-provider",
    ],
)
def test_a_call_beyond_the_declared_needs_is_named_with_its_fix(needs, op, params, fix):
    """A call within the test's needs is admitted; one beyond them is named with the needs argument that declares
    it."""
    assert needs.admits(op, params) == fix


def test_what_is_not_declared_is_named():
    """Each unmet need is named: an area, an operation no declared area calls, a capability, an option's value."""
    implementation = _implementation(["handler", "request"], options={"args_json": "semantic"})
    assert unmet(_needs(["handler"], ["scenario", "shape"]), implementation) == []
    missing = unmet(_needs(["handler"], ["scenario", "encode"], ["http"], [("args_json", "origin")]), implementation)
    assert (
        len(missing) == 3
        and "'encode'" in missing[0]
        and "capability http" in missing[1]
        and "args_json='origin'" in missing[2]
    ), missing
    assert unmet(_needs(["wire"], ["encode"]), implementation) == ["the area(s) wire"]


@pytest.mark.parametrize(
    "areas, capabilities, offered",
    [
        (["handler"], None, set()),
        (["handler", "streaming"], None, {"http"}),
        (["handler"], {"http": True}, {"http"}),
        (["streaming"], {"http": False}, set()),
    ],
    ids=["left-out", "implied-by-streaming", "declared", "declined"],
)
def test_a_capability_left_out_is_offered_only_when_a_declared_area_needs_it(areas, capabilities, offered):
    """Left out of describe, http is offered exactly when the streaming area is declared; declared, as declared."""
    described = {} if capabilities is None else {"capabilities": capabilities}
    implementation = _implementation(areas, **described)
    assert implementation.capabilities == offered
    assert implementation.declined_but_needed() == ({"streaming": ["http"]} if capabilities == {"http": False} else {})


def test_names_the_suite_does_not_know_are_named():
    """A needs marker naming an unknown area, operation, capability or option is a defect of the suite."""
    bad = unknown(_needs(["wires"], ["stream"], ["https"], [("confined", True)], ["gemini"]), load_catalogue().areas)
    assert bad == ["area 'wires'", "operation 'stream'", "capability 'https'", "option 'confined'", "provider 'gemini'"]


@pytest.mark.parametrize(
    "declared, missing",
    [(None, []), (["anthropic", "codex"], ["openai"]), (["anthropic"], ["openai", "codex"])],
    ids=["all-by-default", "one-left-out", "one-provider"],
)
def test_a_provider_not_declared_is_named(declared, missing):
    """An implementation speaks every provider when describe says nothing, else those it declares: a test that speaks
    to one it does not declare names it."""
    described = {} if declared is None else {"providers": declared}
    implementation = _implementation(["wire"], **described)
    speaks = [name for name in ("anthropic", "openai", "codex") if name not in missing]
    assert implementation.providers == speaks
    got = unmet(_needs(["wire"], ["encode"], providers=["anthropic", "openai", "codex"]), implementation)
    assert [name for name in ("anthropic", "openai", "codex") if any(f"provider {name}" in line for line in got)] == (
        missing
    ), got


def test_an_area_declared_without_its_providers_is_named():
    """Declaring breakpoints without anthropic, or wire or streaming with no provider, names the area and the providers
    it needs; an area that speaks to no provider needs none."""
    assert _implementation(["breakpoints", "wire"], providers=["openai"]).without_providers() == {
        "breakpoints": ["anthropic"]
    }
    assert set(_implementation(["wire", "streaming"], providers=[]).without_providers()) == {"wire", "streaming"}
    assert _implementation(["request", "files"], providers=[]).without_providers() == {}
