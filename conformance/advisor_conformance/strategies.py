"""Hypothesis strategies for transcripts, tool arguments, files and questions.

Sizes are steered to the spec's edges: strings around the 1000-byte elision
threshold built from 1- to 4-byte characters (so cuts land inside
characters), files around 32768 bytes, questions around 4000 bytes, and
white space from Go's set and just outside it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .carriage import KEY_ORDERS, NAME_TEXTS, TEXTS
from .oracle import trim

# Characters of every UTF-8 width, and the JSON characters the origin escapes.
UNITS = ["a", "Z", " ", "\n", "é", "ß", "€", "中", "😀", "𝄞", "<", "&", "\u2028", '"', "\\"]
GO_SPACES = ["\t", "\n", "\v", "\f", "\r", " ", "\u0085", "\u00a0", "\u2003", "\u3000", "\u2028"]
NOT_GO_SPACES = ["\x1c", "\ufeff", "\u200b"]  # trimmed by Python or JavaScript, not by Go


def go_padding(max_size: int) -> st.SearchStrategy[str]:
    """Up to ``max_size`` characters of Go's white-space set (what unicode.IsSpace trims), the empty string included."""
    return st.lists(st.sampled_from(GO_SPACES), max_size=max_size).map("".join)


#: Texts of the shapes a text's rules turn on, which arbitrary text draws with negligible probability: the carried
#: texts of advisor_conformance.carriage (a byte-order mark first, NFD, compatibility characters, line ends, controls,
#: joiners), text ending in newlines or padded, CRLF lines, a fence, text that looks like a tool line, characters
#: outside Go's white space at the edges.
SHAPED_TEXTS = [
    *TEXTS.values(),
    "first line\n",
    "ends in blank lines\n\n\n",
    "  padded both sides \n",
    "one\r\ntwo\r\n",
    "```go\nx := 1\n```",
    "[tool_result: bash]\nexit 0",
    '[tool_call: read {"path":"a.go"}]',
    "\n\nleading blank lines",
    "line one\n\n  indented\tand tabbed",
    "\x1cedge\u200b",
    "\ufeffa byte-order mark first",
]


def texts(min_size: int = 0, max_size: int = 80) -> st.SearchStrategy[str]:
    """Text: arbitrary, or one of :data:`SHAPED_TEXTS` that fits the sizes."""
    shaped = [text for text in SHAPED_TEXTS if min_size <= len(text) <= max_size]
    arbitrary = st.text(min_size=min_size, max_size=max_size)
    return st.one_of(arbitrary, st.sampled_from(shaped)) if shaped else arbitrary


def go_trimmed_text(max_size: int) -> st.SearchStrategy[str]:
    """Non-empty text that Go's trimming leaves as it is (the core that ``go_padding`` surrounds)."""
    return texts(1, max_size).filter(lambda text: trim(text) == text)


TOOL_NAMES = ["read", "grep", "bash", "edit", "mutate", "list_dir", "advisor", "web_fetch"]


def _fill(units: list[str], target: int) -> str:
    """Repeat ``units`` until the UTF-8 length reaches ``target`` bytes (overshooting by < 4)."""
    out, size, i = [], 0, 0
    while size < target:
        unit = units[i % len(units)]
        out.append(unit)
        size += len(unit.encode("utf-8"))
        i += 1
    return "".join(out)


def sized_text(min_bytes: int, max_bytes: int) -> st.SearchStrategy[str]:
    """Strings whose UTF-8 length lies between the bounds (give or take one character)."""
    return st.builds(_fill, st.lists(st.sampled_from(UNITS), min_size=1, max_size=4), st.integers(min_bytes, max_bytes))


def short_text(max_size: int = 24) -> st.SearchStrategy[str]:
    return texts(0, max_size)


def arg_strings() -> st.SearchStrategy[str]:
    """Argument strings: mostly short, often near the 1000-byte threshold, sometimes far over it."""
    return st.one_of(short_text(), sized_text(990, 1010), sized_text(1, 3000))


json_numbers = st.one_of(
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_scalars = st.one_of(st.none(), st.booleans(), json_numbers)
#: Keys whose order differs between a sort by UTF-8 bytes (Go's) and other sorts: beyond and below U+FFFF, case,
#: digits, accents (advisor_conformance.carriage.KEY_ORDERS), and the carried names.
ORDERED_KEYS = sorted({key for given, _ in KEY_ORDERS.values() for key in given} | set(NAME_TEXTS.values()))
object_keys = st.one_of(st.text(max_size=10), st.sampled_from(ORDERED_KEYS), sized_text(1001, 1200))


def json_values(strings: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[Any]:
    """Any JSON value, nested, with strings from ``strings``."""
    leaves = st.one_of(json_scalars, arg_strings() if strings is None else strings)
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(object_keys, inner, max_size=3)),
        max_leaves=8,
    )


