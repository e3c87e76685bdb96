"""The copy-paste CI workflows of docs/ci/ run only documented commands, with options that exist, pinned to this
release, against what `advisor-conformance init` writes."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import _advisor_conformance_pytestplugin as entry_plugin
from advisor_conformance import __version__
from advisor_conformance._tools.cli import build_parser
from advisor_conformance._tools.cli.init import HARNESSES

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = {
    "python": ROOT / "docs" / "ci" / "github-actions-python.yml",
    "harness": ROOT / "docs" / "ci" / "github-actions-harness.yml",
}
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Options of pytest itself that the README shows; every other option must be the suite's own.
PYTEST_OWN = {"-q", "-x", "-k", "-m", "-n"}


def run_commands(text: str) -> list[str]:
    """The shell commands of a workflow's `run:` steps, one per command line (continuations joined, comments and
    blank lines dropped), read line by line: `run: COMMAND` or a `run: |` block of deeper-indented lines."""
    commands: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = re.match(r"^(\s*)(?:- )?run:\s*(.*)$", lines[index])
        index += 1
        if match is None:
            continue
        indent, value = len(match[1]), match[2].strip()
        if value and value[0] not in "|>":
            body = [value]
        else:
            body = []
            while index < len(lines) and (
                not lines[index].strip() or len(lines[index]) - len(lines[index].lstrip()) > indent
            ):
                body.append(lines[index].strip())
                index += 1
        script = "\n".join(body).replace("\\\n", " ")
        commands.extend(line for line in script.splitlines() if line.strip() and not line.startswith("#"))
    return commands


def uses(text: str) -> list[str]:
    """The actions a workflow's steps use."""
    return re.findall(r"^\s*(?:- )?uses:\s*(\S+)", text, re.M)


def steps(text: str) -> list[str]:
    """The text of each item of the workflow's `steps:` lists."""
    found: list[str] = []
    item_indent = None
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("steps:"):
            item_indent = None
            continue
        if stripped.startswith("- ") and (item_indent is None or indent == item_indent):
            item_indent = indent
            found.append(line + "\n")
        elif found and stripped and item_indent is not None and indent > item_indent:
            found[-1] += line + "\n"
    return found


def suite_options() -> set[str]:
    """The command-line options the suite's pytest entry point registers."""
    names: set[str] = set()

    class Group:
        def addoption(self, *opts: str, **_: object) -> None:
            names.update(opts)

    class Parser:
        def getgroup(self, *_: object) -> Group:
            return Group()

        def addini(self, *_: object, **__: object) -> None:
            pass

    entry_plugin.pytest_addoption(Parser())  # type: ignore[arg-type]
    return names


def pytest_option_problems(arguments: list[str]) -> list[str]:
    options = {argument.split("=", 1)[0] for argument in arguments if argument.startswith("-")}
    unknown = sorted(options - suite_options() - PYTEST_OWN)
    problems = [f"unknown option {option}" for option in unknown]
    if not any(argument.startswith("--impl") for argument in arguments):
        problems.append("no --impl")
    return problems


def command_problems(command: str) -> list[str]:
    """What is wrong with one command of a workflow: empty when it is a documented command with existing options."""
    argv = shlex.split(command)
    if argv[:3] in (["python3", "-m", "pip"], ["python", "-m", "pip"]) or argv[:1] == ["pip"]:
        rest = argv[3:] if argv[0] != "pip" else argv[1:]
        problems = [] if rest[:1] == ["install"] else ["a pip command other than install"]
        if "-c constraints.txt" not in " ".join(rest):
            problems.append("pip install without -c constraints.txt")
        pins = [argument for argument in rest if "advisor-conformance" in argument or "advisor_conformance" in argument]
        wheel = f"advisor_conformance-{__version__}-py3-none-any.whl"
        if pins and [pin.rsplit("/", 1)[-1] for pin in pins] != [wheel]:
            problems.append(f"the suite is not this release's wheel ({wheel}): {pins}")
        return problems
    if argv[:3] in (["python3", "-m", "pytest"], ["python", "-m", "pytest"]) or argv[:1] == ["pytest"]:
        return pytest_option_problems(argv[3:] if argv[0] != "pytest" else argv[1:])
    if argv[:1] == ["advisor-conformance"]:
        if f"advisor-conformance {argv[1] if len(argv) > 1 else ''}" not in README + build_parser().description:
            return [f"advisor-conformance {argv[1:2]} is not documented in the README or --help"]
        try:
            args, extra = build_parser().parse_known_args(argv[1:])
        except SystemExit:
            return ["advisor-conformance rejects these arguments"]
        if getattr(args.module, "PASSES_EXTRA", False):
            return pytest_option_problems([*extra, f"--impl={args.impl}"])
        return [f"unknown arguments {extra}"] if extra else []
    return [f"not a documented command: {argv[0]}"]


