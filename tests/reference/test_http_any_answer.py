"""advisor_reference._http against any answer at all: whatever status line, headers (Content-Type, charset,
Content-Encoding, framing) and body a server on 127.0.0.1 sends, a call ends as an answer or a provider error (a
``provider_error`` through the ``scenario`` operation), never an exception."""

from __future__ import annotations

import codecs
import encodings
import encodings.aliases
import gzip
import pkgutil
import zlib
from dataclasses import dataclass

import httpx
import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from advisor_conformance._contract.loopback import RawServer, recorded_answer
from advisor_reference import ProviderAnswer, ProviderError, ProviderRequest, RenderedMessage
from advisor_reference._http import HttpProvider, bound_by_deadlines, text_encoding
from advisor_reference.adapter import ReferenceAdapter

from ._helpers import SNAPSHOT

KINDS = ("anthropic", "openai", "codex")


def _codec_names() -> list[str]:
    """Every codec name Python knows (its aliases included), in a fixed order."""
    names = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    names |= {module.name for module in pkgutil.iter_modules(encodings.__path__) if not module.name.startswith("_")}
    known = []
    for name in sorted(names):
        try:
            codecs.lookup(name)
        except LookupError:
            continue
        known.append(name)
    return known


CODECS = _codec_names()
#: Charsets that raise whatever the bytes, that are no text encodings, or that fail on some bytes.
TRICKY = [
    "undefined",
    "idna",
    "punycode",
    "base64",
    "rot13",
    "hex",
    "zlib",
    "uu",
    "utf-16",
    "utf-32",
    "utf-7",
    "utf-8-sig",
    "mbcs",
    "no-such-charset",
    "",
    '"utf-8"',
    "utf-8; charset=latin-1",
]
MEDIA = ["application/json", "text/event-stream", "text/plain", "text/html", "application/octet-stream", "", "json"]
CODINGS = ["gzip", "x-gzip", "deflate", "identity", "br", "zstd", "compress", "gzip, gzip", "gzip, identity", ""]
RECORDED = [
    "anthropic-message.json",
    "openai-completion.json",
    "codex-response.json",
    "anthropic-stream.sse",
    "openai-stream.sse",
    "codex-stream.sse",
    "anthropic-stream-cut.sse",
    "openai-stream-error.sse",
]
CRLF_FREE = st.binary(max_size=24).map(lambda raw: raw.replace(b"\r", b"").replace(b"\n", b""))


def _header_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass").replace(b"\r", b"").replace(b"\n", b"")


charsets = st.one_of(st.sampled_from(TRICKY), st.sampled_from(CODECS), st.text(max_size=12))
content_types = st.builds(
    lambda media, charset, with_charset: media + (f"; charset={charset}" if with_charset else ""),
    st.sampled_from(MEDIA),
    charsets,
    st.booleans(),
)
headers = st.lists(
    st.one_of(
        st.tuples(st.just("Content-Type"), content_types),
        st.tuples(st.just("Content-Encoding"), st.one_of(st.sampled_from(CODINGS), st.text(max_size=12))),
        st.tuples(st.just("Content-Length"), st.sampled_from(["0", "1", "-1", "abc", "99999999", "3 3", ""])),
        st.tuples(st.just("Transfer-Encoding"), st.sampled_from(["chunked", "gzip", "chunked, chunked", "bogus"])),
        st.tuples(st.sampled_from(["Connection", "X-Any", "Retry-After", "Location"]), st.text(max_size=20)),
        st.tuples(st.text(max_size=10), st.text(max_size=20)),
    ),
    max_size=5,
)
status_lines = st.one_of(
    st.builds(
        lambda version, code, reason: version + b" " + code + b" " + reason,
        st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2", b"HTTP/0.9", b"ICY"]),
        st.one_of(
            st.integers(100, 599).map(lambda code: str(code).encode()),
            st.sampled_from([b"200", b"400", b"500", b"404", b"101", b"204", b"304"]),
            CRLF_FREE,
        ),
        CRLF_FREE,
    ),
    CRLF_FREE,
)
bodies = st.one_of(
    st.sampled_from(RECORDED).map(lambda name: recorded_answer(name).encode()),
    st.sampled_from(
        [
            b'{"detail":"Stream must be set to true"}',
            b"{}",
            b"[]",
            b"null",
            b'{"content":7}',
            b'{"choices":[{"message":{}}]}',
            b"data: [DONE]\n\n",
            b"event: error\ndata: {}\n\n",
        ]
    ),
    st.binary(max_size=200),
    st.text(max_size=60).map(lambda text: text.encode("utf-8", "surrogatepass")),
)
#: How the body travels: as it is, compressed, or in another charset.
TRANSFORMS = ["raw", "gzip", "deflate", "utf-16", "latin-1 mangled"]
#: The recorded answer of each kind of provider, plain and streamed.
ANSWERS = {
    ("anthropic", False): "anthropic-message.json",
    ("anthropic", True): "anthropic-stream.sse",
    ("openai", False): "openai-completion.json",
    ("openai", True): "openai-stream.sse",
    ("codex", False): "codex-response.json",
    ("codex", True): "codex-stream.sse",
}


