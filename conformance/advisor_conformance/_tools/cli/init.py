"""``advisor-conformance init``: a starting adapter or harness that runs against the suite at once."""

from __future__ import annotations

import argparse
import errno
import keyword
import os
import re
import stat
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
skipped with that reason. Every operation's comment says what it must answer and where its rules are. Every
skeleton passes the same rules out of the box. --python also writes a pyproject.toml naming the adapter
(conformance_impl), so a plain `python3 -m pytest` in that folder runs the suite against it; an existing
pyproject.toml is left as it is, and the lines to add are printed.

Existing files are never overwritten without --force (exit 2, naming them), and nothing is written through a
symbolic link or outside --dir (a link where a file or folder would go is an error, with --force too).

  advisor-conformance init --python myadvisor               myadvisor/__init__.py, myadvisor/advisor_adapter.py,
                                                            pyproject.toml
  advisor-conformance init --harness                        advisor_harness.py (Python, standard library only)
  advisor-conformance init --harness --language node        advisor-harness.mjs (Node.js, no dependencies)
  advisor-conformance init --harness --language go          advisor-harness.go (Go, the standard library only)

Then, in that directory, the fast loop (the deterministic tests, in seconds): python3 -m pytest -x --quick (a
harness: --impl='cmd:python3 advisor_harness.py'; a Go harness is built first: go build -o advisor-harness
advisor-harness.go). init prints the steps.
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


#: The names the protocol accepts for an implementation (``describe``'s ``name``).
PROTOCOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: Packages a skeleton must not shadow: the suite's own.
OWN_PACKAGES = frozenset({"advisor_conformance", "advisor_reference", "_advisor_conformance_pytestplugin"})


def implementation_name(package: str) -> str:
    """A name the protocol accepts (``^[A-Za-z0-9][A-Za-z0-9._-]*$``) for a package name."""
    return package.strip("_") or "my-advisor"


PYPROJECT = """\
# Written by `advisor-conformance init --python {package}`: a plain `python3 -m pytest` in this folder runs the
# advisor conformance suite against the adapter below (and the project's own tests, if any). The suite's other
# settings (its guide, docs/guide.md, "Configuring a run"); their paths are relative to this file's folder:
#   conformance_xfails_file = "advisor-xfails.txt"   # rules or tests you knowingly differ on
#   conformance_strict_should = "true"               # a failing `should` rule fails the run
[tool.pytest.ini_options]
conformance_impl = "{package}.advisor_adapter"
"""


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
        configured = not os.path.lexists(where / "pyproject.toml")
        if configured:
            files[where / "pyproject.toml"] = PYPROJECT.format(package=package)
        impl = "" if configured else f" --impl={target}"
        name = values["NAME"]
        steps = [
            (
                f"python3 -m pytest{impl} -x --quick",
                "the fast loop: the deterministic tests of every rule, in seconds; each failure starts with the rules "
                "it breaks, [area.rule-name]",
            ),
            ("advisor-conformance where RULE-ID", "a rule: its statement, the spec sentence, its tests and code"),
            (
                f"python3 -m pytest{impl}",
                "the whole suite, drawn examples too (minutes); --rule-summary adds the outcome of every rule",
            ),
            (
                f"python3 -m pytest{impl} --snapshot-update -k test_rendered_request_matches_snapshot",
                f"once the rules pass: record your rendered requests in snapshots/{name}/ (review and commit them)",
            ),
            (
                f"advisor-conformance shape django_webhooks_partial_reads{impl.replace('=', ' ')}",
                "the request your shape renders for a shipped transcript",
            ),
        ]
        if not configured:
            steps.insert(
                0,
                (
                    f'[tool.pytest.ini_options]\n  conformance_impl = "{target}"',
                    "add these lines to your pyproject.toml (it exists and was left as it is): then a plain "
                    "`python3 -m pytest` runs the suite, and --impl can go",
                ),
            )
        return files, steps
    harness = HARNESSES[args.language]
    values = _values("my-advisor", "my-advisor", harness.comment, harness.indent)
    files = {where / harness.file: render(harness.template, values)}
    steps = [
        *([harness.build] if harness.build else []),
        (
            f"python3 -m pytest --impl='cmd:{harness.command}' -x --quick",
            "the fast loop: the deterministic tests of every rule, in seconds; each failure starts with the rules it "
            "breaks, [area.rule-name]",
        ),
        ("advisor-conformance where RULE-ID", "a rule: its statement, the spec sentence, its tests and code"),
        (f"advisor-conformance run --impl 'cmd:{harness.command}'", "the whole suite, with the outcome of every rule"),
    ]
    return files, steps


