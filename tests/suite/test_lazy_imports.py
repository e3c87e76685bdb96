"""The package imports lazily: reading the catalogue does not load the test machinery."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import advisor_conformance

#: The libraries only a run of the suite needs: the rules command and the package's top level load none.
HEAVY = ("hypothesis", "werkzeug", "pytest_httpserver")

#: Runs the CLI's main in process and prints the names of the modules loaded by then.
PROBE = """\
import contextlib, io, json, sys
from advisor_conformance._tools.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_by(*argv: str) -> tuple[int, set[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(result.stdout)
    return report["code"], {name.partition(".")[0] for name in report["modules"]}


@pytest.mark.parametrize("argv", [("rules",), ("rules", "--markdown"), ("--version",), ("--help",)], ids=" ".join)
def test_reading_the_rules_loads_no_test_machinery(argv):
    """`advisor-conformance rules` (and `--version`, `--help`) runs to success without importing hypothesis,
    werkzeug or pytest-httpserver."""
    code, modules = loaded_by(*argv)
    assert code == 0
    assert "advisor_conformance" in modules
    assert sorted(modules & set(HEAVY)) == []


def test_every_public_name_loads_on_first_access():
    """Every name in `__all__` is reachable as an attribute and listed by `dir()`, and `import *` binds them all."""
    namespace: dict[str, object] = {}
    exec("from advisor_conformance import *", namespace)
    for name in advisor_conformance.__all__:
        assert getattr(advisor_conformance, name) is namespace[name]
        assert name in dir(advisor_conformance)
    with pytest.raises(AttributeError):
        advisor_conformance.no_such_name  # noqa: B018
