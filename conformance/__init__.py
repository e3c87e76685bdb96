"""advisor-conformance: the executable specification of the advisor sub-agent.

* :mod:`conformance.catalogue` — the rule catalogue (``rules.toml``);
* :mod:`conformance.contract` — the adapter contract: JSON operations and transports;
* :mod:`conformance.plugin` — the pytest plugin (``pytest --impl=<target>``);
* :mod:`conformance.tests` — the conformance tests, one module per spec area.
"""

from __future__ import annotations

__version__ = "0.1.0"
