"""The suite's own carriage data: each carried text belongs to its class, each framing of an event stream reads to
the same events under the format's parsing algorithm, a stream written in another framing reads to the events it
held, and each way of cutting a stream into reads cuts where it says."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from advisor_conformance._broken.streams import read_events
from advisor_conformance._contract.loopback import recorded_answer
from advisor_conformance.carriage import JSON_RAW_TEXTS, KEY_ORDERS, NAME_TEXTS, TEXTS, where_changed
from advisor_conformance.event_streams import (
    DELIVERIES,
    EVENTS,
    FORMS,
    FRAMINGS,
    Framing,
    cuts,
    form_for,
    frame,
    parse,
    reads,
    reframe,
)
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


#: Streams as the suite serves them: its helpers' and the recorded ones, and odd ones (white space around the JSON,
#: an event with a name and no data, a comment, an id, a byte-order mark, an event cut off at the end).
ODD = (
    '\ufeffdata:  {"a": 1, "b": "x,y"}  \t\r\n\r\nevent: e\n\n: c\nid: 4\n\ndata: [DONE]\rdata:\r\r'
    'event: message_stop\ndata: {"cut": '
)
STREAMS = {
    **{f"{provider}-helper": frame(EVENTS[provider](["a", "\r", "\n", "\u00e9", "\U0001f642"])) for provider in EVENTS},
    **{name: recorded_answer(name) for name in ("anthropic-stream.sse", "openai-stream-cut.sse", "codex-stream.sse")},
    "odd": ODD,
}


def _json_alike(events):
    """Events with JSON data compared as JSON values (data over several lines is the same value)."""

    def value(data):
        if data is None:
            return None
        try:
            return ("json", json.loads(data))
        except ValueError:
            return ("text", data)

    return [(name, value(data)) for name, data in events]


@pytest.mark.parametrize("framing", list(FRAMINGS))
@pytest.mark.parametrize("stream", list(STREAMS))
def test_a_reframed_stream_reads_to_the_events_it_held(stream, framing):
    """Written in another framing, a stream gives a reader of the format the same events, and its unfinished end as
    it was."""
    text = STREAMS[stream]
    again = reframe(text, FRAMINGS[framing])
    assert _json_alike(read_events(again)) == _json_alike(read_events(text))
    assert parse(again)[1] == parse(text)[1]
    assert _json_alike(parse(again)[0]) == _json_alike(parse(text)[0])


def test_parse_keeps_names_data_and_the_unfinished_end():
    """parse gives each event's name (None without one) and data (None without data lines), and the rest."""
    events, rest = parse(ODD)
    assert events == [(None, ' {"a": 1, "b": "x,y"}  \t'), ("e", None), (None, "[DONE]\n")]
    assert rest == 'event: message_stop\ndata: {"cut": '


@pytest.mark.parametrize("delivery", list(DELIVERIES))
@pytest.mark.parametrize("stream", list(STREAMS))
def test_each_way_of_cutting_cuts_where_it_says(stream, delivery):
    """The reads put back together are the stream; each cut is where its way of cutting says."""
    data = reframe(STREAMS[stream], FRAMINGS["crlf-line-ends-every-field"]).encode()
    places = cuts(data, delivery)
    assert b"".join(reads(data, delivery)) == data and places == sorted(set(places))
    assert all(0 < at < len(data) for at in places)
    assert places or (delivery == "inside-values" and b"[DONE]" not in data and b"event:" not in data)
    if delivery == "inside-characters":
        assert all(0x80 <= data[at] < 0xC0 for at in places)  # the byte after each cut continues a character
    elif delivery == "inside-line-ends":
        assert any(data[at - 1 : at + 1] == b"\r\n" for at in places)
        assert all(data[at : at + 1] in (b"\r", b"\n") for at in places)
    elif delivery == "inside-field-names":
        assert all(data[at - 2 : at] in (b"da", b"ev", b"id", b"re") or data[at - 1 : at] == b":" for at in places)
    elif delivery == "inside-values":
        assert all(not data[at - 1 : at + 1].isspace() for at in places)
    elif delivery == "byte-at-a-time" and len(data) <= 2048:
        assert len(places) == len(data) - 1


def test_forms_cover_every_framing_and_are_fixed_per_test():
    """The rotation holds every framing once cut adversarially (the providers' own too), and a test's form depends
    on its ID alone."""
    assert {form.framing for form in FORMS if form.delivery == "adversarial"} == {"provider", *FRAMINGS}
    assert len({form.name for form in FORMS}) == len(FORMS)
    assert form_for("streaming/test_x.py::test_y[a]") == form_for("streaming/test_x.py::test_y[a]")
    assert len({form_for(f"streaming/test_x.py::test_y[{index}]") for index in range(200)}) == len(FORMS)
