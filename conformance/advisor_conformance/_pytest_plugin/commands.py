"""The commands the suite prints for a person to run (a rerun, a snapshot's acceptance, ``where``'s tests): each runs
as printed from the project's folder.

A test is named as ``--pyargs`` finds it in the installed suite (``advisor_conformance.tests.elision.test_elision::
test_x[1001]``), never by a path into the suite's folder: a path there would make pytest read the configuration of
the folder the suite is installed in (a clone's, for an editable install) instead of the project's. The
implementation is named with ``--impl`` unless the project's configuration file names it (the command then runs
under that configuration, as the run did).
"""

from __future__ import annotations

import shlex

PYTHON = "python3"
SUITE_PACKAGE = "advisor_conformance.tests"


def pyargs_id(suite_nodeid: str) -> str:
    """A node ID inside the suite (``elision/test_elision.py::test_x[1001]``, or with a leading ``tests/``) as
    ``--pyargs`` takes it: ``advisor_conformance.tests.elision.test_elision::test_x[1001]``."""
    path, sep, rest = suite_nodeid.partition("::")
    path = path.removeprefix("tests/")
    module = ".".join([SUITE_PACKAGE, *path.removesuffix(".py").split("/")])
    return f"{module}{sep}{rest}"


def impl_options(target: str, source: str) -> list[str]:
    """How a printed command names the implementation: nothing when the project's configuration file names it, else
    ``--impl=TARGET``."""
    return [] if source == "ini" else [f"--impl={target}"]


def pytest_command(options: list[str], test: str) -> str:
    """``python3 -m pytest OPTIONS --pyargs TEST``, quoted for a POSIX shell."""
    return shlex.join([PYTHON, "-m", "pytest", *options, "--pyargs", test])
