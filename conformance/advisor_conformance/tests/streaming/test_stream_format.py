"""Provider streams in every framing the event-stream format allows (HTML Living Standard, server-sent events,
"Interpreting an event stream"; clarifications §8 WIRE): CRLF or lone CR line ends, no space after a field's colon,
a leading byte-order mark, comment lines, ``id``, ``retry`` and unknown fields, data written over several ``data:``
lines, and a ``charset`` parameter that is not UTF-8 (a stream is UTF-8 whatever it says); and cut into reads
anywhere: inside a character of several bytes, between the CR and the LF of a line end, inside a field name or an
end marker, one byte a read. A reader of the format gives the same events for each, so each is read to the same note
as the providers' usual framing in one read.

The framings and the ways of cutting are those of ``advisor_conformance.event_streams`` (every other streaming test
serves its streams in one of them too, by its ID); what the standard leaves to the reader's own judgement (an event
cut off at the end of the stream without its blank line) is not pinned.
"""

from __future__ import annotations

import pytest
from werkzeug import Request, Response

from advisor_conformance._contract.loopback import LocalServer
from advisor_conformance.checks import check_equal
from advisor_conformance.event_streams import EVENTS, FRAMINGS, PROVIDER_FRAMING, STREAM_RULE, StreamForm, frame
from advisor_conformance.scenarios import Reply, call, result_of, run, scenario

pytestmark = pytest.mark.needs(capabilities=["http"])  # every stream is served over HTTP

PROVIDERS = ["anthropic", "openai", "codex"]
PIECES = ["Check the float64 ", "rounding: caf\u00e9, ", "na\u00efve \u2014 \U0001f600", " done."]
TEXT = "".join(PIECES)


def _provider(provider):
    return pytest.param(provider, marks=pytest.mark.rule(id=STREAM_RULE[provider]), id=provider)


def _note(impl, provider, base_url, shown):
    runtime = {"http_provider": {"kind": provider, "base_url": base_url + ("/v1" if provider == "openai" else ""),
                                 "timeout_ms": 5000}, "reasoning": "high"}
    params = scenario([{"call": call(provider=[])}], runtime=runtime)
    answer = run(impl, params, STREAM_RULE[provider])
    return result_of(answer, 0, STREAM_RULE[provider], {"scenario": params, **shown})


@pytest.mark.parametrize("framing", list(FRAMINGS))
@pytest.mark.parametrize("provider", [_provider(provider) for provider in PROVIDERS])
def test_every_framing_of_the_stream_is_read_alike(impl, lb, provider, framing):
    """A stream framed with CRLF or CR line ends, no space after the colon, a leading byte-order mark, comments,
    id/retry/unknown fields or multi-line data gives the same note as the usual framing."""
    body = frame(EVENTS[provider](PIECES), FRAMINGS[framing])
    lb.expect(Reply.events(body, framed=True))
    note = _note(impl, provider, lb.base_url, {"answered": body[:3000]})
    check_equal(note, TEXT, STREAM_RULE[provider], f"the {provider} stream framed with {framing} was not read to its "
                "text", input={"framing": framing, "answered": body[:3000]})


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
def test_a_byte_order_mark_before_a_first_chunk_with_text_is_dropped(impl, lb, framing):
    """A chat stream whose first chunk carries text (the role and the first piece together, as some servers send it),
    opened by a byte-order mark: the mark is dropped, not read into the first field's name, so the first piece is
    kept."""
    body = "\ufeff" + frame(EVENTS["openai"](PIECES)[1:], FRAMINGS[framing]).removeprefix("\ufeff")
    lb.expect(Reply.events(body, framed=True))
    note = _note(impl, "openai", lb.base_url, {"answered": body[:3000]})
    check_equal(note, TEXT, "streaming.openai-chunks", "a chat stream opened by a byte-order mark was not read to its "
                "text", input={"framing": framing, "answered": body[:3000]})


class _Declared(LocalServer):
    """A server on 127.0.0.1 that answers with ``body`` (bytes) under exactly the Content-Type ``content_type``."""

    body, content_type = b"", "text/event-stream"

    def handle(self, request: Request) -> Response:
        request.get_data()
        response = Response(self.body, status=200)
        response.headers["Content-Type"] = self.content_type
        return response


@pytest.fixture(scope="session")  # a server stops in half a second: once per session, whatever the impl
def declared():
    with _Declared().running() as server:
        yield server


@pytest.mark.parametrize("content_type", ["text/event-stream", "text/event-stream; charset=iso-8859-1",
                                          "text/event-stream;charset=US-ASCII"],
                         ids=["no-charset", "latin-1-declared", "ascii-declared"])
@pytest.mark.parametrize("provider", [_provider(provider) for provider in PROVIDERS])
def test_stream_is_utf8_whatever_its_charset_says(impl, declared, stream_form, provider, content_type):
    """A stream's bytes are UTF-8 whatever the Content-Type says (no charset, or Latin-1 or ASCII declared): the
    accents and the emoji of its text arrive as they were written, not as Latin-1 readings of their bytes."""
    body = frame(EVENTS[provider](PIECES), FRAMINGS.get(stream_form.framing, PROVIDER_FRAMING))
    declared.body, declared.content_type = body.encode("utf-8"), content_type
    note = _note(impl, provider, declared.base_url, {"answered": f"Content-Type: {content_type}"})
    check_equal(note, TEXT, STREAM_RULE[provider], f"a {provider} stream declared as {content_type!r} was not read as "
                "UTF-8", input={"content_type": content_type})
