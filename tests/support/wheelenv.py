"""A fresh virtual environment holding the built wheel and exactly its declared dependencies, offline.

The packaging tests must see what a user's ``pip install advisor-conformance``
gives: the wheel, and the distributions its ``Requires-Dist`` (no extras)
pulls in, nothing else. Downloading them would need the network, so the
environment borrows them from this one: the dependency closure of the
project is computed from the installed metadata, and each distribution of
the closure is linked, file tree by file tree, into the new environment's
site-packages. A package the project imports without declaring it is then
missing there, exactly as on a user's machine; the system site packages and
this environment's editable install of the project are not visible.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = "advisor-conformance"


def dependency_closure(name: str = PROJECT, extras: tuple[str, ...] = ()) -> dict[str, Distribution]:
    """The installed distributions ``name`` needs (with ``extras``), by canonical name, ``name`` left out."""
    found: dict[str, Distribution] = {}
    todo = [(name, extras)]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while todo:
        current, wanted = todo.pop()
        key = (canonicalize_name(current), tuple(sorted(wanted)))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = distribution(current)
        except PackageNotFoundError:
            raise RuntimeError(f"{current} is required but not installed here") from None
        if canonicalize_name(current) != canonicalize_name(name):
            found[canonicalize_name(current)] = dist
        for raw in dist.requires or []:
            requirement = Requirement(raw)
            environments = [{"extra": extra} for extra in ("", *wanted)]
            if requirement.marker is not None and not any(requirement.marker.evaluate(env) for env in environments):
                continue
            todo.append((requirement.name, tuple(requirement.extras)))
    return found


def _top_level_entries(dist: Distribution) -> set[str]:
    """The first path components of a distribution's files, inside its site-packages directory."""
    entries = set()
    for file in dist.files or []:
        parts = Path(file).parts
        if parts and parts[0] != ".." and parts[0] != "__pycache__":
            entries.add(parts[0])
    return entries


def build_wheel(root: Path, into: Path) -> Path:
    """Build the project's wheel without network access (hatchling from this environment); errors say why."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(into), str(root)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"pip wheel exited with {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    (wheel,) = into.glob("advisor_conformance-*.whl")
    return wheel


def bare_env(where: Path, *, with_pip: bool = False, also: tuple[str, ...] = ()) -> Path:
    """A virtual environment at ``where`` with the project's dependency closure linked in (and the closures of the
    distributions ``also`` names, with them), but not the project; its own pip (the one its Python bundles) when
    ``with_pip``; returns its python."""
    venv.EnvBuilder(system_site_packages=False, with_pip=with_pip, symlinks=True).create(where)
    python = where / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout.strip()
    )
    dists = dict(dependency_closure())
    for name in also:
        dists.update(dependency_closure(name))
        dists[canonicalize_name(name)] = distribution(name)
    for dist in dists.values():
        base = Path(str(dist.locate_file("")))
        for entry in _top_level_entries(dist):
            source, target = base / entry, purelib / entry
            if source.exists() and not target.exists():
                os.symlink(source, target)
    return python


def make_env(wheel: Path, where: Path) -> Path:
    """A virtual environment at ``where`` with ``wheel`` installed and its dependency closure linked in;
    returns its python."""
    python = bare_env(where)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"installing the wheel failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return python