def _problem(args: argparse.Namespace) -> str | None:
    if args.python is not None:
        package = args.python
        if not (package.isascii() and package.isidentifier()) or keyword.iskeyword(package):
            return f"--python {package!r}: not a Python package name (one ASCII identifier, such as myadvisor)"
        if not PROTOCOL_NAME.match(implementation_name(package)):  # pragma: no cover - an ASCII identifier matches
            return f"--python {package!r}: the implementation's name must match {PROTOCOL_NAME.pattern}"
        if package in OWN_PACKAGES:
            return f"--python {package!r}: that is the suite's own package; choose another name"
        if args.language != "python":
            return "--language is for --harness; --python writes a Python adapter"
    return None


class UnsafePath(OSError):
    """A path init will not write: through a symbolic link, or not a regular file."""


def write_below(root: Path, relative: Path, text: str, *, force: bool, executable: bool) -> None:
    """Write ``text`` to ``root / relative`` without following a symbolic link below ``root`` (the folder the user
    gave): each folder on the way is created or opened with ``O_NOFOLLOW``, and the file is created exclusively
    (``O_EXCL``: a dangling link counts as existing), or with ``force`` opened without following a link and
    written only when it is a regular file."""
    directory = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in relative.parts[:-1]:
            try:
                os.mkdir(part, 0o777, dir_fd=directory)
            except FileExistsError:
                pass
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
            except OSError as exc:
                raise UnsafePath(f"{part} is a symbolic link or not a folder: not followed") from exc
            os.close(directory)
            directory = inner
        name = relative.parts[-1]
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        flags |= 0 if force else os.O_EXCL
        try:
            fd = os.open(name, flags, 0o755 if executable else 0o644, dir_fd=directory)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePath("a symbolic link: not followed") from exc
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UnsafePath("not a regular file")
            os.ftruncate(fd, 0)
            if executable:
                os.fchmod(fd, os.fstat(fd).st_mode | 0o111)
            data = text.encode("utf-8")
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
    finally:
        os.close(directory)


def _links_below(root: Path, path: Path) -> list[Path]:
    """The symbolic links among ``path`` and its folders below ``root``."""
    relative = path.relative_to(root)
    prefixes = [root.joinpath(*relative.parts[: index + 1]) for index in range(len(relative.parts))]
    return [prefix for prefix in prefixes if prefix.is_symlink()]


def run(args: argparse.Namespace, extra: list[str]) -> int:
    problem = _problem(args)
    if problem:
        print(f"advisor-conformance init: {problem}", file=sys.stderr)
        return 2
    root = Path(args.dir)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"advisor-conformance init: --dir {args.dir}: cannot be created ({exc.strerror or exc})", file=sys.stderr)
        return 2
    files, steps = planned_files(args)
    linked = sorted({str(link) for path in files for link in _links_below(root, path)})
    if linked:
        names = "\n".join(f"  {link}" for link in linked)
        print(
            f"advisor-conformance init: symbolic links where the skeleton goes, nothing was written (init never "
            f"follows a link; remove them, or choose another --dir):\n{names}",
            file=sys.stderr,
        )
        return 2
    existing = [path for path in files if os.path.lexists(path)]  # a dangling link too: never followed
    if existing and not args.force:
        names = "\n".join(f"  {path}" for path in existing)
        print(
            f"advisor-conformance init: these files exist, nothing was written (--force overwrites them):\n{names}",
            file=sys.stderr,
        )
        return 2
    for path, text in files.items():
        executable = bool(args.harness and args.language != "go")  # a program: runnable as ./advisor_harness.py too
        try:
            write_below(root, path.relative_to(root), text, force=args.force, executable=executable)
        except OSError as exc:
            print(f"advisor-conformance init: {path}: cannot be written ({exc.strerror or exc})", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    print("\nNext steps" + ("" if root == Path(".") else f" (in {args.dir})") + ":")
    for command, what in steps:
        print(f"  {command}\n      {what}")
    return 0
