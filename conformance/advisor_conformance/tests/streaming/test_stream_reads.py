"""Provider streams cut into reads anywhere (HTML Living Standard, server-sent events, "Interpreting an event stream":
the stream is one sequence of bytes decoded as UTF-8, whose lines end at CRLF, LF or CR): inside a character of
several bytes, between the CR and the LF of a line end, inside a field name or an end marker, one byte a read; and a
byte-order mark opening the stream, which the standard ignores. A reader of the format gives the same events however
the reads fall, so each is read to the same note as the stream in one read.

The loopback provider sends each read as a chunk of its own (chunked transfer coding), which HTTP clients hand on one
read each; the ways of cutting are those of ``advisor_conformance.event_streams``.
"""

from __future__ import annotations

import pytest

from advisor_conformance.checks import check_equal
from advisor_conformance.event_streams import EVENTS, FRAMINGS, PROVIDER_FRAMING, STREAM_RULE, StreamForm, frame
from advisor_conformance.scenarios import Reply

from ..common.providers import speaks
from .framed import PIECES, PROVIDERS, TEXT, _note

pytestmark = pytest.mark.needs(capabilities=["http"])  # every stream is served over HTTP


def _provider(provider):
    return pytest.param(provider, marks=pytest.mark.rule(id=STREAM_RULE[provider]), id=provider)


#: (framing, way of cutting): each cut where a reader that keeps no state from one read to the next goes wrong.
READS = {
    "inside-characters": ("provider", "inside-characters"),  # a read decoded alone: U+FFFD for each half
    "inside-crlf": ("crlf-line-ends-every-field", "inside-line-ends"),  # CR | LF: one line end, not a blank line
    "inside-field-names": ("provider", "inside-field-names"),  # `da` | `ta: {...}`: a line that spans two reads
    "inside-end-markers": ("provider", "inside-values"),  # `[DO` | `NE]`, `message_st` | `op`
    "byte-at-a-time": ("crlf-line-ends-every-field", "byte-at-a-time"),  # every place at once
}


@pytest.mark.parametrize("reads", list(READS))
@pytest.mark.parametrize("provider", [_provider(provider) for provider in PROVIDERS])
def test_every_cut_of_the_stream_into_reads_is_read_alike(impl, lb, provider, reads):
    """A stream cut into reads inside its characters of several bytes, between the CR and LF of its line ends, inside
    its field names or end markers, or one byte a read, gives the same note as the stream in one read."""
    form = StreamForm(*READS[reads])
    body = frame(EVENTS[provider](PIECES), FRAMINGS.get(form.framing, PROVIDER_FRAMING))
    cut = form.serve(body, reframed=False)
    lb.deliver = lambda reply: cut
    lb.expect(Reply.events(body, framed=True))
    shown = {"reads": [piece.decode("utf-8", "backslashreplace") for piece in cut[:40]]}
    note = _note(impl, provider, lb.base_url, shown)
    check_equal(note, TEXT, STREAM_RULE[provider], f"the {provider} stream cut into {len(cut)} reads ({reads}) was not "
                "read to its text", input={"reads": reads, **shown})


@pytest.mark.rule(id="streaming.openai-chunks")
@pytest.mark.parametrize("framing", ["leading-byte-order-mark", "crlf-line-ends-every-field"])
@speaks("openai")
def test_a_byte_order_mark_before_a_first_chunk_with_text_is_dropped(impl, lb, framing):
    """A chat stream whose first chunk carries text (the role and the first piece together, as some servers send it),
    opened by a byte-order mark: the mark is dropped, not read into the first field's name, so the first piece is
    kept."""
    body = "\ufeff" + frame(EVENTS["openai"](PIECES)[1:], FRAMINGS[framing]).removeprefix("\ufeff")
    lb.expect(Reply.events(body, framed=True))
    note = _note(impl, "openai", lb.base_url, {"answered": body[:3000]})
    check_equal(note, TEXT, "streaming.openai-chunks", "a chat stream opened by a byte-order mark was not read to its "
                "text", input={"framing": framing, "answered": body[:3000]})
