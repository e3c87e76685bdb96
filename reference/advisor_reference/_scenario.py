"""The ``scenario`` operation: a runtime, a script of advisor calls, and what came of them.

Params (JSON)::

    {"runtime": {"session_id", "max_uses_per_run", "child_max_uses", "model", "max_tokens",
                 "reasoning", "blocked_paths", "confine_to_work_dir",
                 "home_dir": "/absolute/path",  # what ~ stands for in blocked_paths (default: the user's home)
                 "cache_key_store": null | {"<slot>": "<key>"}},
     "work_dir": "/absolute/path",              # optional: where caller files are read
     "steps": [{"call": CALL} | {"concurrent": [CALL, ...]} | {"tools": {"agent": ...}}]}

    CALL = {"agent": null | "<child id>", "conversation": 1, "turn": 1,
            "input": {...tool input...}, "snapshot": [...] | null,
            "provider": [{"answer": "...", "finish_reason": "stop", "delay_ms": 0}
                         | {"error": "...", "status": 500, "delay_ms": 0}]}

With ``http_provider`` the calls go over HTTP to a server the suite runs and
scripts (black-box mode); calls then carry no replies of their own.

A ``concurrent`` step holds at most :data:`MAX_CONCURRENT_CALLS` calls
(``invalid_input`` at the step past it), each on a thread of its own, all
released together once every one has started. Every wait has a deadline: the
start (all threads, or none of the calls, within :data:`START_TIMEOUT_S`) and
each call (its scripted delays or its HTTP deadline, and
:data:`FINISH_MARGIN_S` more). A step whose threads cannot all start makes no
call and is an ``invalid_input`` at the step (the host could not take it);
a call still running at its deadline is a ``provider_error``.

A handler is built for each distinct (agent, conversation, turn), from one
runtime that lives through the whole scenario. Each call's provider replies
are its own, so concurrent calls stay deterministic. The answer::

    {"calls": [{"result": "note"} | {"error": {"code", "message", "at"}}],   # in script order
     "tools": [["advisor", ...]],                                            # one per tools step
     "provider_requests": [{"call": <index>, "model", "messages", "tools", ...}]}
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ._errors import AdvisorInputError, reject_unknown_keys
from ._handler import AdvisorCallFailed, AdvisorHandler, AdvisorRuntime, RuntimeConfig
from ._http import MAX_TIMEOUT_MS, HttpProvider, base_url_problem
from ._prompt import RequestBuilder
from ._provider import MAX_DELAY_MS, ProviderAnswer, ProviderError, ProviderRequest, ScriptedReply
from ._sessions import CacheKeyStore
from ._transcript import Message, parse_transcript
from ._wire import PROVIDER_KINDS
from ._workspace import check_blocked_path, check_path_text

_PARAMS = frozenset({"runtime", "work_dir", "steps"})
_RUNTIME = frozenset(
    {
        "session_id",
        "max_uses_per_run",
        "child_max_uses",
        "model",
        "max_tokens",
        "reasoning",
        "blocked_paths",
        "confine_to_work_dir",
        "home_dir",
        "cache_key_store",
        "http_provider",
    }
)
_HTTP = frozenset({"kind", "base_url", "timeout_ms", "api_key"})
_CALL = frozenset({"agent", "conversation", "turn", "input", "snapshot", "provider"})
_REPLY = frozenset({"answer", "finish_reason", "error", "status", "delay_ms"})
#: The most calls one concurrent step holds (a limit of the protocol): each is a thread, and the suite needs 32.
MAX_CONCURRENT_CALLS = 64
#: How long the threads of a concurrent step may take to start and meet (it takes milliseconds).
START_TIMEOUT_S = 30.0
#: How much longer than its own bound (its scripted delays, or its HTTP deadline) a concurrent call may take.
FINISH_MARGIN_S = 30.0


def _get(
    raw: Mapping[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    default: Any,
    at: str,
    *,
    low: int | None = None,
    high: int | None = None,
) -> Any:
    """``raw[key]`` of type ``kind`` (``default`` when absent); an integer also within ``low``..``high`` if given."""
    value = raw.get(key, default)
    if value is default:
        return value
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise AdvisorInputError(f"must be {names}", at=f"{at}.{key}")
    number = cast(int, value)  # low and high come only with kind int
    if (low is not None and number < low) or (high is not None and number > high):
        raise AdvisorInputError(f"must be from {low} to {high}", at=f"{at}.{key}")
    return value


def _object(raw: Any, at: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise AdvisorInputError("must be an object", at=at)
    return raw


def _config(raw: Any, work_dir: str | None) -> tuple[RuntimeConfig, CacheKeyStore | None]:
    raw = _object(raw if raw is not None else {}, "runtime")
    reject_unknown_keys(raw, _RUNTIME, "runtime")
    defaults = RuntimeConfig()
    blocked = _get(raw, "blocked_paths", list, [], "runtime")
    if not all(isinstance(path, str) for path in blocked):
        raise AdvisorInputError("must be an array of strings", at="runtime.blocked_paths")
    for index, path in enumerate(blocked):
        check_blocked_path(path, f"runtime.blocked_paths[{index}]")
    home = _get(raw, "home_dir", str, None, "runtime")
    if home is not None:
        check_path_text(home, "runtime.home_dir", "a directory path")
        if not os.path.isabs(home):
            raise AdvisorInputError("must be an absolute path", at="runtime.home_dir")
    # Caps not given take the defaults (rules: budget.default-cap, budget.child-default-cap).
    config = RuntimeConfig(
        model=_get(raw, "model", str, defaults.model, "runtime"),
        max_tokens=_get(raw, "max_tokens", int, defaults.max_tokens, "runtime"),
        reasoning=_get(raw, "reasoning", (str, type(None)), None, "runtime"),
        max_uses_per_run=_get(raw, "max_uses_per_run", int, defaults.max_uses_per_run, "runtime"),
        child_max_uses=_get(raw, "child_max_uses", int, defaults.child_max_uses, "runtime"),
        session_id=_get(raw, "session_id", (str, type(None)), None, "runtime"),
        work_dir=work_dir,
        blocked_paths=tuple(blocked),
        confine_to_work_dir=_get(raw, "confine_to_work_dir", bool, False, "runtime"),
        home_dir=home,
    )
    if config.max_uses_per_run < 0 or config.child_max_uses < 0:
        raise AdvisorInputError("use caps cannot be negative", at="runtime")
    store_raw = raw.get("cache_key_store")
    store = None
    if store_raw is not None:
        store_raw = _object(store_raw, "runtime.cache_key_store")
        if not all(isinstance(key, str) for key in store_raw.values()):
            raise AdvisorInputError("keys must be strings", at="runtime.cache_key_store")
        store = CacheKeyStore(dict(store_raw))
    return config, store


@dataclass
class _Call:
    index: int
    agent: str | None
    handler_key: tuple[str | None, int, int]
    input: Any
    snapshot: tuple[Message, ...] | None
    replies: list[ScriptedReply]


def _reply(raw: Any, at: str) -> ScriptedReply:
    raw = _object(raw, at)
    reject_unknown_keys(raw, _REPLY, at)
    delay = _get(raw, "delay_ms", int, 0, at, low=0, high=MAX_DELAY_MS) / 1000
    if "error" in raw:
        return ScriptedReply(
            error=_get(raw, "error", str, "", at), status=_get(raw, "status", int, None, at), delay_s=delay
        )
    return ScriptedReply(
        text=_get(raw, "answer", str, "", at), finish_reason=_get(raw, "finish_reason", str, "stop", at), delay_s=delay
    )


def _call(raw: Any, index: int, at: str, open_roles: bool = False) -> _Call:
    raw = _object(raw, at)
    reject_unknown_keys(raw, _CALL, at)
    if "snapshot" not in raw:
        raise AdvisorInputError("is required (null for a missing snapshot)", at=f"{at}.snapshot")
    snapshot = (
        None
        if raw["snapshot"] is None
        else parse_transcript(raw["snapshot"], at=f"{at}.snapshot", open_roles=open_roles)
    )
    agent = _get(raw, "agent", (str, type(None)), None, at)
    conversation = _get(raw, "conversation", int, 1, at)
    turn = _get(raw, "turn", int, 1, at)
    replies = [_reply(item, f"{at}.provider[{i}]") for i, item in enumerate(_get(raw, "provider", list, [], at))]
    return _Call(index, agent, (agent, conversation, turn), raw.get("input", {}), snapshot, replies)


def _http_provider(raw: Any, http_class: type[HttpProvider] = HttpProvider) -> HttpProvider | None:
    """The HTTP provider of black-box runs: the suite serves the answers on ``base_url``."""
    if raw is None:
        return None
    at = "runtime.http_provider"
    raw = _object(raw, at)
    reject_unknown_keys(raw, _HTTP, at)
    kind = _get(raw, "kind", str, None, at)
    base_url = _get(raw, "base_url", str, None, at)
    if kind not in PROVIDER_KINDS:
        raise AdvisorInputError(f"must be one of {', '.join(PROVIDER_KINDS)}", at=f"{at}.kind")
    if not base_url:
        raise AdvisorInputError("is required", at=f"{at}.base_url")
    problem = base_url_problem(base_url)
    if problem:  # the URL itself is not shown: it may carry credentials
        raise AdvisorInputError(problem, at=f"{at}.base_url")
    timeout = _get(raw, "timeout_ms", int, 30_000, at, low=1, high=MAX_TIMEOUT_MS) / 1000
    return http_class(kind, base_url, api_key=_get(raw, "api_key", str, "", at), timeout=timeout)


class _ScenarioProvider:
    """Routes each provider request to the replies of the call that made it (or to HTTP), and records it."""

    def __init__(self, http: HttpProvider | None = None) -> None:
        self._local = threading.local()
        self.lock = threading.Lock()
        self.http = http
        self.requests: list[tuple[int, ProviderRequest]] = []

    def serve(self, call: _Call) -> None:
        self._local.call = call

    def complete(self, request: ProviderRequest) -> ProviderAnswer:
        call: _Call = self._local.call
        if self.http is not None:
            with self.lock:
                self.requests.append((call.index, request))
            return self.http.complete(request)
        with self.lock:
            self.requests.append((call.index, request))
            reply = call.replies.pop(0) if call.replies else None
        if reply is None:
            raise ProviderError("no scripted provider reply is left for this call")
        if reply.delay_s:
            threading.Event().wait(reply.delay_s)
        if reply.error is not None:
            raise ProviderError(reply.error, status=reply.status)
        return ProviderAnswer(reply.text, reply.finish_reason)


@dataclass
class _Run:
    runtime: AdvisorRuntime
    provider: _ScenarioProvider
    handlers: dict[tuple[str | None, int, int], AdvisorHandler] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self, call: _Call) -> AdvisorHandler:
        with self.lock:
            handler = self.handlers.get(call.handler_key)
            if handler is None:
                # A new handler per turn, all from one runtime (rule: budget.shared-counter).
                handler = self.handlers[call.handler_key] = self.runtime.new_handler(call.agent)
            return handler

    def perform(self, call: _Call) -> dict[str, Any]:
        handler = self.handler(call)
        self.provider.serve(call)
        try:
            # A spent budget is a normal result, not an error (rule: budget.exhausted-result).
            return {"result": handler.handle(call.input, call.snapshot)}
        except (AdvisorInputError, AdvisorCallFailed) as error:  # rule: streaming.failure-report
            return {"error": error.to_json()}


def run_scenario(
    params: Any,
    builder: RequestBuilder,
    runtime_class: type[AdvisorRuntime] = AdvisorRuntime,
    http_class: type[HttpProvider] = HttpProvider,
    *,
    open_roles: bool = False,
) -> dict[str, Any]:
    """Run a scenario; malformed params raise :class:`AdvisorInputError` naming the field."""
    params = _object(params, "params")
    reject_unknown_keys(params, _PARAMS)
    work_dir = _get(params, "work_dir", str, None, "params")
    if work_dir is not None:
        check_path_text(work_dir, "work_dir", "a directory path")
        if not os.path.isabs(work_dir):
            raise AdvisorInputError("must be an absolute path", at="work_dir")
    config, store = _config(params.get("runtime"), work_dir)

    steps = _get(params, "steps", list, None, "params")
    if steps is None:
        raise AdvisorInputError("is required", at="steps")
    plan: list[tuple[str, Any]] = []
    count = 0
    for i, raw in enumerate(steps):
        at = f"steps[{i}]"
        entry = _object(raw, at)
        if len(entry) != 1 or next(iter(entry)) not in ("call", "concurrent", "tools"):
            raise AdvisorInputError("a step is one of {call}, {concurrent}, {tools}", at=at)
        kind, body = next(iter(entry.items()))
        if kind == "call":
            plan.append(("call", _call(body, count, f"{at}.call", open_roles)))
            count += 1
        elif kind == "concurrent":
            if not isinstance(body, list):
                raise AdvisorInputError("must be an array of calls", at=f"{at}.concurrent")
            if len(body) > MAX_CONCURRENT_CALLS:  # each call is a thread: the protocol bounds them
                raise AdvisorInputError(
                    f"holds {len(body)} calls; a concurrent step holds at most {MAX_CONCURRENT_CALLS}",
                    at=f"{at}.concurrent",
                )
            calls = [_call(item, count + j, f"{at}.concurrent[{j}]", open_roles) for j, item in enumerate(body)]
            plan.append(("concurrent", calls))
            count += len(calls)
        else:
            plan.append(("tools", _get(_object(body, f"{at}.tools"), "agent", (str, type(None)), None, f"{at}.tools")))

    http = _http_provider((params.get("runtime") or {}).get("http_provider"), http_class)  # runtime checked above
    if http is not None and any(
        c.replies for _, body in plan for c in (body if isinstance(body, list) else [body]) if isinstance(c, _Call)
    ):
        raise AdvisorInputError(
            "with http_provider the suite's server scripts the replies; calls carry none", at="steps"
        )
    provider = _ScenarioProvider(http)
    run = _Run(runtime_class(config, provider, cache_keys=store, builder=builder), provider)
    results: list[dict[str, Any] | None] = [None] * count
    tool_lists: list[list[str]] = []
    for step, (kind, body) in enumerate(plan):
        if kind == "call":
            results[body.index] = run.perform(body)
        elif kind == "concurrent":
            if body:
                bound = http.timeout if http is not None else max(sum(r.delay_s for r in c.replies) for c in body)
                for call, result in zip(
                    body, run_concurrently(run, body, bound, f"steps[{step}].concurrent"), strict=True
                ):
                    results[call.index] = result
        else:
            tool_lists.append([tool["name"] for tool in run.runtime.tools()])  # rule: budget.tool-stays-registered
    if http is not None:
        http.close()
    with provider.lock:  # a call past its deadline may still be running
        requests = list(provider.requests)
    return {
        "calls": results,
        "tools": tool_lists,
        "provider_requests": [{"call": index, **request.to_json()} for index, request in requests],
    }


def run_concurrently(run: _Run, calls: list[_Call], bound_s: float, at: str) -> list[dict[str, Any]]:
    """Each call on a thread of its own, released together once all have started; the outcomes in order.

    Every wait has a deadline. The threads and this one meet at a barrier: if a thread cannot start, or they do not
    all meet within START_TIMEOUT_S, the barrier breaks, no call is made, and the step is an ``invalid_input``
    naming it. A call not done ``bound_s`` + FINISH_MARGIN_S after the start is a ``provider_error``; its thread
    (a daemon) is left to end on its own.
    """
    start = threading.Barrier(len(calls) + 1, timeout=START_TIMEOUT_S)
    outcomes: list[Any] = [None] * len(calls)

    def perform(slot: int) -> None:
        try:
            start.wait(START_TIMEOUT_S)
        except threading.BrokenBarrierError:  # the step did not start: no call is made
            return
        try:
            outcomes[slot] = run.perform(calls[slot])
        except BaseException as exc:  # raised again by the caller's thread, as it would be without threads
            outcomes[slot] = exc

    threads = [
        threading.Thread(target=perform, args=(slot,), name=f"advisor-scenario-{call.index}", daemon=True)
        for slot, call in enumerate(calls)
    ]
    started = 0
    try:
        for thread in threads:
            thread.start()
            started += 1
        start.wait(START_TIMEOUT_S)
    except (RuntimeError, threading.BrokenBarrierError) as exc:  # a thread that cannot start; a start too slow
        start.abort()
        for thread in threads[:started]:
            thread.join(START_TIMEOUT_S)
        why = (
            f"only {started} of its {len(calls)} threads could start ({exc})"
            if started < len(calls)
            else f"its {len(calls)} threads did not all start within {START_TIMEOUT_S:g} s"
        )
        raise AdvisorInputError(f"{why}; no call was made", at=at) from None
    deadline = time.monotonic() + bound_s + FINISH_MARGIN_S
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    late = {"error": AdvisorCallFailed(f"the call did not finish within {bound_s + FINISH_MARGIN_S:g} s").to_json()}
    done = []
    for thread, outcome in zip(threads, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            raise outcome
        done.append(late if thread.is_alive() or outcome is None else outcome)
    return done
