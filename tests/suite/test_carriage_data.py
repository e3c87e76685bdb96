"""The suite's own carriage data: each carried text belongs to its class, and each framing of an event stream reads
to the same events under the format's parsing algorithm."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from advisor_conformance._broken.streams import read_events
from advisor_conformance.carriage import JSON_RAW_TEXTS, KEY_ORDERS, NAME_TEXTS, TEXTS, where_changed
from advisor_conformance.event_streams import EVENTS, FRAMINGS, Framing, frame
from advisor_conformance.oracle import trim


def test_each_carried_text_is_in_its_class():
    """Every text is changed by the library default its class is about, and by nothing a rule allows (Go's trim)."""
    assert TEXTS["byte-order-mark"].startswith("\ufeff") and NAME_TEXTS["byte-order-mark"].startswith("\ufeff")
    for texts in (TEXTS, NAME_TEXTS):
        assert unicodedata.normalize("NFC", texts["decomposed"]) != texts["decomposed"]
        assert unicodedata.normalize("NFD", texts["precomposed"]) != texts["precomposed"]
        assert unicodedata.normalize("NFC", texts["precomposed"]) != texts["precomposed"]  # the singletons
        compat = texts["compatibility"]
        assert unicodedata.normalize("NFC", compat) == compat != unicodedata.normalize("NFKC", compat)
        astral = texts["astral-and-joiners"]
        assert any(ord(char) > 0xFFFF for char in astral) and "\u200d" in astral
    assert TEXTS["line-ends"].splitlines() != TEXTS["line-ends"].split("\n") and "\r\n" in TEXTS["line-ends"]
    assert re.search(r"[\x00\x1b\x7f]", TEXTS["controls"])
    assert all(trim(text) == text for text in TEXTS.values())
    assert all(not re.search(r"[\x00-\x1f/\u2028\u2029\x85]", name) for name in NAME_TEXTS.values())
    assert not any(re.search(r"[<>&\x00-\x1f\u2028\u2029]", text) for text in JSON_RAW_TEXTS.values())


@pytest.mark.parametrize("case", list(KEY_ORDERS))
def test_key_orders_are_go_orders_and_differ_from_a_utf16_sort(case):
    """Each key-order case lists Go's order (by UTF-8 bytes); the cases beyond the BMP differ from a UTF-16 sort."""
    given, ordered = KEY_ORDERS[case]
    assert ordered == sorted(given, key=lambda key: key.encode("utf-8"))
    if "beyond-bmp" in case or case == "shared-prefix":
        assert ordered != sorted(given, key=lambda key: key.encode("utf-16-be"))


def test_where_changed_names_the_first_differing_code_point():
    """The carriage failure message gives the position and the code points around it."""
    message = where_changed("cafe\u0301", "caf\u00e9")
    assert "from code point 3" in message and "U+0301" in message and "U+00E9" in message


@pytest.mark.parametrize("provider", sorted(EVENTS))
@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_every_framing_reads_to_the_same_events(provider, framing):
    """A reader of the format gets the same (event, data) pairs from every framing as from the usual one."""
    events = EVENTS[provider](["a", "\r", "\n", "\u00e9"])
    usual = list(read_events(frame(events)))
    assert [(name or "message", data) for name, data in events] == usual
    value = lambda data: json.loads(data) if data.startswith("{") else data  # noqa: E731 - indented JSON alike
    got = [(name, value(data)) for name, data in read_events(frame(events, FRAMINGS[framing]))]
    assert got == [(name, value(data)) for name, data in usual]
    assert frame(events, FRAMINGS[framing]) != frame(events, Framing())
