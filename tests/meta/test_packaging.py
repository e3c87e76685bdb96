"""The suite runs from an installed wheel, from any directory, with its fixtures, snapshots and declared dependencies.

The wheel is installed into a fresh virtual environment that holds only the
wheel's declared dependencies (``tests/support/wheelenv.py``), so an undeclared
import fails here as it would on a user's machine.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from ..support.runner import ROOT, clean_env, run_pytest
from ..support.wheelenv import bare_env, build_wheel, dependency_closure, make_env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh virtual environment with the wheel built from this checkout and only its declared dependencies."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(ROOT, base / "dist")
    return make_env(wheel, base / "venv"), wheel


def _python(python: Path, code: str, cwd: Path | None = None) -> str:
    """What ``code`` prints, run by the environment's interpreter (in ``cwd``); a failure raises."""
    command = [str(python), "-c", code]
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, check=True, env=clean_env(), timeout=120
    ).stdout


def test_wheel_carries_fixtures_and_snapshots(installed):
    """The wheel holds the packages (marked typed), the rule catalogue, the schema, the fixtures and the reference's
    snapshots."""
    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "advisor_reference/adapter.py",
        "advisor_conformance/rules.toml",
        "advisor_conformance/schema/protocol-v1.json",
        "advisor_conformance/tests/elision/test_elision.py",
        "advisor_conformance/_data/fixtures/vectors/elision.json",
        "advisor_conformance/_data/snapshots/reference/test_snapshots.ambr",
        "advisor_conformance/_data/docs/rules.md",
        "advisor_conformance/_data/docs/harness.md",
        "_advisor_conformance_pytestplugin.py",
    ):
        assert expected in names, f"{expected} is missing from {wheel.name}"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), "the wheel carries no LICENSE"
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"advisor_conformance", "advisor_reference", "_advisor_conformance_pytestplugin.py"}
    typed = {"advisor_reference/py.typed", "advisor_conformance/py.typed"}  # PEP 561: type checkers read their types
    assert typed <= names, f"{sorted(typed - names)} missing from {wheel.name}"


def test_sdist_carries_the_documents(tmp_path):
    """The source distribution holds the rules document, the harness protocol, the licence and the changelog."""
    import sys
    import tarfile

    result = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (sdist,) = tmp_path.glob("advisor_conformance-*.tar.gz")
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    missing = {"docs/rules.md", "docs/harness.md", "LICENSE", "CHANGELOG.md", "README.md"} - names
    assert not missing, f"{sdist.name} lacks {sorted(missing)}"


def test_environment_holds_only_declared_dependencies(installed):
    """The test environment has the runtime dependencies and none of the dev extra (so it hides nothing)."""
    python, _ = installed
    runtime = set(dependency_closure())
    dev_only = set(dependency_closure(extras=("dev",))) - runtime
    assert {"pytest", "hypothesis", "jsonschema", "syrupy"} <= runtime
    assert "respx" in dev_only
    listing = _python(
        python,
        "import importlib.metadata as m, json; "
        "print(json.dumps(sorted(d.metadata['Name'].lower() for d in m.distributions())))",
    )
    present = set(json.loads(listing))
    assert "respx" not in present and "anthropic" not in present, present
    assert "advisor-conformance" in present


def test_suite_imports_from_the_wheel_in_another_directory(installed, tmp_path):
    """In an empty directory the suite is imported from the installed wheel and collects every rule's tests."""
    python, _ = installed
    where = _python(python, "import advisor_conformance; print(advisor_conformance.__file__)", cwd=tmp_path)
    assert Path(where).is_relative_to(python.parent.parent), f"advisor_conformance was imported from {where}"
    run = run_pytest("--impl=reference", "--co", "-q", cwd=tmp_path, python=str(python))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert len(run.report["collected"]) >= 100


def test_a_user_project_with_conformance_and_reference_packages_runs_its_own_tests(installed, tmp_path):
    """A project whose own packages are named `conformance` and `reference` runs its tests with the suite installed,
    and those names are its own, whether or not the run asks for the suite."""
    python, _ = installed
    for name in ("conformance", "reference"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"OWNER = 'the user project: {name}'\n")
        (tmp_path / name / "plugin.py").write_text("MINE = True\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_own.py").write_text(
        "import conformance, conformance.plugin, reference\n\n"
        "def test_own_packages():\n"
        "    assert conformance.OWNER.endswith('conformance') and conformance.plugin.MINE\n"
        "    assert reference.OWNER.endswith('reference')\n"
    )
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    plain = run_pytest("tests/test_own.py", "-q", cwd=tmp_path, python=str(python))
    assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr[-2000:]
    # --impl with a path of the project's own runs it beside the suite (selected here to stay quick)
    with_suite = run_pytest(
        "tests/test_own.py",
        "--impl=reference",
        "-q",
        "-k",
        "test_own_packages or test_marker_reports_the_true_length",
        cwd=tmp_path,
        python=str(python),
    )
    assert with_suite.returncode == 0, with_suite.stdout[-2000:] + with_suite.stderr[-2000:]
    passed = re.search(r"(\d+) passed", with_suite.stdout)
    assert with_suite.outcomes() and passed and int(passed[1]) == len(with_suite.outcomes()) + 1, with_suite.stdout


