"""The adapter protocol: the reference adapter and the skeleton `init` writes satisfy it, at run time and for mypy."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest

from advisor_conformance import Adapter
from advisor_conformance._contract.protocol import OPERATIONS
from advisor_conformance._tools.cli import main
from advisor_reference.adapter import ReferenceAdapter

CONFORMANCE_DIR = Path(__file__).resolve().parents[2] / "conformance"

#: A file mypy checks: the reference adapter and the skeleton assigned to the protocol type.
SATISFIED = """\
from advisor_conformance import Adapter
from advisor_reference.adapter import ReferenceAdapter
from skeleton.advisor_adapter import Adapter as Skeleton

reference: Adapter = ReferenceAdapter()
skeleton: Adapter = Skeleton()
"""

#: A file mypy must reject: an adapter whose encode takes something other than a JSON object.
BROKEN = """\
from typing import Any

from advisor_conformance import Adapter
from skeleton.advisor_adapter import Adapter as Skeleton


class Broken(Skeleton):
    def encode(self, params: int) -> dict[str, Any]:  # type: ignore[override]
        return {}


broken: Adapter = Broken()
"""


#: mypy reads the protocol and the reference adapter's module, and skips everything they import (it is not checked
#: here, and reading it costs seconds).
MYPY_CONFIG = """\
[mypy]
follow_imports = skip
ignore_missing_imports = True
[mypy-advisor_conformance,advisor_conformance._contract.protocol,advisor_reference.adapter]
follow_imports = silent
"""


def skeleton_package(directory: Path) -> Path:
    assert main(["init", "--python", "skeleton", "--dir", str(directory)]) == 0
    return directory / "skeleton"


def test_the_protocol_has_one_method_per_operation():
    """`Adapter` declares exactly the protocol's operations, each taking params and answering an object."""
    members = {name for name, _ in inspect.getmembers(Adapter, inspect.isfunction) if not name.startswith("_")}
    assert members == set(OPERATIONS)
    for name in OPERATIONS:
        assert list(inspect.signature(getattr(Adapter, name)).parameters) == ["self", "params"]


def test_the_reference_and_the_skeleton_are_adapters(tmp_path, monkeypatch):
    """The reference adapter and the skeleton of `init --python` are instances of `Adapter`; an object without one
    of the operations is not."""
    skeleton_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        from skeleton.advisor_adapter import adapter as skeleton
    finally:
        for name in [name for name in sys.modules if name.partition(".")[0] == "skeleton"]:
            del sys.modules[name]
    assert isinstance(ReferenceAdapter(), Adapter)
    assert isinstance(skeleton, Adapter)

    class Partial:
        def describe(self, params):
            return {}

    assert not isinstance(Partial(), Adapter)


def test_mypy_checks_adapters_against_the_protocol(tmp_path, monkeypatch):
    """mypy accepts the reference adapter and the skeleton assigned to `Adapter` (and the skeleton module itself),
    and rejects an adapter whose operation takes something other than a JSON object."""
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (the dev extra has it)")
    package = skeleton_package(tmp_path)
    (tmp_path / "satisfied.py").write_text(SATISFIED, encoding="utf-8")
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG, encoding="utf-8")
    reference_dir = Path(inspect.getfile(ReferenceAdapter)).parents[1]
    monkeypatch.setenv("MYPYPATH", os.pathsep.join([str(tmp_path), str(CONFORMANCE_DIR), str(reference_dir)]))
    out, err, status = api.run(
        [
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "--no-error-summary",
            "--hide-error-context",
            str(package / "advisor_adapter.py"),
            str(tmp_path / "satisfied.py"),
            str(tmp_path / "broken.py"),
        ]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, out + err
    assert errors and all(Path(line.split(":", 1)[0]).name == "broken.py" for line in errors), out
    assert any("Adapter" in line for line in errors), out
