"""Realistic mistakes, written apart from the registry of broken implementations (tests/fakes/broken), for the
tests that check a failure names the rule the mistake breaks and says what differs (tests/meta/test_attribution.py).
Each is the kind of bug that once gave a message about another problem."""

from __future__ import annotations

from advisor_reference import AdvisorRuntime, RequestBuilder, UseCounter, UseGrant, trim_space
from advisor_reference._files import file_block_parts
from advisor_reference.adapter import ReferenceAdapter


class _OneUseTooMany(UseCounter):
    def take(self):
        with self._lock:
            if self._used > self.limit:  # off by one: the cap lets one more call through
                return UseGrant(False, self._used, self.limit)
            self._used += 1
            return UseGrant(True, self._used, self.limit)


class CapOffByOne(ReferenceAdapter):
    """The main agent's cap lets one call more through (``>`` for ``>=``)."""

    class runtime_class(AdvisorRuntime):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.counter = _OneUseTooMany(self.counter.limit)


class ChildDefaultTwo(ReferenceAdapter):
    """Without child_max_uses a child agent gets 2 uses, not 1."""

    def scenario(self, params):
        runtime = params.get("runtime") if isinstance(params, dict) else None
        if isinstance(runtime, dict) and "child_max_uses" not in runtime:
            params = {**params, "runtime": {**runtime, "child_max_uses": 2}}
        return super().scenario(params)


class WrongClosingFence(ReferenceAdapter):
    """A file block closes its fence without the newline before it: the content runs into the fence."""

    class builder_class(RequestBuilder):
        def file_block(self, path, content):
            head, text, marker, _ = file_block_parts(path, content, self.decode_content)
            return head, text, marker, "```\n\n"


class QuestionCappedBeforeTrim(ReferenceAdapter):
    """The question is cut at 4000 bytes before it is trimmed, so leading blanks eat into the cap."""

    class builder_class(RequestBuilder):
        def render_question(self, question):
            data = question.encode("utf-8")
            if len(data) > 4000:
                question = data[:4000].decode("utf-8", "ignore") + f"\u2026[elided, {len(data)} bytes total]"
            text = trim_space(question)
            return text + "\n\n" if text else ""
