"""The tools: the ``advisor-conformance`` command (``cli``, one module per subcommand), the HTML report and
``compare`` (``report``), differential testing (``diff``, with ``diff_open`` and ``diff_inputs``), the
prompt-cache simulator (``cachesim``) and the way from a rule to its code, tests and vectors (``trace``).

The top room: it may import every other; no other room imports it.
"""
