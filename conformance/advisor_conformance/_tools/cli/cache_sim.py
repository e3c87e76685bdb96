"""``advisor-conformance cache-sim``: how much of an implementation's input the providers' prompt caches serve."""

from __future__ import annotations

import argparse
import json
import sys

from ._options import add_harness_timeout, add_impl, announce, resolve

NAME = "cache-sim"
ORDER = 60
HELP = "measure the prompt-cache saving of an implementation's requests over realistic sessions"
DESCRIPTION = """\
Replay realistic growing coding-agent sessions (fixtures/sessions: 100 to 2,000 messages, advisor calls by the
main agent and by sub-agents, seconds to hours apart) through an implementation's scenario and encode
operations, feed the encoded requests in time order to a simulator of the provider's documented prompt-cache
behaviour, and print per session and in total: input tokens, tokens read from the cache, tokens written, the
cost against no caching, the optimum (the least cost the provider's rules allow on the same requests: exact, or
a proven lower bound, as labelled) and the share of the optimum's saving the implementation reached.

The provider's rules are a profile of one table, every fact with the document it comes from
(--provider-profile; --list-profiles prints them); what the documents do not say is an assumption with a
default (--assume NAME=VALUE). --placement re-marks the Anthropic requests with the spec's placement or a
what-if one (not conformant to the spec). docs/cache-efficiency.md has the figures under each.

  advisor-conformance cache-sim                                   the project's implementation (else the reference),
                                                                  Anthropic, every shipped session
  advisor-conformance cache-sim --impl 'cmd:node examples/advisor-js/harness.js' --provider openai
  advisor-conformance cache-sim --impl mypkg.adapter bugfix-small review-dense --json
  advisor-conformance cache-sim --placement bridge                what marking the previous call's end would save
  advisor-conformance cache-sim --provider openai --assume retention=extended-24h
  advisor-conformance cache-sim --provider openai --provider-profile openai-gpt-5-6

A session file is checked whole before the implementation is started: its size, encoding and nesting, the type
and range of every field, each macro's argument, the workspace paths (inside the workspace), and what its macros
and its calls' snapshots would make in all (a "$repeat" or "bytes" that would make gigabytes is refused before it
is made).

Exit status: 0 when every session was measured; 1 when the implementation refused a session's scenario or broke
the protocol; 2 on a usage error, or a session that cannot be read or is not a session (the message names the
file and the field).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..cachesim.facts import ANTHROPIC_MINIMUMS
    from ..cachesim.placements import PLACEMENTS
    from ..cachesim.replay import PROVIDERS

    parser.add_argument(
        "sessions",
        nargs="*",
        metavar="SESSION",
        help="a shipped session's name or a session file (default: every shipped session)",
    )
    add_impl(
        parser,
        "'reference', 'package.module[:object]' or 'cmd:COMMAND LINE'; default: $ADVISOR_CONFORMANCE_IMPL, else "
        "conformance_impl of the nearest configuration file (pyproject.toml, pytest.ini, ...), else the reference",
    )
    parser.add_argument("--provider", choices=PROVIDERS, default="anthropic", help="the provider to simulate")
    parser.add_argument(
        "--provider-profile",
        metavar="NAME|FILE.toml[:NAME]",
        help="the provider's cache rules: a profile of the built-in table (anthropic; openai; "
        "openai-gpt-5-6) or of a table file of the same format (default: the provider's)",
    )
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="choose an assumption of the profile (repeatable; --list-profiles shows them)",
    )
    parser.add_argument(
        "--placement",
        choices=list(PLACEMENTS),
        default="implementation",
        help="Anthropic: re-mark every request with this placement (default: the implementation's "
        "own markers; all but spec are what-ifs, not conformant to the spec)",
    )
    parser.add_argument(
        "--list-profiles",
        action="store_true",
        help="print the built-in profiles: every fact with its source, every assumption",
    )
    parser.add_argument(
        "--min-tokens",
        type=int,
        choices=ANTHROPIC_MINIMUMS,
        help="breakpoint profiles: the model's minimum cacheable prompt, in tokens (default 1024)",
    )
    parser.add_argument(
        "--openai-ttl",
        type=float,
        metavar="SECONDS",
        help="OpenAI prefix profile: how long an in_memory entry lives after its last use (default: "
        "the retention preset's)",
    )
    parser.add_argument(
        "--cached-price",
        type=float,
        metavar="FRACTION",
        help="the cached input price as a fraction of the base price (default: the profile's)",
    )
    add_harness_timeout(parser, 300.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _settings(args: argparse.Namespace):
    from ..cachesim.replay import Settings

    assume = {}
    for item in args.assume:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"--assume takes NAME=VALUE, not {item!r}")
        assume[name.strip()] = value.strip()
    if args.cached_price is not None and not 0 <= args.cached_price <= 1:
        raise ValueError("--cached-price is a fraction in [0, 1]")
    if args.openai_ttl is not None and not args.openai_ttl > 0:
        raise ValueError("--openai-ttl is a positive number of seconds")
    settings = Settings(
        args.provider_profile, assume, args.min_tokens, args.openai_ttl, args.cached_price, args.placement
    )
    settings.check(args.provider)
    return settings


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..._contract.implementation import TargetError, load_target
    from ..._contract.protocol import ContractError
    from ..cachesim.facts import ProfileError, builtin_profiles
    from ..cachesim.replay import ReplayError, encode_all, measure, replay, total
    from ..cachesim.report import as_json, table
    from ..cachesim.sessions import find_session, load_session, shipped_sessions

    if args.list_profiles:
        profiles = {name: p.to_json() for name, p in builtin_profiles().items()}
        print(json.dumps(profiles, indent=1))
        return 0
    try:
        paths = [find_session(name) for name in args.sessions] if args.sessions else shipped_sessions()
        settings = _settings(args)
        sessions = [load_session(path) for path in paths]  # every session checked before the implementation starts
    except (FileNotFoundError, ValueError) as exc:  # ProfileError and InputError are ValueErrors
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 2
    try:  # `package.module` targets import from the folder they are named from, as with `python -m`
        named = resolve(args.impl)
        impl = load_target(named.target, harness_timeout=args.harness_timeout, cwd=named.directory, origin=named.origin)
    except TargetError as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 2
    announce("advisor-conformance cache-sim", impl, named)  # on stderr: stdout is the figures
    rows = []
    try:
        for session in sessions:
            replayed = replay(impl, session)
            bodies = encode_all(impl, replayed, args.provider)
            rows.append(measure(session, bodies, args.provider, settings, failed_calls=len(replayed.failed_calls)))
    except (ReplayError, ContractError) as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 1
    except ProfileError as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 2
    finally:
        impl.close()
    whole = total(rows, args.provider)
    d = impl.description
    if args.json:
        described = {
            "name": d.get("name"),
            "version": d.get("version"),
            "language": d.get("language"),
            "target": named.target,
        }
        print(json.dumps(as_json(described, args.provider, settings, rows, whole), indent=1))
    else:
        header = (
            f"advisor-conformance cache-sim: {d.get('name')} {d.get('version')} ({d.get('language')}), "
            f"provider {args.provider}"
        )
        print(table(header, args.provider, settings, rows, whole))
    return 0
