"""Caller text carried byte for byte: the texts that library defaults and hand-written shortcuts change.

Wherever the advisor carries text it was given (a file's bytes, the question, a transcript message, a tool result,
tool-call arguments, a display path, the provider's answer), that text reaches its destination as it was, apart
from what a rule says (the question's and the in-flight text's trim, the caps, the per-byte U+FFFD of bytes that are
not UTF-8). The spec's pieces are Go byte strings: nothing removes a byte-order mark, normalises Unicode or changes
line ends on the way. Ports in other languages meet defaults that do exactly that:

* ``byte-order-mark``: a leading U+FEFF removed by a decoder (Python's ``utf-8-sig``, WHATWG ``TextDecoder`` and
  Node's ``TextDecoder`` by default, .NET's ``StreamReader``), or by JavaScript's ``trim()`` (which trims U+FEFF);
* ``decomposed``: text in NFD composed by a normaliser (``unicodedata.normalize("NFC")``, ``String.normalize()``,
  Swift and Java collations, a macOS file-name round trip);
* ``precomposed``: precomposed letters, Hangul syllables and the singletons that NFC itself maps (U+212B ANGSTROM
  SIGN, U+2126 OHM SIGN, U+212A KELVIN SIGN), which NFD or NFC change;
* ``compatibility``: ligatures, full-width and half-width forms, superscripts and fractions, which NFKC and NFKD
  (``casefold``-style "cleaning") change;
* ``line-ends``: CRLF, a lone CR, NEL (U+0085), U+2028, U+2029, VT and FF inside the text, which universal-newline
  reads (Python's text mode, ``io.TextIOWrapper``), ``splitlines()`` and a ``join("\\n")``, or a ``\\r\\n`` to
  ``\\n`` replacement change;
* ``controls``: NUL, ESC, BEL and DEL, which C-string handling truncates at and "printable only" sanitisers drop;
* ``astral-and-joiners``: characters beyond U+FFFF, zero-width joiners, variation selectors, regional-indicator
  flags and private-use characters, which sanitisers of "invisible" characters and UTF-16 slicing lose.

:data:`TEXTS` holds one text per class. None has white space of Go's set at its edges, so a carrier that trims
(the question, the in-flight text, the returned note) carries each unchanged too. :data:`NAME_TEXTS` are the classes
that can be a file or path name (no control character, no line end, no slash).
"""

from __future__ import annotations

from .oracle import trim

TEXTS: dict[str, str] = {
    "byte-order-mark": "\ufeffpackage main // a byte-order mark first, and \ufeff one inside",
    "decomposed": "Cafe\u0301, de\u0301ja\u0300 vu, A\u030angstro\u0308m (NFD: letters and combining marks)",
    "precomposed": "Caf\u00e9, \u00c5ngstr\u00f6m, \ud55c\uad6d\uc5b4, \u212b \u2126 \u212a (singletons)",
    "compatibility": "\ufb01le \uff21\uff22\uff23 x\u00b2 \u00bd \uff76\uff80\uff76\uff85 \u2460 \u210c",
    "line-ends": "one\r\ntwo\rthree\nfour\u0085five\u2028six\u2029seven\x0beight\x0cnine",
    "controls": "nul\x00 esc\x1b[1mbold\x1b[0m bell\x07 del\x7f end",
    "astral-and-joiners": "\U0001d11e \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1eb\U0001f1f7 "
    "\u2764\ufe0f \ue000 \U0010fffd",
}

#: The classes whose text can be a file name: no control character, line end or slash.
NAME_TEXTS: dict[str, str] = {
    "byte-order-mark": "\ufeffnotes.md",
    "decomposed": "re\u0301sume\u0301.md",
    "precomposed": "r\u00e9sum\u00e9-\u212b.md",
    "compatibility": "\ufb01le-\uff21\u00b2.md",
    "astral-and-joiners": "\U0001f468\u200d\U0001f469\u200d\U0001f467-\U0001d11e.md",
}

#: The classes whose text the origin's JSON encoder writes raw (no control character to escape), for byte-exact
#: comparisons of <args-json>.
JSON_RAW_TEXTS: dict[str, str] = {name: text for name, text in TEXTS.items() if name not in ("line-ends", "controls")}

#: Object keys in the order given, and in the order Go's encoding/json writes them (by their UTF-8 bytes). A sort by
#: UTF-16 code units (JavaScript's default sort, Java's String.compareTo) puts characters beyond U+FFFF (surrogates,
#: D800..DFFF) before U+E000..U+FFFF; a locale or case-insensitive sort, or a natural sort of digits, differ too.
KEY_ORDERS: dict[str, tuple[list[str], list[str]]] = {
    "beyond-bmp-after-private-use": (["\U0001f600", "\ue000"], ["\ue000", "\U0001f600"]),
    "beyond-bmp-after-halfwidth": (
        ["\U0001d11e clef", "\uff61 stop", "\ufffd", "\U00010000"],
        ["\uff61 stop", "\ufffd", "\U00010000", "\U0001d11e clef"],
    ),
    "shared-prefix": (["id\U0001f511", "id\uffee", "id"], ["id", "id\uffee", "id\U0001f511"]),
    "case-and-punctuation": (["b", "a", "_", "B", "A"], ["A", "B", "_", "a", "b"]),
    "digits-not-numeric": (["10", "9", "1", "100"], ["1", "10", "100", "9"]),
    "accents-by-code-point": (
        ["\u00e9t\u00e9", "zoo", "etre", "\u00e9cole", "Zulu"],
        ["Zulu", "etre", "zoo", "\u00e9cole", "\u00e9t\u00e9"],
    ),
}

assert all(trim(text) == text for text in TEXTS.values()), "a carried text must survive Go's trim unchanged"


def where_changed(expected: str, actual: str) -> str:
    """Where ``actual`` departs from ``expected``, as code points: bounded, for a failure message."""
    at = next(
        (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), min(len(expected), len(actual))
    )

    def points(text: str) -> str:
        return " ".join(f"U+{ord(char):04X}" for char in text[max(0, at - 3) : at + 8])

    return (
        f"{len(expected)} code points expected, {len(actual)} carried; they differ from code point {at}: "
        f"expected {points(expected)}, got {points(actual)}"
    )
