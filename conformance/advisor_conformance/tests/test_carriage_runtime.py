"""Caller text carried byte for byte through a call (``scenario``): files read from the workspace and their names,
the question and snapshot as the tool call gives them, the provider's answer as the returned note, over a scripted
provider and over HTTP. No byte-order mark is removed, no Unicode normalisation applied, no line end changed
(``advisor_conformance.carriage`` names the library defaults that do: a text-mode read, a BOM-stripping decoder, a
normaliser, ``splitlines``).

What a call loads or receives is compared with what ``shape`` renders for the same input, so a shaping mistake is
the shaping rules' (test_carriage.py pins those) and only what the call path adds is blamed here.
"""

from __future__ import annotations

import base64

import pytest

from advisor_conformance.carriage import NAME_TEXTS, TEXTS, where_changed
from advisor_conformance.checks import check, violation
from advisor_conformance.event_streams import EVENTS, STREAM_RULE, frame
from advisor_conformance.scenarios import SNAPSHOT, Reply, call, reply, requests_of, result_of, run, scenario
from advisor_conformance.shaping import final, params, shape
from advisor_conformance.workspace import workspace

CLASSES = list(TEXTS)
PROVIDERS = ["anthropic", "openai", "codex"]


def _same(got, expected, rule, what, shown):
    __tracebackhide__ = True
    if got != expected:
        raise violation(rule, f"{what}: {where_changed(expected, got)}", input=shown, expected=expected, actual=got)


def _shaped_final(impl, snapshot, rule, *, question=None, files=None):
    """What ``shape`` renders as the trailing message for the same input (the shaping rules judge it)."""
    return final(shape(impl, params(snapshot, question=question, files=files), rule))


def _loaded(impl, spec, paths, rule, **call_input):
    """The trailing message of one call with ``paths`` read from a workspace of ``spec``; and the params."""
    with workspace(spec) as work:
        shown = scenario([{"call": call(input={"files": paths, **call_input})}], work_dir=str(work))
        answer = run(impl, shown, rule)
        result_of(answer, 0, rule, shown)
        (request,) = requests_of(answer, 0)
    return request["messages"][-1]["content"], shown


@pytest.mark.rule(id="workspace.capped-reader")
@pytest.mark.parametrize("name", CLASSES)
def test_file_bytes_from_disk_are_carried_byte_for_byte(impl, name):
    """A file read from the workspace is sent as ``shape`` renders its exact bytes: read as bytes, never in a text
    mode that changes line ends or drops a byte-order mark."""
    data = TEXTS[name].encode("utf-8")
    got, shown = _loaded(impl, {"notes.txt": {"base64": base64.b64encode(data).decode("ascii")}}, ["notes.txt"],
                         "workspace.capped-reader")
    expected = _shaped_final(impl, SNAPSHOT, "workspace.capped-reader",
                             files=[{"path": "notes.txt", "content_base64": base64.b64encode(data).decode("ascii")}])
    _same(got, expected, "workspace.capped-reader", "the file read from disk is not sent as its bytes", shown)


@pytest.mark.rule(id="workspace.display-path")
@pytest.mark.parametrize("name", list(NAME_TEXTS))
def test_file_names_are_shown_as_they_are_on_disk(impl, name):
    """A file whose name is decomposed, holds compatibility characters, joiners or a byte-order mark is shown under
    that very name (relative to the working directory), not a normalised spelling."""
    path = f"docs/{NAME_TEXTS[name]}"
    got, shown = _loaded(impl, {path: {"text": "x\n"}}, [path], "workspace.display-path")
    expected = _shaped_final(impl, SNAPSHOT, "workspace.display-path", files=[{"path": path, "content": "x\n"}])
    _same(got, expected, "workspace.display-path", "the file is not shown under its name as given", shown)


@pytest.mark.rule(id="handler.provider-request")
@pytest.mark.parametrize("name", CLASSES)
def test_question_and_snapshot_reach_the_request_byte_for_byte(impl, name):
    """The question of the tool call and the snapshot's texts reach the provider request as ``shape`` renders them:
    decoding the tool input or the snapshot normalises nothing."""
    text = TEXTS[name]
    snapshot = [{"role": "user", "content": text},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "grep",
                                                                     "arguments": {"pattern": text}}]},
                {"role": "tool", "name": "grep", "tool_call_id": "c1", "content": text}]
    shown = scenario([{"call": call(input={"question": text}, snapshot=snapshot)}])
    answer = run(impl, shown, "handler.provider-request")
    result_of(answer, 0, "handler.provider-request", shown)
    (request,) = requests_of(answer, 0)
    expected = shape(impl, params(snapshot, question=text), "handler.provider-request")
    for index, (got, wanted) in enumerate(zip(request["messages"], expected, strict=False)):
        _same(got.get("content"), wanted["content"], "handler.provider-request",
              f"message {index} of the provider request is not what shape renders", shown)
    check(len(request["messages"]) == len(expected), "handler.provider-request", "the provider request holds "
          f"{len(request['messages'])} messages, shape renders {len(expected)}", input=shown)


