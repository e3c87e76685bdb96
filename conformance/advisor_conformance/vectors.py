"""Golden vectors: language-agnostic JSON cases of input and expected output (``fixtures/vectors``).

A vector file holds ``{"area", "description", "cases": [...]}``; each case is
``{"id", "description", "rules", "op", "input", "expect"}`` and optionally
``"requires": {"args_json": "origin"}`` and ``"pins"``. ``expect`` is the
operation's answer (``{"messages": [...]}``) or ``{"error": {"code": ...}}``.

**Attribution.** The answer is compared field by field and every difference
is collected (:func:`differences`). ``pins`` says which fields pin which of the
case's rules: ``{"calls[*].result": ["budget.shared-counter"],
"provider_requests[*].transport_session": ["transport.main-session"]}``; a
pattern is a path into the answer (keys, ``[N]``, ``[-N]`` from the end,
``[*]`` any index) and covers the field and everything under it; the longest
pattern that covers a difference decides its rules, and a difference no pattern
covers is attributed to all the case's rules. A failing case then names only
the rules its differences break (:func:`attribute`).

Two small notations keep big values readable (see ``fixtures/README.md``):

* matchers on the expected side: ``{"$hex32": "label"}`` (a fresh cache key),
  ``{"$between": [lo, hi]}`` (an integer in that range), ``{"$ignore": "why"}``
  (any value: a field the case does not pin, such as the shaped messages of a
  runtime case that is not about shaping), and ``{"$segments": [[text, [rules]],
  ...]}``: a string made of these texts in order, where a departure inside a
  segment is blamed on that segment's rules (the final message: its in-flight
  block, each file, the question, the request for guidance);
* a macro object with one ``$`` key, anywhere a string is expected:
  ``{"$repeat": ["ab", 3]}`` → ``"ababab"``; ``{"$concat": [a, b, ...]}``
  joins strings (which may be macros themselves);
* ``{{name}}`` in a string stands for the implementation's declared string
  ``name`` (``{{guidance_request}}``, ``{{inflight_label}}``, ...), so the
  expected output is compared byte for byte whatever the wording.

The work is done in three private modules, one job each: ``_judging.vector_loading`` (the files, macros and placeholders),
``_judging.vector_comparison`` (an expected value against an answer) and ``_judging.vector_attribution`` (from differences to
rules); this module is their public face.
"""

from __future__ import annotations

from ._judging.vector_attribution import (
    DECLARED_RULES,
    FIELD_RULES,
    FINAL_MESSAGE_AREAS,
    attribute,
    covers,
    declared_rule,
    frame_rule,
    marker_rule,
    message_rules,
    refused,
    request_field_rule,
    separator_rule,
)
from ._judging.vector_comparison import (
    HEX32,
    ORIGIN_ENCODING,
    Difference,
    canonical_tool_calls,
    difference,
    differences,
)
from ._judging.vector_loading import (
    MATCHERS,
    PLACEHOLDER,
    Case,
    VectorError,
    expand,
    fill,
    load_all,
    load_file,
    parse_pattern,
    vector_files,
)

__all__ = [
    "DECLARED_RULES",
    "FIELD_RULES",
    "FINAL_MESSAGE_AREAS",
    "HEX32",
    "MATCHERS",
    "ORIGIN_ENCODING",
    "PLACEHOLDER",
    "Case",
    "Difference",
    "VectorError",
    "attribute",
    "canonical_tool_calls",
    "covers",
    "declared_rule",
    "difference",
    "differences",
    "expand",
    "fill",
    "frame_rule",
    "load_all",
    "load_file",
    "marker_rule",
    "message_rules",
    "parse_pattern",
    "refused",
    "request_field_rule",
    "separator_rule",
    "vector_files",
]
