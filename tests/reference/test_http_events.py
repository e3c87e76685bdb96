"""advisor_reference._http._events: the client's reader of event streams reads every stream as httpx-sse reads it
(the same events, names and data, however the bytes are cut into chunks), and refuses what httpx-sse refuses; but
for one place where httpx-sse departs from the standard: a byte-order mark opening the stream is dropped (HTML,
"Interpreting an event stream": one leading U+FEFF must be ignored), where httpx-sse keeps it in the first field's
name."""

from __future__ import annotations

import time

import httpx
import pytest
from httpx_sse import EventSource, SSEError
from hypothesis import example, given
from hypothesis import strategies as st

from advisor_reference import ProviderError
from advisor_reference._http import _events

SSE = {"content-type": "text/event-stream"}
BOM = "\ufeff".encode()
FIELDS = ["data", "event", "id", "retry", "other", "", " data", "DATA", "\ufeffdata"]
VALUE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=6)
LINE = st.one_of(
    st.sampled_from(
        [
            "",
            "",
            ":",
            ": a comment",
            "data",
            "data:",
            "data: ",
            "data:  two spaces",
            "event: ping",
            "event:",
            "id: 7",
            "id: a\0b",
            "retry: 10",
            "retry: +3",
            "retry: x",
            "data: [DONE]",
            "é: x",
        ]
    ),
    st.builds("{}:{}".format, st.sampled_from(FIELDS), VALUE),
    st.builds("{}: {}".format, st.sampled_from(FIELDS), VALUE),
)


@st.composite
def streams(draw) -> list[bytes]:
    """The bytes of an event stream (any fields, comments, CR, LF or CR LF line ends, maybe a last line without its
    end), cut into chunks anywhere, inside a line end or a character included."""
    lines = draw(st.lists(st.tuples(LINE, st.sampled_from(["\n", "\r", "\r\n"])), max_size=14))
    text = "".join(line + end for line, end in lines) + draw(st.sampled_from(["", "data: last"]))
    data = text.encode("utf-8")
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    return [data[start:end] for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def ours(chunks: list[bytes], headers: dict[str, str] = SSE) -> list[tuple[str, str]]:
    response = httpx.Response(200, headers=headers, content=iter(chunks))
    return list(_events(response, time.monotonic() + 60, "openai"))


def theirs(chunks: list[bytes], headers: dict[str, str] = SSE) -> list[tuple[str, str]]:
    """httpx-sse's events, the stream's leading byte-order mark (if any) taken off first, as the standard does."""
    if b"".join(chunks).startswith(BOM):  # the mark taken off the chunks it spans, the cuts kept
        left, kept = len(BOM), []
        for chunk in chunks:
            kept.append(chunk[left:])
            left = max(0, left - len(chunk))
        chunks = kept
    response = httpx.Response(200, headers=headers, content=iter(chunks))
    return [(event.event, event.data) for event in EventSource(response).iter_sse()]


@given(streams())
@example([b"data: a\r", b"\ndata: b\r", b"\r"])  # CR LF across two chunks; a stream ending in a lone CR
@example([b"data: a\n\n\n\nid: 1\n\n\n"])  # blank lines without an event, then each one after an id
@example([b"event: ping\n\nretry: 5\n\nretry: no\n\n"])  # an event without data; a retry alone
@example([b"retry: +3\n\nretry:  7\n\n"])  # retries Python's int() reads (a sign, white space)
@example([b"data:\tx\n\n"])  # only a space is taken off a value
@example([b"data: one\ndata:two\n\n: c\ndata\n\n"])  # data lines joined; a field without a colon
@example([b"data: \xc3", b"\xa9t\xc3\xa9\n\n"])  # a character cut between two chunks
@example([b"\xef\xbb\xbfdata: x\n\n"])  # a byte-order mark opening the stream is dropped
@example([b"\xef", b"\xbb\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n"])  # cut inside it; a later one is kept
@example([b"data: unfinished"])
def test_events_are_read_as_httpx_sse_reads_them(chunks):
    """Any event stream, cut into chunks anywhere, gives the events httpx-sse gives (the stream's leading byte-order
    mark dropped first): each name and data, in order."""
    assert ours(chunks) == theirs(chunks), chunks


@pytest.mark.parametrize(
    "content_type",
    [
        "text/event-stream",
        "text/event-stream; charset=utf-8",
        "application/json",
        "",
        "text/plain; note=text/event-stream",
    ],
)
def test_a_content_type_is_refused_as_httpx_sse_refuses_it(content_type):
    """A stream whose Content-Type does not name an event stream before its parameters is refused, as httpx-sse
    refuses it; one that does is read."""
    chunks, headers = [b"data: x\n\n"], {"content-type": content_type} if content_type else {}
    try:
        expected = theirs(chunks, headers)
    except SSEError:
        with pytest.raises(ProviderError):
            ours(chunks, headers)
    else:
        assert ours(chunks, headers) == expected == [("message", "x")]
