"""The written partition of every rule's inputs (``partitions/<area>.toml``).

For each rule of the catalogue, its inputs are split into equivalence classes and boundaries (empty,
blank and non-blank; below, at and above a cap; each provider's answer shapes; each failure kind
crossed with the budget; ...). Each class names the deterministic tests that pin it:

* ``"question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]"``: a plain or parametrized test,
  by its node ID under ``advisor_conformance/tests`` (a parametrized test's ID without its brackets
  stands for all its parameters);
* ``"question/test_question.py::test_surrounding_white_space_is_trimmed@question.trim:tabs"``: a hypothesis
  property, by the label of one of its explicit examples (``@example(...).via("question.trim:tabs")``);
  explicit examples run in every profile, so the class is pinned however the random draws fall.

A partition file looks like this (an array of tables per rule; ``what`` says the class in words)::

    [["question.cap"]]
    class = "at-cap"
    what = "exactly 4000 bytes: sent whole"
    tests = ["question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]"]

A class drawn from a provider's documents (a parameter's documented values and edges, a shape of stream the
provider or a gateway sends) names its document and sentence: ``source = "..."`` (docs/rules.md shows it).

A class of a rule with property tests either falls under a predicate of :mod:`advisor_conformance.classify` that
the rule's strategies reach, or says why they cannot draw it: ``unreachable = "..."``
(``tests/suite/test_strategy_coverage.py`` holds each class to one or the other).

The same file lists, per rule, the plausible mistakes of a port (a library default or a hand-written shortcut in
Go, JavaScript, Rust or Python) and the tests that would fail each, or why none is pinned (``open``: what the spec
leaves to the implementation)::

    [[mistakes."question.trim"]]
    mistake = "JavaScript's trim() (or .NET's Trim()) also trims U+FEFF; Python's strip() also U+001C..U+001F"
    caught = ["question/test_question.py::test_characters_outside_gos_space_set_are_kept"]
    broken = "question.trim"

:func:`problems` lists what is missing or wrong: a rule without a partition, a class without a test,
a test that does not exist, does not carry the rule, or is a property named without an example label
that its source holds.
"""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PARTITIONS = Path(__file__).parent / "partitions"
CLASS_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
TEST_REF = re.compile(r"^((?:[a-z0-9_]+/)*test_[a-z0-9_]+\.py)::(test_[A-Za-z0-9_]+)(\[[^\]@]*\])?(?:@(\S+))?$")


class PartitionError(ValueError):
    """A partition file is not well formed."""


@dataclass(frozen=True, slots=True)
class InputClass:
    rule: str
    id: str
    what: str
    tests: tuple[str, ...]
    unreachable: str = ""  # why the rule's strategies cannot draw it (pinned by its deterministic tests)
    source: str = ""  # the document and sentence the class comes from, where it is a provider's

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"class": self.id, "what": self.what, "tests": list(self.tests)}
        if self.unreachable:
            out["unreachable"] = self.unreachable
        if self.source:
            out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True)
class Mistake:
    """A plausible way for a port to get a rule wrong, and the tests that fail it (or why none is pinned)."""

    rule: str
    mistake: str
    caught: tuple[str, ...] = ()
    open: str = ""
    broken: str = ""  # the broken implementation that shows it (a rule ID, or rule~variant), if any

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"mistake": self.mistake}
        out.update({"caught": list(self.caught)} if self.caught else {"open": self.open})
        if self.broken:
            out["broken"] = self.broken
        return out


