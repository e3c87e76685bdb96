"""The written partitions: every rule's input classes, each pinned by a deterministic test of the suite."""

from __future__ import annotations

import pytest

from advisor_conformance._tools.trace import collect_rule_tests
from advisor_conformance.catalogue import load_catalogue
from advisor_conformance.partition import (
    InputClass,
    Mistake,
    PartitionError,
    load_mistakes,
    load_partitions,
    mistake_problems,
    problems,
)


@pytest.fixture(scope="module")
def rule_tests():
    return collect_rule_tests()


def test_every_rule_has_a_partition_and_every_class_a_deterministic_test(rule_tests):
    """Each rule of the catalogue has its written classes, and each class names a deterministic test carrying the rule."""
    found = problems(sorted(load_catalogue().rules), rule_tests)
    assert not found, f"{len(found)} partition problems:\n" + "\n".join(found[:200])


COLLECTED = {
    "question.cap": [
        "tests/question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]",
        "tests/question/test_question.py::test_question_cap_is_by_bytes_after_trimming",
        "tests/test_vectors.py::test_golden_vector[question/question-4000-bytes]",
    ]
}


def _one(*tests: str, rule: str = "question.cap") -> list[str]:
    return problems([rule], COLLECTED, {rule: (InputClass(rule, "at-cap", "4000 bytes", tests),)})


def test_deterministic_references_pass():
    """A parametrized test by its ID, a golden vector and a property by one of its labelled examples are accepted."""
    assert (
        _one(
            "question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]",
            "test_vectors.py::test_golden_vector[question/question-4000-bytes]",
            "question/test_question.py::test_question_cap_is_by_bytes_after_trimming@question.cap:multibyte-split",
        )
        == []
    )


@pytest.mark.parametrize(
    "tests, named",
    [
        ((), "no deterministic test"),
        (("question/test_question.py::test_question_up_to_4000_bytes_is_whole[4001]",), "[4001]"),
        (("question/test_question.py::test_question_cap_is_by_bytes_after_trimming",), "explicit examples"),
        (
            ("question/test_question.py::test_question_cap_is_by_bytes_after_trimming@question.cap:nowhere",),
            "question.cap:nowhere",
        ),
        (("question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]@label",), "not a property"),
        (("question/test_question.py::test_blank_question_leaves_nothing[empty]",), "no such test"),
        (("question.py::whole",), "question.py::whole"),
    ],
    ids=[
        "no-test",
        "unknown-parameter",
        "property-without-label",
        "unknown-label",
        "label-on-plain-test",
        "test-of-another-rule",
        "malformed",
    ],
)
def test_a_class_without_a_deterministic_test_is_a_problem(tests, named):
    """A class with no test, a missing test, a property named without one of its labels, or another rule's test is reported."""
    found = _one(*tests)
    assert len(found) == 1 and found[0].startswith("question.cap:at-cap") and named in found[0], found


def test_rules_without_partition_and_partitions_without_rule_are_problems():
    """A rule without classes and classes of a rule the catalogue lacks are each reported by rule ID."""
    found = problems(["question.trim"], COLLECTED, {"question.gone": (InputClass("question.gone", "x", "x", ()),)})
    assert sorted(line.split(":")[0] for line in found) == ["question.gone", "question.trim"]


def test_a_class_written_twice_is_a_problem():
    """Two classes of one rule with the same name are reported."""
    ref = ("question/test_question.py::test_question_up_to_4000_bytes_is_whole[4000]",)
    classes = (InputClass("question.cap", "at-cap", "a", ref), InputClass("question.cap", "at-cap", "b", ref))
    assert any("twice" in line for line in problems(["question.cap"], COLLECTED, {"question.cap": classes}))


