"""The mutation run's survivors file (`.ci/mutation-survivors.toml`) and its scores (`.ci/mutation_score.py`).

`.ci/mutation` judges every surviving mutant by the category the file gives it: equivalent, open (with the sentence
that leaves it open), outside the contract (with a glob of code no operation reaches) or gap. A category without its
evidence, a quote that is not in the rule it cites, a glob that matches nothing after a rename (a claim that is none)
or a whole module (hiding real survivors), or a name of code the reference no longer has would each make the judged
score a claim nobody checked. These tests keep the file honest without running mutmut.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import json
import re
import sys
import tomllib

import pytest

from advisor_conformance.catalogue import load_catalogue

from ..support.runner import ROOT

SURVIVORS_FILE = ROOT / ".ci" / "mutation-survivors.toml"
REFERENCE = ROOT / "reference" / "advisor_reference"
SOURCES = {
    "schema/protocol-v1.json": ROOT / "conformance" / "advisor_conformance" / "schema" / "protocol-v1.json",
    "docs/harness.md": ROOT / "docs" / "harness.md",
}


def _score_module():
    spec = importlib.util.spec_from_file_location("mutation_score", ROOT / ".ci" / "mutation_score.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_score", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SCORE = _score_module()
DATA = tomllib.loads(SURVIVORS_FILE.read_text(encoding="utf-8"))
GROUPS = DATA["survivor"]
OUTSIDE = DATA["outside"]


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


PREFIXES = _mutant_prefixes()


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_file_loads_and_names_each_mutant_once():
    """The file parses as the scorer reads it: known categories, no mutant in two groups, some of each kind."""
    judgement = SCORE.load(SURVIVORS_FILE)
    assert judgement.globs and judgement.named
    kinds = {group["category"] for group in GROUPS}
    assert kinds <= set(SCORE.CATEGORIES) and {"equivalent", "open", "outside"} <= kinds


@pytest.mark.parametrize("index", range(len(GROUPS)))
def test_each_group_carries_the_evidence_of_its_category(index):
    """Every group says what changed and why; open cites a rule or a file and a quote, outside a glob, gap a test."""
    group = GROUPS[index]
    where = f"survivor[{index}] ({group.get('mutants', ['?'])[0]})"
    assert group.get("mutants") and all("__mutmut_" in name for name in group["mutants"]), where
    assert len(group.get("what", "")) > 5 and len(group.get("why", "")) > 10 and group.get("run"), where
    required = {"equivalent": set(), "open": {"quote"}, "outside": {"glob"}, "gap": {"kill"}}[group["category"]]
    assert required <= set(group), f"{where}: a {group['category']} survivor needs {sorted(required)}"
    if group["category"] == "open":
        assert ("rule" in group) != ("source" in group), f"{where}: an open survivor cites a rule or a source file"


OPEN = [(index, group) for index, group in enumerate(GROUPS) if group["category"] == "open"]


@pytest.mark.parametrize("index, group", OPEN, ids=[str(index) for index, _ in OPEN])
def test_each_open_quote_stands_verbatim_where_it_is_cited(index, group):
    """The quote of an open survivor is in its rule's statement, source or reason, or in the file it cites."""
    if "rule" in group:
        catalogue = load_catalogue()
        assert group["rule"] in catalogue, f"survivor[{index}]: no rule {group['rule']}"
        rule = catalogue[group["rule"]].to_json()
        text = " ".join(str(rule.get(key, "")) for key in ("statement", "source", "why"))
    else:
        assert group["source"] in SOURCES, f"survivor[{index}]: cite one of {sorted(SOURCES)}"
        text = SOURCES[group["source"]].read_text(encoding="utf-8")
        if group["source"].endswith(".json"):  # its descriptions, as they read
            text = " ".join(_strings(json.loads(text)))
    assert _flat(group["quote"]) in _flat(text), f"survivor[{index}]: {group['quote']!r} is not in what it cites"


@pytest.mark.parametrize("entry", OUTSIDE, ids=[entry["glob"] for entry in OUTSIDE])
def test_each_outside_glob_names_reference_code_and_says_why(entry):
    """Each glob matches at least one function of the reference, never a whole module, and carries its reason."""
    glob = entry["glob"]
    matched = [where for prefix, where in PREFIXES.items() if fnmatch.fnmatchcase(f"{prefix}__mutmut_1", glob)]
    assert matched, f"{glob}: matches no function of reference/advisor_reference (renamed or removed?)"
    assert not re.fullmatch(r"advisor_reference(\.\w+)?\.\*", glob), f"{glob} takes a whole module"
    assert len(entry.get("why", "").strip()) > 20, f"{glob}: no reason given"


