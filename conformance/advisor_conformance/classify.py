"""Which written input classes a drawn input falls in: one plain predicate per class, beside the partition data.

A rule's property tests draw their inputs from the strategies of :mod:`advisor_conformance.strategies`; each class
of the rule's partition (``partitions/<area>.toml``) that those draws can reach has a predicate here, over the drawn
arguments of a property test of the rule (a mapping of argument name to value, as ``@given`` passes them). The
predicates say what the class's ``what`` says, read off the input alone: they are not tuned to any example, and each
property's explicit examples must fall in the classes their labels name (``tests/suite/test_strategy_coverage.py``).

A class the strategies cannot draw (a second call, an HTTP exchange, a workspace, a size far past what is drawn)
has no predicate here; its partition entry says so (``unreachable = "..."``) and its deterministic tests pin it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .oracle import ARG_LIMIT, FILE_LIMIT, FILES_TOTAL, QUESTION_LIMIT, trim

Drawn = Mapping[str, Any]
Predicate = Callable[[Drawn], bool]

#: Go's white space the strategies draw, split into the ASCII and the Unicode ones.
ASCII_SPACE = set("\t\n\v\f\r ")


# -- reading a drawn input ------------------------------------------------------------------------------------------


def strings(value: Any) -> Iterable[str]:
    """Every string in a JSON-like value, object keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item)


def messages(drawn: Drawn, *names: str) -> list[Mapping[str, Any]]:
    """The messages of the named arguments (a transcript, or one message), in order."""
    out: list[Mapping[str, Any]] = []
    for name in names:
        value = drawn.get(name)
        if isinstance(value, Mapping):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, Mapping))
    return out


