"""``python -m conformance``: the same as the ``advisor-conformance`` command."""

from ._tools.cli import entry

entry()
