"""Broken implementations of the runtime rules: tool, workspace, handler, budget and transport.
Each is the reference with one runtime, handler or provider part done wrong."""

from __future__ import annotations

from reference._budget import UseCounter
from reference._handler import AdvisorHandler, AdvisorRuntime
from reference._sessions import new_cache_key
from reference._tool import decode_tool_input
from reference._workspace import load_files
from reference.adapter import ReferenceAdapter

from . import breaks


@breaks("budget.shared-counter", "each handler (a new one every turn) gets a fresh counter, so the cap resets every turn")
class BudgetPerHandler(ReferenceAdapter):
    class runtime_class(AdvisorRuntime):
        def new_handler(self, agent_id=None):
            handler = super().new_handler(agent_id)
            handler.counter = UseCounter(handler.counter.limit)
            return handler


@breaks("budget.child-store", "child agents count against the parent's counter")
class ChildSharesParentCounter(ReferenceAdapter):
    class runtime_class(AdvisorRuntime):
        def counter_for(self, agent_id):
            return self.counter


@breaks("transport.subagent-session", "sub-agent advisors use <session>-advisor, sharing the parent's pooled transport")
class SubagentUsesAdvisorSession(ReferenceAdapter):
    class runtime_class(AdvisorRuntime):
        def new_handler(self, agent_id=None):
            handler = super().new_handler(agent_id)
            if self.config.session_id:
                handler.transport_session = self.config.session_id + "-advisor"
            return handler


@breaks("transport.cache-key-store", "every handler mints its own key even when the store holds one")
class StoreKeyIgnored(ReferenceAdapter):
    class runtime_class(AdvisorRuntime):
        def new_handler(self, agent_id=None):
            handler = super().new_handler(agent_id)
            handler.cache_key = new_cache_key()
            return handler


class UseCountedBeforeFiles(AdvisorHandler):
    """The use is counted before the files are loaded, so a missing file costs a use."""

    def handle(self, raw_input, snapshot):
        tool_input = decode_tool_input(raw_input)
        if tool_input.files and self.runtime.policy is not None and len(tool_input.files) <= 8:
            if not self.counter.take().granted:
                return super().handle(raw_input, snapshot)
            load_files(self.runtime.policy, tool_input.files)  # a bad file raises: the use stays taken
            self.counter._used -= 1  # loaded fine: the reference counts it again below
        return super().handle(raw_input, snapshot)


@breaks("handler.validation-no-use", "the use is counted before the files load, so a missing file costs a use")
class UseOnMissingFile(ReferenceAdapter):
    class runtime_class(AdvisorRuntime):
        def new_handler(self, agent_id=None):
            handler = super().new_handler(agent_id)
            return UseCountedBeforeFiles(**{k: getattr(handler, k) for k in
                                            ("runtime", "counter", "cache_key", "transport_session", "parent_session")})
