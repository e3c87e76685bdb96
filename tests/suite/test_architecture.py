"""The suite's rooms import one way: tools, then the pytest plugin, then judging, then the contract, then the base."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import advisor_conformance

PACKAGE = Path(advisor_conformance.__file__).resolve().parent

#: The rooms from the bottom up: a module may import its own room and the rooms before it, never one after it.
ROOMS = ("base", "contract", "judging", "plugin", "tools")
BASE = {"_paths", "_bounded", "_excerpts", "_outputs"}
PREFIXES = {
    "_contract": "contract",
    "_judging": "judging",
    "_broken": "judging",
    "_pytest_plugin": "plugin",
    "_tools": "tools",
}


def room_of(module: str) -> str | None:
    """The room of a module of the package (``advisor_conformance.x.y``); None for the package itself, its
    ``__main__`` and the conformance tests, which belong to no room."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("__main__", "tests"):
        return None
    if parts[0] in BASE:
        return "base"
    return PREFIXES.get(parts[0], "judging")  # the public modules are the judging room's


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module of the package that ``path`` imports, at the top or inside a function, as a dotted name (a
    ``from X import name`` counts both X and X.name, since the name may be a module)."""
    package = module_name(path).split(".") if path.name == "__init__.py" else module_name(path).split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "advisor_conformance"}


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "tests" not in path.relative_to(PACKAGE).parts)


def breaches(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        mine = room_of(module_name(path))
        if mine is None:
            continue
        for name in sorted(imported(path)):
            theirs = room_of(name)
            if theirs is not None and ROOMS.index(theirs) > ROOMS.index(mine):
                out.append(f"{module_name(path)} ({mine}) imports {name} ({theirs})")
    return out


def test_no_room_imports_a_room_above_it():
    """No module imports one of a later room: the contract only the base, judging not the plugin or the tools, the
    plugin not the tools."""
    assert breaches(modules()) == []


def test_only_the_command_imports_the_command():
    """Outside the command itself (``_tools.cli``), no module imports it: ``_tools.trace`` included."""
    cli = "advisor_conformance._tools.cli"
    users = [
        module_name(path)
        for path in modules()
        if not module_name(path).startswith(cli)
        and module_name(path) != "advisor_conformance.__main__"
        and any(name == cli or name.startswith(f"{cli}.") for name in imported(path))
    ]
    assert users == []


def test_every_module_has_a_room():
    """Every private module or folder of the package is in a room the check knows (a new one must be placed)."""
    known = BASE | set(PREFIXES) | {"__init__", "__main__", "_templates"}
    private = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if path.name.startswith("_") and path.name != "__pycache__" and (path.suffix == ".py" or path.is_dir())
    }
    assert private - known == set()


@pytest.mark.parametrize(
    ("room", "source", "breach"),
    [
        ("_contract", "from ..checks import check\n", "judging"),
        ("_judging", "from .._pytest_plugin import needs\n", "plugin"),
        ("_pytest_plugin", "def late():\n    from .._tools.report import build_page\n", "tools"),
    ],
)
def test_a_breach_is_found(tmp_path, monkeypatch, room, source, breach):
    """An import of a later room, even inside a function, is reported with both rooms."""
    fake = tmp_path / "advisor_conformance"
    (fake / room).mkdir(parents=True)
    (fake / room / "probe.py").write_text(source, encoding="utf-8")
    monkeypatch.setitem(globals(), "PACKAGE", fake)
    found = breaches([fake / room / "probe.py"])
    assert found and all(line.endswith(f"({breach})") for line in found), found