def arguments() -> st.SearchStrategy[dict[str, Any]]:
    """Tool-call arguments: a JSON object."""
    return st.dictionaries(object_keys, json_values(), max_size=4)


def tool_names() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(TOOL_NAMES), st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True))


def tool_calls() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"id": st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True), "name": tool_names(), "arguments": arguments()}
    )


def _optional(base: dict[str, Any], extra: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(base, optional=extra)


def system_messages() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"role": st.just("system"), "content": short_text(80)})


def user_messages() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"role": st.just("user"), "content": short_text(80)})


def assistant_messages(with_calls: bool | None = None) -> st.SearchStrategy[dict[str, Any]]:
    calls = st.lists(tool_calls(), min_size=1, max_size=3)
    extra = {
        "reasoning_content": short_text(40),
        "metadata": st.fixed_dictionaries({"thinking_signature": st.text(max_size=12)}),
    }
    content = st.one_of(short_text(80), st.sampled_from(["", " ", "\n\t "]))
    if with_calls is True:
        return _optional({"role": st.just("assistant"), "content": content, "tool_calls": calls}, extra)
    if with_calls is False:
        return _optional({"role": st.just("assistant"), "content": content}, extra)
    return _optional({"role": st.just("assistant"), "content": content}, {**extra, "tool_calls": calls})


def tool_messages() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "role": st.just("tool"),
            "name": tool_names(),
            "tool_call_id": st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True),
            "content": st.one_of(short_text(120), st.just("")),
        }
    )


def messages() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(system_messages(), user_messages(), assistant_messages(), tool_messages())


def transcripts(min_size: int = 0, max_size: int = 8) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(messages(), min_size=min_size, max_size=max_size)


def file_contents() -> st.SearchStrategy[bytes]:
    """File bytes: small text, bytes that are not UTF-8, and sizes around the 32768-byte cap."""
    return st.one_of(
        st.text(max_size=60).map(lambda t: t.encode("utf-8")),
        st.binary(max_size=40),
        sized_text(32760, 32780).map(lambda t: t.encode("utf-8")),
        sized_text(1, 40000).map(lambda t: t.encode("utf-8")),
    )


def display_paths() -> st.SearchStrategy[str]:
    return st.from_regex(r"(src/|docs/|)[a-z]{1,8}(_[a-z]{1,4})?\.(py|go|md|txt)", fullmatch=True)


def files(max_size: int = 8) -> st.SearchStrategy[list[tuple[str, bytes]]]:
    """Up to ``max_size`` ``(display path, bytes)`` pairs."""
    return st.lists(st.tuples(display_paths(), file_contents()), max_size=max_size)


def questions() -> st.SearchStrategy[str]:
    """Questions: empty, blank, short, padded with white space, and around the 4000-byte cap."""
    pad = st.lists(st.sampled_from(GO_SPACES), max_size=3).map("".join)
    core = st.one_of(short_text(60), sized_text(3990, 4010), sized_text(8000, 9000))
    return st.one_of(
        st.just(""),
        pad,
        st.tuples(pad, core, pad).map("".join),
    )


def rendered_messages(min_size: int = 0, max_size: int = 12, *, empties: bool = True) -> st.SearchStrategy[list]:
    """The messages of a neutral request: system prompt(s), a flattened snapshot and a final user message."""
    text = st.one_of(
        texts(1, 80).filter(lambda t: t.strip()), st.sampled_from(["", " ", "\n"]) if empties else st.just("x")
    )
    body = st.lists(
        st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "user", "system"]), "content": text}),
        min_size=min_size,
        max_size=max_size,
    )
    system = st.lists(st.fixed_dictionaries({"role": st.just("system"), "content": text}), min_size=0, max_size=2)
    final = st.fixed_dictionaries(
        {"role": st.just("user"), "content": st.text(min_size=1, max_size=30).filter(lambda t: t.strip())}
    )
    return st.builds(lambda s, b, f: [*s, *b, f], system, body, final)


def block_messages(count: int, system: bool = True) -> list[dict[str, str]]:
    """``count`` non-empty messages before a final one, alternating user/assistant (one Anthropic block each)."""
    out = [{"role": "system", "content": "You advise."}] if system else []
    out += [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(count)]
    return out + [{"role": "user", "content": "final: advise me"}]