def impl_targets(text: str) -> list[str]:
    """The --impl values of a workflow's commands."""
    targets = []
    for command in run_commands(text):
        argv = shlex.split(command)
        for index, argument in enumerate(argv):
            if argument.startswith("--impl="):
                targets.append(argument.split("=", 1)[1])
            elif argument == "--impl" and index + 1 < len(argv):
                targets.append(argv[index + 1])
    return targets


def test_run_steps_are_read_from_lines_and_blocks():
    """Single-line runs, `run: |` blocks, continuation lines and shell comments are read as separate commands."""
    text = (
        "steps:\n  - name: a\n    run: echo one\n  - run: |\n      echo two \\\n        --flag\n"
        "      # a comment\n\n      echo three\n  - uses: actions/checkout@v4\n"
    )
    assert [command.split() for command in run_commands(text)] == [
        ["echo", "one"],
        ["echo", "two", "--flag"],
        ["echo", "three"],
    ]


@pytest.mark.parametrize(
    "command, problem",
    [
        ("pip install advisor-conformance", "constraints"),
        (f"python3 -m pip install -c constraints.txt advisor-conformance=={__version__}", "wheel"),
        (f"python3 -m pip install -c constraints.txt advisor_conformance-{__version__}0-py3-none-any.whl", "wheel"),
        ("python3 -m pytest --impl=x --rule-reports=r.json", "--rule-reports"),
        ("pytest --rule-report=r.json", "--impl"),
        ("advisor-conformance run --impl x --no-such-option", "--no-such-option"),
        ("advisor-conformance frobnicate", "frobnicate"),
        ("npm test", "npm"),
    ],
)
def test_checker_flags_undocumented_commands_and_options(command, problem):
    """The check refuses an install without the pins or of another than this release's wheel (no package index has
    the suite), an unknown option, a run without --impl and an undocumented command."""
    assert any(problem in found for found in command_problems(command)), command_problems(command)


@pytest.mark.parametrize("kind", sorted(WORKFLOWS))
def test_every_command_is_documented_with_existing_options(kind):
    """Every command of the workflow is a documented one, its options exist, and the suite is pinned."""
    commands = run_commands(WORKFLOWS[kind].read_text(encoding="utf-8"))
    assert any("pip" in command for command in commands)
    assert any("--impl" in command for command in commands)
    assert {command: command_problems(command) for command in commands} == {command: [] for command in commands}


@pytest.mark.parametrize("kind", sorted(WORKFLOWS))
def test_workflow_uses_xfails_and_uploads_its_rule_report(kind):
    """The suite runs with --xfails-file and --rule-report, and the report file is uploaded even when the run fails."""
    text = WORKFLOWS[kind].read_text(encoding="utf-8")
    runs = " ".join(command for command in run_commands(text) if "--impl" in command)
    assert "--xfails-file" in runs
    (report,) = re.findall(r"--rule-report[= ](\S+)", runs)
    (upload,) = [step for step in steps(text) if "actions/upload-artifact" in step]
    assert re.search(rf"^\s*path:\s*{re.escape(report)}\s*$", upload, re.M)
    assert re.search(r"^\s*if:\s*always\(\)\s*$", upload, re.M)
    assert "actions/setup-python" in " ".join(uses(text)) and "actions/checkout" in " ".join(uses(text))


def test_python_workflow_tests_the_adapter_init_writes():
    """The Python workflow's --impl names the module `init --python` writes (PACKAGE.advisor_adapter)."""
    (target,) = impl_targets(WORKFLOWS["python"].read_text(encoding="utf-8"))
    package, module = target.split(".")
    assert package.isidentifier() and module == "advisor_adapter"


def test_harness_workflow_starts_the_harness_init_writes_and_sets_up_its_runtime():
    """The harness workflow's --impl starts a harness `init --harness` writes, and a non-Python runtime is set up."""
    text = WORKFLOWS["harness"].read_text(encoding="utf-8")
    (target,) = impl_targets(text)
    assert target in {f"cmd:{harness.command}" for harness in HARNESSES.values()}
    assert any(action.startswith("actions/setup-") and "python" not in action for action in uses(text))


def test_readme_documents_the_commands_the_workflows_use():
    """The README shows the install with constraints and the pytest --impl run the workflows are built from."""
    assert "pip install -c constraints.txt" in README
    assert "pytest --impl=" in README
