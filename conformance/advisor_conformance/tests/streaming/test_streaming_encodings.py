"""Provider answers sent with a content coding (RFC 9110 §8.4): gzip and deflate bodies, and the `identity` coding
named outright. Providers compress what they send when the client accepts it (or says nothing, which accepts every
coding), so a client reads a compressed answer, plain or streamed, to its text, and a compressed error body still
shows the status and the body's start (streaming.failure-report).

The server of this module compresses only with a coding the request accepts: an implementation that asks for no
compression (`Accept-Encoding: identity`) gets the answer as it is, which it must read too.

Black-box: the implementation makes real HTTP requests to a server on 127.0.0.1.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import zlib

import pytest
from werkzeug import Request, Response

from advisor_conformance._contract.loopback import LocalServer
from advisor_conformance.checks import check, check_equal
from advisor_conformance.event_streams import FRAMINGS, PROVIDER_FRAMING, reframe
from advisor_conformance.scenarios import error_of, result_of

from ..common.providers import speaks
from .bodies import LONG, LONG_ANSWERS, LONG_STREAMS, NOISY, NOISY_ANSWERS, TOKEN
from .calls import _run

#: Every test of this module is over HTTP (to the suite's loopback provider, or a server of its own on 127.0.0.1).
pytestmark = pytest.mark.needs(capabilities=["http"])

CODINGS = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "deflate": zlib.compress,  # RFC 9110: deflate is the zlib format
    "identity": lambda data: data,
}


def _accepts(header: str | None, coding: str) -> bool:
    """Whether an Accept-Encoding header accepts ``coding`` (no header at all accepts every coding)."""
    if header is None or coding == "identity":
        return True
    weights = {}
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        weights[name.strip().lower()] = float(match.group(1)) if match else 1.0
    weight = weights.get(coding, weights.get("*", 0.0))
    return weight > 0


class _Coding(LocalServer):
    """A server on 127.0.0.1 that answers every request with ``body`` in the content coding ``coding`` when the
    request accepts it (named in the Content-Encoding header, `identity` included), and as it is otherwise."""

    def __init__(self) -> None:
        super().__init__()
        self.status, self.body, self.content_type, self.coding = 200, b"", "application/json", "identity"
        self.sent: list[str] = []
        self.lock = threading.Lock()

    def serve(self, status, body: str, content_type: str, coding: str) -> None:
        with self.lock:
            self.status, self.body, self.content_type, self.coding = status, body.encode(), content_type, coding
            self.sent = []

    def handle(self, request: Request) -> Response:
        request.get_data()
        with self.lock:
            coding = self.coding if _accepts(request.headers.get("Accept-Encoding"), self.coding) else None
            self.sent.append(coding or "none")
            data = CODINGS[coding](self.body) if coding else self.body
            status, content_type = self.status, self.content_type
        response = Response(data, status=status, content_type=content_type)
        if coding:
            response.headers["Content-Encoding"] = coding
        return response


@pytest.fixture(scope="module")
def coded():
    with _Coding().running() as server:
        yield server


def _read_whole(impl, lb, coded, provider, answered, content_type, coding, rule, reasoning=None, text=LONG,
                form=None):
    """One call answered with ``answered`` in ``coding`` (an event stream written in the framing of ``form``, the
    test's): its note is ``text``, the answer's whole text."""
    body = reframe(answered.body, FRAMINGS.get(form.framing, PROVIDER_FRAMING)) if form else answered.body
    coded.serve(200, body, content_type, coding)
    answer, params = _run(impl, provider, lb, rule, reasoning=reasoning, base_url=coded.base_url)
    shown = {"scenario": params, "answered": f"HTTP 200, {content_type}, content coding {coded.sent or '(none)'}: "
                                             f"{answered.body[:2000]}"}
    note = result_of(answer, 0, rule, shown)
    check(note.strip() == text, rule, f"the {provider} answer sent with content coding {coding} was not read to its "
          f"text ({len(note)} characters read of {len(text)})", input=shown, expected=text, actual=note)


@pytest.mark.rule(id="streaming.non-streaming-default")
@pytest.mark.parametrize("coding", sorted(CODINGS))
@pytest.mark.parametrize("provider, answered", LONG_ANSWERS)
def test_compressed_plain_answer_is_read_whole(impl, lb, coded, provider, answered, coding):
    """A JSON answer of some hundred kilobytes sent with the content coding gzip, deflate or identity (compressed to
    a few kilobytes) becomes the note whole."""
    _read_whole(impl, lb, coded, provider, answered, "application/json", coding, "streaming.non-streaming-default")


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@pytest.mark.parametrize("provider, answered, rule", LONG_STREAMS)
def test_compressed_stream_is_read_whole(impl, lb, coded, stream_form, provider, answered, rule, coding):
    """An event stream of hundreds of events sent gzip- or deflate-compressed becomes the note whole."""
    _read_whole(impl, lb, coded, provider, answered, "text/event-stream", coding, rule, reasoning="high",
                form=stream_form)


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@pytest.mark.parametrize("provider, answered, content_type, rule", NOISY_ANSWERS)
def test_compressed_answer_of_many_reads_is_read_whole(impl, lb, coded, stream_form, provider, answered, content_type,
                                                        rule, coding):
    """An answer that compression barely shrinks, plain or streamed, arrives compressed over many reads and becomes
    the note whole."""
    streamed = content_type == "text/event-stream"
    _read_whole(impl, lb, coded, provider, answered, content_type, coding, rule, reasoning="high" if streamed else None,
                text=NOISY, form=stream_form if streamed else None)


@pytest.mark.rule(id="streaming.failure-report")
@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@speaks("openai")
def test_compressed_error_body_is_reported_with_the_status(impl, lb, coded, coding):
    """An HTTP 503 whose JSON error body is compressed is a provider_error showing the status and the body's start,
    decompressed."""
    body = json.dumps({"error": {"message": TOKEN, "type": "overloaded"}})
    coded.serve(503, body, "application/json", coding)
    answer, params = _run(impl, "openai", lb, "streaming.failure-report", base_url=coded.base_url)
    shown = {"scenario": params, "answered": f"HTTP 503, content coding {coded.sent or '(none)'}: {body}"}
    error = error_of(answer, 0, "streaming.failure-report", shown)
    check_equal(error.get("code"), "provider_error", "streaming.failure-report", "a compressed HTTP 503 is not a "
                "provider_error", input=shown, actual=error)
    message = error.get("message", "")
    check("503" in message and TOKEN in message, "streaming.failure-report", "the error of a compressed HTTP 503 "
          "does not show the status and the start of the body", input=shown, expected=["503", TOKEN], actual=error)