def test_outside_survivors_are_matched_by_their_globs():
    """A survivor filed as outside is matched by the glob it names, and that glob is an [[outside]] entry."""
    globs = {entry["glob"] for entry in OUTSIDE}
    for group in GROUPS:
        if group["category"] != "outside":
            continue
        named = group["glob"] if isinstance(group["glob"], list) else [group["glob"]]
        assert set(named) <= globs, named
        unmatched = [name for name in group["mutants"] if not any(fnmatch.fnmatchcase(name, glob) for glob in named)]
        assert not unmatched, unmatched


def test_every_named_mutant_is_of_code_the_reference_has():
    """Each name (but the full run's older ``reference.`` names, kept for the record) is a mutant of a function or
    method the reference still has: a rename leaves no stale category behind."""
    stale = sorted(
        name
        for group in GROUPS
        for name in group["mutants"]
        if name.startswith("advisor_reference") and name.rpartition("__mutmut_")[0] not in PREFIXES
    )
    assert not stale, stale[:20]


# -- the scores ------------------------------------------------------------------------------------------------------

JUDGEMENT = SCORE.Judgement(
    {"m.x_a__mutmut_1": "equivalent", "m.x_a__mutmut_2": "open", "m.x_a__mutmut_3": "gap", "m.x_b__mutmut_9": "open"},
    ("m.x_usage__*",),
)


def _listing(**states):
    return "\n".join(f"    {name}: {state}" for name, state in states.items())


def test_judged_score_leaves_out_equivalent_open_and_outside_survivors():
    """detected / (checked - equivalent - open - outside); a gap survivor counts against both scores."""
    status = SCORE.parse_results(
        _listing(
            **{
                "m.x_a__mutmut_1": "survived",
                "m.x_a__mutmut_2": "survived",
                "m.x_a__mutmut_3": "survived",
                "m.x_usage__mutmut_4": "no tests",
                "m.x_b__mutmut_9": "killed",
                "m.x_c__mutmut_1": "killed",
                "m.x_c__mutmut_2": "timeout",
                "m.x_c__mutmut_3": "not checked",
            }
        )
    )
    result = SCORE.score(status, JUDGEMENT)
    assert (result.checked, result.detected, len(result.survivors)) == (7, 3, 4)
    assert result.judged_total == 4 and result.judged == 0.75 and abs(result.raw - 3 / 7) < 1e-9
    assert result.uncategorised == [] and result.sampled
    lines = "\n".join(result.lines())
    assert "3 of 7" in lines and "3 of 4" in lines and "1 gap" in lines


def test_a_survivor_without_a_category_fails_the_run(tmp_path, monkeypatch, capsys):
    """A survivor neither named nor matched is listed and fails the run, whatever the score."""
    listing = tmp_path / "results.txt"
    listing.write_text(
        _listing(
            **{
                "advisor_reference._text.x_trim_space__mutmut_99": "survived",
                **{f"advisor_reference._text.x_trim_space__mutmut_{n}": "killed" for n in range(99)},
            }
        ),
        encoding="utf-8",
    )
    assert SCORE.main(["mutation_score.py", "conformance-only", str(listing)]) == 1
    out = capsys.readouterr().out
    assert "without a category" in out and "x_trim_space__mutmut_99" in out and "judged score: 99 of 100" in out


def test_every_survivor_categorised_and_the_goal_met_passes(tmp_path, capsys):
    """With every survivor categorised and the judged score at 95% or more, the conformance-only run passes."""
    names = {f"advisor_reference._text.x_trim_space__mutmut_{n}": "killed" for n in range(19)}
    group = next(group for group in GROUPS if group["category"] == "equivalent")
    names[group["mutants"][0]] = "survived"
    listing = tmp_path / "results.txt"
    listing.write_text(_listing(**names), encoding="utf-8")
    assert SCORE.main(["mutation_score.py", "conformance-only", str(listing)]) == 0
    assert "judged score: 19 of 19 detected, 100.0%" in capsys.readouterr().out
