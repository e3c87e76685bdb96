"""The advisor runtime and its handler: from a tool call to the note returned to the main agent.

One :class:`AdvisorRuntime` lives as long as the process's agent runtime. It
owns the main agent's use counter and the store of child agents' counters, so
every handler built from it (a new one each turn, in every conversation)
counts against the same cap. A handler handles a call in this order:

1. decode the tool input (a wrong type is an error);
2. take the live snapshot (none is an error);
3. check the file count (more than 8 is an error, before any file is read);
4. load the files under the path policy (a refused file is an error);
5. count the use (past the cap: the budget-spent note, no provider call);
6. build the request (dedupe against the snapshot happens here);
7. call the provider (a failure is an error; the use stays counted);
8. make the note: the answer trimmed, a no-content note when it is empty,
   and a token-limit note appended when it stopped on the token limit.

Errors before step 5 consume no use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._budget import DEFAULT_CHILD_MAX_USES, DEFAULT_MAX_USES, BudgetStore, UseCounter, UseGrant
from ._errors import AdvisorInputError
from ._files import LoadedFile
from ._prompt import RequestBuilder
from ._provider import Provider, ProviderAnswer, ProviderError, ProviderRequest
from ._sessions import CacheKeyStore, cache_key_for_handler, transport_sessions
from ._strings import REFERENCE_STRINGS, DeclaredStrings
from ._text import trim_space
from ._tool import TOOL_DEFINITION, ToolInput, decode_tool_input
from ._transcript import Message, RenderedMessage
from ._workspace import FileRefused, PathPolicy, load_files


class AdvisorCallFailed(Exception):
    """The provider call failed after the use was counted; the use stays consumed.

    rules: handler.failure-consumes-use, streaming.failure-report
    """

    code = "provider_error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": str(self)}


@dataclass(frozen=True)
class RuntimeConfig:
    """Settings of one advisor runtime."""

    model: str = "advisor-model"
    max_tokens: int = 4096
    reasoning: str | None = None
    max_uses_per_run: int = DEFAULT_MAX_USES
    child_max_uses: int = DEFAULT_CHILD_MAX_USES
    session_id: str | None = None
    work_dir: str | None = None
    blocked_paths: tuple[str, ...] = ()
    confine_to_work_dir: bool = False
    home_dir: str | None = None  # what ~ stands for in blocked_paths (None: the user's home)


@dataclass
class AdvisorHandler:
    """Handles advisor calls of one turn, step by step in the order of the spec.

    Each step is a method, so an implementation built on the reference (or a
    broken one in the suite's own tests) replaces exactly one of them.
    """

    runtime: AdvisorRuntime
    counter: UseCounter
    cache_key: str
    transport_session: str | None
    parent_session: str | None
    agent_id: str | None = None

    def handle(self, raw_input: Any, snapshot: Sequence[Message] | None) -> str:
        """The note for one advisor call; raises AdvisorInputError (no use) or AdvisorCallFailed (use spent)."""
        tool_input, files = self.validate(raw_input, snapshot)
        grant = self.counter.take()  # only after validation (rule: handler.validation-no-use)
        if not grant.granted:  # rule: budget.no-provider-call
            return self.spent(grant)
        assert snapshot is not None  # validate refused a missing snapshot
        messages = self.runtime.builder.build(snapshot, tool_input.question, files)
        return self.note(self.ask(self.request(messages)))  # rule: handler.one-request

    def validate(self, raw_input: Any, snapshot: Sequence[Message] | None) -> tuple[ToolInput, list[LoadedFile]]:
        """Everything checked before a use is counted: the input, the snapshot, the file count, the files.

        rules: handler.step-order, handler.validation-no-use
        """
        tool_input = self.decode(raw_input)
        if snapshot is None:  # rule: handler.validation-no-use
            raise AdvisorInputError("the live conversation snapshot is missing", at="snapshot", code="missing_snapshot")
        # Before any file is read and before a use is counted (rule: handler.file-count-first).
        self.runtime.builder.check_file_count(len(tool_input.files), at="input.files")
        return tool_input, self.load(tool_input.files) if tool_input.files else []

    def decode(self, raw_input: Any) -> ToolInput:
        return decode_tool_input(raw_input)

    def load(self, paths: Sequence[str]) -> list[LoadedFile]:
        if self.runtime.policy is None:
            raise FileRefused("file access is not configured for the advisor", at="input.files")
        return load_files(self.runtime.policy, paths)

    def spent(self, grant: UseGrant) -> str:
        return budget_spent_note(self.runtime.strings, grant.used, grant.limit)  # rule: budget.exhausted-result

    def request(self, messages: Sequence[RenderedMessage]) -> ProviderRequest:
        config = self.runtime.config
        # Configured model, max tokens and reasoning, the shaped messages, no tools (rule: handler.provider-request).
        return ProviderRequest(
            model=config.model,
            messages=tuple(messages),
            max_tokens=config.max_tokens,
            reasoning=config.reasoning,
            # rules: streaming.non-streaming-default, streaming.reasoning-streams
            stream=config.reasoning is not None,
            prompt_cache_key=self.cache_key,
            transport_session=self.transport_session,
            parent_session=self.parent_session,
        )

    def ask(self, request: ProviderRequest) -> ProviderAnswer:
        try:
            return self.runtime.provider.complete(request)
        except ProviderError as exc:  # the use stays counted (rule: handler.failure-consumes-use)
            raise AdvisorCallFailed(f"the advisor call failed: {exc}", status=exc.status) from exc

    def note(self, answer: ProviderAnswer) -> str:
        return make_note(self.runtime.strings, answer)


class AdvisorRuntime:
    """The process-lifetime state behind every advisor handler.

    It builds its handlers from :attr:`handler_class` and its path policy from :attr:`policy_class`.
    """

    handler_class: type[AdvisorHandler] = AdvisorHandler
    policy_class: type[PathPolicy] = PathPolicy

    def __init__(
        self,
        config: RuntimeConfig,
        provider: Provider,
        *,
        cache_keys: CacheKeyStore | None = None,
        builder: RequestBuilder | None = None,
    ) -> None:
        self.config = config
        self.provider = provider
        self.cache_keys = cache_keys
        self.builder = builder or RequestBuilder(REFERENCE_STRINGS)
        self.counter = UseCounter(config.max_uses_per_run)  # one per runtime (rule: budget.shared-counter)
        self.children = BudgetStore(config.child_max_uses)  # rule: budget.child-store
        self.policy = (
            self.policy_class(config.work_dir, tuple(config.blocked_paths), config.confine_to_work_dir, config.home_dir)
            if config.work_dir
            else None
        )

    @property
    def strings(self) -> DeclaredStrings:
        return self.builder.strings

    def tools(self) -> list[Mapping[str, Any]]:
        """The tool list offered to an agent: the advisor stays registered, whatever the budget.

        rule: budget.tool-stays-registered
        """
        return [TOOL_DEFINITION]

    def counter_for(self, agent_id: str | None) -> UseCounter:
        """The main agent's counter, or the child agent's from the store."""
        return self.counter if agent_id is None else self.children.counter(agent_id)  # rule: budget.child-store

    def new_handler(self, agent_id: str | None = None) -> AdvisorHandler:
        """The handler of one turn of the main agent (``agent_id`` None) or of a child agent."""
        transport, parent = transport_sessions(self.config.session_id, sub_agent=agent_id is not None)
        return self.handler_class(
            runtime=self,
            counter=self.counter_for(agent_id),  # the runtime's counter (rule: budget.shared-counter)
            cache_key=cache_key_for_handler(self.cache_keys),  # rules: transport.cache-key-store, transport.fresh-key
            transport_session=transport,
            parent_session=parent,
            agent_id=agent_id,
        )


def budget_spent_note(strings: DeclaredStrings, used: int, limit: int) -> str:
    """The normal tool result past the cap: the declared note with used/max filled in.

    rule: budget.exhausted-result
    """
    return strings.budget_spent.replace("{used}", str(used)).replace("{max}", str(limit))


def make_note(strings: DeclaredStrings, answer: ProviderAnswer) -> str:
    """The answer trimmed; the no-content note when it is empty; the token-limit note when it was cut."""
    # rules: handler.note-trimmed, handler.empty-answer-note
    note = trim_space(answer.text) or strings.no_content_note
    if answer.finish_reason == "length":  # rule: handler.token-limit-note
        note += "\n\n" + strings.token_limit_note
    return note
