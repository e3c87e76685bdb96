"""Provider streams in every framing the event-stream format allows (HTML Living Standard, server-sent events,
"Interpreting an event stream"; clarifications §8 WIRE): CRLF or lone CR line ends, no space after a field's colon,
a leading byte-order mark, comment lines and keep-alives, ``id``, ``retry`` and unknown fields, data written over
several ``data:`` lines, and a ``charset`` parameter that is not UTF-8 (a stream is UTF-8 whatever it says). A reader
of the format gives the same events for each, so each is read to the same note as the providers' usual framing
(test_stream_reads.py cuts them into reads).

The framings are those of ``advisor_conformance.event_streams`` (every other streaming test serves its streams in one
of them too, by its ID); what the standard leaves to the reader's own judgement (an event cut off at the end of the
stream without its blank line) is not pinned.
"""

from __future__ import annotations

import pytest
from werkzeug import Request, Response

from advisor_conformance._contract.loopback import LocalServer
from advisor_conformance.checks import check_equal
from advisor_conformance.event_streams import EVENTS, FRAMINGS, PROVIDER_FRAMING, STREAM_RULE, frame
from advisor_conformance.scenarios import Reply

from .framed import PIECES, PROVIDERS, TEXT, _note

pytestmark = pytest.mark.needs(capabilities=["http"])  # every stream is served over HTTP


def _provider(provider):
    return pytest.param(provider, marks=pytest.mark.rule(id=STREAM_RULE[provider]), id=provider)

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