def text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def calls(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [call for call in message.get("tool_calls") or [] if isinstance(call, Mapping)]


def utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def depth(value: Any) -> int:
    """How deep containers nest in a JSON value (a scalar is 0)."""
    if isinstance(value, Mapping):
        return 1 + max((depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    return 0


def leaves(value: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    """Every scalar of a JSON value with the kinds of containers above it ("o" object, "a" array)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item, (*path, "o"))
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, (*path, "a"))
    else:
        yield path, value


def long_strings(value: Any) -> list[str]:
    return [leaf for _, leaf in leaves(value) if isinstance(leaf, str) and utf8(leaf) > ARG_LIMIT]


def keys(value: Any) -> list[str]:
    if isinstance(value, Mapping):
        return [*value.keys(), *(key for item in value.values() for key in keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in keys(item)]
    return []


def padding(text: str, side: str) -> str:
    """The Go white space on one side of ``text``."""
    core = trim(text)
    if not core:
        return text
    start = text.find(core)
    return text[:start] if side == "left" else text[start + len(core) :]


def any_padding(drawn: Drawn, *names: str) -> str:
    return "".join(str(drawn.get(name) or "") for name in names)


def question_core(question: str) -> str:
    return trim(question)


# -- caller text carried byte for byte (advisor_conformance.carriage) -------------------------------------------

_LINE_ENDS = re.compile("[\r\x85\u2028\u2029\x0b\x0c]")
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f]")

CARRIED: dict[str, Callable[[str], bool]] = {
    "byte-order-mark": lambda text: text.startswith("\ufeff"),
    "decomposed": lambda text: unicodedata.normalize("NFC", text) != text,
    "precomposed": lambda text: unicodedata.normalize("NFD", text) != text,
    "compatibility": lambda text: unicodedata.normalize("NFKC", text) != unicodedata.normalize("NFC", text),
    "line-ends": lambda text: bool(_LINE_ENDS.search(text)),
    "controls": lambda text: bool(_CONTROLS.search(text)),
    "astral-and-joiners": lambda text: any(ord(char) > 0xFFFF or char in "\u200c\u200d\ufe0f" for char in text),
}


def carried(
    texts: Callable[[Drawn], Iterable[str]], prefix: str = "carried", only: Iterable[str] | None = None
) -> dict[str, Predicate]:
    """The carriage classes of a rule whose carried texts ``texts`` picks out of a drawn input (``only`` these)."""
    names = list(CARRIED) if only is None else list(only)
    return {
        f"{prefix}-{name}": (lambda test: lambda drawn: any(test(text) for text in texts(drawn)))(CARRIED[name])
        for name in names
    }


# -- the classifiers, by rule -----------------------------------------------------------------------------------


def _rendered(drawn: Drawn) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """A neutral request's messages (strategies.rendered_messages) as (system messages, the rest before the final)."""
    listed = messages(drawn, "messages")
    before = listed[:-1]
    return [m for m in before if m.get("role") == "system"], [m for m in before if m.get("role") != "system"]


def _tail_blocks(drawn: Drawn) -> int:
    """How many Anthropic blocks the messages before the final one make (an empty assistant message makes none)."""
    _, rest = _rendered(drawn)
    return sum(1 for m in rest if not (m.get("role") == "assistant" and text_of(m) == ""))


def _go_blank(text: str) -> bool:
    return trim(text) == ""


def _system_texts(drawn: Drawn) -> list[str]:
    return [text_of(m) for m in messages(drawn, "messages")[:-1] if m.get("role") == "system"]


def _rendered_texts(drawn: Drawn) -> list[str]:
    return [text_of(m) for m in messages(drawn, "messages")]


_BREAKPOINTS_MESSAGES: dict[str, Predicate] = {
    "no-system": lambda d: not _rendered(d)[0] and len(messages(d, "messages")) > 1,
    "several-system-blocks": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) >= 2,
    "blank-and-empty-messages": lambda d: (
        any(_go_blank(t) for t in _system_texts(d))
        and any(m.get("role") == "assistant" and text_of(m) == "" for m in _rendered(d)[1])
    ),
}

SPACING_CLASSES: dict[str, Predicate] = {
    "empty-tail": lambda d: d["count"] == 0,
    "one-block": lambda d: d["count"] == 1,
    "under-spacing": lambda d: 2 <= d["count"] <= 14,
    "at-spacing": lambda d: d["count"] == 15,
    "just-over-spacing": lambda d: d["count"] == 16,
    "two-and-three-spacings": lambda d: d["count"] in (30, 31),
    "long": lambda d: d["count"] >= 46,
    "no-system": lambda d: not d["system"] and d["count"] >= 16,
}

CLASSIFIERS: dict[str, dict[str, Predicate]] = {
    # -- breakpoints
    "breakpoints.advisor-ttl": {
        "system-only": lambda d: len(messages(d, "messages")) >= 1 and _tail_blocks(d) == 0 and bool(_rendered(d)[0]),
        "system-and-tail": lambda d: bool(_rendered(d)[0]) and 1 <= _tail_blocks(d) <= 15,
        **{k: _BREAKPOINTS_MESSAGES[k] for k in ("no-system", "several-system-blocks", "blank-and-empty-messages")},
        # Every advisor request with a marker writes its TTL: any request with a system block or a tail.
        "ttl-as-documented": lambda d: bool(_rendered(d)[0]) or _tail_blocks(d) >= 1,
    },
    "breakpoints.cache-reuse": {
        "unchanged": lambda d: d["grown"] == 0,
        "from-one-block": lambda d: d["count"] == 1 and 1 <= d["grown"] <= 19,
        "under-spacing": lambda d: 1 <= d["grown"] < 15 and d["count"] > 15,
        "one-spacing": lambda d: d["grown"] == 15,
        "just-under-lookback": lambda d: d["grown"] == 19,
        "short-to-long": lambda d: d["count"] <= 15 and d["count"] + d["grown"] >= 30,
        "crossing-the-budget": lambda d: d["count"] < 46 <= d["count"] + d["grown"],
        "long": lambda d: d["count"] >= 80 and d["grown"] >= 1,
    },
    "breakpoints.default-placement": {
        "final-only": lambda d: len(messages(d, "messages")) >= 1 and not _rendered(d)[1],
        "assistant-before-final": lambda d: bool(_rendered(d)[1]) and _rendered(d)[1][-1].get("role") == "assistant",
        "consecutive-users": lambda d: (
            len(_rendered(d)[1]) >= 2 and [m.get("role") for m in _rendered(d)[1][-2:]] == ["user", "user"]
        ),
        "user-far-back": lambda d: (
            any(m.get("role") == "user" for m in _rendered(d)[1])
            and [m.get("role") for m in _rendered(d)[1][-2:]] == ["assistant", "assistant"]
        ),
        "no-system": _BREAKPOINTS_MESSAGES["no-system"],
        "several-system": lambda d: len(_system_texts(d)) >= 2,
    },
    "breakpoints.default-profile": {
        "short": lambda d: bool(_rendered(d)[0]) and 1 <= len(_rendered(d)[1]) <= 6,
        "no-system": _BREAKPOINTS_MESSAGES["no-system"],
        "several-system-blocks": _BREAKPOINTS_MESSAGES["several-system-blocks"],
    },
    "breakpoints.final-unmarked": {
        "final-after-system": lambda d: bool(_rendered(d)[0]) and not _rendered(d)[1],
        "final-alone": lambda d: len(messages(d, "messages")) == 1,
        "budget-to-spare": lambda d: 1 <= _tail_blocks(d) <= 30,
        "no-system": _BREAKPOINTS_MESSAGES["no-system"],
        "after-empty-assistant": lambda d: (
            bool(_rendered(d)[1])
            and _rendered(d)[1][-1].get("role") == "assistant"
            and text_of(_rendered(d)[1][-1]) == ""
        ),
    },
    "breakpoints.max-four": {
        "no-system": lambda d: _BREAKPOINTS_MESSAGES["no-system"](d) and _tail_blocks(d) >= 46,
        "several-system-blocks": lambda d: _BREAKPOINTS_MESSAGES["several-system-blocks"](d) and _tail_blocks(d) >= 46,
        "default-profile": lambda d: not d["advisor"] and _tail_blocks(d) >= 4,
    },
    "breakpoints.spacing": {
        **SPACING_CLASSES,
    },
    "breakpoints.system-marked": {
        "one-block": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) == 1,
        "several-blocks": _BREAKPOINTS_MESSAGES["several-system-blocks"],
        "blank-last": lambda d: (
            len(_system_texts(d)) >= 2
            and _go_blank(_system_texts(d)[-1])
            and not all(_go_blank(t) for t in _system_texts(d))
        ),
        "after-conversation": lambda d: any(
            m.get("role") == "system" and i > 0 and messages(d, "messages")[i - 1].get("role") != "system"
            for i, m in enumerate(messages(d, "messages")[:-1])
        ),
    },
    "breakpoints.wire-validity": {
        "empty-assistant-at-distance-0": lambda d: (
            bool(_rendered(d)[1]) and _rendered(d)[1][-1] == {"role": "assistant", "content": ""}
        ),
        "empty-user-at-distance-0": lambda d: (
            bool(_rendered(d)[1]) and _rendered(d)[1][-1] == {"role": "user", "content": ""}
        ),
        "empty-inside": lambda d: any(text_of(m) == "" for m in _rendered(d)[1][:-1]),
        "blank-system-last": lambda d: bool(_system_texts(d)) and _go_blank(_system_texts(d)[-1]),
        "system-then-tail": lambda d: d["advisor"] and bool(_rendered(d)[0]) and _tail_blocks(d) >= 1,
        "default-profile": lambda d: not d["advisor"],
        "default-empty-user": lambda d: (
            not d["advisor"] and any(m == {"role": "user", "content": ""} for m in _rendered(d)[1])
        ),
    },
    # -- dedupe
    "dedupe.file-hash": {
        "check-value": lambda d: b"\n" not in d["data"] and len(d["data"]) > 0,
        "leading-zeros": lambda d: _crc(d["data"]) < 0x10000000,
        "trailing-blanks-stripped": lambda d: any(line != line.rstrip(b" \t\r") for line in d["data"].split(b"\n")),
        "other-white-space-kept": lambda d: any(
            line.endswith(tail)
            for line in d["data"].split(b"\n")
            for tail in (b"\x0b", b"\x0c", b"\xa0", b"\xe3\x80\x80")
        ),
        "leading-and-inner-blanks-kept": lambda d: any(
            line[:1] in (b" ", b"\t") or b"\r" in line.rstrip(b" \t\r") for line in d["data"].split(b"\n")
        ),
        "line-structure": lambda d: (
            d["data"].endswith(b"\n\n") or any(line and not line.strip(b" \t\r") for line in d["data"].split(b"\n"))
        ),
        "not-utf8": lambda d: not _is_utf8(d["data"]),
    },
    "dedupe.full-read-match": {
        "matching-read": lambda d: not d["others"],
        "among-other-files": lambda d: bool(d["others"]),
        "any-bytes": lambda d: not d["data"].isascii(),
    },
    # -- elision
    "elision.any-depth": {
        "top-level": lambda d: any(path == ("o",) for path, _ in _long_leaves(d["arguments"])),
        "objects-in-objects": lambda d: any(path[:2] == ("o", "o") for path, _ in _long_leaves(d["arguments"])),
        "array-of-strings": lambda d: any(path[-1:] == ("a",) for path, _ in _long_leaves(d["arguments"])),
        "arrays-in-arrays": lambda d: any(("a", "a") == path[-2:] for path, _ in _long_leaves(d["arguments"])),
        "objects-in-arrays": lambda d: any(path[-2:] == ("a", "o") for path, _ in _long_leaves(d["arguments"])),
        "beside-scalars": lambda d: any(
            isinstance(v, list)
            and any(isinstance(i, str) and utf8(i) > ARG_LIMIT for i in v)
            and any(not isinstance(i, str) for i in v)
            for v in _containers(d["arguments"])
        ),
    },
    "elision.byte-cut": {
        "ascii": lambda d: d["value"].isascii() and utf8(d["value"]) > ARG_LIMIT,
        "boundary-aligned": lambda d: (
            utf8(d["value"]) > ARG_LIMIT
            and _cut_dangles(d["value"]) == 0
            and not d["value"].isascii()
            and not d["value"].encode()[ARG_LIMIT - 1 : ARG_LIMIT].isascii()
        ),
        "two-byte-split": lambda d: _split_width(d["value"]) == 2,
        "three-byte-split": lambda d: _split_width(d["value"]) == 3,
        "four-byte-split": lambda d: _split_width(d["value"]) == 4,
        "all-multibyte": lambda d: utf8(d["value"]) > ARG_LIMIT and all(ord(c) > 0x7F for c in d["value"]),
        "mixed-widths": lambda d: utf8(d["value"]) > ARG_LIMIT and len({utf8(c) for c in d["value"]}) >= 3,
    },
    "elision.marker-format": {
        "just-over": lambda d: utf8(d["value"]) in (1001, 1002, 1003, 1004),
        "multi-digit-n": lambda d: utf8(d["value"]) >= 1000,
        "multibyte-n": lambda d: all(ord(c) > 0x7F for c in d["value"]),
        "after-split-character": lambda d: _cut_dangles(d["value"]) > 0,
    },
    "elision.non-strings-unchanged": {
        "integers": lambda d: any(isinstance(v, int) and not isinstance(v, bool) for _, v in leaves(d["arguments"])),
        "floats": lambda d: any(isinstance(v, float) for _, v in leaves(d["arguments"])),
        "booleans-null": lambda d: any(v is None or isinstance(v, bool) for _, v in leaves(d["arguments"])),
        "containers": lambda d: any(isinstance(v, (list, dict)) for v in d["arguments"].values()),
        "long-keys": lambda d: any(utf8(key) > ARG_LIMIT for key in d["arguments"]),
        "nested-long-keys": lambda d: any(utf8(key) > ARG_LIMIT for v in d["arguments"].values() for key in keys(v)),
        "long-key-of-elided-value": lambda d: any(
            utf8(key) > ARG_LIMIT and isinstance(v, str) and utf8(v) > ARG_LIMIT for key, v in d["arguments"].items()
        ),
    },
    "elision.threshold": {
        "empty": lambda d: d["value"] == "",
        "below-threshold": lambda d: 1 <= utf8(d["value"]) <= 999,
        "at-threshold": lambda d: utf8(d["value"]) == ARG_LIMIT and d["value"].isascii(),
        "multibyte-at-threshold": lambda d: utf8(d["value"]) == ARG_LIMIT and not d["value"].isascii(),
        "just-above": lambda d: ARG_LIMIT < utf8(d["value"]) <= ARG_LIMIT + 4,
        "far-above": lambda d: utf8(d["value"]) >= 2 * ARG_LIMIT,
        "over-in-bytes-not-characters": lambda d: utf8(d["value"]) > ARG_LIMIT and len(d["value"]) < ARG_LIMIT,
        "json-escaped-characters": lambda d: (
            900 <= utf8(d["value"]) <= ARG_LIMIT and bool(re.search(r'["\\\n<\x00-\x1f]', d["value"]))
        ),
    },
    # -- files
    "files.aggregate-cap": {
        "under-total": lambda d: 2 <= len(d["pairs"]) and _file_total(d) < FILES_TOTAL,
        "one-byte-over-total": lambda d: _file_total(d) == FILES_TOTAL + 1,
        "partial-file": lambda d: _file_total(d) > FILES_TOTAL and _overflow_is_partial(d),
        "after-per-file-cap": lambda d: any(len(data) > FILE_LIMIT for _, data in d["pairs"]),
        "nothing-remains": lambda d: _spent_before_last(d),
        "order": lambda d: (
            len(d["pairs"]) >= 4
            and len(d["pairs"][0][1]) < 1000
            and sum(len(data) > 30000 for _, data in d["pairs"][1:]) >= 3
        ),
        "invalid-utf8-counted-raw": lambda d: any(not _is_utf8(data) for _, data in d["pairs"]),
    },
    "files.invalid-utf8": {
        "invalid-bytes": lambda d: any(b in d["data"] for b in (b"\xff", b"\xfe", b"\xf5", b"\xf8", b"\xfd")),
        "truncated-sequence": lambda d: bool(re.search(rb"[\xe0-\xf4][\x80-\xbf]{0,2}(?![\x80-\xbf])", d["data"])),
        "ill-formed-sequence": lambda d: bool(
            re.search(rb"\xed[\xa0-\xbf]|[\xc0\xc1]|\xe0[\x80-\x9f]|\xf4[\x90-\xbf]", d["data"])
        ),
        "lone-continuations": lambda d: bool(re.search(rb"(?:^|[\x00-\x7f])[\x80-\xbf]", d["data"])),
        "valid-multibyte": lambda d: _is_utf8(d["data"]) and not d["data"].isascii(),
        "invalid-at-cap": lambda d: len(d["data"]) == FILE_LIMIT and not _is_utf8(d["data"]),
        "invalid-over-cap": lambda d: len(d["data"]) > FILE_LIMIT and not _is_utf8(d["data"]),
        "truncated-at-cut": lambda d: (
            len(d["data"]) > FILE_LIMIT and _is_utf8(d["data"]) and not _is_utf8(d["data"][:FILE_LIMIT])
        ),
    },
    "files.render-format": {
        "plain": lambda d: bool(d["text"]) and not d["text"].endswith("\n"),
        "empty-content": lambda d: d["text"] == "",
        "trailing-newline": lambda d: d["text"].endswith("\n"),
        "fence-inside": lambda d: "```" in d["text"],
        "crlf": lambda d: "\r\n" in d["text"],
        **carried(lambda d: [d["text"]]),
        **carried(
            lambda d: [d["path"]],
            "path",
            ("byte-order-mark", "decomposed", "precomposed", "compatibility", "astral-and-joiners"),
        ),
    },
    # -- flatten
    "flatten.advisor-note": {
        "one-line": lambda d: "\n" not in d["content"] and bool(d["content"].strip()),
        "multi-line-padded": lambda d: "\n" in trim(d["content"]) and d["content"] != trim(d["content"]),
        "blank": lambda d: _go_blank(d["content"]),
        **carried(lambda d: [d["content"]]),
    },
    "flatten.args-json": {
        "empty-object": lambda d: d["arguments"] == {},
        "flat-strings": lambda d: bool(d["arguments"]) and all(isinstance(v, str) for v in d["arguments"].values()),
        "nested": lambda d: depth(d["arguments"]) >= 3,
        "scalars": lambda d: sum(not isinstance(v, str) for _, v in leaves(d["arguments"])) >= 3,
        "escapes": lambda d: any(c in s for s in strings(d["arguments"]) for c in '"\\\n\t\r'),
        "control-characters": lambda d: any(_CONTROLS.search(s) for s in strings(d["arguments"])),
        "non-ascii-and-html": lambda d: (
            any(not s.isascii() for s in strings(d["arguments"]))
            and any(c in s for s in strings(d["arguments"]) for c in "<>&")
        ),
        "unusual-keys": lambda d: any(key == "" or not key.isascii() or " " in key for key in keys(d["arguments"])),
        "brackets": lambda d: any(c in s for s in strings(d["arguments"]) for c in "[]{}"),
        **carried(lambda d: strings(d["arguments"])),
    },
    "flatten.args-json-origin-encoding": {
        "sorted-compact": lambda d: list(d["arguments"]) != sorted(d["arguments"]),
        "nested-sorted": lambda d: any(
            len(v) >= 2 for v in _containers(d["arguments"]) if isinstance(v, dict) and v is not d["arguments"]
        ),
        "empty-object": lambda d: d["arguments"] == {},
        "html-escapes": lambda d: any(c in s for s in strings(d["arguments"]) for c in "<>&"),
        "line-separators": lambda d: any("\u2028" in s or "\u2029" in s for s in strings(d["arguments"])),
        "control-characters": lambda d: any(re.search("[\x00-\x1f\x7f]", s) for s in strings(d["arguments"])),
        "float64-numbers": lambda d: any(isinstance(v, float) for _, v in leaves(d["arguments"])),
        "signed-zeros": lambda d: any(isinstance(v, float) and v == 0 for _, v in leaves(d["arguments"])),
        "key-order-bytes": lambda d: len({k[:1].isupper() for k in d["arguments"] if k}) == 2,
        "non-ascii-raw": lambda d: any(not s.isascii() for s in strings(d["arguments"])),
        "dangling-bytes": lambda d: any(_cut_dangles(s) > 0 for s in long_strings(d["arguments"])),
        **{
            k: v
            for k, v in carried(lambda d: strings(d["arguments"])).items()
            if k not in ("carried-line-ends", "carried-controls")
        },
        "key-order-beyond-bmp-after-private-use": lambda d: _mixes_planes(keys(d["arguments"]), 0xE000),
        "key-order-beyond-bmp-after-halfwidth": lambda d: _mixes_planes(keys(d["arguments"]), 0xFF00),
        "key-order-case-and-punctuation": lambda d: (
            any(k[:1].isupper() for k in keys(d["arguments"]))
            and any(k[:1].islower() for k in keys(d["arguments"]))
            and any(k[:1] == "_" for k in keys(d["arguments"]))
        ),
        "key-order-digits-not-numeric": lambda d: sum(k.isdigit() for k in keys(d["arguments"])) >= 2,
        "key-order-accents-by-code-point": lambda d: any(
            k[:1] in "\u00e0\u00e9\u00e8\u00ea\u00f6\u00fc" for k in keys(d["arguments"]) if k
        ),
        "key-order-shared-prefix": lambda d: any(
            a != b and b.startswith(a) and a for a in keys(d["arguments"]) for b in keys(d["arguments"])
        ),
    },
    "flatten.assistant-with-calls": {
        "empty-content": lambda d: text_of(d["message"]) == "" and len(calls(d["message"])) == 1,
        "blank-content": lambda d: text_of(d["message"]) != "" and _go_blank(text_of(d["message"])),
        "text-one-call": lambda d: not _go_blank(text_of(d["message"])) and len(calls(d["message"])) == 1,
        "several-calls": lambda d: len(calls(d["message"])) >= 2,
        "repeated-call": lambda d: (
            len({repr(sorted(c.items())) for c in calls(d["message"])}) < len(calls(d["message"]))
        ),
        "content-ends-in-newline": lambda d: (
            text_of(d["message"]).endswith("\n") and not _go_blank(text_of(d["message"]))
        ),
        **carried(lambda d: [text_of(d["message"])]),
    },
    "flatten.call-ids-hidden": {
        "one-call-and-result": lambda d: len(calls(d["message"])) == 1 and not d["more"],
        "parallel-calls": lambda d: len(calls(d["message"])) >= 2,
        "several-messages": lambda d: bool(d["more"]),
        "advisor-call": lambda d: any(c.get("name") == "advisor" for c in [*calls(d["message"]), *d["more"]]),
    },
    "flatten.deterministic": {
        "empty": lambda d: not d["transcript"] and d["question"] == "",
        "long-arguments": lambda d: any(long_strings(c.get("arguments")) for m in d["transcript"] for c in calls(m)),
        "reasoning-and-metadata": lambda d: any("reasoning_content" in m or "metadata" in m for m in d["transcript"]),
        "in-flight": lambda d: bool(d["transcript"]) and d["transcript"][-1].get("role") == "assistant",
        "question-over-cap": lambda d: utf8(trim(d["question"])) > QUESTION_LIMIT,
    },
    "flatten.plain-messages-kept": {
        "system": lambda d: any(m.get("role") == "system" for m in d["plain"]),
        "user": lambda d: any(m.get("role") == "user" for m in d["plain"]),
        "assistant": lambda d: any(m.get("role") == "assistant" for m in d["plain"]),
        "empty": lambda d: any(text_of(m) == "" for m in d["plain"] if m.get("role") in ("user", "assistant")),
        "blank": lambda d: any(text_of(m) != "" and _go_blank(text_of(m)) for m in d["plain"]),
        "trailing-white-space": lambda d: any(
            m.get("role") == "assistant" and text_of(m).strip() and text_of(m)[-1:].isspace() for m in d["plain"]
        ),
        "multi-line": lambda d: any("\n" in trim(text_of(m)) for m in d["plain"]),
        "unicode": lambda d: any(not text_of(m).isascii() for m in d["plain"]),
        **carried(lambda d: [text_of(m) for m in d["plain"]]),
    },
    "flatten.reasoning-cleared": {
        "assistant-text": lambda d: any(
            m.get("role") == "assistant" and text_of(m) and not calls(m) and "reasoning_content" in m
            for m in d["transcript"]
        ),
        "assistant-with-calls": lambda d: any(
            m.get("role") == "assistant" and text_of(m) and calls(m) and "reasoning_content" in m
            for m in d["transcript"]
        ),
        "calls-without-text": lambda d: any(
            m.get("role") == "assistant" and not text_of(m) and calls(m) and "reasoning_content" in m
            for m in d["transcript"]
        ),
        "reasoning-only": lambda d: any(
            m.get("role") == "assistant" and not text_of(m) and not calls(m) and "reasoning_content" in m
            for m in d["transcript"]
        ),
        "several-messages": lambda d: sum("reasoning_content" in m for m in d["transcript"]) >= 2,
        "multi-line": lambda d: any("\n" in str(m.get("reasoning_content", "")) for m in d["transcript"]),
    },
    "flatten.tool-call-line": {
        "string-arguments": lambda d: (
            bool(d["call"]["arguments"]) and all(isinstance(v, str) for v in d["call"]["arguments"].values())
        ),
        "empty-arguments": lambda d: d["call"]["arguments"] == {},
        "nested-arguments": lambda d: depth(d["call"]["arguments"]) >= 2,
        "newlines-and-brackets": lambda d: any("\n" in s or "]" in s for s in strings(d["call"]["arguments"])),
        "advisor-call": lambda d: d["call"]["name"] == "advisor",
        "elided-arguments": lambda d: bool(long_strings(d["call"]["arguments"])),
    },
    "flatten.tool-result": {
        "one-line": lambda d: "\n" not in d["content"] and not _go_blank(d["content"]),
        "padded": lambda d: not _go_blank(d["content"]) and d["content"] != trim(d["content"]),
        "multi-line": lambda d: "\n" in d["content"] and not _go_blank(d["content"]),
        "blank": lambda d: _go_blank(d["content"]),
        **carried(lambda d: [d["content"]]),
    },
    # -- handler
    "handler.note-trimmed": {
        "ascii-padding": lambda d: bool(set(any_padding(d, "pad_left", "pad_right")) & ASCII_SPACE),
        "unicode-padding": lambda d: bool(set(any_padding(d, "pad_left", "pad_right")) - ASCII_SPACE),
        "one-side": lambda d: bool(d["pad_left"]) != bool(d["pad_right"]),
        "inner-space": lambda d: any(c.isspace() for c in d["text"]),
        "no-padding": lambda d: not d["pad_left"] and not d["pad_right"],
        "not-go-space": lambda d: (
            d["text"][:1] in "\x1c\x1d\x1e\x1f\ufeff\u200b" or d["text"][-1:] in "\x1c\x1d\x1e\x1f\ufeff\u200b"
        ),
        **carried(lambda d: [d["text"]]),
    },
    "handler.one-request": {
        "question": lambda d: bool(trim(d["question"])),
        "empty-or-blank-question": lambda d: not trim(d["question"]),
        "snapshot-shapes": lambda d: any(calls(m) for m in d["transcript"]) or not d["transcript"],
    },
    # -- in-flight
    "inflight.assistant-removed": {
        "text-and-calls": lambda d: not _go_blank(text_of(d["last"])) and bool(calls(d["last"])),
        "text-only": lambda d: not _go_blank(text_of(d["last"])) and not calls(d["last"]),
        "empty-with-calls": lambda d: text_of(d["last"]) == "" and bool(calls(d["last"])),
        "blank-text": lambda d: _go_blank(text_of(d["last"])) and not calls(d["last"]),
        "several-calls-and-reasoning": lambda d: len(calls(d["last"])) >= 2 and "reasoning_content" in d["last"],
        "only-message": lambda d: not d["earlier"],
    },
    "inflight.block-layout": {
        "no-padding": lambda d: not d["pad"] and trim(d["text"]) == d["text"],
        "ascii-padding": lambda d: bool(set(d["pad"]) & ASCII_SPACE),
        "unicode-padding": lambda d: bool(set(d["pad"]) - ASCII_SPACE),
        "inner-white-space": lambda d: any(c.isspace() for c in trim(d["text"])),
        "trailing-newlines": lambda d: (d["text"] + d["pad"]).endswith("\n\n"),
        "not-go-space-edges": lambda d: (
            trim(d["text"])[:1] in "\x1c\ufeff\u200b" or trim(d["text"])[-1:] in "\x1c\ufeff\u200b"
        ),
        **carried(lambda d: [d["text"]]),
    },
    "inflight.label-at-head": {
        "text-alone": lambda d: not trim(d["question"]),
        "with-question": lambda d: bool(trim(d["question"])),
        "blank-question": lambda d: d["question"] != "" and not trim(d["question"]),
        "capped-question": lambda d: utf8(trim(d["question"])) > QUESTION_LIMIT,
    },
    "inflight.last-message-only": {
        "assistant-then-user": lambda d: "text" in d and bool(d["earlier"]) and d["earlier"][-1].get("role") != "tool",
        "two-trailing-assistants": lambda d: "before" in d,
    },
    "inflight.other-role-stays": {
        "tool-result": lambda d: d["last"].get("role") == "tool" and d["last"].get("name") != "advisor",
        "advisor-result": lambda d: d["last"].get("role") == "tool" and d["last"].get("name") == "advisor",
        "empty-tool-result": lambda d: d["last"].get("role") == "tool" and text_of(d["last"]) == "",
        "user": lambda d: d["last"].get("role") == "user",
        "system": lambda d: d["last"].get("role") == "system",
        "only-message": lambda d: not d["earlier"] and d["last"].get("role") == "user",
    },
    # -- question
    "question.blank-line": {
        "question-alone": lambda d: bool(trim(d["question"])),
        "question-ends-in-newlines": lambda d: d["question"].rstrip(" \t").endswith("\n") and bool(trim(d["question"])),
        "capped-question": lambda d: utf8(trim(d["question"])) > QUESTION_LIMIT,
    },
    "question.cap": {
        "below-cap": lambda d: 0 < utf8(trim(d["question"])) < QUESTION_LIMIT,
        "at-cap": lambda d: utf8(trim(d["question"])) == QUESTION_LIMIT,
        "just-above-cap": lambda d: QUESTION_LIMIT < utf8(trim(d["question"])) <= QUESTION_LIMIT + 4,
        "far-above-cap": lambda d: utf8(trim(d["question"])) >= 2 * QUESTION_LIMIT,
        "multibyte-split": lambda d: (
            utf8(trim(d["question"])) > QUESTION_LIMIT and _cut_dangles(trim(d["question"]), QUESTION_LIMIT) > 0
        ),
        "trimmed-under-cap": lambda d: utf8(d["question"]) > QUESTION_LIMIT >= utf8(trim(d["question"])),
    },
    "question.trim": {
        "ascii-padding": lambda d: bool(set(any_padding(d, "pad_left", "pad_right")) & ASCII_SPACE),
        "unicode-padding": lambda d: bool(set(any_padding(d, "pad_left", "pad_right")) - ASCII_SPACE),
        "one-side": lambda d: bool(d["pad_left"]) != bool(d["pad_right"]),
        "inner-space": lambda d: any(c.isspace() for c in d["core"]),
        "not-go-space": lambda d: d["core"][:1] in "\x1c\ufeff\u200b" or d["core"][-1:] in "\x1c\ufeff\u200b",
        "no-padding": lambda d: not d["pad_left"] and not d["pad_right"],
        **carried(lambda d: [d["core"]]),
    },
    # -- request
    "request.final-message-order": {
        "all-blocks": lambda d: d["inflight"] and len(d["files"]) >= 2 and bool(trim(d["question"])),
        "guidance-alone": lambda d: not d["inflight"] and not d["files"] and not trim(d["question"]),
        "in-flight-and-question": lambda d: d["inflight"] and not d["files"] and bool(trim(d["question"])),
        "in-flight-and-file": lambda d: d["inflight"] and len(d["files"]) == 1 and not trim(d["question"]),
        "files-and-question": lambda d: not d["inflight"] and bool(d["files"]) and bool(trim(d["question"])),
        "files-in-given-order": lambda d: (
            len(d["files"]) >= 2 and [p for p, _ in d["files"]] != sorted(p for p, _ in d["files"])
        ),
        "question-alone": lambda d: not d["inflight"] and not d["files"] and bool(trim(d["question"])),
        "blank-question": lambda d: (
            d["inflight"] and bool(d["files"]) and d["question"] != "" and not trim(d["question"])
        ),
    },
    "request.guidance-request": {
        "nothing-else": lambda d: not _trailing_assistant_text(d) and not d["files"] and not trim(d["question"]),
        "after-question": lambda d: bool(trim(d["question"])),
        "after-capped-question": lambda d: utf8(trim(d["question"])) > QUESTION_LIMIT,
        "after-file": lambda d: bool(d["files"]) and not trim(d["question"]),
        "after-in-flight": lambda d: _trailing_assistant_text(d) and not d["files"] and not trim(d["question"]),
    },
    "request.message-sequence": {
        "empty-snapshot": lambda d: not d["transcript"],
        "system-mid-snapshot": lambda d: any(m.get("role") == "system" for m in d["transcript"][1:]),
        "ends-with-user": lambda d: (
            bool(d["transcript"]) and d["transcript"][-1].get("role") == "user" and bool(trim(d["question"]))
        ),
        "ends-with-tool-result": lambda d: (
            bool(d["transcript"]) and d["transcript"][-1].get("role") == "tool" and bool(d["files"])
        ),
        "consecutive-same-role": lambda d: any(
            a.get("role") == b.get("role") for a, b in zip(d["transcript"], d["transcript"][1:], strict=False)
        ),
        "calls-flattened-one-each": lambda d: any(len(calls(m)) >= 2 for m in d["transcript"]),
        "in-flight-files-and-question": lambda d: (
            _trailing_assistant_text(d) and len(d["files"]) >= 2 and bool(trim(d["question"]))
        ),
        "only-in-flight": lambda d: len(d["transcript"]) == 1 and d["transcript"][0].get("role") == "assistant",
    },
    "request.no-tools": {
        "calls-and-results": lambda d: (
            any(calls(m) for m in d["transcript"]) and any(m.get("role") == "tool" for m in d["transcript"])
        ),
        "reasoning-and-metadata": lambda d: any("reasoning_content" in m and "metadata" in m for m in d["transcript"]),
        "in-flight-with-calls": lambda d: (
            bool(d["transcript"])
            and d["transcript"][-1].get("role") == "assistant"
            and bool(calls(d["transcript"][-1]))
        ),
        "no-snapshot": lambda d: not d["transcript"],
    },
    "request.prefix-stable-across-calls": {
        "question-differs": lambda d: (
            trim(d["first"][0]) != trim(d["second"][0])
            and bool(d["transcript"])
            and d["transcript"][-1].get("role") == "user"
        ),
        "question-added": lambda d: not trim(d["first"][0]) and bool(trim(d["second"][0])),
        "files-differ": lambda d: (
            d["first"][1] != d["second"][1] and bool(d["transcript"]) and d["transcript"][-1].get("role") == "tool"
        ),
        "in-flight": lambda d: bool(d["transcript"]) and d["transcript"][-1].get("role") == "assistant",
        "empty-snapshot": lambda d: not d["transcript"],
    },
    "request.prefix-stable-on-append": {
        "first-message": lambda d: not d["transcript"],
        "user-after-user": lambda d: (
            bool(d["transcript"])
            and d["transcript"][-1].get("role") == "user"
            and d["appended"][0].get("role") == "user"
            and bool(trim(d["question"]))
        ),
        "several-after-elided-arguments": lambda d: (
            len(d["appended"]) >= 4 and any(long_strings(c.get("arguments")) for m in d["transcript"] for c in calls(m))
        ),
        "many-tool-results": lambda d: sum(m.get("role") == "tool" for m in [*d["transcript"], *d["appended"]]) > 4,
    },
    "request.system-prompt": {
        "empty-snapshot": lambda d: not d["transcript"] and not d["files"] and not trim(d["question"]),
        "snapshot-opens-with-system": lambda d: bool(d["transcript"]) and d["transcript"][0].get("role") == "system",
        "question-and-files": lambda d: bool(trim(d["question"])) and len(d["files"]) >= 2,
        "in-flight": lambda d: _trailing_assistant_text(d),
    },
    # -- transcript
    "transcript.malformed-rejected": {
        "missing-role": lambda d: _case(d) == "missing-role",
        "role-not-a-string": lambda d: _case(d) in ("role-not-a-string", "role-null"),
        "content-wrong-type": lambda d: (
            _case(d)
            in (
                "numeric-content",
                "array-content",
                "boolean-content",
                "assistant-object-content",
                "tool-content-object",
            )
        ),
        "tool-calls-on-non-assistant": lambda d: (
            _case(d) in ("tool-calls-on-user", "tool-calls-on-system", "tool-calls-on-tool")
        ),
        "tool-calls-not-a-list-of-objects": lambda d: _case(d) in ("tool-calls-object", "tool-call-not-object"),
        "arguments-not-object": lambda d: (_case(d) or "").startswith("arguments-"),
        "later-call-arguments": lambda d: _case(d) == "second-call-arguments",
        "call-name-wrong-type": lambda d: _case(d) == "call-name-number",
        "tool-message-fields-wrong-type": lambda d: _case(d) in ("tool-name-number", "tool-call-id-number"),
        "reasoning-wrong-type": lambda d: _case(d) in ("reasoning-number", "assistant-reasoning-object"),
        "message-not-object": lambda d: (_case(d) or "").startswith("message-"),
        "first-message": lambda d: _case(d) is not None and not d["before"],
        "last-message-in-flight": lambda d: _case(d) is not None and not d["after"] and len(d["before"]) >= 3,
    },
    "transcript.roles": {
        "empty": lambda d: not d["transcript"],
        "system-and-user": lambda d: any(
            a.get("role") == "system" and b.get("role") == "user"
            for a, b in zip(d["transcript"], d["transcript"][1:], strict=False)
        ),
        "assistant-text": lambda d: any(
            m.get("role") == "assistant" and text_of(m) and not calls(m) for m in d["transcript"]
        ),
        "one-call-and-result": lambda d: any(
            len(calls(m)) == 1 and i + 1 < len(d["transcript"]) and d["transcript"][i + 1].get("role") == "tool"
            for i, m in enumerate(d["transcript"])
        ),
        "several-calls": lambda d: any(len(calls(m)) >= 3 for m in d["transcript"]),
        "reasoning-and-metadata": lambda d: any("reasoning_content" in m and "metadata" in m for m in d["transcript"]),
        "advisor-result-and-unicode": lambda d: (
            any(m.get("role") == "tool" and m.get("name") == "advisor" for m in d["transcript"])
            and any(not text_of(m).isascii() for m in d["transcript"] if m.get("role") == "user")
        ),
        "repeated-roles-empty-text": lambda d: (
            any(a.get("role") == b.get("role") for a, b in zip(d["transcript"], d["transcript"][1:], strict=False))
            and any(text_of(m) == "" for m in d["transcript"] if m.get("role") == "user")
        ),
    },
    # -- wire
    "wire.anthropic-messages": {
        "alternating": lambda d: (
            len(_rendered(d)[1]) >= 2
            and all(a.get("role") != b.get("role") for a, b in zip(_rendered(d)[1], _rendered(d)[1][1:], strict=False))
        ),
        "consecutive-same-role": lambda d: any(
            a.get("role") == b.get("role") for a, b in zip(_rendered(d)[1], _rendered(d)[1][1:], strict=False)
        ),
        "white-space-kept": lambda d: any(text_of(m) and text_of(m) != text_of(m).strip() for m in _rendered(d)[1]),
        "empty-assistant-dropped": lambda d: any(m == {"role": "assistant", "content": ""} for m in _rendered(d)[1]),
        "several-empty-assistants": lambda d: any(
            a == b == {"role": "assistant", "content": ""}
            for a, b in zip(_rendered(d)[1], _rendered(d)[1][1:], strict=False)
        ),
        "empty-user": lambda d: any(m == {"role": "user", "content": ""} for m in _rendered(d)[1]),
        "non-ascii": lambda d: any(not text_of(m).isascii() for m in _rendered(d)[1]),
        **carried(lambda d: [text_of(m) for m in _rendered(d)[1]]),
    },
    "wire.anthropic-no-key": {
        "plain": lambda d: not d["stream"] and d["reasoning"] is None,
        "stream-reasoning": lambda d: d["stream"] and d["reasoning"] is not None,
        "default-profile": lambda d: not d["advisor"],
        "no-system": lambda d: not _rendered(d)[0],
    },
    "wire.anthropic-nonempty": {
        "empty-user-and-assistant": lambda d: (
            d["advisor"]
            and any(text_of(m) == "" and m.get("role") == "user" for m in _rendered(d)[1])
            and any(text_of(m) == "" and m.get("role") == "assistant" for m in _rendered(d)[1])
        ),
        "empty-second-to-last-user": lambda d: not d["advisor"] and _second_to_last_user_empty(d),
        "empty-system": lambda d: any(t == "" for t in _system_texts(d)),
        "empty-assistant-before-final": lambda d: (
            bool(_rendered(d)[1]) and _rendered(d)[1][-1] == {"role": "assistant", "content": ""}
        ),
    },
    "wire.anthropic-system-blocks": {
        "none": lambda d: not _system_texts(d),
        "one": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) == 1,
        "several-in-order": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) >= 2,
        "blank-skipped": lambda d: any(_go_blank(t) and set(t) <= ASCII_SPACE for t in _system_texts(d)),
        "padded-kept-whole": lambda d: any(not _go_blank(t) and t != t.strip() for t in _system_texts(d)),
        "mid-conversation": lambda d: any(
            m.get("role") == "system" for m in messages(d, "messages")[:-1][len(_leading_system(d)) :]
        ),
        **carried(lambda d: [t for t in _system_texts(d) if not _go_blank(t)]),
    },
    "wire.codex-instructions": {
        "no-system": lambda d: not _system_texts(d),
        "one-system": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) == 1,
        "several-joined": lambda d: sum(not _go_blank(t) for t in _system_texts(d)) >= 2,
        "padded-trimmed": lambda d: any(not _go_blank(t) and t != trim(t) for t in _system_texts(d)),
        "blank-skipped": lambda d: any(_go_blank(t) for t in _system_texts(d)),
        "mid-conversation": lambda d: any(
            m.get("role") == "system" for m in messages(d, "messages")[:-1][len(_leading_system(d)) :]
        ),
        "empty-left-out": lambda d: any(text_of(m) == "" for m in _rendered(d)[1]),
        "consecutive-same-role": lambda d: any(
            a.get("role") == b.get("role") for a, b in zip(_rendered(d)[1], _rendered(d)[1][1:], strict=False)
        ),
        **carried(lambda d: [text_of(m) for m in _rendered(d)[1]]),
    },
    "wire.typed-params": {
        "anthropic": lambda d: True,
        "openai": lambda d: True,
        "codex": lambda d: True,
    },
}