@dataclass(frozen=True)
class Exchange:
    """One call: the provider's kind, whether it streams, and the bytes the server answers with."""

    kind: str
    stream: bool
    status: bytes
    headers: tuple[tuple[str, str], ...]
    body: bytes
    how: str = "raw"
    length: bool = True

    def reply(self) -> bytes:
        body = _transform(self.body, self.how)
        head = [self.status] + [_header_text(name) + b": " + _header_text(value) for name, value in self.headers]
        if self.length:
            head.append(b"Content-Length: %d" % len(body))
        return b"\r\n".join(head) + b"\r\n\r\n" + body


@st.composite
def exchanges(draw) -> Exchange:
    """Half of them a real answer of the call's kind with any charset, content coding and extra headers (so some
    succeed); the other half anything at all."""
    kind, stream = draw(st.sampled_from(KINDS)), draw(st.booleans())
    if draw(st.booleans()):
        how = draw(st.sampled_from(TRANSFORMS))
        media = "text/event-stream" if stream else draw(st.sampled_from(["application/json", "text/plain", ""]))
        charset = draw(st.one_of(st.none(), charsets))
        own = [("Content-Type", media + ("" if charset is None else f"; charset={charset}"))]
        if how in ("gzip", "deflate"):
            own.append(("Content-Encoding", how))
        status = draw(st.sampled_from([b"HTTP/1.1 200 OK", b"HTTP/1.0 200 OK", b"HTTP/1.1 200 "]))
        extra = draw(
            st.lists(
                st.tuples(st.sampled_from(["Connection", "X-Any", "Retry-After"]), st.text(max_size=20)), max_size=2
            )
        )
        return Exchange(kind, stream, status, tuple(own + extra), recorded_answer(ANSWERS[kind, stream]).encode(), how)
    return Exchange(
        kind,
        stream,
        draw(status_lines),
        tuple(draw(headers)),
        draw(bodies),
        draw(st.sampled_from(TRANSFORMS)),
        draw(st.booleans()),
    )


def _transform(body: bytes, how: str) -> bytes:
    if how == "gzip":
        return gzip.compress(body)
    if how == "deflate":
        return zlib.compress(body)
    if how == "utf-16":
        return body.decode("utf-8", "replace").encode("utf-16")
    if how == "latin-1 mangled":
        return body.decode("latin-1").encode("utf-8")
    return body


def _reply(status: bytes, header_list: list[tuple[str, str]], body: bytes) -> bytes:
    return Exchange("", False, status, tuple(header_list), body).reply()


@pytest.fixture(scope="module")
def server():
    with RawServer().running() as running:
        yield running


@pytest.fixture(scope="module")
def client():
    """One client for every example (making one costs tens of milliseconds), bounded by the call deadline as the
    provider's own are."""
    with httpx.Client() as shared:
        bound_by_deadlines(shared)
        yield shared


def _outcome(server: RawServer, reply: bytes, kind: str, stream: bool) -> dict:
    server.reply = reply
    runtime = {
        "http_provider": {"kind": kind, "base_url": server.base_url, "timeout_ms": 10_000},
        "reasoning": "high" if stream else None,
    }
    out = ReferenceAdapter().scenario({"runtime": runtime, "steps": [{"call": {"input": {}, "snapshot": SNAPSHOT}}]})
    return out["calls"][0]


OK = b"HTTP/1.1 200 OK"
OPENAI_STREAM = recorded_answer("openai-stream.sse").encode()


@given(exchange=exchanges())
@example(
    exchange=Exchange(
        "anthropic",
        False,
        b"HTTP/1.1 500 Oops",
        (("Content-Type", "application/json; charset=undefined"),),
        b'{"error":"down"}',
    )
)
@example(exchange=Exchange("openai", False, OK, (("Content-Type", "text/plain; charset=idna"),), b"not json"))
@example(
    exchange=Exchange("openai", True, OK, (("Content-Type", "text/event-stream; charset=undefined"),), OPENAI_STREAM)
)
@example(exchange=Exchange("openai", True, OK, (("Content-Type", "text/event-stream; charset=base64"),), OPENAI_STREAM))
@example(
    exchange=Exchange("openai", True, OK, (("Content-Type", "text/event-stream; charset=utf-16"),), b"data: x\n\n\x80")
)
@example(
    exchange=Exchange(
        "codex",
        False,
        b"HTTP/1.1 400 Bad",
        (("Content-Type", "application/json; charset=punycode"),),
        b'{"detail":"Stream must be set to true \xff"}',
    )
)
@example(
    exchange=Exchange(
        "anthropic",
        False,
        OK,
        (("Content-Type", "text/plain; charset=rot13"), ("Content-Encoding", "gzip")),
        b"not json",
        "gzip",
    )
)
@example(
    exchange=Exchange(
        "anthropic",
        True,
        OK,
        (("Content-Type", "text/event-stream"),),
        recorded_answer("anthropic-stream.sse").encode(),
    )
)
@example(exchange=Exchange("openai", False, b"ICY 200 OK", (), b"", length=False))
@settings(max_examples=150)
def test_any_answer_ends_as_an_answer_or_a_provider_error(server, client, exchange):
    """Whatever a server answers, a call of the HTTP provider returns an answer or raises a ProviderError."""
    server.reply = exchange.reply()
    provider = HttpProvider(exchange.kind, server.base_url, timeout=10, client=client)
    request = ProviderRequest(
        model="m",
        messages=(RenderedMessage("user", "go"),),
        max_tokens=5,
        reasoning="high" if exchange.stream else None,
        stream=exchange.stream,
        prompt_cache_key="k",
        transport_session=None,
        parent_session=None,
    )
    try:
        answer = provider.complete(request)
    except ProviderError:
        event("a provider error")  # --hypothesis-show-statistics gives the split of outcomes
        return
    event("an answer")
    assert isinstance(answer, ProviderAnswer)


