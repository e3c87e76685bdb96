"""The providers' documented prompt-cache behaviour, as data: ``profiles.toml`` beside this module.

Every number and rule the simulator uses is a *fact* of a *profile* in that one table, with the document it comes
from and the sentence that says it; what the documents leave open is an *assumption* with its choices and a
default (the documented reading, or the conservative one, stated as such). The simulator (:mod:`.anthropic`,
:mod:`.openai`, :mod:`.optimum`) reads the rules objects built here and nothing else, so a change of a provider's
rules is a change of the table. ``--provider-profile FILE`` reads a table of the same format instead.

Profiles (``advisor-conformance cache-sim --provider-profile NAME``):

* ``anthropic``: explicit ``cache_control`` breakpoints and automatic caching, read from Anthropic bodies;
* ``openai``: OpenAI's automatic prefix cache of the models before the GPT-5.6 family (chat completions and
  Codex's Responses bodies), with its retention presets;
* ``openai-gpt-5-6``: the breakpoint cache of the GPT-5.6 family (an implicit breakpoint, explicit
  ``prompt_cache_breakpoint`` ones, writes at 1.25 times the input price), read from the same bodies.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

TABLE = Path(__file__).with_name("profiles.toml")
FORMAT = "advisor-cache-profiles/1"
MODELS = ("breakpoints", "prefix")
KINDS = ("documented", "derived", "parameter")
#: The facts each cache model needs (the rest of a profile's facts document it).
REQUIRED = {
    "breakpoints": (
        "max_breakpoints",
        "lookback",
        "ttl_seconds",
        "default_ttl",
        "write_price",
        "read_price",
        "min_tokens",
    ),
    "prefix": ("min_tokens", "step", "write_price", "cached_price", "in_memory_ttl", "extended_ttl"),
}


class ProfileError(ValueError):
    """A provider-profile table that does not hold what the simulator needs (the message names the field)."""


@dataclass(frozen=True)
class Fact:
    name: str
    value: Any
    kind: str
    source: str
    says: str
    note: str = ""
    choices: Any = None

    def to_json(self) -> dict[str, Any]:
        out = {"value": self.value, "kind": self.kind, "source": self.source, "says": self.says}
        if self.note:
            out["note"] = self.note
        if self.choices is not None:
            out["choices"] = self.choices
        return out


@dataclass(frozen=True)
class Assumption:
    name: str
    choices: tuple[str, ...]
    default: str
    says: str
    why: str

    def to_json(self, used: str) -> dict[str, Any]:
        return {
            "used": used,
            "default": self.default,
            "choices": list(self.choices),
            "says": self.says,
            "why": self.why,
        }


@dataclass(frozen=True)
class BreakpointRules:
    """A breakpoint cache (Anthropic; OpenAI's GPT-5.6 family): entries only where a request marks, read back from
    its marks (``lookback`` positions, the mark's own first) or, with ``lookback`` None, from anywhere on its path.
    The defaults are the ``anthropic`` profile's (:func:`profile`)."""

    min_tokens: int = 1024
    max_breakpoints: int = 4
    lookback: int | None = 20
    ttl_seconds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({"5m": 300.0, "1h": 3600.0}))
    write_price: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({"5m": 1.25, "1h": 2.0}))
    read_price: float = 0.1
    #: TTLs in the order their markers must come (a later one never before an earlier one); empty: no such rule.
    ttl_order: tuple[str, ...] = ("1h", "5m")
    default_ttl: str = "5m"
    #: Which entries a read renews: "read-entry" (the entry read), "prefix" (every live entry on the prefix read),
    #: "none" (entries live their TTL from their write).
    refresh: str = "read-entry"
    #: Only the latest ``match_window`` entries written under a routing can be read (None: all of them).
    match_window: int | None = None

    @property
    def longest_ttl(self) -> str:
        return max(self.ttl_seconds, key=lambda ttl: (self.ttl_seconds[ttl], -self.write_price[ttl]))

    @property
    def ttls(self) -> tuple[str, ...]:
        return tuple(self.ttl_seconds)


#: The former name: the rules of Anthropic's cache (the defaults) are one breakpoint cache.
AnthropicRules = BreakpointRules


