"""The pytest integration: the suite's plugin (``plugin``, loaded by the thin top-level entry point
``_advisor_conformance_pytestplugin``), the suite collected wherever it is installed (``collect``), selection by
rule, area and level (``markers``), what a test needs of an implementation (``needs``), the short summary and
bounded notes (``terminal``), expected failures (``xfails``) and the outcome of every rule (``reporting``).

Imports the judging room, the contract and the base modules, never the tools.
"""
