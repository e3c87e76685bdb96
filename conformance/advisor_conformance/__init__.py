"""advisor-conformance: the executable specification of the advisor sub-agent.

The public surface, what the conformance tests and your own tests import
(everything whose name starts with ``_`` is private and may change):

* :mod:`~advisor_conformance.checks`: assertions that name the rule they check and show the input
  (:func:`check`, :func:`check_equal`, :func:`violation`, :func:`answer_of`, :class:`RuleViolation`);
* :mod:`~advisor_conformance.oracle`: the suite's own statement of the shaping rules (expected values);
* :mod:`~advisor_conformance.strategies`: hypothesis strategies for transcripts, arguments, files, questions;
* :mod:`~advisor_conformance.vectors`: golden vectors (loading, placeholders, comparison);
* :mod:`~advisor_conformance.catalogue`: the rule catalogue (``rules.toml``);
* the operation helpers: :mod:`~advisor_conformance.shaping` (``shape``),
  :mod:`~advisor_conformance.scenarios` (``scenario``, and the scripted answers of black-box runs),
  :mod:`~advisor_conformance.wire` (``encode``, and the providers' wire rules),
  :mod:`~advisor_conformance.workspace` (the working directories of scenarios);
* an implementation under test: :class:`Implementation`, :func:`load_target`, :class:`ContractError`,
  :class:`TargetError`;
* :class:`Adapter`: the ``typing.Protocol`` a Python adapter satisfies (one method per operation; the skeleton
  ``advisor-conformance init --python`` writes is checked against it: ``adapter: Adapter = MyAdapter()``).

The machinery behind it sits in four rooms, each importing only the rooms below it (docs/architecture.md):
``_tools`` (the ``advisor-conformance`` command, the HTML report, differential testing, the prompt-cache
simulator, from a rule to its code), ``_pytest_plugin`` (the suite's pytest plugin; the thin entry point is the
top-level module ``_advisor_conformance_pytestplugin``), the judging modules above (with their private part,
``_judging``: the golden vectors' loading, comparison and attribution) and ``_contract`` (the operations and
their schemas, the two transports, ``--impl`` targets, the harness side, the loopback provider); under them all,
``_bounded`` (bounded failure messages), ``_excerpts`` (where two texts part) and ``_paths``, with the data:
``schema/``, ``rules.toml``, ``partitions/``, ``_templates/`` (the skeletons ``init`` writes).
"""

from __future__ import annotations

__version__ = "0.1.0"

from importlib import import_module
from typing import TYPE_CHECKING, Any

# The public names, each with the module that defines it: loaded on first access (PEP 562), so that
# ``advisor-conformance rules`` or ``--version`` does not import hypothesis, pytest-httpserver or werkzeug.
_SUBMODULES = ("catalogue", "checks", "oracle", "scenarios", "shaping", "strategies", "vectors", "wire", "workspace")
_NAMES = {
    "Adapter": "._contract.protocol",
    "ContractError": "._contract.protocol",
    "Implementation": "._contract.implementation",
    "PROTOCOL_VERSION": "._contract.protocol",
    "RuleViolation": ".checks",
    "TargetError": "._contract.implementation",
    "answer_of": ".checks",
    "check": ".checks",
    "check_equal": ".checks",
    "load_target": "._contract.implementation",
    "violation": ".checks",
}

__all__ = [
    "PROTOCOL_VERSION",
    "Adapter",
    "ContractError",
    "Implementation",
    "RuleViolation",
    "TargetError",
    "answer_of",
    "catalogue",
    "check",
    "check_equal",
    "checks",
    "load_target",
    "oracle",
    "scenarios",
    "shaping",
    "strategies",
    "vectors",
    "violation",
    "wire",
    "workspace",
]

if TYPE_CHECKING:
    from . import (
        catalogue,
        checks,
        oracle,
        scenarios,
        shaping,
        strategies,
        vectors,
        wire,
        workspace,
    )
    from ._contract.implementation import Implementation, TargetError, load_target
    from ._contract.protocol import PROTOCOL_VERSION, Adapter, ContractError
    from .checks import RuleViolation, answer_of, check, check_equal, violation


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        value: Any = import_module(f".{name}", __name__)
    elif name in _NAMES:
        value = getattr(import_module(_NAMES[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
