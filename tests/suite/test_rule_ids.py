"""Every rule ID written in the repository exists in the catalogue.

A rule ID is ``area.rule-name`` with ``area`` one of the catalogue's areas. It is
looked for where IDs are written: string literals of the Python code, tests and
benchmarks (docstrings and the constant parts of f-strings included, read with
``ast``), ``# rule:`` / ``# rules:`` comment tags, every key and string of the
golden vectors and other JSON fixtures and of the TOML data (partitions, the
catalogue's own prose, the mutation survivors), and expected-failure files. A
renamed or mistyped ID there would name a rule no report or partition knows.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

from advisor_conformance.catalogue import load_catalogue

from ..support.runner import ROOT

#: Where rule IDs are written (relative to the repository root).
PYTHON = ("reference", "conformance", "tests", "benchmarks", "examples", ".ci", "conftest.py")
DATA = ("fixtures/**/*.json", "conformance/**/*.toml", ".ci/*.toml")
XFAILS = ("**/*xfails*.txt",)

#: Strings shaped like a rule ID that are not one, each for a stated reason.
NOT_RULES = {
    # attributes of a provider request, named in the reference's and the suite's messages and comments
    "request.body",
    "request.messages",
    "request.model",
    "request.reasoning",
    "request.stream",
    "request.temperature",
    "request.tools",
    "wire.kind",
    "workspace.workspace",
    # made-up IDs that tests of the suite's own machinery feed it, to show an unknown or misspelt rule is refused
    "elision.marker-formt",
    "elision.no-such-rule",
    "elision.nope",
    "elision.retired-rule",
    "files.cap",
    "question.gone",
    "question.kap",
    # rules of the synthetic suites whose layout tests/suite/test_suite_layout.py checks
    "streaming.a",
    "streaming.b",
    "wire.a",
    "wire.b",
    "wire.c",
    "wire.d",
}
#: A name after an area that makes a file name, not a rule (``question.toml``, ``wire.py``).
EXTENSIONS = {"py", "toml", "json", "md", "txt", "go", "js", "mjs", "sse", "ambr", "html", "css", "ini", "tmpl"}

TAG = re.compile(r"\brules?:")


def id_pattern(areas: Iterable[str]) -> re.Pattern[str]:
    """``area.rule-name`` for the given areas, not inside a dotted name, a path or a longer word."""
    alternatives = "|".join(re.escape(area) for area in sorted(areas, key=len, reverse=True))
    return re.compile(rf"(?<![\w./-])(?:{alternatives})\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?![\w-]|\.\w)")


def _strings(value: object) -> Iterator[str]:
    """Every key and string of a JSON or TOML document."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def python_texts(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each string literal and each rule-tag comment of a Python module."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
    # A comment's text: what follows a '#' (one inside a string literal only adds text already scanned above).
    for number, line in enumerate(source.splitlines(), 1):
        comment = line.partition("#")[2]
        if comment and TAG.search(comment):
            yield number, comment


def texts_of(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of the places in ``path`` where a rule ID may be written (line 0: somewhere in a data file)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield from python_texts(text)
    elif path.suffix == ".json":
        yield from ((0, s) for s in _strings(json.loads(text)))
    elif path.suffix == ".toml":
        yield from ((0, s) for s in _strings(tomllib.loads(text)))
    else:  # an expected-failures file: one entry per line, '#' starts a comment
        yield from ((number, line.split("#", 1)[0]) for number, line in enumerate(text.splitlines(), 1))


def unknown_ids(paths: Iterable[Path], known: set[str], areas: Iterable[str]) -> list[str]:
    """``path:line: id`` for each rule-shaped string in ``paths`` that is not a known ID."""
    pattern = id_pattern(areas)
    found = []
    for path in paths:
        for line, text in texts_of(path):
            for match in pattern.finditer(text):
                rule_id = match.group(0)
                if rule_id not in known and rule_id not in NOT_RULES and rule_id.split(".", 1)[1] not in EXTENSIONS:
                    found.append(f"{path}:{line}: {rule_id}")
    return found


def repository_files() -> list[Path]:
    files: set[Path] = set()
    for place in PYTHON:
        path = ROOT / place
        files.update([path] if path.is_file() else path.rglob("*.py"))
    for pattern in (*DATA, *XFAILS):
        files.update(ROOT.glob(pattern))
    files.discard(Path(__file__).resolve())  # its misspelt IDs are the scan's own test input
    return sorted(path for path in files if not {"node_modules", "__pycache__"} & set(path.parts))


def test_every_rule_id_written_in_the_repository_is_in_the_catalogue():
    """Each rule-shaped string of the code, tests, vectors, partitions and rule tags names a catalogue rule."""
    catalogue = load_catalogue()
    files = repository_files()
    assert len(files) > 200 and any(path.suffix == ".json" for path in files)  # the scan reaches the tree
    unknown = unknown_ids(files, set(catalogue.rules) | set(catalogue.retired), catalogue.areas)
    assert not unknown, "rule IDs not in the catalogue:\n" + "\n".join(unknown[:50])


def test_scan_reports_unknown_ids_in_code_tags_vectors_partitions_and_xfails(tmp_path):
    """A misspelt ID in a string, a rule tag, a vector, a partition or an xfails file is reported; names are not."""
    module = tmp_path / "module.py"
    module.write_text(
        '"""Docstring (rule: elision.treshold)."""\n'
        'RULES = ["elision.threshold", f"{1}elision.byte-cutt"]\n'
        'PATHS = ["elision.py", "tests/elision.json", "advisor.elision.x", "elision.threshold.py"]\n'
        "x = 1  # rule: elision.marker-fromat\n"
        "# elision.not-a-tag (a plain comment is prose)\n",
        encoding="utf-8",
    )
    vector = tmp_path / "vector.json"
    vector.write_text(json.dumps({"cases": [{"rules": ["elision.threshold", "elision.utf8-bundary"]}]}))
    partition = tmp_path / "elision.toml"
    partition.write_text('[["elision.thresold"]]\nclass = "x"\n', encoding="utf-8")
    xfails = tmp_path / "my-xfails.txt"
    xfails.write_text("elision.threshold\nelision.byte-cut2  # flaky\n# elision.commented-out\n", encoding="utf-8")
    found = unknown_ids([module, vector, partition, xfails], {"elision.threshold", "elision.byte-cut"}, ["elision"])
    assert sorted(found) == sorted(
        [
            f"{module}:1: elision.treshold",
            f"{module}:2: elision.byte-cutt",
            f"{module}:4: elision.marker-fromat",
            f"{vector}:0: elision.utf8-bundary",
            f"{partition}:0: elision.thresold",
            f"{xfails}:2: elision.byte-cut2",
        ]
    )