@dataclass(frozen=True)
class OpenAIRules:
    """OpenAI's automatic prefix cache of the models before the GPT-5.6 family (the ``openai`` profile's defaults)."""

    min_tokens: int = 1024
    step: int = 128
    #: How long an entry of the in_memory policy lives after its last use.
    ttl_seconds: float = 300.0
    #: How long an entry of the 24h (extended) policy lives after its last use: its documented maximum.
    extended_ttl_seconds: float = 86400.0
    #: The policy of a request that does not name one ("in_memory" or "24h").
    default_policy: str = "in_memory"
    cached_price: float = 0.1
    write_price: float = 1.0
    prefix_order: tuple[str, ...] = ("tools", "instructions", "messages")
    routing: str = "model and prompt_cache_key"

    def ttl_for(self, policy: Any) -> float:
        """The lifetime of a request's entries under its ``prompt_cache_retention`` (None: the default policy)."""
        policy = policy if policy in ("in_memory", "24h") else self.default_policy
        return self.extended_ttl_seconds if policy == "24h" else self.ttl_seconds


#: The retention presets of the ``openai`` profile: (the default policy, the in_memory lifetime in seconds).
RETENTION_PRESETS = {
    "in-memory-5m": ("in_memory", 300.0),
    "in-memory-10m": ("in_memory", 600.0),
    "in-memory-1h": ("in_memory", 3600.0),
    "extended-24h": ("24h", 300.0),
}


@dataclass(frozen=True)
class Profile:
    """One provider profile of the table: its facts, its assumptions and the documents they cite."""

    name: str
    providers: tuple[str, ...]
    model: str
    description: str
    facts: Mapping[str, Fact]
    assumptions: Mapping[str, Assumption]
    sources: Mapping[str, Mapping[str, str]]
    origin: str = "built-in"

    def value(self, name: str) -> Any:
        return self.facts[name].value

    def choices(self, assume: Mapping[str, str] | None = None) -> dict[str, str]:
        """Every assumption's value: ``assume`` where it names one, else the default (unknown names and values are
        a :class:`ProfileError` naming them)."""
        assume = dict(assume or {})
        for name, value in assume.items():
            if name not in self.assumptions:
                raise ProfileError(
                    f"profile {self.name} has no assumption {name!r} (it has: {', '.join(self.assumptions) or 'none'})"
                )
            if value not in self.assumptions[name].choices:
                raise ProfileError(
                    f"assumption {name} of profile {self.name} is one of "
                    f"{', '.join(self.assumptions[name].choices)}, not {value!r}"
                )
        return {name: assume.get(name, a.default) for name, a in self.assumptions.items()}

    def rules(
        self,
        assume: Mapping[str, str] | None = None,
        *,
        min_tokens: int | None = None,
        ttl_seconds: float | None = None,
        cached_price: float | None = None,
    ) -> BreakpointRules | OpenAIRules:
        """The rules object of this profile under the chosen assumptions and the command's overrides."""
        chosen = self.choices(assume)
        if self.model == "breakpoints":
            ttls = {str(k): float(v) for k, v in self.value("ttl_seconds").items()}
            prices = {str(k): float(v) for k, v in self.value("write_price").items()}
            lookback = self.value("lookback")
            order = self.facts.get("ttl_order")
            window = self.facts.get("match_window")
            rules = BreakpointRules(
                min_tokens=int(self.value("min_tokens")),
                max_breakpoints=int(self.value("max_breakpoints")),
                lookback=int(lookback) if isinstance(lookback, int) else None,
                ttl_seconds=MappingProxyType(ttls),
                write_price=MappingProxyType(prices),
                read_price=float(self.value("read_price")),
                ttl_order=tuple(order.value) if order is not None else (),
                default_ttl=str(self.value("default_ttl")),
                refresh=chosen.get("refresh", "read-entry"),
                match_window=int(window.value) if window is not None else None,
            )
            if min_tokens is not None:
                rules = replace(rules, min_tokens=min_tokens)
            if cached_price is not None:
                rules = replace(rules, read_price=cached_price)
            return rules
        policy, lifetime = RETENTION_PRESETS[chosen.get("retention", "in-memory-5m")]
        return OpenAIRules(
            min_tokens=int(self.value("min_tokens")),
            step=int(self.value("step")),
            ttl_seconds=lifetime if ttl_seconds is None else ttl_seconds,
            extended_ttl_seconds=float(self.value("extended_ttl")),
            default_policy=policy,
            cached_price=float(self.value("cached_price") if cached_price is None else cached_price),
            write_price=float(self.value("write_price")),
        )

    def to_json(self, assume: Mapping[str, str] | None = None) -> dict[str, Any]:
        chosen = self.choices(assume)
        used = {fact.source for fact in self.facts.values()}
        return {
            "name": self.name,
            "origin": self.origin,
            "description": self.description,
            "model": self.model,
            "providers": list(self.providers),
            "facts": {n: f.to_json() for n, f in self.facts.items()},
            "assumptions": {n: a.to_json(chosen[n]) for n, a in self.assumptions.items()},
            "sources": {n: dict(s) for n, s in self.sources.items() if n in used},
        }


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ProfileError(f"{where}: a non-empty string is required")
    return value


