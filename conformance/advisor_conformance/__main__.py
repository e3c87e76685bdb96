"""``python -m conformance``: the same as the ``advisor-conformance`` command."""

from ._cli import entry

entry()
