"""Broken implementations that read event streams with a hand-written reader, each wrong in one way the format's
parsing algorithm (HTML, "Interpreting an event stream") rules out: lines split on LF only, a field that needs the
space after its colon, only the last of several data lines kept, a field it does not know taken as an error, the
bytes decoded by the declared charset. They are variants of the streaming rules.

Each replaces the reference's reader in ``HttpProvider._stream`` with :func:`read_events` and one mistake.
"""

from __future__ import annotations

import re
import time

from advisor_reference import ProviderError
from advisor_reference.adapter import ReferenceAdapter
from advisor_reference.wire import HttpProvider, StreamState

from . import breaks

#: The module of the stream-format tests, which these variants run against (their rules' other tests run against
#: the rules' first broken implementations).
FORMAT = ("test_stream_format.py",)


def read_events(text, mistake=None):
    """``(event, data)`` pairs of an event stream's text, as the standard reads them but for ``mistake``."""
    if mistake == "lf-only":
        lines = [line.removesuffix("\r") for line in text.split("\n")]
    else:
        lines = re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))
    name, data = "", []
    for line in lines:
        if not line:
            if data:
                yield name or "message", "\n".join(data)
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if mistake == "space-required":
            if not value.startswith(" "):
                continue
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data = [value] if mistake == "last-data-line" else [*data, value]
        elif field in ("id", "retry"):
            continue
        elif mistake == "strict-fields":
            raise ProviderError(f"unexpected line in the event stream: {line[:80]!r}")


def _reader(mistake, kinds=("anthropic", "openai", "codex")):
    class Provider(HttpProvider):
        def complete_stream(self, request, deadline=None):
            if self.wire.kind not in kinds:
                return super().complete_stream(request, deadline)
            deadline = time.monotonic() + self.timeout if deadline is None else deadline
            encoded = self.wire.encode(request, True)
            state = StreamState()

            def call():
                with self.open_response(encoded, deadline) as response:
                    if response.status_code >= 400:
                        self.raise_for_status(
                            response.status_code, self.read_error_body(response, deadline), stream=True
                        )
                    raw = b"".join(response.iter_bytes())
                    charset = response.charset_encoding if mistake == "declared-charset" else None
                    text = raw.decode(charset or "utf-8", "replace")
                    for event, data in read_events(text, mistake):
                        self.wire.stream_event(state, event, data)
                        if state.done:
                            break
                return state.answer(self.wire.kind)

            return self.send(call, deadline)

    return Provider


#: (class name, rule, variant, mistake, providers, how): one broken implementation each.
READERS = [
    (
        "ChatLinesSplitOnLf",
        "streaming.openai-chunks",
        "lf-only-lines",
        "lf-only",
        ("openai", "codex"),
        "a hand-written reader splits lines on LF only (a lone CR ends no line)",
    ),
    (
        "AnthropicSpaceRequired",
        "streaming.anthropic-events",
        "space-required",
        "space-required",
        ("anthropic",),
        "a hand-written reader takes `data: ` and `event: ` with their space only, so `data:{...}` is skipped",
    ),
    (
        "ChatLastDataLine",
        "streaming.openai-chunks",
        "last-data-line",
        "last-data-line",
        ("openai", "codex"),
        "a hand-written reader keeps only the last data line of an event instead of joining them with LF",
    ),
    (
        "AnthropicStrictFields",
        "streaming.anthropic-events",
        "strict-fields",
        "strict-fields",
        ("anthropic",),
        "a hand-written reader fails on a field it does not know (only event, data, id and retry are expected)",
    ),
    (
        "AnthropicDeclaredCharset",
        "streaming.anthropic-events",
        "declared-charset",
        "declared-charset",
        ("anthropic",),
        "the stream's bytes are decoded by the charset the Content-Type declares (an event stream is always UTF-8)",
    ),
]

for _name, _rule, _variant, _mistake, _kinds, _how in READERS:
    globals()[_name] = breaks(_rule, _how, variant=_variant, modules=FORMAT)(
        type(
            _name,
            (ReferenceAdapter,),
            {"http_provider_class": _reader(_mistake, _kinds), "__module__": __name__, "__qualname__": _name},
        )
    )
