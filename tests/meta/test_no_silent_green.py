"""No silent green: every way of naming an implementation runs the suite or stops with a usage error, whether the
virtual environment holding the suite lies inside the project (`.venv/`, which pytest does not recurse into) or
outside it.

The wheel is installed into fresh virtual environments with only its declared dependencies
(``tests/support/wheelenv.py``): one inside a project directory, one beside it. Each case writes a project with
the skeleton adapter of ``init --python myadvisor`` and a test of its own, names the implementation one way, and
runs pytest as the user would (``-x``: a skeleton fails at once, so the run is short). A run passes this test when
it ran tests of the suite (its rule report lists them) or stopped with exit code 4 and a message naming the
implementation; a run that ends with no test of the suite, green or not, fails it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..support.runner import ROOT, clean_env
from ..support.wheelenv import build_wheel, make_env

TARGET = "myadvisor.advisor_adapter"
#: The ways a project names its implementation in a configuration file: the file and its text.
CONFIG_FILES = {
    "pyproject": ("pyproject.toml", f'[tool.pytest.ini_options]\nconformance_impl = "{TARGET}"\n'),
    "pytest.ini": ("pytest.ini", f"[pytest]\nconformance_impl = {TARGET}\n"),
    "tox.ini": ("tox.ini", f"[pytest]\nconformance_impl = {TARGET}\n"),
    "setup.cfg": ("setup.cfg", f"[tool:pytest]\nconformance_impl = {TARGET}\n"),
}
WAYS = [*CONFIG_FILES, "environment", "flag", "run", "run-configured"]
#: Run in the default suite (the rest is slow, and CI runs both): the layout of the issue with the ini key, a plain
#: run; and `advisor-conformance run` in a project whose pyproject.toml names its implementation.
QUICK = {("inside", "pyproject"), ("outside", "run-configured")}


@pytest.fixture(scope="module")
def envs(tmp_path_factory) -> dict[str, Path]:
    """The bin directories of two fresh environments holding the wheel: one at <project>/.venv, one outside it;
    and a skeleton adapter to copy into each project."""
    base = tmp_path_factory.mktemp("silent-green")
    wheel = build_wheel(ROOT, base / "dist")
    inside = make_env(wheel, base / "inside" / ".venv").parent
    outside = make_env(wheel, base / "venv").parent
    init = subprocess.run(
        [str(outside / "advisor-conformance"), "init", "--python", "myadvisor", "--dir", str(base / "skeleton")],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert init.returncode == 0, init.stderr
    return {"inside": inside, "outside": outside, "skeleton": base / "skeleton" / "myadvisor"}


def project(envs: dict[str, Path], layout: str, where: Path, *, own_test: bool = True) -> tuple[Path, Path]:
    """A project directory with the skeleton adapter (and a test of its own); returns it and its environment's bin."""
    root = envs["inside"].parent.parent if layout == "inside" else where
    for entry in root.iterdir() if root.exists() else ():
        if entry.name != ".venv":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(envs["skeleton"], root / "myadvisor")
    if own_test:
        (root / "tests").mkdir()
        (root / "tests" / "test_own.py").write_text("def test_own():\n    assert True\n")
    return root, envs[layout]