@pytest.mark.slow
def test_run_command_from_the_wheel_passes_every_rule(installed, tmp_path, progress):
    """`advisor-conformance run` from the wheel in another directory passes, with every rule and the per-rule table."""
    python, _ = installed
    report = tmp_path / "rules.json"
    command = [str(python.parent / "advisor-conformance"), "run", "-q", f"--rule-report={report}"]
    progress("advisor-conformance run from the wheel (about a minute)")
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900, env=clean_env())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "advisor-conformance: outcome per rule" in result.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    passed = [test for test in data["tests"] if test["outcome"] == "passed"]
    assert len(passed) > 200, f"only {len(passed)} tests passed"
    assert any("test_golden_vector" in test["nodeid"] for test in passed)
    assert any("test_rendered_request_matches_snapshot" in test["nodeid"] for test in passed)
    assert {row["outcome"] for row in data["rules"]} == {"passed"}
    assert not (tmp_path / "snapshots").exists(), "the reference's snapshots were written where pytest ran"


def release(into: Path) -> dict[str, bytes]:
    """`.ci/release INTO`: the release's files by name, with their bytes."""
    result = subprocess.run(
        [str(ROOT / ".ci" / "release"), str(into)], capture_output=True, text=True, env=clean_env(), timeout=600
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return {path.name: path.read_bytes() for path in sorted(into.iterdir())}


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The release of the commit checked out, built by `.ci/release`: its folder and its files."""
    where = tmp_path_factory.mktemp("release")
    return where, release(where)


@pytest.mark.slow
def test_release_is_the_same_bytes_every_time(released, tmp_path):
    """`.ci/release` builds the wheel and the sdist of the commit from what the repository holds, and a second build
    gives the same bytes; the wheel carries the pins of constraints.txt."""
    folder, first = released
    from advisor_conformance import __version__

    wheel, sdist = f"advisor_conformance-{__version__}-py3-none-any.whl", f"advisor_conformance-{__version__}.tar.gz"
    assert sorted(first) == [wheel, sdist], sorted(first)
    assert release(tmp_path) == first, "a second build of the same commit gave other bytes"
    with zipfile.ZipFile(folder / wheel) as archive:
        pins = archive.read("advisor_conformance/_data/constraints.txt").decode("utf-8")
    assert pins == (ROOT / "constraints.txt").read_text(encoding="utf-8")


#: The offline stand-in for a package index in the tests: the dependencies are already linked into the fresh
#: environment (tests/support/wheelenv.py), hatchling too, so pip needs no index and no isolated build; the
#: machine's pip configuration is not read.
OFFLINE = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"}


def readme_install_lines() -> list[str]:
    """The commands of the README's first ```sh block under "Start here" (the install lines)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Start here", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_readme_install_lines_work_in_a_fresh_environment(released, tmp_path, progress):
    """The README's install lines run as written with the pip of a fresh virtual environment (Python's own): from a
    clone (its folder named as the README names it) and from the release wheel, whose pins then install; the
    installed suite answers from another folder."""
    lines = readme_install_lines()
    assert len(lines) == 4 and all(line.startswith(("python3 -m pip install", "advisor-conformance")) for line in lines)
    where = tmp_path / "project"
    where.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True, timeout=120)
    (where / "advisor-conformance").mkdir()
    subprocess.run(
        ["tar", "-x", "-C", str(where / "advisor-conformance")], input=archive.stdout, check=True, timeout=120
    )
    for name, data in released[1].items():
        (where / name).write_bytes(data)
    python = bare_env(tmp_path / "venv", with_pip=True, also=("hatchling",))
    env = {**clean_env(), **OFFLINE, "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("ADVISOR_CONFORMANCE_IMPL", None)
    for index, line in enumerate(lines):
        progress(f"README install line {index + 1}: {line[:60]}")
        result = subprocess.run(
            line, shell=True, cwd=where, capture_output=True, text=True, env=env, timeout=600, executable="/bin/bash"
        )
        assert result.returncode == 0, f"{line}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    assert (where / "advisor-constraints.txt").read_text(encoding="utf-8").count("==") >= 10
    version = subprocess.run(
        [str(python.parent / "advisor-conformance"), "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert version.returncode == 0 and "catalogue" in version.stdout, version.stdout + version.stderr


#: Path-like mentions in the project's text: markdown link targets and backquoted paths that climb with `../`.
_LINK = re.compile(r"\]\(([^)\s#]+)|`((?:\.\./)+[^`\s]*)`")


def _documents() -> list[Path]:
    found = [
        path
        for pattern in ("*.md", "*.toml", "*.yml", "*.py", "*.js", "*.mjs", "*.tmpl")
        for path in ROOT.rglob(pattern)
    ]
    return [
        path
        for path in found
        if not any(
            part.startswith(".") or part in {"node_modules", "build", "dist"} or part.endswith(".egg-info")
            for part in path.relative_to(ROOT).parts
        )
    ]


def test_repository_links_nothing_outside_it():
    """No document or source of the project points at a file outside the repository: every relative link or
    `../` path resolves inside it (the project ships its own statement of the rules)."""
    outside = []
    for path in _documents():
        for match in _LINK.finditer(path.read_text(encoding="utf-8", errors="replace")):
            target = match[1] or match[2]
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # a URL: https://, mailto:, ...
                continue
            resolved = (path.parent / target).resolve()
            if ROOT.resolve() not in (resolved, *resolved.parents):
                outside.append(f"{path.relative_to(ROOT)}: {target}")
    assert not outside, f"links outside the repository: {outside[:20]}"