def parse_table(data: Mapping[str, Any], origin: str = "built-in") -> dict[str, Profile]:
    """Every profile of a table (the format of ``profiles.toml``), checked: each fact names a known source, its kind
    and the sentence it comes from; each assumption its choices and default; each cache model its facts."""
    if data.get("format") != FORMAT:
        raise ProfileError(f"{origin}: format is {data.get('format')!r}, expected {FORMAT!r}")
    sources = data.get("sources")
    if not isinstance(sources, Mapping) or not sources:
        raise ProfileError(f"{origin}: sources: a table of documents is required")
    for name, source in sources.items():
        for key in ("title", "address", "read"):
            _text(f"{origin}: sources.{name}.{key}", source.get(key) if isinstance(source, Mapping) else None)
    profiles = data.get("profiles")
    if not isinstance(profiles, Mapping) or not profiles:
        raise ProfileError(f"{origin}: profiles: at least one profile is required")
    out = {}
    for name, raw in profiles.items():
        where = f"{origin}: profiles.{name}"
        if not isinstance(raw, Mapping):
            raise ProfileError(f"{where}: a table is required")
        model = raw.get("model")
        if model not in MODELS:
            raise ProfileError(f"{where}.model: one of {', '.join(MODELS)}, not {model!r}")
        providers = raw.get("providers")
        if not isinstance(providers, list) or not providers or not set(providers) <= {"anthropic", "openai", "codex"}:
            raise ProfileError(f"{where}.providers: a list of anthropic, openai, codex")
        if model == "breakpoints" and "anthropic" in providers and len(set(providers)) > 1:
            raise ProfileError(f"{where}.providers: a breakpoint profile reads either Anthropic or OpenAI bodies")
        facts = {}
        for fact_name, fact in (raw.get("facts") or {}).items():
            at = f"{where}.facts.{fact_name}"
            if not isinstance(fact, Mapping) or "value" not in fact:
                raise ProfileError(f"{at}.value: required")
            if fact.get("kind") not in KINDS:
                raise ProfileError(f"{at}.kind: one of {', '.join(KINDS)}, not {fact.get('kind')!r}")
            if fact.get("source") not in sources:
                raise ProfileError(f"{at}.source: {fact.get('source')!r} is not one of the table's sources")
            facts[fact_name] = Fact(
                fact_name,
                fact["value"],
                fact["kind"],
                fact["source"],
                _text(f"{at}.says", fact.get("says")),
                str(fact.get("note", "")),
                fact.get("choices"),
            )
        missing = [f for f in REQUIRED[model] if f not in facts]
        if missing:
            raise ProfileError(f"{where}.facts: the {model} model needs {', '.join(missing)}")
        if model == "breakpoints":
            ttls, prices = facts["ttl_seconds"].value, facts["write_price"].value
            if (
                not isinstance(ttls, Mapping)
                or not ttls
                or set(ttls) != set(prices or {})
                or facts["default_ttl"].value not in ttls
            ):
                raise ProfileError(
                    f"{where}.facts: ttl_seconds and write_price name the same TTLs, default_ttl one of them"
                )
        assumptions = {}
        for a_name, a in (raw.get("assumptions") or {}).items():
            at = f"{where}.assumptions.{a_name}"
            choices = a.get("choices") if isinstance(a, Mapping) else None
            if not isinstance(choices, list) or not choices or a.get("default") not in choices:
                raise ProfileError(f"{at}: choices (a list) and a default among them are required")
            for s in a.get("sources", []):
                if s not in sources:
                    raise ProfileError(f"{at}.sources: {s!r} is not one of the table's sources")
            assumptions[a_name] = Assumption(
                a_name,
                tuple(choices),
                a["default"],
                _text(f"{at}.says", a.get("says")),
                _text(f"{at}.why", a.get("why")),
            )
        if (
            model == "prefix"
            and "retention" in assumptions
            and not set(assumptions["retention"].choices) <= set(RETENTION_PRESETS)
        ):
            raise ProfileError(f"{where}.assumptions.retention: choices among {', '.join(RETENTION_PRESETS)}")
        out[name] = Profile(
            name,
            tuple(providers),
            model,
            _text(f"{where}.description", raw.get("description")),
            MappingProxyType(facts),
            MappingProxyType(assumptions),
            MappingProxyType({k: MappingProxyType(dict(v)) for k, v in sources.items()}),
            origin,
        )
    return out