def run(bin_dir: Path, cwd: Path, *command: str, env: dict[str, str] | None = None) -> tuple[int, str, dict | None]:
    """A command of the environment, with a rule report; its exit code, its output (its first line, then its end)
    and the report (None if none)."""
    report = cwd / "rules.json"
    report.unlink(missing_ok=True)
    environment = clean_env()
    environment.pop("ADVISOR_CONFORMANCE_IMPL", None)
    environment.update({"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", **(env or {})})
    result = subprocess.run(
        [str(bin_dir / command[0]), *command[1:], f"--rule-report={report}", "-p", "no:cacheprovider"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=environment,
    )
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
    first = result.stdout.split("\n", 1)[0]  # the line that names what the run tests, then the end of the output
    return result.returncode, first + "\n" + result.stdout[-3000:] + result.stderr[-3000:], data


def suite_ran_or_refused(code: int, output: str, report: dict | None, names: str = TARGET) -> str:
    """``ran`` when tests of the suite ran, ``refused`` for a usage error naming its cause (the implementation, by
    default); else it fails."""
    ran = [test for test in (report or {}).get("tests", []) if test["outcome"] != "skipped"]
    if ran:
        return "ran"
    assert code == 4 and names in output, f"no test of the suite ran, and no usage error (exit {code}):\n{output}"
    return "refused"


def command_for(way: str, root: Path) -> tuple[list[str], dict[str, str]]:
    """The command a user of this way types, and the environment it adds."""
    if way in CONFIG_FILES:
        name, text = CONFIG_FILES[way]
        (root / name).write_text(text)
        return ["python", "-m", "pytest", "-x", "-q"], {}
    if way == "environment":
        return ["python", "-m", "pytest", "-x", "-q"], {"ADVISOR_CONFORMANCE_IMPL": TARGET}
    if way == "flag":
        return ["python", "-m", "pytest", "-x", "-q", f"--impl={TARGET}"], {}
    if way == "run-configured":  # the project's configuration names it; nothing else does
        (root / "pyproject.toml").write_text(CONFIG_FILES["pyproject"][1])
        return ["advisor-conformance", "run", "-x", "-q"], {}
    return ["advisor-conformance", "run", "-x", "-q"], {"ADVISOR_CONFORMANCE_IMPL": TARGET}


@pytest.mark.parametrize(
    "layout, way",
    [
        pytest.param(layout, way, marks=() if (layout, way) in QUICK else pytest.mark.slow, id=f"{layout}-{way}")
        for layout in ("inside", "outside")
        for way in WAYS
    ],
)
def test_each_way_of_naming_an_implementation_runs_the_suite(envs, tmp_path, layout, way):
    """A plain run that names the implementation by an ini key (pyproject.toml, pytest.ini, tox.ini, setup.cfg), the
    environment variable, --impl, or `advisor-conformance run` with the environment variable or in a project whose
    pyproject.toml names it, runs tests of the suite, with the virtual environment inside the project or outside it,
    and its first line says what it tests and where the implementation was named."""
    root, bin_dir = project(envs, layout, tmp_path)
    command, env = command_for(way, root)
    code, output, report = run(bin_dir, root, *command, env=env)
    assert suite_ran_or_refused(code, output, report) == "ran", output
    assert report["implementation"]["name"] == "myadvisor"
    first = output.splitlines()[0]
    assert (
        "myadvisor" in first
        and TARGET in first
        and ("pyproject.toml" in first) == (way in ("pyproject", "run-configured"))
    ), first


@pytest.mark.parametrize(
    "command", [["python", "-m", "pytest", "-x", "-q"], ["advisor-conformance", "run", "-x", "-q"]]
)
def test_a_misspelt_variable_stops_the_run(envs, tmp_path, command):
    """An unknown ADVISOR_CONFORMANCE_* variable (a misspelt ADVISOR_CONFORMANCE_IMPL) stops a plain run and
    `advisor-conformance run` with a usage error naming it, in a configured project too: neither falls back to the
    configuration or to the reference."""
    root, bin_dir = project(envs, "outside", tmp_path)
    (root / "pyproject.toml").write_text(CONFIG_FILES["pyproject"][1])
    code, output, report = run(bin_dir, root, *command, env={"ADVISOR_CONFORMANCE_IMP": TARGET})
    assert suite_ran_or_refused(code, output, report, "ADVISOR_CONFORMANCE_IMP") == "refused", output
    assert report is None and "ADVISOR_CONFORMANCE_IMPL" in output, output


def test_the_reference_is_never_run_silently_in_a_configured_project(envs, tmp_path):
    """In a project whose pyproject.toml names its implementation, a run of the reference (by --impl) says in its
    first line that the project names another, which this run does not test."""
    root, bin_dir = project(envs, "outside", tmp_path)
    (root / "pyproject.toml").write_text(CONFIG_FILES["pyproject"][1])
    code, output, report = run(
        bin_dir, root, "python", "-m", "pytest", "-q", "--impl=reference", "-k", "test_marker_reports_the_true_length"
    )
    assert code == 0 and report is not None and report["implementation"]["name"] == "reference", output
    first = output.splitlines()[0]
    assert "reference" in first and "pyproject.toml" in first and TARGET in first, first


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["inside", "outside"])
def test_the_ini_key_alone_in_a_project_without_tests_runs_the_suite(envs, tmp_path, layout):
    """A project with no tests of its own and only the ini key runs the suite (not "no tests ran")."""
    root, bin_dir = project(envs, layout, tmp_path, own_test=False)
    command, _ = command_for("pyproject", root)
    code, output, report = run(bin_dir, root, *command)
    assert suite_ran_or_refused(code, output, report) == "ran", output


@pytest.mark.parametrize(
    "arguments, env, expected",
    [
        pytest.param(["-k", "no_test_has_this_name"], {}, "refused", id="k-deselects-all"),
        pytest.param(["-m", 'rule(area="elision") and rule(area="wire")'], {}, "refused", id="rule-selects-nothing"),
        pytest.param(["-m", 'rule(id="elision.nope")'], {}, "elision.nope", id="unknown-rule"),
        pytest.param(["-o", "python_files=check_*.py"], {}, "refused", id="python-files"),
        pytest.param(["-o", "python_files=check_*.py", "-n", "2"], {}, "refused", id="python-files-xdist"),
        pytest.param(["-o", "norecursedirs=site-packages lib"], {}, "ran", id="norecursedirs"),
        pytest.param(["-p", "advisor_conformance._pytest_plugin.plugin"], {}, "ran", id="p-suite-plugin"),
        pytest.param(["-p", "advisor_conformance"], {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, "ran", id="p-no-autoload"),
        pytest.param(["--pyargs", "myadvisor"], {}, "ran", id="pyargs"),
        pytest.param(["-o", "testpaths=tests"], {}, "ran", id="testpaths"),
    ],
)
@pytest.mark.slow
def test_other_ways_of_running_an_ini_configured_project_run_the_suite_or_stop(
    envs, tmp_path, arguments, env, expected
):
    """With the ini key and the virtual environment in the project, a selection that leaves nothing of the suite, a
    `rule(...)` naming nothing, a configuration that collects none of it (also under xdist) stop with a usage error;
    norecursedirs, loading the plugin with -p, --pyargs and testpaths run the suite."""
    root, bin_dir = project(envs, "inside", tmp_path, own_test=False)
    command, _ = command_for("pyproject", root)
    if "--pyargs" in arguments:  # --impl with another package's tests: the suite runs beside them
        command.append(f"--impl={TARGET}")
    code, output, report = run(bin_dir, root, *command, *arguments, env=env)
    if expected == "ran":
        assert suite_ran_or_refused(code, output, report) == "ran", output
    else:  # refused, with a message naming the implementation (or the unknown rule)
        names = TARGET if expected == "refused" else expected
        assert suite_ran_or_refused(code, output, report, names) == "refused", output
