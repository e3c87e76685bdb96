"""Realistic mistakes, written apart from the registry of broken implementations (advisor_conformance._broken), for the
tests that check a failure names the rule the mistake breaks and says what differs (tests/meta/test_attribution.py),
and for the first-failure figure (``python3 -m tests.support.first_failure``: the first failure of a ``-x`` run names
the rule the mistake breaks). Each is the kind of bug that once gave a message about another problem, registered with
:func:`mistake` (the rule it breaks, and what the same mistake cannot help breaking as well)."""

from __future__ import annotations

import dataclasses

from advisor_conformance._broken import BrokenImplementation
from advisor_reference import AdvisorRuntime, RequestBuilder, UseCounter, UseGrant, trim_space
from advisor_reference.adapter import ReferenceAdapter

#: Every registered mistake, by class name.
MISTAKES: dict[str, BrokenImplementation] = {}


def mistake(rule: str, also: tuple[str, ...] = ()):
    """Register a mistake as breaking ``rule`` (and, unavoidably, ``also``); its docstring says how."""

    def register(cls):
        cls.name = "mistake-" + cls.__name__
        MISTAKES[cls.__name__] = BrokenImplementation(
            rule, " ".join((cls.__doc__ or "").split()), f"{cls.__module__}:{cls.__qualname__}", tuple(also)
        )
        return cls

    return register


class _OneUseTooMany(UseCounter):
    def take(self):
        with self.lock:
            if self.used > self.limit:  # off by one: the cap lets one more call through
                return UseGrant(False, self.used, self.limit)
            self.used += 1
            return UseGrant(True, self.used, self.limit)


@mistake(
    "budget.no-provider-call",
    also=(
        "budget.exhausted-result",
        "budget.default-cap",
        "budget.zero-cap",
        "budget.shared-counter",
        "budget.atomic",
        "handler.failure-consumes-use",
    ),
)
class CapOffByOne(ReferenceAdapter):
    """The main agent's cap lets one call more through (``>`` for ``>=``)."""

    class runtime_class(AdvisorRuntime):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.counter = _OneUseTooMany(self.counter.limit)


@mistake("budget.child-default-cap", also=("budget.exhausted-result", "budget.no-provider-call"))
class ChildDefaultTwo(ReferenceAdapter):
    """Without child_max_uses a child agent gets 2 uses, not 1."""

    def scenario(self, params):
        runtime = params.get("runtime") if isinstance(params, dict) else None
        if isinstance(runtime, dict) and "child_max_uses" not in runtime:
            params = {**params, "runtime": {**runtime, "child_max_uses": 2}}
        return super().scenario(params)


@mistake("files.render-format")
class WrongClosingFence(ReferenceAdapter):
    """A file block closes its fence without the newline before it: the content runs into the fence."""

    class builder_class(RequestBuilder):
        def file_block(self, path, content):
            head, text, marker, _ = super().file_block(path, content)
            return head, text, marker, "```\n\n"


@mistake("question.cap", also=("question.trim",))
class QuestionCappedBeforeTrim(ReferenceAdapter):
    """The question is cut at 4000 bytes before it is trimmed, so leading blanks eat into the cap."""

    class builder_class(RequestBuilder):
        def render_question(self, question):
            data = question.encode("utf-8")
            if len(data) > 4000:
                question = data[:4000].decode("utf-8", "ignore") + f"\u2026[elided, {len(data)} bytes total]"
            text = trim_space(question)
            return text + "\n\n" if text else ""


def _file_blocks(builder, files, snapshot):
    """The reference's file blocks, one tuple of pieces per file (None where a file renders no block)."""
    if not files:
        return []
    contents = builder.cap_files(files, builder.dedupe(files, snapshot))
    return [
        (file, content, builder.deduped_block(file.path) if content is None else builder.file_block(file.path, content))
        for file, content in zip(files, contents, strict=True)
    ]


@mistake("files.render-format")
class FilesReversed(ReferenceAdapter):
    """The file blocks are rendered last file first (the caps are applied in the order given)."""

    class builder_class(RequestBuilder):
        def render_files(self, files, snapshot):
            return [part for _, _, block in reversed(_file_blocks(self, files, snapshot)) for part in block]


@mistake("files.aggregate-cap")
class FilesPastTheAggregateDropped(ReferenceAdapter):
    """A file with nothing left of the aggregate is left out, instead of rendered as a marker only."""

    class builder_class(RequestBuilder):
        def render_files(self, files, snapshot):
            return [
                part
                for _, content, block in _file_blocks(self, files, snapshot)
                if content is None or content.kept or not content.marker
                for part in block
            ]


@mistake("files.render-format")
class CrlfNormalised(ReferenceAdapter):
    """A file's CRLF line ends are written as LF (text read in universal-newline mode)."""

    class builder_class(RequestBuilder):
        def decode_content(self, data):
            return super().decode_content(data).replace("\r\n", "\n")


@mistake("flatten.plain-messages-kept")
class SnapshotSystemMessagesDropped(ReferenceAdapter):
    """The snapshot's own system messages are left out (the advisor's system prompt is thought to replace them)."""

    class builder_class(RequestBuilder):
        def split_in_flight(self, snapshot):
            transcript, text = super().split_in_flight(snapshot)
            return [message for message in transcript if message.role != "system"], text


@mistake("flatten.assistant-with-calls")
class ToolCallsReversed(ReferenceAdapter):
    """An assistant message's tool-call lines come last call first."""

    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            if message.role == "assistant" and message.tool_calls:
                message = dataclasses.replace(message, tool_calls=tuple(reversed(message.tool_calls)))
            return super().flatten_message(message)


@mistake("request.final-message-order")
class QuestionBeforeFiles(ReferenceAdapter):
    """The question comes before the files in the final message."""

    class builder_class(RequestBuilder):
        def final_message(self, in_flight_block, file_blocks, question_block):
            return "".join([in_flight_block, question_block, *file_blocks, self.strings.guidance_request])


@mistake("flatten.plain-messages-kept")
class UserMessagesTrimmed(ReferenceAdapter):
    """User messages of the snapshot are trimmed of surrounding white space."""

    class builder_class(RequestBuilder):
        def flatten_message(self, message):
            if message.role == "user":
                message = dataclasses.replace(message, content=trim_space(message.content))
            return super().flatten_message(message)


@mistake("flatten.empty-tool-result")
class EmptyResultLeftEmpty(ReferenceAdapter):
    """An empty tool result is written as nothing after its header, not as ``(empty)``."""

    class builder_class(RequestBuilder):
        def render_tool_result(self, message):
            text = super().render_tool_result(message)
            return text.removesuffix("\n(empty)") + "\n" if not message.content else text


@mistake("dedupe.full-read-match", also=("dedupe.notice",))
class DedupeByHashAlone(ReferenceAdapter):
    """A file is deduped when any full read in the snapshot has its hash, whatever the read's path."""

    class builder_class(RequestBuilder):
        def dedupe(self, files, snapshot):
            hashes = set(self.full_read_hashes(snapshot).values())
            return [self.may_dedupe(file) and self.hash_file(file.data) in hashes for file in files]


@mistake("inflight.block-layout")
class InFlightTextUntrimmed(ReferenceAdapter):
    """The in-flight text is written as it is, not trimmed (only the blank check trims)."""

    class builder_class(RequestBuilder):
        def split_in_flight(self, snapshot):
            transcript, text = super().split_in_flight(snapshot)
            return transcript, (snapshot[-1].content if text is not None else None)