@pytest.mark.parametrize(
    "text",
    [
        '[["question.cap"]]\nclass = "At Cap"\nwhat = "x"\ntests = []\n',
        '[["question.cap"]]\nclass = "at-cap"\nwhat = ""\ntests = []\n',
        '[["question.cap"]]\nclass = "at-cap"\nwhat = "x"\ntests = "t"\n',
        '[["question.cap"]]\nclass = "at-cap"\nwhat = "x"\ntests = []\nextra = 1\n',
        '[["files.cap"]]\nclass = "at-cap"\nwhat = "x"\ntests = []\n',
        '["question.cap"]\nclass = "at-cap"\n',
        '[["question.cap"]\n',
    ],
    ids=["class-name", "blank-what", "tests-not-list", "unknown-key", "other-area", "not-array", "not-toml"],
)
def test_malformed_partition_files_are_rejected(tmp_path, text):
    """A partition file that breaks the format is rejected, naming the file."""
    (tmp_path / "question.toml").write_text(text, encoding="utf-8")
    with pytest.raises(PartitionError, match="question.toml"):
        load_partitions.__wrapped__(tmp_path)


# -- the plausible mistakes of a port ------------------------------------------------------------------------------


def test_every_rule_lists_its_plausible_mistakes_and_the_tests_that_fail_them(rule_tests):
    """Each rule lists at least one plausible mistake of a port, and each names tests of the rule that exist (or
    says why none is pinned)."""
    found = mistake_problems(sorted(load_catalogue().rules), rule_tests)
    assert not found, f"{len(found)} problems in the lists of mistakes:\n" + "\n".join(found[:200])


def test_each_mistake_names_a_broken_implementation_that_exists():
    """A mistake that names the broken implementation showing it names one of the registry (its rule's)."""
    from advisor_conformance._broken import load_entries

    known = {entry.id: entry.rule for entry in load_entries()}
    wrong = [
        f"{rule}: {mistake.broken}"
        for rule, listed in load_mistakes().items()
        for mistake in listed
        if mistake.broken and known.get(mistake.broken) != rule
    ]
    assert not wrong, wrong


def test_every_broken_implementation_is_a_listed_mistake():
    """Each broken implementation (first or variant) is among the mistakes of its rule, so docs/rules.md shows it."""
    from advisor_conformance._broken import load_entries

    listed = {mistake.broken for mistakes in load_mistakes().values() for mistake in mistakes}
    missing = sorted(entry.id for entry in load_entries() if entry.id not in listed)
    assert not missing, missing


@pytest.mark.parametrize(
    "text",
    [
        '[[mistakes."question.trim"]]\nmistake = "x"\n',
        '[[mistakes."question.trim"]]\nmistake = "x"\ncaught = ["a"]\nopen = "why"\n',
        '[[mistakes."question.trim"]]\nmistake = ""\nopen = "why"\n',
        '[[mistakes."question.trim"]]\nmistake = "x"\nopen = "why"\nfixed = true\n',
        '[[mistakes."files.cap"]]\nmistake = "x"\nopen = "why"\n',
    ],
    ids=["neither-caught-nor-open", "both", "blank-mistake", "unknown-key", "other-area"],
)
def test_malformed_mistake_lists_are_rejected(tmp_path, text):
    """A list of mistakes that breaks the format is rejected, naming the file."""
    (tmp_path / "question.toml").write_text(text, encoding="utf-8")
    with pytest.raises(PartitionError, match="question.toml"):
        load_mistakes.__wrapped__(tmp_path)


def test_a_mistake_caught_by_a_test_of_another_rule_is_a_problem():
    """A mistake whose test does not carry the rule is reported; a property may be named whole."""
    mistakes = {
        "question.cap": (
            Mistake("question.cap", "x", ("question/test_question.py::test_blank_question_leaves_nothing",)),
            Mistake("question.cap", "y", ("question/test_question.py::test_question_cap_is_by_bytes_after_trimming",)),
        )
    }
    found = mistake_problems(["question.cap"], COLLECTED, mistakes)
    assert len(found) == 1 and "mistakes[0]" in found[0], found
