"""``advisor-conformance init``: a starting adapter or harness that runs against the suite at once."""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..._paths import PACKAGE_DIR

NAME = "init"
ORDER = 80
HELP = "write a starting Python adapter (--python PACKAGE) or harness (--harness) that runs against the suite at once"
DESCRIPTION = """\
Write the skeleton of an implementation that the suite runs against at once: it describes itself with placeholder
wording, renders only the frame of a request in `shape` and answers every other operation with the error
unsupported_op. It declares the areas of `shape` (the others are listed, commented out, with the operations they
need), so the run goes to the end, each failure names a rule that is left to do, and the other areas' tests are
skipped with that reason. Every operation's comment says what it must answer and where its rules are. Existing
files are never overwritten without --force (exit 2, naming them).

  advisor-conformance init --python myadvisor               myadvisor/__init__.py, myadvisor/advisor_adapter.py
  advisor-conformance init --harness                        advisor_harness.py (Python, standard library only)
  advisor-conformance init --harness --language node        advisor-harness.mjs (Node.js, no dependencies)
  advisor-conformance init --harness --language go          advisor-harness.go (Go, the standard library only)

Then, in that directory: python3 -m pytest --impl=myadvisor.advisor_adapter (or --impl='cmd:python3
advisor_harness.py'; a Go harness is built first: go build -o advisor-harness advisor-harness.go).
"""

TEMPLATES_DIR = PACKAGE_DIR / "_templates"
_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


@dataclass(frozen=True)
class Harness:
    template: str
    file: str
    command: str
    comment: str  # how the language writes a line comment after a list item
    indent: str  # the indent of a list item
    build: tuple[str, str] | None = None  # the command that builds the program, and what it does


