"""The cache simulator behind ``advisor-conformance cache-sim`` and the rule ``breakpoints.cache-efficiency``.

How much of an implementation's input the providers' prompt caches would serve over realistic growing sessions:

* :mod:`.facts`: the providers' documented cache rules and prices, as data, with the sentences they come from,
  and the token estimator (UTF-8 bytes / 4, the same for every implementation);
* :mod:`.anthropic`, :mod:`.openai`: the simulators (Anthropic breakpoints with lookback, minimum, TTLs and
  prices; OpenAI's automatic prefix cache with its minimum, 128-token steps, key routing and TTL, for chat
  completions and for Codex's Responses bodies);
* :mod:`.optimum`: the least cost the rules allow on the same requests (exact, or a proven bound, with the proof);
* :mod:`.sessions`: the session format of ``fixtures/sessions`` and its deterministic content macros;
* :mod:`.replay`: a session through an implementation's ``scenario`` and ``encode``, measured;
* :mod:`.report`: the table and the JSON of the command.
"""
