"""``advisor-conformance shape TRANSCRIPT``: the request an implementation renders for a transcript, for review."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ._options import add_impl, announce, resolve

NAME = "shape"
ORDER = 35
HELP = "print the advisor request an implementation renders for a transcript (or its wire body), for prompt review"
DESCRIPTION = """\
Render the advisor request for a transcript with an implementation's shape operation (the one the project names,
as a pytest run finds it, else the reference; the first line says which) and print its messages, each under a
header naming its role, the content as it is. With --provider, wrap the messages in a provider-neutral request
(advisor defaults) and print the JSON body the implementation's encode operation makes for that provider.

TRANSCRIPT is a JSON file holding either a list of messages or a fixture of the suite ({"input": {"transcript",
"question", "files"}}, as in fixtures/transcripts/), or the name of a transcript shipped with the suite. A
fixture's placeholders ({{line_truncation_marker}}) are filled with the implementation's declared strings.
--question and --file replace the fixture's question and files; each --file is read from disk and sent with its
path as given, its content and its size.

Exit status: 0 on success, 2 when a file cannot be read or is not JSON, the implementation cannot be loaded, or
it answers an error (its code, message and the field it names).

  advisor-conformance shape django_webhooks_partial_reads
  advisor-conformance shape session.json --question 'Is this migration safe?' --file app/models.py
  advisor-conformance shape session.json --impl mypkg.advisor_adapter --provider anthropic
"""

PROVIDERS = ("anthropic", "openai", "codex")


class ShapeInputError(Exception):
    """The command cannot go on: a message for stderr."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "transcript",
        metavar="TRANSCRIPT",
        help="a JSON file (a list of messages, or a fixture with 'input'), or a shipped transcript's "
        "name such as django_webhooks_partial_reads",
    )
    parser.add_argument("--question", metavar="Q", help="the caller's question (replaces a fixture's)")
    parser.add_argument(
        "--file",
        action="append",
        default=None,
        metavar="PATH",
        dest="files",
        help="a file to send, read from disk (repeatable; replaces a fixture's files)",
    )
    add_impl(
        parser,
        "'reference', 'package.module[:object]' (imported as `python -m` would, with the current directory on the "
        "path) or 'cmd:COMMAND LINE'; default: $ADVISOR_CONFORMANCE_IMPL, else conformance_impl of the nearest "
        "configuration file (pyproject.toml, pytest.ini, ...), else the reference",
    )
    parser.add_argument(
        "--provider", choices=PROVIDERS, help="print the JSON body the implementation's encode makes for this provider"
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON: the messages, or with --provider the whole HTTP request"
    )


def shipped_transcripts() -> dict[str, Path]:
    """The transcripts that ship with the suite, by name."""
    from ..._paths import fixtures_dir

    return {path.stem: path for path in sorted((fixtures_dir() / "transcripts").glob("*.json"))}


def find_transcript(argument: str) -> Path:
    """A transcript file: the path as given, else the shipped transcript of that name."""
    path = Path(argument)
    if path.exists():
        return path
    shipped = shipped_transcripts()
    name = argument[:-5] if argument.endswith(".json") else argument
    if name in shipped and path.parent == Path("."):
        return shipped[name]
    raise ShapeInputError(
        f"{argument}: no such file, and no shipped transcript of that name (shipped: {', '.join(shipped)})"
    )


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ShapeInputError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ShapeInputError(f"{path}: not JSON ({exc})") from None


def load_params(path: Path, question: str | None, files: list[str] | None, strings: dict[str, str]) -> dict[str, Any]:
    """The params of the shape operation: the transcript file's, with the command line's question and files."""
    from ...vectors import VectorError, fill

    data = read_json(path)
    if isinstance(data, list):
        params: dict[str, Any] = {"transcript": data}
    elif isinstance(data, dict) and isinstance(data.get("input"), dict) and "transcript" in data["input"]:
        try:
            params = fill(dict(data["input"]), strings)
        except VectorError as exc:
            raise ShapeInputError(f"{path}: {exc}") from None
    elif isinstance(data, dict) and "transcript" in data:
        params = dict(data)
    else:
        raise ShapeInputError(
            f"{path}: neither a list of messages nor an object with 'transcript' or 'input.transcript'"
        )
    if question is not None:
        params["question"] = question
    if files is not None:
        params["files"] = [load_file(name) for name in files]
    return params


def load_file(name: str) -> dict[str, Any]:
    """A file for the shape operation, as the suite sends one: the path as given, the bytes read, the size."""
    from ...shaping import file_param

    try:
        data = Path(name).read_bytes()
    except OSError as exc:
        raise ShapeInputError(f"--file {name}: cannot be read ({exc.strerror or exc})") from None
    return file_param(name, data, len(data))


def error_text(op: str, answer: dict[str, Any]) -> str:
    error = answer["error"]
    at = f" at {error['at']}" if error.get("at") else ""
    return f"{op} answered the error {error['code']}{at}: {error['message']}"


def render_messages(messages: list[dict[str, str]]) -> str:
    """The messages for reading: a header with the index, role and size, then the content as it is."""
    blocks = []
    for index, message in enumerate(messages):
        content = message["content"]
        header = (
            f"======== message {index + 1} of {len(messages)}: {message['role']} ({len(content)} characters) ========"
        )
        blocks.append(f"{header}\n{content}\n" if content else f"{header}\n")
    return "\n".join(blocks)


def produce(args: argparse.Namespace, implementation: Any) -> str:
    """The text to print; an error answer or a bad input raises :class:`ShapeInputError`."""
    from ...wire import neutral_request

    params = load_params(find_transcript(args.transcript), args.question, args.files, implementation.strings)
    answer = implementation.call("shape", params)
    if "error" in answer:
        raise ShapeInputError(error_text("shape", answer))
    messages = answer["messages"]
    if args.provider is None:
        return json.dumps(answer, indent=1, ensure_ascii=False) + "\n" if args.json else render_messages(messages)
    encoded = implementation.call("encode", {"provider": args.provider, "request": neutral_request(messages)})
    if "error" in encoded:
        raise ShapeInputError(error_text(f"encode for {args.provider}", encoded))
    return json.dumps(encoded if args.json else encoded["body"], indent=1, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ..._contract.implementation import TargetError, load_target
    from ..._contract.protocol import ContractError

    try:  # a package of the folder it is named from is importable, as under `python -m`
        named = resolve(args.impl)
        implementation = load_target(named.target, cwd=named.directory, origin=named.origin)
    except (TargetError, ContractError) as exc:
        print(f"advisor-conformance shape: {exc}", file=sys.stderr)
        return 2
    try:
        text = produce(args, implementation)
        announce("advisor-conformance shape", implementation, named)  # on stderr: stdout is the request
        sys.stdout.write(text)
    except (ShapeInputError, ContractError) as exc:
        print(f"advisor-conformance shape: {exc}", file=sys.stderr)
        return 2
    finally:
        implementation.close()
    return 0