@cache
def builtin_profiles() -> dict[str, Profile]:
    """The profiles of ``profiles.toml``."""
    with TABLE.open("rb") as handle:
        return parse_table(tomllib.load(handle))


#: The largest table file read (the built-in one is about 20 KB).
MAX_TABLE_BYTES = 1 << 20


def load_profiles(path: str | Path) -> dict[str, Profile]:
    """The profiles of a table file of the same format (``--provider-profile FILE``): a regular file of at most
    :data:`MAX_TABLE_BYTES`, checked on the file opened (no special files, no unbounded read)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ProfileError(f"{path.name}: not a regular file")
            raw = handle.read(MAX_TABLE_BYTES + 1)
        if len(raw) > MAX_TABLE_BYTES:
            raise ProfileError(f"{path.name}: larger than {MAX_TABLE_BYTES} bytes")
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path.name}: {exc}") from None
    return parse_table(data, path.name)


DEFAULT_PROFILE = {"anthropic": "anthropic", "openai": "openai", "codex": "openai"}


def profile(name: str | None = None, provider: str = "anthropic") -> Profile:
    """A profile by name (the built-in table), by ``FILE.toml`` or ``FILE.toml:NAME``, or the provider's default."""
    if name is None:
        return builtin_profiles()[DEFAULT_PROFILE[provider]]
    if ".toml" in name:
        table, _, chosen = name.partition(".toml")
        table, chosen = table + ".toml", chosen.removeprefix(":")
        profiles = load_profiles(table)
        if not chosen:
            fitting = [p for p in profiles.values() if provider in p.providers]
            if len(fitting) != 1:
                raise ProfileError(f"{Path(table).name}: name the profile (FILE.toml:NAME): {', '.join(profiles)}")
            return fitting[0]
    else:
        profiles, chosen = builtin_profiles(), name
    if chosen not in profiles:
        raise ProfileError(f"no provider profile {chosen!r} (known: {', '.join(profiles)})")
    found = profiles[chosen]
    if provider not in found.providers:
        raise ProfileError(f"provider profile {chosen} is for {', '.join(found.providers)}, not {provider}")
    return found


def _defaults() -> None:
    """The rules objects' defaults are the built-in profiles' (checked once, at import: the table is the source)."""
    anthropic = builtin_profiles()["anthropic"].rules()
    openai = builtin_profiles()["openai"].rules()
    if anthropic != BreakpointRules() or openai != OpenAIRules():  # pragma: no cover - a table edit without code
        raise ProfileError("profiles.toml and the rules' defaults disagree: change facts.py with the table")


_defaults()


@dataclass(frozen=True)
class Estimator:
    """The token estimator, the same for every implementation: UTF-8 bytes / 4.

    A block (Anthropic) or a message (OpenAI) of ``n`` bytes counts ``ceil(n / 4)`` tokens; within one OpenAI
    message a shared prefix of ``b`` bytes counts ``b // 4`` tokens. Deterministic and independent of any
    tokenizer library, so every implementation is measured by the same ruler. Absolute counts are estimates;
    the comparisons the simulator reports (against no caching, against the optimum) are ratios of the same
    ruler.
    """

    bytes_per_token: int = 4

    def tokens(self, nbytes: int) -> int:
        return -(-nbytes // self.bytes_per_token)

    def floor_tokens(self, nbytes: int) -> int:
        return nbytes // self.bytes_per_token


ESTIMATOR = Estimator()
#: The minimums of Anthropic's models (``--min-tokens``), from the table.
ANTHROPIC_MINIMUMS = tuple(builtin_profiles()["anthropic"].facts["min_tokens"].choices)
