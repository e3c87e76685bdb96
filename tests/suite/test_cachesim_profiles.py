"""The cache simulator's provider profiles: one table of facts, each with its document and sentence, that the
simulator reads; assumptions as options with a stated default; bad tables refused naming the field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from advisor_conformance._tools.cachesim.anthropic import AnthropicCache, AnthropicPrompt
from advisor_conformance._tools.cachesim.facts import (
    TABLE,
    BreakpointRules,
    OpenAIRules,
    ProfileError,
    builtin_profiles,
    parse_table,
    profile,
)

from ..support.anthropic_bodies import H1, blocks, body, send


def _table() -> dict:
    with TABLE.open("rb") as handle:
        return tomllib.load(handle)


def test_every_fact_cites_a_document_and_its_sentence():
    """Each fact of each built-in profile names one of the table's documents, its kind and the sentence it comes
    from, and each assumption has its choices, a default among them and the reason for that default."""
    profiles = builtin_profiles()
    assert set(profiles) == {"anthropic", "openai", "openai-gpt-5-6"}
    for chosen in profiles.values():
        assert chosen.facts and chosen.assumptions
        for fact in chosen.facts.values():
            assert fact.source in chosen.sources and fact.kind in ("documented", "derived", "parameter")
            assert len(fact.says) > 20
        for assumption in chosen.assumptions.values():
            assert assumption.default in assumption.choices and assumption.why and assumption.says


def test_the_rules_defaults_are_the_tables():
    """The simulator's rules objects default to the built-in profiles' facts: the table is what it reads."""
    assert profile(None, "anthropic").rules() == BreakpointRules()
    assert profile(None, "openai").rules() == OpenAIRules()
    gpt = profile("openai-gpt-5-6", "codex").rules()
    assert gpt.lookback is None and dict(gpt.write_price) == {"30m": 1.25, "12h": 1.25} and gpt.refresh == "none"
    assert gpt.match_window == 80


def test_a_fact_changed_in_a_table_changes_the_simulation(tmp_path):
    """A table file whose read price differs gives the costs of that price (--provider-profile FILE.toml:NAME)."""
    text = TABLE.read_text(encoding="utf-8").replace(
        'value = 0.1\nkind = "documented"\nsource = "anthropic-docs"',
        'value = 0.5\nkind = "documented"\nsource = "anthropic-docs"',
    )
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    rules = profile(f"{path}:anthropic", "anthropic").rules()
    assert rules.read_price == 0.5
    cache = AnthropicCache(rules)
    texts = blocks(2000, 10)
    send(cache, body(texts, {0: H1}))
    assert send(cache, body(texts, {0: H1}), at=1).cost == 0.5 * 2000 + 10


@pytest.mark.parametrize(
    "edit, field",
    [
        (
            lambda t: t["profiles"]["anthropic"]["facts"]["lookback"].update(source="nowhere"),
            "profiles.anthropic.facts.lookback.source",
        ),
        (lambda t: t["profiles"]["anthropic"]["facts"].pop("read_price"), "profiles.anthropic.facts"),
        (lambda t: t["profiles"]["openai"]["facts"]["step"].update(kind="guess"), "profiles.openai.facts.step.kind"),
        (lambda t: t["profiles"]["openai"]["facts"]["step"].update(says=""), "profiles.openai.facts.step.says"),
        (
            lambda t: t["profiles"]["anthropic"]["assumptions"]["refresh"].update(default="always"),
            "profiles.anthropic.assumptions.refresh",
        ),
        (lambda t: t["profiles"]["anthropic"].update(model="magic"), "profiles.anthropic.model"),
        (lambda t: t["sources"]["openai-sdk"].pop("read"), "sources.openai-sdk.read"),
        (lambda t: t.update(format="other/1"), "format"),
    ],
    ids=[
        "unknown-source",
        "missing-fact",
        "unknown-kind",
        "no-sentence",
        "default-not-a-choice",
        "unknown-model",
        "source-undated",
        "format",
    ],
)
def test_a_table_without_what_the_simulator_needs_is_refused_naming_the_field(edit, field):
    """A table whose fact cites no known document, lacks a fact its cache model needs, has an unknown kind, no
    sentence, a default outside its choices, an unknown model, an undated source or another format is refused,
    and the error names the field."""
    table = _table()
    edit(table)
    with pytest.raises(ProfileError) as caught:
        parse_table(table, "mine.toml")
    assert field in str(caught.value)


@pytest.mark.parametrize(
    "name, provider, assume",
    [
        ("nope", "anthropic", {}),
        ("openai", "anthropic", {}),
        ("anthropic", "openai", {}),
        ("anthropic", "anthropic", {"refresh": "always"}),
        ("anthropic", "anthropic", {"colour": "blue"}),
    ],
    ids=[
        "unknown-profile",
        "openai-profile-anthropic-bodies",
        "anthropic-profile-openai-bodies",
        "unknown-choice",
        "unknown-assumption",
    ],
)
def test_a_profile_or_assumption_that_does_not_fit_is_refused(name, provider, assume):
    """An unknown profile, a profile for other bodies, an unknown assumption or choice is a ProfileError."""
    with pytest.raises(ProfileError):
        profile(name, provider).rules(assume)


def test_assumptions_change_the_rules():
    """The refresh and retention assumptions reach the rules the simulator runs."""
    assert profile(None, "anthropic").rules({"refresh": "prefix"}).refresh == "prefix"
    extended = profile(None, "openai").rules({"retention": "extended-24h"})
    assert extended.default_policy == "24h" and extended.ttl_for(None) == 86400
    hour = profile(None, "openai").rules({"retention": "in-memory-1h"})
    assert hour.ttl_for(None) == 3600 and hour.ttl_for("24h") == 86400


def test_to_json_records_the_profile_its_sources_and_the_assumptions_used():
    """A profile's JSON holds every fact with its source and sentence, the documents cited, and each assumption's
    value used with its default."""
    data = profile(None, "anthropic").to_json({"refresh": "prefix"})
    assert data["name"] == "anthropic" and data["facts"]["lookback"]["value"] == 20
    assert set(data["sources"]) == {f["source"] for f in data["facts"].values()}
    assert data["assumptions"]["refresh"] == {
        **data["assumptions"]["refresh"],
        "used": "prefix",
        "default": "read-entry",
    }


def test_the_anthropic_minimum_is_the_models_parameter():
    """--min-tokens picks one of the documented minimums, and a breakpoint under it writes nothing."""
    rules = profile(None, "anthropic").rules(min_tokens=4096)
    assert rules.min_tokens == 4096 and Path(TABLE).exists()
    usage = AnthropicCache(rules).request(AnthropicPrompt.from_body(body(blocks(4000, 10), {0: H1})), 0)
    assert usage.written_tokens == 0 and usage.short_tokens == 4000


def test_a_table_file_that_is_not_a_small_regular_file_is_refused(tmp_path):
    """A directory, a file over the size limit or one that is not UTF-8 TOML is refused naming the file."""
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"#" * (2 << 20))
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe not toml")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    for path in (huge, bad, folder):
        with pytest.raises(ProfileError) as caught:
            profile(str(path), "anthropic")
        assert path.name in str(caught.value)
