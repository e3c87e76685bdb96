"""MUTATION.md's "Outside the contract" list names real code of the reference, each entry with its reason.

`.ci/mutation --conformance-only` leaves the mutants these globs match out of its second score (the code the
contract observes). A glob that matched nothing after a rename would look like a claim and be none; one that
matched a whole module by accident would hide real survivors. These tests keep the list honest without running
mutmut.
"""

from __future__ import annotations

import ast
import fnmatch
import re

import pytest

from ..support.runner import ROOT

MUTATION_MD = ROOT / "MUTATION.md"
REFERENCE = ROOT / "reference" / "advisor_reference"


def _outside_entries() -> list[tuple[str, str]]:
    """(glob, reason) for each bullet of the section, read as `.ci/mutation` reads it."""
    text = MUTATION_MD.read_text(encoding="utf-8")
    section = text.partition("\n## Outside the contract\n")[2].partition("\n## ")[0]
    return re.findall(r"^- `([^`]+)`:?(.*)$", section, flags=re.MULTILINE)


def _mutant_prefixes() -> dict[str, str]:
    """Each function and method of the reference as mutmut names its mutants (without ``__mutmut_N``)."""
    names = {}
    for path in sorted(REFERENCE.glob("*.py")):
        module = "advisor_reference" if path.stem == "__init__" else f"advisor_reference.{path.stem}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[f"{module}.x_{node.name}"] = f"{path.name}: {node.name}"
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names[f"{module}.xǁ{node.name}ǁ{item.name}"] = f"{path.name}: {node.name}.{item.name}"
    return names


def test_the_section_lists_globs():
    """The "Outside the contract" section exists and lists at least one glob."""
    assert _outside_entries(), "MUTATION.md has no `- `glob`: reason` bullet under '## Outside the contract'"


@pytest.mark.parametrize("glob, reason", _outside_entries(), ids=[glob for glob, _ in _outside_entries()])
def test_each_glob_names_reference_code_and_says_why(glob, reason):
    """Each glob matches at least one function of the reference and carries its reason."""
    matched = [where for prefix, where in _mutant_prefixes().items() if fnmatch.fnmatchcase(f"{prefix}__mutmut_1", glob)]
    assert matched, f"{glob}: matches no function of reference/advisor_reference (renamed or removed?)"
    assert len(reason.strip()) > 20, f"{glob}: no reason given"


def test_no_glob_takes_a_whole_module():
    """Every entry names functions or methods, never a whole module: a module's other code stays in the score."""
    whole = [glob for glob, _ in _outside_entries() if re.fullmatch(r"advisor_reference(\.\w+)?\.\*", glob)]
    assert not whole, whole
