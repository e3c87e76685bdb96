"""The ``advisor-conformance`` command.

``advisor-conformance run [--impl TARGET] [PYTEST ARGS...]``
    Run the conformance suite (against the reference by default) and end with
    the outcome of every rule of the catalogue.
``advisor-conformance harness [--impl TARGET]``
    Serve an implementation (the reference by default) over the harness
    protocol on stdin and stdout: ``pytest --impl='cmd:advisor-conformance harness'``.
``advisor-conformance rules [--json]``
    Print the rule catalogue: ``ID<TAB>statement`` per line, or a JSON list
    of rules with ``id``, ``area``, ``statement``, ``tag``, ``source`` and
    ``tested`` (whether some test of the suite carries the ID).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ._paths import PACKAGE_DIR, TESTS_DIR
from .catalogue import load_catalogue

RUN_INI = PACKAGE_DIR / "pytest-run.ini"


def pytest_args(target: str, extra: list[str]) -> list[str]:
    """The pytest arguments that run the installed suite against ``target``, isolated from the local config."""
    return [str(TESTS_DIR), f"--impl={target}", "-c", str(RUN_INI), f"--rootdir={PACKAGE_DIR}", *extra]


def collect_rule_tests() -> dict[str, list[str]]:
    """Rule ID → node IDs of the collected tests that carry it (a collection-only run of the suite)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "collect.json"
        command = [sys.executable, "-m", "pytest", *pytest_args("reference", ["--collect-only", "-q",
                                                                                 f"--rule-report={report}"])]
        result = subprocess.run(command, capture_output=True, text=True, cwd=tmp, env={**os.environ,
                                                                                       "PYTHONDONTWRITEBYTECODE": "1"})
        if result.returncode != 0 or not report.exists():
            raise RuntimeError(f"collecting the suite failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        return json.loads(report.read_text(encoding="utf-8"))["collected"]


def cmd_rules(args: argparse.Namespace) -> int:
    catalogue = load_catalogue()
    if args.json:
        tested = collect_rule_tests()
        rows = [{**rule.to_json(), "tested": rule.id in tested} for rule in catalogue.rules.values()]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    else:
        for rule in catalogue.rules.values():
            print(f"{rule.id}\t{rule.statement}")
    return 0


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    # A fresh interpreter, so pytest imports (and assertion-rewrites) the suite itself.
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args(args.impl, ["--rule-summary", *extra])])


def cmd_harness(args: argparse.Namespace) -> int:
    from .contract import TargetError, load_target
    from .harness import serve

    if args.impl.startswith("cmd:"):
        print("advisor-conformance harness serves a Python adapter, not a command", file=sys.stderr)
        return 2
    try:
        implementation = load_target(args.impl)
    except TargetError as exc:
        print(f"advisor-conformance harness: {exc}", file=sys.stderr)
        return 2
    return serve(implementation.transport.adapter)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="advisor-conformance", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the conformance suite and print the outcome per rule",
                              description="Run the conformance suite; arguments it does not know go to pytest.")
    run.add_argument("--impl", default="reference", help="implementation to test (default: reference)")
    harness = commands.add_parser("harness", help="serve an implementation over the harness protocol (stdin/stdout)")
    harness.add_argument("--impl", default="reference", help="Python adapter to serve (default: reference)")
    rules = commands.add_parser("rules", help="print the rule catalogue")
    rules.add_argument("--json", action="store_true", help="print JSON, with whether each rule is tested")
    args, extra = parser.parse_known_args(argv)
    if args.command == "run":
        return cmd_run(args, extra)
    if args.command == "harness":
        return cmd_harness(args)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return cmd_rules(args)


def entry() -> None:
    """Console-script entry point: quiet on a closed pipe (``advisor-conformance rules | head``)."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    entry()
