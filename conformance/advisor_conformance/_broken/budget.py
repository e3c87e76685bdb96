"""Broken implementations of the budget and transport rules: the use counter, its caps and notes, transport sessions
and cache keys. Each is the reference with one runtime or handler part done wrong."""

from __future__ import annotations

import threading
from dataclasses import replace

from advisor_reference import (
    CACHE_KEY_SLOT,
    DEFAULT_CHILD_MAX_USES,
    DEFAULT_MAX_USES,
    AdvisorCallFailed,
    AdvisorHandler,
    AdvisorInputError,
    AdvisorRuntime,
    BudgetStore,
    UseCounter,
    UseGrant,
    new_cache_key,
)
from advisor_reference.adapter import ReferenceAdapter

from . import breaks
from .runtime import _with_runtime_defaults

# -- budget ---------------------------------------------------------------------------------------------------------


@breaks("budget.default-cap")
class DefaultCapIsChildCap(ReferenceAdapter):
    """without max_uses_per_run the main agent gets the child default of 1 use"""

    def scenario(self, params):
        return super().scenario(_with_runtime_defaults(params, max_uses_per_run=DEFAULT_CHILD_MAX_USES))


@breaks("budget.exhausted-result")
class ExhaustedIsAnError(AdvisorHandler):
    """past the cap the call fails with an invalid_input error carrying the budget note"""

    def spent(self, grant):
        raise AdvisorInputError(super().spent(grant), at="input")


@breaks("budget.no-provider-call")
class CountedAfterTheCall(AdvisorHandler):
    """the use is counted when the answer comes back, so calls past the cap still reach the provider (their answer is
    dropped for the budget note)"""

    def handle(self, raw_input, snapshot):
        tool_input, files = self.validate(raw_input, snapshot)
        request = self.request(self.runtime.builder.build(snapshot, tool_input.question, files))
        try:
            answer = self.ask(request)
        except AdvisorCallFailed:
            self.counter.take()
            raise
        grant = self.counter.take()
        if not grant.granted:
            return self.spent(grant)
        return self.note(answer)


@breaks("budget.tool-stays-registered")
class ToolRemovedWhenSpent(AdvisorRuntime):
    """the advisor is taken out of the tool list once the main agent's budget is spent"""

    def tools(self):
        return [] if self.counter.used >= self.counter.limit else super().tools()


@breaks("budget.child-default-cap")
class ChildInheritsMainCap(ReferenceAdapter):
    """without child_max_uses a child agent inherits the main agent's cap"""

    def scenario(self, params):
        return super().scenario(
            _with_runtime_defaults(
                params, child_max_uses=lambda runtime: runtime.get("max_uses_per_run", DEFAULT_MAX_USES)
            )
        )


class RacyCounter(UseCounter):
    """Checks the cap, then counts under the lock a moment later: concurrent calls all pass the check."""

    def take(self):
        if self.used >= self.limit:
            return UseGrant(False, self.used, self.limit)
        threading.Event().wait(0.005)
        with self.lock:
            self.used += 1
            return UseGrant(True, self.used, self.limit)


class RacyBudgetStore(BudgetStore):
    def new_counter(self):
        return RacyCounter(self.limit)


@breaks("budget.atomic")
class CheckThenIncrement(AdvisorRuntime):
    """the cap check and the increment are not under one lock, so concurrent calls all pass the check before any counts"""

    def __init__(self, config, provider, **kwargs):
        super().__init__(config, provider, **kwargs)
        self.counter = RacyCounter(config.max_uses_per_run)
        self.children = RacyBudgetStore(config.child_max_uses)


class ZeroMeansUnlimited(UseCounter):
    """A cap of 0 is read as "no cap"."""

    def take(self):
        if self.limit == 0:
            with self.lock:
                self.used += 1
                return UseGrant(True, self.used, self.limit)
        return super().take()


@breaks("budget.zero-cap")
class ZeroCapUnlimited(AdvisorRuntime):
    """a cap of 0 is read as no cap at all, so every call is answered"""

    def __init__(self, config, provider, **kwargs):
        super().__init__(config, provider, **kwargs)
        self.counter = ZeroMeansUnlimited(config.max_uses_per_run)


# -- transport ------------------------------------------------------------------------------------------------------


@breaks("transport.main-session")
class MainAdvisorOnParentSession(AdvisorRuntime):
    """the main agent's advisor uses the parent's own session <session> as its transport session"""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        if agent_id is None and self.config.session_id:
            handler.transport_session = self.config.session_id
        return handler


@breaks(
    "transport.no-session", 'the session names are formatted from an empty session id, giving -advisor with parent ""'
)
class SessionFormattedFromEmpty(AdvisorRuntime):
    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        session = self.config.session_id or ""
        handler.transport_session = session + ("-advisor" if agent_id is None else "-subagent-advisor")
        handler.parent_session = session
        return handler


@breaks("transport.fresh-key")
class OneFallbackKeyPerRuntime(AdvisorRuntime):
    """without a store key the runtime mints one key and every handler shares it"""

    def __init__(self, config, provider, **kwargs):
        super().__init__(config, provider, **kwargs)
        self.fallback_key = new_cache_key()

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        stored = self.cache_keys.key(CACHE_KEY_SLOT) if self.cache_keys is not None else ""
        handler.cache_key = stored or self.fallback_key
        return handler


@breaks("transport.advisor-profile")
class SubagentWithoutAdvisorProfile(AdvisorHandler):
    """sub-agent advisor requests keep the delegation cache profile, not the advisor profile"""

    def request(self, messages):
        return replace(super().request(messages), advisor_cache_profile=self.agent_id is None)
