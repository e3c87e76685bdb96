"""The library versions are bounded and pinned: an upgrade that could change draws or judgements is deliberate.

Hypothesis draws different derandomized examples from one release to the
next; pytest, jsonschema, syrupy and the official SDKs decide how an answer
is judged. Each is bounded in ``pyproject.toml``, pinned in
``constraints.txt`` (what CI installs, the newest allowed) and in
``.ci/constraints-lowest.txt`` (the lowest allowed). This module names every
bound: widening one means editing the table below in the same change.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from ..support.runner import ROOT

#: The bounds, as pyproject.toml states them. Change both together, then run .ci/lock.
BOUNDS = {
    "hypothesis": ">=6.155,<6.171",
    "pytest": ">=9.0,<9.3",
    "syrupy": ">=7.0,<8",
    "jsonschema": ">=4.23,<4.27",
    "httpx": ">=0.27,<0.29",
    "httpx-sse": ">=0.4,<0.5",
    "pytest-httpserver": ">=1.1,<2",
    "pytest-xdist": ">=3.5,<4",
    "respx": ">=0.21,<0.24",
    "hatchling": ">=1.27,<2",
    "anthropic": ">=2.0,<3",
    "openai": ">=3.0,<4",
    "pydantic": ">=2.7,<3",
    "playwright": ">=1.60,<2",
    "ruff": ">=0.17,<0.18",
    "mypy": ">=2.4,<2.5",
}
#: The libraries whose version changes which examples are drawn or how an answer is judged.
JUDGING = ("hypothesis", "pytest", "jsonschema", "syrupy", "anthropic", "openai")


def _declared() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    raw = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return {canonicalize_name(Requirement(line).name): Requirement(line) for line in raw}


def _pins(path) -> dict[str, Version]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_direct_dependency_has_the_named_bound():
    """Each direct dependency in pyproject.toml has exactly the lower and upper bound this module names."""
    declared = _declared()
    assert set(declared) == {canonicalize_name(name) for name in BOUNDS}
    for name, bound in BOUNDS.items():
        specifier = declared[canonicalize_name(name)].specifier
        assert specifier == SpecifierSet(bound), f"{name}: pyproject.toml says {specifier}, this test names {bound}"
        assert any(spec.operator == "<" for spec in specifier), f"{name} has no upper bound"


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_constraints_pin_the_newest_and_the_lowest_within_the_bounds(name):
    """constraints.txt and .ci/constraints-lowest.txt pin each bounded library inside its bound."""
    newest = _pins(ROOT / "constraints.txt")[canonicalize_name(name)]
    lowest = _pins(ROOT / ".ci" / "constraints-lowest.txt")[canonicalize_name(name)]
    bound = SpecifierSet(BOUNDS[name])
    assert newest in bound and lowest in bound, f"{name}: {lowest} .. {newest} is not within {bound}"
    floor = next(Version(spec.version) for spec in bound if spec.operator == ">=")
    assert lowest.release[: len(floor.release)] == floor.release, f"{name}: the lowest pin {lowest} is not {floor}"


@pytest.mark.parametrize("name", JUDGING)
def test_installed_judging_libraries_lie_within_their_bounds(name):
    """This environment runs versions of the judging libraries that the bounds allow."""
    installed = Version(importlib.metadata.version(name))
    assert installed in SpecifierSet(BOUNDS[name]), f"{name} {installed} is outside {BOUNDS[name]}"


def test_constraints_file_pins_every_installed_dependency():
    """constraints.txt pins the whole dependency closure of the dev install, so CI resolves nothing itself."""
    pins = _pins(ROOT / "constraints.txt")
    installed = {name: Version(importlib.metadata.version(name)) for name in JUDGING}
    if any(installed[name] != pins[canonicalize_name(name)] for name in JUDGING):
        pytest.skip("this environment was not installed with constraints.txt (the lowest pins, say)")
    from ..support.wheelenv import dependency_closure

    unpinned = sorted(set(dependency_closure(extras=("dev",))) - set(pins))
    assert not unpinned, f"installed but not pinned in constraints.txt: {unpinned} (run .ci/lock)"


def test_readme_quickstart_holds_the_two_commands_ci_runs():
    """The README's Quickstart has exactly two one-line commands; the first installs with constraints.txt."""
    result = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "readme_commands.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    install, tests = result.stdout.splitlines()
    assert re.search(r"pip install -c constraints\.txt -e '\.\[dev\]'", install)
    assert install.endswith("advisor-conformance run")
    assert tests == "python3 -m pytest"
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_commands.py" in script and "python3 -m venv" in script and "-m slow" in script