@pytest.mark.parametrize(
    "kind, body, stream", [("anthropic", "anthropic-message.json", False), ("openai", "openai-stream.sse", True)]
)
@pytest.mark.parametrize("charset", ["undefined", "idna", "base64", "rot13"])
def test_a_charset_that_decodes_no_text_is_read_as_utf8(kind, body, stream, charset, server):
    """A charset Python knows but cannot decode with leaves the answer readable: JSON is UTF-8, and an event stream is
    UTF-8 whatever its charset parameter says (HTML, "Interpreting an event stream")."""
    media = "text/event-stream" if stream else "application/json"
    reply = _reply(
        b"HTTP/1.1 200 OK", [("Content-Type", f"{media}; charset={charset}")], recorded_answer(body).encode()
    )
    outcome = _outcome(server, reply, kind, stream)
    assert isinstance(outcome.get("result"), str) and outcome["result"], outcome


@pytest.mark.parametrize(
    "kind, body, stream", [("anthropic", "anthropic-message.json", False), ("openai", "openai-stream.sse", True)]
)
def test_a_charset_python_does_not_know_is_read_as_utf8(kind, body, stream, server):
    """A charset name Python does not know is read as UTF-8, a JSON answer and an event stream alike."""
    media = "text/event-stream" if stream else "application/json"
    reply = _reply(
        b"HTTP/1.1 200 OK", [("Content-Type", f"{media}; charset=no-such-charset")], recorded_answer(body).encode()
    )
    outcome = _outcome(server, reply, kind, stream)
    assert isinstance(outcome.get("result"), str) and outcome["result"], outcome


@pytest.mark.parametrize("charset", ["undefined", "idna", "base64", "punycode"])
def test_an_error_body_in_a_charset_that_decodes_no_text_is_shown_as_utf8(server, charset):
    """An error body whose charset cannot decode it is a provider_error showing its status and its text as UTF-8."""
    reply = _reply(
        b"HTTP/1.1 503 Busy",
        [("Content-Type", f"application/json; charset={charset}")],
        '{"error": "overloaded \u00e9"}'.encode(),
    )
    error = _outcome(server, reply, "anthropic", False)["error"]
    assert error["code"] == "provider_error" and "503" in error["message"] and "overloaded \u00e9" in error["message"]


@pytest.mark.parametrize(
    "content_type, expected",
    [
        ("application/json", "utf-8"),
        ("text/plain; charset=latin-1", "latin-1"),
        ("text/plain; charset=UTF-16", "utf-16"),
        ("text/plain; charset=undefined", None),
        ("text/plain; charset=idna", None),
        ("text/plain; charset=base64", None),
        ("text/plain; charset=rot13", None),
        ("text/plain; charset=no-such-charset", "utf-8"),
    ],
)
def test_the_text_encoding_is_the_declared_charset_when_it_decodes_text(content_type, expected):
    """The codec of a provider's text is its declared charset, UTF-8 without one or for an unknown name, and none for
    a codec that decodes no text."""
    assert text_encoding(httpx.Response(200, headers={"content-type": content_type})) == expected


@pytest.mark.parametrize(
    "runtime", [{"model": "m\ud800"}, {"cache_key_store": {"advisor": "k\udc00"}}], ids=["model", "cache-key"]
)
def test_a_request_that_cannot_be_encoded_is_a_provider_error(server, runtime):
    """A request holding a lone surrogate (a model name, a cache key) is never sent: a provider_error, not a crash."""
    server.reply = _reply(
        OK, [("Content-Type", "application/json")], recorded_answer(ANSWERS["openai", False]).encode()
    )
    runtime = {**runtime, "http_provider": {"kind": "openai", "base_url": server.base_url, "timeout_ms": 10_000}}
    out = ReferenceAdapter().scenario({"runtime": runtime, "steps": [{"call": {"input": {}, "snapshot": SNAPSHOT}}]})
    assert out["calls"][0]["error"]["code"] == "provider_error", out
