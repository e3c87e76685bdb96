"""The cache simulator behind ``advisor-conformance cache-sim`` and the rule ``breakpoints.cache-efficiency``.

How much of an implementation's input the providers' prompt caches would serve over realistic growing sessions:

* ``profiles.toml`` and :mod:`.facts`: the providers' cache rules and prices as one table of profiles, every fact
  with the document and sentence it comes from, every assumption with its default; and the token estimator
  (UTF-8 bytes / 4, the same for every implementation);
* :mod:`.anthropic`, :mod:`.openai`: the simulators (breakpoint caches: Anthropic's explicit and automatic
  caching with lookback, minimum, TTLs and prices, and OpenAI's GPT-5.6 family; OpenAI's automatic prefix cache
  of the older models with its minimum, 128-token steps, key routing and retention, for chat completions and for
  Codex's Responses bodies);
* :mod:`.optimum`: the least cost the rules allow on the same requests (exact, or a proven lower bound, with the
  proof);
* :mod:`.placements`: the spec's breakpoint placement and what-if ones (``--placement``);
* :mod:`.sessions`: the session format of ``fixtures/sessions`` and its deterministic content macros;
* :mod:`.replay`: a session through an implementation's ``scenario`` and ``encode``, measured;
* :mod:`.report`: the table and the JSON of the command; :mod:`.page`: ``docs/cache-efficiency.md``.
"""
