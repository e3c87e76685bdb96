"""The strategies reach every written class: each rule's property tests draw inputs that fall in each class of its
partition (by the predicates of ``advisor_conformance.classify``), or the class says why they cannot
(``unreachable``) and its deterministic tests pin it.

Each property test's own strategies (its ``@given`` arguments) are drawn from, derandomized and without running the
implementation: DRAWS inputs each, a bounded second or two per rule. A class drawn in none of them would be pinned by
its explicit example alone, so its property would test nothing more of it: the draws of a CI run must reach it with
real probability. The predicates are checked too: each explicit example falls in the class its label names.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from collections import defaultdict
from contextlib import contextmanager
from functools import cache
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import advisor_conformance.tests as suite
from advisor_conformance.classify import CLASSIFIERS, classes
from advisor_conformance.partition import load_partitions

#: Inputs drawn from each property test's strategies: as many as the CI profile draws per test, so a class reached
#: here is reached with real probability in CI too.
DRAWS = 100


@cache
def property_tests() -> dict[str, list[tuple[str, object]]]:
    """Rule -> its property tests, as (``module::name``, function), each drawing only from strategies."""
    out: dict[str, list[tuple[str, object]]] = defaultdict(list)
    for info in pkgutil.walk_packages(suite.__path__, prefix=f"{suite.__name__}."):
        if not info.name.rpartition(".")[2].startswith("test_"):
            continue
        module = importlib.import_module(info.name)
        path = info.name.removeprefix(f"{suite.__name__}.").replace(".", "/")  # area/test_x
        for name, function in vars(module).items():
            if not getattr(function, "is_hypothesis_test", False) or function.__module__ != module.__name__:
                continue
            given_kwargs = function.hypothesis._given_kwargs
            if any(type(strategy).__name__ == "DataStrategy" for strategy in given_kwargs.values()):
                continue  # draws more inside the test: its inputs are not all in its arguments
            for mark in getattr(function, "pytestmark", []):
                if mark.name == "rule":
                    out[mark.kwargs["id"]].append((f"{path}.py::{name}", function))
    return dict(out)


def _draw(function, count: int) -> list[dict]:
    """``count`` inputs of a property test's strategies, derandomized by the test's own name."""
    drawn: list[dict] = []

    @settings(max_examples=count, derandomize=True, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries(dict(function.hypothesis._given_kwargs)))
    def collect(values):
        drawn.append(values)

    # The seed of a derandomized run comes from the function's digest: each property gets its own, so what one
    # draws does not depend on which others were drawn before. The digest names the module without its area's folder
    # (as before the suite had one), so moving a test between folders does not change what its strategies draw.
    module = f"{suite.__name__}.{function.__module__.rpartition('.')[2]}"
    collect.hypothesis.inner_test._hypothesis_internal_add_digest = f"{module}.{function.__qualname__}".encode()
    with _without_local_constants():
        collect()
    return drawn


@contextmanager
def _without_local_constants():
    """Hypothesis (6.1xx) mixes into its draws the literals of the local modules imported so far, so a derandomized
    run draws differently after other test modules were imported (another xdist worker, another order). The coverage
    is measured without them, the same in every process; where the hypothesis in use has no such pool, as is."""
    providers = importlib.import_module("hypothesis.internal.conjecture.providers")
    if not hasattr(providers, "_get_local_constants") or not hasattr(providers, "Constants"):
        yield
        return
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    clear = getattr(getattr(cache, "cache", None), "clear", lambda: None)
    clear()
    with mock.patch.object(providers, "_get_local_constants", providers.Constants):
        yield
    clear()


@cache
def hits(rule: str) -> frozenset[str]:
    """The classes of ``rule`` its property tests' draws fall in."""
    found: set[str] = set()
    for _, function in property_tests().get(rule, []):
        for values in _draw(function, DRAWS):
            found |= classes(rule, values)
    return frozenset(found)


RULES = sorted(property_tests())


def test_the_rules_with_property_tests_are_found():
    """The scan finds the property tests of the suite and the rules they carry, and every rule has classifiers."""
    assert len(RULES) >= 50, RULES
    assert set(CLASSIFIERS) <= set(load_partitions()), sorted(set(CLASSIFIERS) - set(load_partitions()))
    assert not [rule for rule in RULES if rule not in CLASSIFIERS], [r for r in RULES if r not in CLASSIFIERS]


@pytest.mark.parametrize("rule", RULES)
def test_every_class_is_drawn_or_says_why_it_cannot_be(rule):
    """Each class of the rule is drawn by its property tests' strategies, or documents why it is unreachable (and is
    then not drawn: a stale note is a problem too); every predicate names a written class."""
    written = {input_class.id: input_class for input_class in load_partitions()[rule]}
    predicates = CLASSIFIERS.get(rule, {})
    assert set(predicates) <= set(written), f"predicates of classes {rule} does not write: " \
                                            f"{sorted(set(predicates) - set(written))}"
    drawn = hits(rule)
    problems = []
    for class_id, input_class in written.items():
        if input_class.unreachable:
            if class_id in drawn:
                problems.append(f"{class_id}: documented as unreachable, but the strategies draw it")
        elif class_id not in predicates:
            problems.append(f"{class_id}: no predicate in advisor_conformance.classify and no `unreachable` note")
        elif class_id not in drawn:
            problems.append(f"{class_id}: not drawn in {DRAWS} inputs of each of "
                            f"{[name for name, _ in property_tests()[rule]]}: widen the strategy or say why")
    assert not problems, f"{rule}:\n" + "\n".join(problems)


def _labels(function) -> list[str | None]:
    """The ``.via`` label of each explicit example, in the order hypothesis keeps them (the decorators' reversed)."""
    source = textwrap.dedent(inspect.getsource(inspect.unwrap(function)))
    definition = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef))
    labels: list[str | None] = []
    for decorator in definition.decorator_list:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                and decorator.func.attr == "via" and isinstance(decorator.func.value, ast.Call):
            inner = decorator.func.value.func
            if getattr(inner, "id", getattr(inner, "attr", "")) == "example":
                labels.append(decorator.args[0].value if decorator.args else None)
        elif isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "example":
            labels.append(None)
    return labels[::-1]


EXAMPLES = [(rule, name, function) for rule in RULES for name, function in property_tests()[rule]]


@pytest.mark.parametrize("rule, name, function", EXAMPLES, ids=[f"{rule}-{name}" for rule, name, _ in EXAMPLES])
def test_explicit_examples_fall_in_the_classes_their_labels_name(rule, name, function):
    """Each explicit example labelled ``rule:class``, where the class has a predicate, satisfies it: the predicates
    say what the classes say."""
    examples = getattr(function, "hypothesis_explicit_examples", [])
    labels = _labels(function)
    assert len(labels) == len(examples), f"{name}: {len(labels)} labels read for {len(examples)} examples"
    wrong = []
    for label, example in zip(labels, examples, strict=True):
        if not label or ":" not in label:
            continue
        owner, _, class_id = label.partition(":")
        if owner != rule or class_id not in CLASSIFIERS.get(rule, {}):
            continue
        if class_id not in classes(rule, example.kwargs):
            wrong.append(f"{label}: its example does not satisfy the class's predicate")
    assert not wrong, "\n".join(wrong)
