"""``advisor-conformance shape TRANSCRIPT``: the request an implementation renders for a transcript, for review."""

from __future__ import annotations

import argparse
import json
import os
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

The transcript file is read bounded and checked before it is sent: its size, UTF-8 encoding and nesting, no NaN
or infinities, no number of more than 40 characters, no key twice, and the type of every field (each message a
transcript message of the protocol, the question a string, the files the protocol's files). A --file is read as a
regular file only (no FIFO or device), at most its first MiB, with its true size.

Exit status: 0 on success, 2 when a file cannot be read or is not a transcript (the message names the file and the
field), the implementation cannot be loaded, or it answers an error (its code, message and the field it names).

  advisor-conformance shape django_webhooks_partial_reads
  advisor-conformance shape session.json --question 'Is this migration safe?' --file app/models.py
  advisor-conformance shape session.json --impl mypkg.advisor_adapter --provider anthropic
"""

PROVIDERS = ("anthropic", "openai", "codex")
#: The largest transcript file read, and the most of a --file read (the implementation keeps at most 32 KiB of it).
TRANSCRIPT_BYTES = 64 * 1024 * 1024
FILE_BYTES = 1024 * 1024
_PROTOCOL = "https://advisor-conformance.invalid/schema/protocol-v1.json#/$defs"
_MESSAGES = {"type": "array", "items": {"$ref": f"{_PROTOCOL}/transcript_message"}}
_PARAMS = {"allOf": [{"$ref": f"{_PROTOCOL}/shape.params"}], "properties": {"transcript": _MESSAGES}}
#: The three forms of a transcript file: a list of messages, a fixture ({"input": params}), the params themselves.
TRANSCRIPT_SCHEMAS: dict[str, dict[str, Any]] = {
    "messages": _MESSAGES,
    "fixture": {"type": "object", "required": ["input"], "properties": {"input": _PARAMS}},
    "params": _PARAMS,
}


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


def load_transcript(path: Path) -> tuple[str, Any]:
    """The form (:data:`TRANSCRIPT_SCHEMAS`) and the data of a transcript file, read bounded and checked; raises
    :class:`~advisor_conformance._tools.inputs.InputError` naming the file and the field."""
    from ..inputs import InputError, check, read_json, validator

    data = read_json(path, limit=TRANSCRIPT_BYTES)
    if isinstance(data, list):
        form = "messages"
    elif isinstance(data, dict) and "input" in data and "transcript" not in data:
        form = "fixture"
    elif isinstance(data, dict) and "transcript" in data:
        form = "params"
    else:
        raise InputError(
            str(path), "neither a list of messages nor an object with 'transcript' or 'input.transcript'", "(top)"
        )
    check(validator(TRANSCRIPT_SCHEMAS[form]), data, str(path))
    return form, data


def load_params(
    path: Path, loaded: tuple[str, Any], question: str | None, files: list[str] | None, strings: dict[str, str]
) -> dict[str, Any]:
    """The params of the shape operation: the transcript file's (``loaded``: :func:`load_transcript`'s form and
    data), with the command line's question and files."""
    from ...vectors import VectorError, fill

    form, data = loaded
    if form == "messages":
        params: dict[str, Any] = {"transcript": data}
    elif form == "fixture":
        try:
            params = fill(dict(data["input"]), strings)
        except VectorError as exc:
            raise ShapeInputError(f"{path}: input: {exc}") from None
    else:
        params = dict(data)
    if question is not None:
        params["question"] = question
    if files is not None:
        params["files"] = [load_file(name) for name in files]
    return params


def load_file(name: str) -> dict[str, Any]:
    """A file for the shape operation, as the suite sends one: the path as given, at most :data:`FILE_BYTES` of its
    bytes, its true size; a FIFO, a device or a folder is refused unread."""
    import stat

    from ...shaping import file_param

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb", closefd=True) as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ShapeInputError(f"--file {name}: not a regular file (a folder, a FIFO, a device or a socket)")
            data = handle.read(FILE_BYTES)
    except OSError as exc:
        raise ShapeInputError(f"--file {name}: cannot be read ({exc.strerror or exc})") from None
    return file_param(name, data, max(info.st_size, len(data)))


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


def produce(args: argparse.Namespace, implementation: Any, path: Path, loaded: tuple[str, Any]) -> str:
    """The text to print for the transcript at ``path`` (``loaded``: :func:`load_transcript`'s form and data); an
    error answer or a bad input raises :class:`ShapeInputError`."""
    from ...wire import neutral_request

    params = load_params(path, loaded, args.question, args.files, implementation.strings)
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
    from ..inputs import InputError

    try:  # the transcript is checked before the implementation starts
        path = find_transcript(args.transcript)
        loaded = load_transcript(path)
    except (ShapeInputError, InputError) as exc:
        print(f"advisor-conformance shape: {exc}", file=sys.stderr)
        return 2
    try:  # a package of the folder it is named from is importable, as under `python -m`
        named = resolve(args.impl)
        implementation = load_target(named.target, cwd=named.directory, origin=named.origin)
    except (TargetError, ContractError) as exc:
        print(f"advisor-conformance shape: {exc}", file=sys.stderr)
        return 2
    try:
        text = produce(args, implementation, path, loaded)
        announce("advisor-conformance shape", implementation, named)  # on stderr: stdout is the request
        sys.stdout.write(text)
    except (ShapeInputError, InputError, ContractError) as exc:
        print(f"advisor-conformance shape: {exc}", file=sys.stderr)
        return 2
    finally:
        implementation.close()
    return 0
