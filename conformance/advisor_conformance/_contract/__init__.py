"""The contract and its transports: the operations and their schemas (``protocol``), the in-process and
JSON-lines transports (``transport``), an ``--impl`` target loaded onto one (``implementation``), the harness
side for a Python adapter (``harness``) and the loopback provider of black-box runs (``loopback``).

Imports only the base modules (``_paths``, ``_bounded``, ``_excerpts``); the other rooms import it.
"""