def _read(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise PartitionError(f"{path.name}: {error}") from None


@cache
def load_mistakes(folder: Path = PARTITIONS) -> Mapping[str, tuple[Mistake, ...]]:
    """Rule ID -> the plausible mistakes of a port the partition files list for it."""
    out: dict[str, list[Mistake]] = {}
    for path in sorted(folder.glob("*.toml")):
        listed = _read(path).get("mistakes", {})
        if not isinstance(listed, dict):
            raise PartitionError(f'{path.name}: mistakes must be tables by rule ([[mistakes."<rule>"]])')
        for rule_id, entries in listed.items():
            if not rule_id.startswith(f"{path.stem}."):
                raise PartitionError(f"{path.name}: mistakes of {rule_id!r} belong to another area's file")
            for index, entry in enumerate(entries if isinstance(entries, list) else [None]):
                where = f"{path.name}: mistakes.{rule_id}[{index}]"
                if not isinstance(entry, dict) or set(entry) - {"mistake", "caught", "open", "broken"}:
                    raise PartitionError(f"{where}: mistake, caught or open, and broken are the keys")
                caught, reason = entry.get("caught", []), entry.get("open", "")
                if not isinstance(entry.get("mistake"), str) or not entry["mistake"].strip():
                    raise PartitionError(f"{where}.mistake: the mistake in words is required")
                if bool(caught) == bool(reason) or not isinstance(caught, list) or not isinstance(reason, str):
                    raise PartitionError(
                        f"{where}: either caught (the tests that fail it) or open (why none is pinned) is required"
                    )
                out.setdefault(rule_id, []).append(
                    Mistake(
                        rule_id, entry["mistake"].strip(), tuple(caught), reason.strip(), str(entry.get("broken", ""))
                    )
                )
    return {rule_id: tuple(entries) for rule_id, entries in out.items()}


@cache
def load_partitions(folder: Path = PARTITIONS) -> Mapping[str, tuple[InputClass, ...]]:
    """Rule ID -> its input classes, in the order the files write them."""
    out: dict[str, list[InputClass]] = {}
    for path in sorted(folder.glob("*.toml")):
        data = _read(path)
        data.pop("mistakes", None)
        for rule_id, classes in data.items():
            if not isinstance(classes, list):
                raise PartitionError(f'{path.name}: {rule_id!r} must be an array of tables ([["{rule_id}"]])')
            if not rule_id.startswith(f"{path.stem}."):
                raise PartitionError(f"{path.name}: rule {rule_id!r} belongs to another area's file")
            for index, entry in enumerate(classes):
                where = f"{path.name}: {rule_id}[{index}]"
                unknown = set(entry) - {"class", "what", "tests", "unreachable", "source"}
                if unknown:
                    raise PartitionError(f"{where}: unknown keys {sorted(unknown)}")
                class_id, what, tests = entry.get("class"), entry.get("what"), entry.get("tests")
                if not isinstance(class_id, str) or not CLASS_ID.match(class_id):
                    raise PartitionError(f"{where}.class: a lower-case, hyphenated name is required")
                if not isinstance(what, str) or not what.strip():
                    raise PartitionError(f"{where}.what: the class in words is required")
                if not isinstance(tests, list) or not all(isinstance(test, str) for test in tests):
                    raise PartitionError(f"{where}.tests: a list of test references is required")
                unreachable, source = entry.get("unreachable", ""), entry.get("source", "")
                if not isinstance(unreachable, str):
                    raise PartitionError(f"{where}.unreachable: why the strategies cannot draw it, in words")
                if not isinstance(source, str):
                    raise PartitionError(f"{where}.source: the document and its sentence, in words")
                out.setdefault(rule_id, []).append(
                    InputClass(rule_id, class_id, what.strip(), tuple(tests), unreachable.strip(), source.strip())
                )
    return {rule_id: tuple(classes) for rule_id, classes in out.items()}


def _short(nodeid: str) -> str:
    """``.../tests/area/test_x.py::name[p]`` -> ``area/test_x.py::name[p]`` (the path inside the suite)."""
    path, sep, rest = nodeid.partition("::")
    return path.rpartition("tests/")[2] + sep + rest


def _function(module: str, name: str):
    dotted = module.removesuffix(".py").replace("/", ".")
    return getattr(importlib.import_module(f"advisor_conformance.tests.{dotted}"), name, None)


def _labels(function) -> set[str]:
    """The ``.via("...")`` labels of a property's explicit examples, read from its source."""
    try:
        source = inspect.getsource(inspect.unwrap(function))
    except (OSError, TypeError):
        return set()
    return set(re.findall(r"\.via\(\s*[\"']([^\"']+)[\"']\s*\)", source))


def reference_problem(ref: str, rule_id: str, collected: set[str], labelled: bool = True) -> str | None:
    """What is wrong with one test reference of a class of ``rule_id`` (None: it names a deterministic test). With
    ``labelled`` off, a property may be named whole (a mistake its random draws catch too)."""
    match = TEST_REF.match(ref)
    if not match:
        return f"{ref!r} is not `area/test_module.py::test_name[param]` or `...::test_name@example-label`"
    module, name, params, label = match.groups()
    base = f"{module}::{name}"
    if params:
        if f"{base}{params}" not in collected:
            return f"{ref!r}: no such test carries {rule_id}"
    elif not any(node == base or node.startswith(f"{base}[") for node in collected):
        return f"{ref!r}: no such test carries {rule_id}"
    function = _function(module, name)
    if function is None:
        return f"{ref!r}: {module} has no function {name}"
    if getattr(function, "is_hypothesis_test", False):
        if label is None and not labelled:
            return None
        if label is None:
            return f"{ref!r} is a property: name one of its explicit examples (`@example(...).via(label)`)"
        if label not in _labels(function):
            return f"{ref!r}: {name} has no explicit example labelled {label!r}"
    elif label is not None:
        return f"{ref!r}: {name} is not a property, so it has no example labels"
    return None


def mistake_problems(
    rule_ids: list[str], collected: Mapping[str, list[str]], mistakes: Mapping[str, tuple[Mistake, ...]] | None = None
) -> list[str]:
    """What keeps the lists of plausible mistakes from being complete: a rule without one, or a test named as
    catching one that does not exist or does not carry the rule."""
    mistakes = load_mistakes() if mistakes is None else mistakes
    out = [
        f"{rule_id}: mistakes listed for a rule the catalogue does not have"
        for rule_id in sorted(set(mistakes) - set(rule_ids))
    ]
    for rule_id in rule_ids:
        if not mistakes.get(rule_id):
            out.append(f"{rule_id}: no plausible mistake of a port is listed")
            continue
        nodes = {_short(node) for node in collected.get(rule_id, [])}
        for index, mistake in enumerate(mistakes[rule_id]):
            for ref in mistake.caught:
                problem = reference_problem(ref, rule_id, nodes, labelled=False)
                if problem:
                    out.append(f"{rule_id}: mistakes[{index}]: {problem}")
    return out


def problems(
    rule_ids: list[str],
    collected: Mapping[str, list[str]],
    partitions: Mapping[str, tuple[InputClass, ...]] | None = None,
) -> list[str]:
    """Everything that keeps the partitions from being complete: one line each."""
    partitions = load_partitions() if partitions is None else partitions
    out: list[str] = []
    for rule_id in sorted(set(partitions) - set(rule_ids)):
        out.append(f"{rule_id}: a partition for a rule the catalogue does not have")
    for rule_id in rule_ids:
        classes = partitions.get(rule_id)
        if not classes:
            out.append(f"{rule_id}: no written partition")
            continue
        seen: set[str] = set()
        nodes = {_short(node) for node in collected.get(rule_id, [])}
        for input_class in classes:
            name = f"{rule_id}:{input_class.id}"
            if input_class.id in seen:
                out.append(f"{name}: the class is written twice")
            seen.add(input_class.id)
            if not input_class.tests:
                out.append(f"{name}: no deterministic test")
            for ref in input_class.tests:
                problem = reference_problem(ref, rule_id, nodes)
                if problem:
                    out.append(f"{name}: {problem}")
    return out