HARNESSES = {
    "python": Harness("advisor_harness.py.tmpl", "advisor_harness.py", "python3 advisor_harness.py", "#", "    "),
    "node": Harness("advisor-harness.mjs.tmpl", "advisor-harness.mjs", "node advisor-harness.mjs", "//", "  "),
    "go": Harness(
        "advisor-harness.go.tmpl",
        "advisor-harness.go",
        "./advisor-harness",
        "//",
        "\t",
        (
            "go build -o advisor-harness advisor-harness.go",
            "build it (Go 1.18 or later, the standard library only); build again after each change",
        ),
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    kind = parser.add_mutually_exclusive_group(required=True)
    kind.add_argument(
        "--python",
        metavar="PACKAGE",
        help="write the Python package PACKAGE with an adapter (PACKAGE/advisor_adapter.py)",
    )
    kind.add_argument(
        "--harness",
        action="store_true",
        help="write a harness program (the protocol of docs/harness.md on stdin and stdout)",
    )
    parser.add_argument(
        "--language",
        choices=sorted(HARNESSES),
        default="python",
        help="the harness's language (default: python); only with --harness",
    )
    parser.add_argument("--dir", default=".", metavar="DIR", help="where to write (default: the current directory)")
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")


def implementation_name(package: str) -> str:
    """A name the protocol accepts (``^[A-Za-z0-9][A-Za-z0-9._-]*$``) for a package name."""
    return package.strip("_") or "my-advisor"


#: The operations the skeletons answer (with the frame of a request); the others answer unsupported_op.
ANSWERED = frozenset({"shape"})


def area_lines(comment: str, indent: str) -> str:
    """One line per area of the catalogue, with its title as a comment: declared when the skeleton answers every
    operation its tests call, else commented out, naming the operations it needs (the suite refuses to start when
    a declared area's operations answer unsupported_op)."""
    from ..._contract.protocol import AREA_OPERATIONS
    from ...catalogue import load_catalogue

    lines = []
    for area in load_catalogue().areas.values():
        needs = AREA_OPERATIONS.get(area.id, ())
        if set(needs) <= ANSWERED:
            lines.append(f'{indent}"{area.id}",  {comment} {area.title}')
        else:
            lines.append(f'{indent}{comment} "{area.id}",  {comment} {area.title}: needs {", ".join(needs)}')
    return "\n".join(lines)


def render(template: str, values: dict[str, str]) -> str:
    """A template of ``_templates/`` with its ``{{NAME}}`` placeholders filled in; an unknown one is a bug."""
    text = (TEMPLATES_DIR / template).read_text(encoding="utf-8")

    def replace(match: re.Match[str]) -> str:
        if match[1] not in values:
            raise KeyError(f"{template}: no value for the placeholder {match[0]}")
        return values[match[1]]

    return _PLACEHOLDER.sub(replace, text)


def _values(name: str, package: str, comment: str, indent: str) -> dict[str, str]:
    from ... import __version__
    from ..._contract.protocol import PROTOCOL_VERSION

    return {
        "NAME": name,
        "PACKAGE": package,
        "SUITE_VERSION": __version__,
        "PROTOCOL": str(PROTOCOL_VERSION),
        "AREAS": area_lines(comment, indent),
    }


def planned_files(args: argparse.Namespace) -> tuple[dict[Path, str], list[tuple[str, str]]]:
    """The files to write (path: text) and the next steps to print (command, what it does)."""
    where = Path(args.dir)
    if args.python is not None:
        package = args.python
        values = _values(implementation_name(package), package, "#", "    ")
        files = {
            where / package / "__init__.py": render("package_init.py.tmpl", values),
            where / package / "advisor_adapter.py": render("advisor_adapter.py.tmpl", values),
        }
        target = f"{package}.advisor_adapter"
        name = values["NAME"]
        steps = [
            (
                f"python3 -m pytest --impl={target} -x",
                "run the suite; each failure starts with the rules it breaks, [area.rule-name]",
            ),
            ("advisor-conformance where RULE-ID", "a rule: its statement, the spec sentence, its tests and code"),
            (f"python3 -m pytest --impl={target} --rule-summary", "the outcome of every rule at the end"),
            (
                f"python3 -m pytest --impl={target} --snapshot-update -k test_rendered_request_matches_snapshot",
                f"record your rendered requests in snapshots/{name}/ (commit them)",
            ),
            (
                f"advisor-conformance shape django_webhooks_partial_reads --impl {target}",
                "the request your shape renders for a shipped transcript",
            ),
        ]
        return files, steps
    harness = HARNESSES[args.language]
    values = _values("my-advisor", "my-advisor", harness.comment, harness.indent)
    files = {where / harness.file: render(harness.template, values)}
    steps = [
        *([harness.build] if harness.build else []),
        (
            f"python3 -m pytest --impl='cmd:{harness.command}' -x",
            "run the suite; each failure starts with the rules it breaks, [area.rule-name]",
        ),
        (f"advisor-conformance run --impl 'cmd:{harness.command}'", "the same, with the outcome of every rule"),
        ("advisor-conformance where RULE-ID", "a rule: its statement, the spec sentence, its tests and code"),
    ]
    return files, steps


def _problem(args: argparse.Namespace) -> str | None:
    if args.python is not None:
        if not args.python.isidentifier() or keyword.iskeyword(args.python):
            return f"--python {args.python!r}: not a Python package name (one identifier, such as myadvisor)"
        if args.language != "python":
            return "--language is for --harness; --python writes a Python adapter"
    return None


def run(args: argparse.Namespace, extra: list[str]) -> int:
    problem = _problem(args)
    if problem:
        print(f"advisor-conformance init: {problem}", file=sys.stderr)
        return 2
    files, steps = planned_files(args)
    existing = [path for path in files if path.exists()]
    if existing and not args.force:
        names = "\n".join(f"  {path}" for path in existing)
        print(
            f"advisor-conformance init: these files exist, nothing was written (--force overwrites them):\n{names}",
            file=sys.stderr,
        )
        return 2
    for path, text in files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"advisor-conformance init: {path}: cannot be written ({exc.strerror or exc})", file=sys.stderr)
            return 2
        if args.harness and args.language != "go":  # a program: runnable as ./advisor_harness.py too
            path.chmod(path.stat().st_mode | 0o111)
        print(f"wrote {path}")
    print("\nNext steps" + ("" if Path(args.dir) == Path(".") else f" (in {args.dir})") + ":")
    for command, what in steps:
        print(f"  {command}\n      {what}")
    return 0
