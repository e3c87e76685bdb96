"""The layout of the conformance suite, read from its source with ``ast`` (nothing is imported or run).

Two rules (``tests/suite/test_suite_layout.py`` holds the suite to them):

* **No test module imports another.** A ``test_*.py`` module of the suite imports no ``test_*`` module of the
  suite, in any form: ``import pkg.tests.area.test_x``, ``from pkg.tests.area.test_x import f``,
  ``from pkg.tests.area import test_x``, ``from .test_x import f``, ``from . import test_x``,
  ``from ..area.test_x import f``. What tests share lives in a support module (any name but ``test_*``): in the
  folder of its area, or in ``common/`` when several areas use it.
* **Each test module sits in the folder of its area.** A module's rules are the rule IDs its
  ``@pytest.mark.rule(id=...)`` marks name (on functions, on ``pytest.param``, in ``pytestmark``), read statically:
  a string, or a module-level name bound to a string or to a dict, list, tuple or set of strings (all of its
  strings; a subscript of such a name counts as all of them), also when the name is imported from a module of the
  package (followed through re-exports). A rule's area is the part of its ID before the dot. The module must sit
  directly in ``<suite>/<area>/`` for the area that has the most of its distinct rules:

  - a **tie** between areas places it nowhere: the module mixes areas evenly and is split (one module per area);
  - a test without a rule mark counts for nothing (a module's unmarked helper tests follow its marked ones);
  - a module that names **no rule statically** (its rules come from data, as the golden vectors' do: each case
    names its own) spans the areas and sits at the top of the suite, in no area's folder.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Suite:
    """A suite's source: the package directory (``advisor_conformance/``) and its tests folder in it."""

    package_dir: Path
    package: str = "advisor_conformance"
    tests: str = "tests"

    @property
    def root(self) -> Path:
        return self.package_dir / self.tests

    @property
    def tests_package(self) -> str:
        return f"{self.package}.{self.tests}"

    def test_modules(self) -> list[Path]:
        return sorted(path for path in self.root.rglob("test_*.py") if "__pycache__" not in path.parts)

    def dotted(self, path: Path) -> str:
        """``<package>/tests/area/test_x.py`` -> ``package.tests.area.test_x``."""
        parts = path.relative_to(self.package_dir).with_suffix("").parts
        return ".".join((self.package, *(parts[:-1] if parts[-1] == "__init__" else parts)))

    def file_of(self, dotted: str) -> Path | None:
        """The source file of a module of the package, or None (a module outside it, or none at all)."""
        if dotted != self.package and not dotted.startswith(f"{self.package}."):
            return None
        base = self.package_dir.joinpath(*dotted.split(".")[1:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None


def _resolve(module: str | None, level: int, importer: str, is_package: bool) -> str:
    """The absolute dotted name of ``from <level dots><module> import ...`` written in module ``importer``."""
    if level == 0:
        return module or ""
    parts = importer.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, module] if module else base)


def _imported(suite: Suite, path: Path) -> list[tuple[int, str]]:
    """Every module an import statement of ``path`` may load: (line, dotted name); ``from a import b`` gives both
    ``a`` and ``a.b`` (``b`` may be a submodule)."""
    importer = suite.dotted(path)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(node.module, node.level, importer, path.name == "__init__.py")
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names if alias.name != "*"]
    return out


def import_problems(suite: Suite) -> list[str]:
    """Each import of a test module of the suite by another test module: ``file:line imports module``."""
    prefix = f"{suite.tests_package}."
    problems = []
    for path in suite.test_modules():
        for line, module in _imported(suite, path):
            if (
                module.startswith(prefix)
                and module.rpartition(".")[2].startswith("test_")
                and suite.file_of(module) is not None
            ):
                problems.append(f"{path.relative_to(suite.root).as_posix()}:{line} imports the test module {module}")
    return problems


def _bindings(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound by a plain assignment, and their values."""
    out: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = node.value
    return out


class _Strings:
    """The strings a name of a module may stand for, following imports from modules of the package."""

    def __init__(self, suite: Suite):
        self.suite = suite
        self.trees: dict[Path, ast.Module] = {}

    def tree(self, path: Path) -> ast.Module:
        if path not in self.trees:
            self.trees[path] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        return self.trees[path]

    def of(self, node: ast.expr | None, path: Path, depth: int = 0) -> list[str]:
        if node is None or depth > 8:
            return []
        if isinstance(node, ast.Constant):
            return [node.value] if isinstance(node.value, str) else []
        if isinstance(node, ast.Dict):
            return [s for value in node.values for s in self.of(value, path, depth + 1)]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [s for value in node.elts for s in self.of(value, path, depth + 1)]
        if isinstance(node, ast.Subscript):
            return self.of(node.value, path, depth + 1)
        if isinstance(node, ast.Name):
            return self.name(node.id, path, depth + 1)
        return []

    def name(self, name: str, path: Path, depth: int) -> list[str]:
        tree = self.tree(path)
        bound = _bindings(tree)
        if name in bound:
            return self.of(bound[name], path, depth)
        importer = self.suite.dotted(path)
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            module = _resolve(node.module, node.level, importer, path.name == "__init__.py")
            for alias in node.names:
                if (alias.asname or alias.name) == name or alias.name == "*":
                    source = self.suite.file_of(module)
                    found = self.name(alias.name if alias.name != "*" else name, source, depth + 1) if source else []
                    if found:
                        return found
        return []


def _is_rule_mark(node: ast.Call) -> bool:
    """``pytest.mark.rule(...)`` or ``mark.rule(...)``."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "rule"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
    )


def rules_of(suite: Suite, path: Path, strings: _Strings | None = None) -> set[str]:
    """The rule IDs the rule marks of a test module name, as far as the source says them statically."""
    strings = strings or _Strings(suite)
    out: set[str] = set()
    for node in ast.walk(strings.tree(path)):
        if isinstance(node, ast.Call) and _is_rule_mark(node):
            given = [keyword.value for keyword in node.keywords if keyword.arg == "id"] + node.args[:1]
            for value in given:
                out.update(strings.of(value, path))
    return out


def placement_problems(suite: Suite) -> list[str]:
    """Each test module that is not in the folder of the area of most of its rules (see the module's docstring)."""
    strings = _Strings(suite)
    problems = []
    for path in suite.test_modules():
        where = path.relative_to(suite.root)
        folder = "/".join(where.parts[:-1])  # "" at the top; a nested folder is no area's
        areas = Counter(rule.partition(".")[0] for rule in rules_of(suite, path, strings))
        if not areas:
            if folder:
                problems.append(
                    f"{where.as_posix()} names no rule statically (its rules come from data): it spans "
                    f"the areas and belongs at the top of the suite, not in {folder}/"
                )
            continue
        most = max(areas.values())
        top = sorted(area for area, count in areas.items() if count == most)
        counts = ", ".join(f"{area} {count}" for area, count in sorted(areas.items(), key=lambda item: -item[1]))
        if len(top) > 1:
            problems.append(
                f"{where.as_posix()} names as many rules of {' and '.join(top)} ({counts}): split it, one "
                "module per area"
            )
        elif folder != top[0]:
            problems.append(f"{where.as_posix()} belongs in {top[0]}/ (rules by area: {counts})")
    return problems