# -- the helpers the predicates share ---------------------------------------------------------------------------


def _crc(data: bytes) -> int:
    import zlib

    return zlib.crc32(b"\n".join(line.rstrip(b" \t\r") for line in data.split(b"\n")))


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _long_leaves(arguments: Any) -> list[tuple[tuple[str, ...], Any]]:
    return [(path, leaf) for path, leaf in leaves(arguments) if isinstance(leaf, str) and utf8(leaf) > ARG_LIMIT]


def _containers(value: Any) -> Iterable[Any]:
    if isinstance(value, (Mapping, list)):
        yield value
        for item in value.values() if isinstance(value, Mapping) else value:
            yield from _containers(item)


def _cut_dangles(text: str, limit: int = ARG_LIMIT) -> int:
    """How many bytes of a character cut at ``limit`` bytes are kept (0: the cut falls between characters)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return 0
    start = limit
    while start > 0 and 0x80 <= data[start] <= 0xBF:
        start -= 1
    return limit - start


def _split_width(text: str) -> int:
    """The width of the character a cut at 1000 bytes splits (0 when it splits none)."""
    if _cut_dangles(text) == 0:
        return 0
    data = text.encode("utf-8")
    lead = data[ARG_LIMIT - _cut_dangles(text)]
    return 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _mixes_planes(names: list[str], low: int) -> bool:
    """Keys with a character above U+FFFF and keys with one in [low, U+FFFF] at the same place."""

    def first_big(key: str) -> int | None:
        return next((ord(c) for c in key if ord(c) >= low), None)

    points = [p for p in (first_big(key) for key in names) if p is not None]
    return any(p > 0xFFFF for p in points) and any(low <= p <= 0xFFFF for p in points)


def _file_total(drawn: Drawn) -> int:
    return sum(min(len(data), FILE_LIMIT + 35) for _, data in drawn["pairs"])


def _overflow_is_partial(drawn: Drawn) -> bool:
    remaining = FILES_TOTAL
    for _, data in drawn["pairs"]:
        size = min(len(data), FILE_LIMIT + 35)
        if size > remaining > 0:
            return True
        remaining = max(0, remaining - size)
    return False


def _spent_before_last(drawn: Drawn) -> bool:
    remaining = FILES_TOTAL
    for index, (_, data) in enumerate(drawn["pairs"]):
        if remaining == 0 and index > 0:
            return True
        remaining = max(0, remaining - min(len(data), FILE_LIMIT + 35))
    return False


def _trailing_assistant_text(drawn: Drawn) -> bool:
    transcript = drawn.get("transcript") or []
    return bool(transcript) and transcript[-1].get("role") == "assistant" and not _go_blank(text_of(transcript[-1]))


def _leading_system(drawn: Drawn) -> list[Mapping[str, Any]]:
    out = []
    for message in messages(drawn, "messages")[:-1]:
        if message.get("role") != "system":
            break
        out.append(message)
    return out


def _second_to_last_user_empty(drawn: Drawn) -> bool:
    users = [m for m in _rendered(drawn)[1] if m.get("role") == "user"]
    return bool(users) and text_of(users[-1]) == ""


def _case(drawn: Drawn) -> str | None:
    case = drawn.get("case")
    return case[0] if isinstance(case, tuple) and case else None


def classes(rule: str, drawn: Drawn) -> set[str]:
    """The classes of ``rule`` a drawn input of one of its property tests falls in (predicates that fail on an input
    of another test's shape count as not falling in)."""
    out = set()
    for class_id, predicate in CLASSIFIERS.get(rule, {}).items():
        try:
            if predicate(drawn):
                out.add(class_id)
        except (KeyError, TypeError, AttributeError, IndexError):
            continue
    return out


__all__ = ["CARRIED", "CLASSIFIERS", "classes"]
