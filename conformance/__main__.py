"""``python -m conformance``: the same as the ``advisor-conformance`` command."""

from .cli import entry

entry()
