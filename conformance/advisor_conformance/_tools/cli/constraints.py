"""``advisor-conformance constraints``: the pinned library versions of the installed release, for ``pip -c``."""

from __future__ import annotations

import argparse

NAME = "constraints"
ORDER = 85
HELP = "print the library versions this release was tested with (a pip constraints file)"
DESCRIPTION = """\
Print the pins of the installed release (its constraints.txt): the exact versions of the libraries its CI ran
with, among them those that decide which examples are drawn and how an answer is judged (hypothesis, pytest,
jsonschema, syrupy). Install with them so your outcomes match everyone's who runs this release, example for example:

  advisor-conformance constraints > advisor-constraints.txt
  python3 -m pip install -c advisor-constraints.txt advisor-conformance==VERSION
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def pins() -> list[str]:
    """The ``name==version`` lines of the release's constraints file, in its order."""
    from ..._paths import constraints_file

    lines = constraints_file().read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def run(args: argparse.Namespace, extra: list[str]) -> int:
    from ... import __version__

    print(
        f"# The pins of advisor-conformance {__version__}: the library versions its CI ran with.\n"
        f"#   python3 -m pip install -c THIS_FILE advisor-conformance=={__version__}"
    )
    print("\n".join(pins()))
    return 0