@pytest.mark.rule(id="handler.note-trimmed")
@pytest.mark.parametrize("name", CLASSES)
def test_answer_reaches_the_note_byte_for_byte_inside_its_trim(impl, name):
    """The note is the answer trimmed of white space and nothing else: its byte-order mark, Unicode form, line ends
    and control characters are kept."""
    shown = scenario([{"call": call(provider=[reply(f"\n {TEXTS[name]}\t\n")])}])
    note = result_of(run(impl, shown, "handler.note-trimmed"), 0, "handler.note-trimmed", shown)
    _same(note, TEXTS[name], "handler.note-trimmed", "the note was changed beyond its trim", shown)


# -- over HTTP ------------------------------------------------------------------------------------------------------

def _http_call(impl, lb, provider, answered, rule, snapshot=SNAPSHOT, reasoning=None):
    runtime = {"http_provider": {"kind": provider, "base_url": lb.base_url + ("/v1" if provider == "openai" else ""),
                                 "timeout_ms": 5000}, "reasoning": reasoning}
    shown = scenario([{"call": call(provider=[], snapshot=snapshot)}], runtime=runtime)
    lb.expect(answered)
    answer = run(impl, shown, rule)
    return answer, {"scenario": shown, "answered": answered.body[:3000]}


@pytest.mark.needs(capabilities=["http"])
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("provider", [
    pytest.param(provider, marks=pytest.mark.rule(id=STREAM_RULE[provider]), id=provider) for provider in PROVIDERS])
def test_streamed_text_is_carried_byte_for_byte(impl, lb, provider, name):
    """A stream whose text arrives one character per delta (a CR and its LF, a letter and its combining mark, the
    parts of a joined emoji in separate deltas) becomes the note exactly, deltas joined and nothing normalised."""
    text = TEXTS[name]
    answered = Reply.events(frame(EVENTS[provider](list(text))))
    answer, shown = _http_call(impl, lb, provider, answered, STREAM_RULE[provider], reasoning="high")
    note = result_of(answer, 0, STREAM_RULE[provider], shown)
    _same(note, text, STREAM_RULE[provider], f"the {provider} stream's text was not carried byte for byte", shown)


BODY_RULE = {"anthropic": "wire.anthropic-messages", "openai": "handler.provider-request",
             "codex": "wire.codex-instructions"}


def _texts_on_the_wire(provider, body):
    """The texts of the non-system messages of a request body as it arrived."""
    if provider == "anthropic":
        return [block.get("text") for message in body.get("messages", []) for block in message.get("content", [])
                if isinstance(block, dict)]
    if provider == "openai":
        return [message.get("content") for message in body.get("messages", []) if message.get("role") != "system"]
    out = []
    for item in body.get("input", []):
        content = item.get("content")
        out.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content or []))
    return out


@pytest.mark.needs(operations=["scenario", "shape"], capabilities=["http"])  # shape: the rendered snapshot
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("provider", [
    pytest.param(provider, marks=pytest.mark.rule(id=BODY_RULE[provider]), id=provider) for provider in PROVIDERS])
def test_request_body_carries_the_text_byte_for_byte(impl, lb, provider, name):
    """The JSON body that reaches the provider holds the snapshot's text exactly: UTF-8 on the wire, nothing
    normalised, no byte-order mark or line end changed (a reader of the body as UTF-8 sees the very text)."""
    text = TEXTS[name]
    snapshot = [{"role": "user", "content": text}, {"role": "assistant", "content": "on it"},
                {"role": "user", "content": "go on"}]
    expected = [message["content"] for message in shape(impl, params(snapshot), BODY_RULE[provider])
                if message["role"] != "system"]
    answered = Reply.events(frame(EVENTS[provider](["ok"])))
    _, shown = _http_call(impl, lb, provider, answered, BODY_RULE[provider], snapshot=snapshot, reasoning="high")
    check(len(lb.received) >= 1, BODY_RULE[provider], "no request reached the provider", input=shown)
    body = lb.received[0].body
    check(isinstance(body, dict), BODY_RULE[provider], "the request body is not a JSON object as UTF-8",
          input=shown, actual=body)
    got = _texts_on_the_wire(provider, body)
    check(text in got, BODY_RULE[provider], f"no message of the body carries the snapshot's text as it was "
          f"({where_changed(text, (got or [''])[0])})", input=shown, expected=expected, actual=got)
