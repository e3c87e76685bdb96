"""``advisor-conformance cache-sim``: how much of an implementation's input the providers' prompt caches serve."""

from __future__ import annotations

import argparse
import json
import os
import sys

NAME = "cache-sim"
ORDER = 60
HELP = "measure the prompt-cache saving of an implementation's requests over realistic sessions"
DESCRIPTION = """\
Replay realistic growing coding-agent sessions (fixtures/sessions: 100 to 2,000 messages, advisor calls by the
main agent and by sub-agents, minutes to hours apart) through an implementation's scenario and encode
operations, feed the encoded requests in time order to a simulator of the provider's documented prompt-cache
behaviour, and print per session and in total: input tokens, tokens read from the cache, tokens written, the
cost against no caching, the optimum (the least cost the provider's rules allow on the same requests) and the
share of the optimum's saving the implementation reached.

  advisor-conformance cache-sim                                   the reference, Anthropic, every shipped session
  advisor-conformance cache-sim --impl 'cmd:node examples/advisor-js/harness.js' --provider openai
  advisor-conformance cache-sim --impl mypkg.adapter bugfix-small review-dense --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .._cachesim.facts import ANTHROPIC_MINIMUMS, OPENAI_DEFAULT_TTL
    from .._cachesim.replay import PROVIDERS

    parser.add_argument("sessions", nargs="*", metavar="SESSION",
                        help="a shipped session's name or a session file (default: every shipped session)")
    parser.add_argument("--impl", default="reference", metavar="TARGET",
                        help="'reference' (the default), 'package.module[:object]' or 'cmd:COMMAND LINE'")
    parser.add_argument("--provider", choices=PROVIDERS, default="anthropic", help="the provider to simulate")
    parser.add_argument("--min-tokens", type=int, choices=ANTHROPIC_MINIMUMS, default=1024,
                        help="Anthropic: the model's minimum cacheable prompt, in tokens (default 1024)")
    parser.add_argument("--openai-ttl", type=float, default=OPENAI_DEFAULT_TTL, metavar="SECONDS",
                        help=f"OpenAI, Codex: how long a cached prefix lives after its last use "
                             f"(default {OPENAI_DEFAULT_TTL:g})")
    parser.add_argument("--cached-price", type=float, default=0.1, metavar="FRACTION",
                        help="OpenAI, Codex: the cached input price as a fraction of the base price (default 0.1)")
    parser.add_argument("--harness-timeout", type=float, default=300.0, metavar="SECONDS",
                        help="seconds a harness may take over one operation (default 300)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from .._cachesim.facts import AnthropicRules, OpenAIRules
    from .._cachesim.replay import ReplayError, Settings, encode_all, measure, replay, total
    from .._cachesim.report import as_json, table
    from .._cachesim.sessions import find_session, load_session, shipped_sessions
    from .._implementation import TargetError, load_target
    from .._protocol import ContractError

    try:
        paths = [find_session(name) for name in args.sessions] if args.sessions else shipped_sessions()
    except FileNotFoundError as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 2
    if not (0 <= args.cached_price <= 1) or args.openai_ttl <= 0:
        print("advisor-conformance cache-sim: --cached-price is a fraction in [0, 1] and --openai-ttl positive",
              file=sys.stderr)
        return 2
    settings = Settings(AnthropicRules(min_tokens=args.min_tokens),
                        OpenAIRules(ttl_seconds=args.openai_ttl, cached_price=args.cached_price))
    if os.getcwd() not in sys.path:  # `package.module` targets import from here, as with `python -m`
        sys.path.insert(0, os.getcwd())
    try:
        impl = load_target(args.impl, harness_timeout=args.harness_timeout, cwd=os.getcwd())
    except TargetError as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 2
    rows = []
    try:
        for path in paths:
            session = load_session(path)
            replayed = replay(impl, session)
            bodies = encode_all(impl, replayed, args.provider)
            rows.append(measure(session, bodies, args.provider, settings, failed_calls=len(replayed.failed_calls)))
    except (ReplayError, ContractError) as exc:
        print(f"advisor-conformance cache-sim: {exc}", file=sys.stderr)
        return 1
    finally:
        impl.close()
    whole = total(rows, args.provider)
    d = impl.description
    if args.json:
        described = {"name": d.get("name"), "version": d.get("version"), "language": d.get("language"),
                     "target": args.impl}
        print(json.dumps(as_json(described, args.provider, settings, rows, whole), indent=1))
    else:
        header = (f"advisor-conformance cache-sim: {d.get('name')} {d.get('version')} ({d.get('language')}), "
                  f"provider {args.provider}")
        print(table(header, args.provider, settings, rows, whole))
    return 0
