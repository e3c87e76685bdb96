"""Broken implementations of the runtime rules: tool, workspace and handler (budget and transport: :mod:`.budget`).
Each is the reference with one runtime, handler or provider part done wrong."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from advisor_reference import (
    AdvisorCallFailed,
    AdvisorHandler,
    AdvisorInputError,
    AdvisorRuntime,
    PathPolicy,
    RuntimeConfig,
    UseCounter,
    decode_tool_input,
    load_files,
    new_cache_key,
    trim_space,
)
from advisor_reference.adapter import ReferenceAdapter

from . import breaks, check_forgotten


@breaks("budget.shared-counter")
class BudgetPerHandler(AdvisorRuntime):
    """each handler (a new one every turn) gets a fresh counter, so the cap resets every turn"""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        handler.counter = UseCounter(handler.counter.limit)
        return handler


@breaks("budget.child-store")
class ChildSharesParentCounter(AdvisorRuntime):
    """child agents count against the parent's counter"""

    def counter_for(self, agent_id):
        return self.counter


@breaks("transport.subagent-session")
class SubagentUsesAdvisorSession(AdvisorRuntime):
    """sub-agent advisors use <session>-advisor, sharing the parent's pooled transport"""

    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        if self.config.session_id:
            handler.transport_session = self.config.session_id + "-advisor"
        return handler


@breaks("transport.cache-key-store")
class StoreKeyIgnored(AdvisorRuntime):
    """every handler mints its own key even when the store holds one"""

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
            self.counter.used -= 1  # loaded fine: the reference counts it again below
        return super().handle(raw_input, snapshot)


@breaks("handler.validation-no-use")
class UseOnMissingFile(AdvisorRuntime):
    """the use is counted before the files load, so a missing file costs a use"""

    handler_class = UseCountedBeforeFiles


def _with_runtime_defaults(params, **defaults):
    """The scenario params with ``defaults`` filled into the runtime where it does not set them."""
    if not isinstance(params, Mapping) or not isinstance(params.get("runtime", {}), (Mapping, type(None))):
        return params
    runtime = dict(params.get("runtime") or {})
    for key, value in defaults.items():
        runtime.setdefault(key, value(runtime) if callable(value) else value)
    return {**params, "runtime": runtime}


# -- tool -----------------------------------------------------------------------------------------------------------


# (An input schema without additionalProperties: false is not broken: clar. §4 says unknown keys are ignored, and no
# sentence says the offered schema must refuse them.)
@breaks("tool.definition")
class SchemaRequiresQuestion(ReferenceAdapter):
    """the input schema requires the question, though both arguments are optional"""

    def tool_definition(self, params=None):
        definition = super().tool_definition(params)
        definition["input_schema"]["required"] = ["question"]
        return definition


@breaks("tool.unknown-keys-ignored")
class StrictToolInput(AdvisorHandler):
    """the input is decoded strictly: an unknown key is an invalid_input error"""

    def decode(self, raw_input):
        unknown = sorted(set(raw_input) - {"question", "files"}) if isinstance(raw_input, Mapping) else []
        if unknown:
            raise AdvisorInputError(f"unknown field {unknown[0]!r}", at=f"input.{unknown[0]}")
        return super().decode(raw_input)


@breaks("tool.wrong-type-error")
class FileItemsCoerced(AdvisorHandler):
    """files items are coerced with str() instead of checked, so [7] or [null] becomes a path and fails later as a
    file_error, not invalid_input"""

    def decode(self, raw_input):
        if isinstance(raw_input, Mapping) and isinstance(raw_input.get("files"), list):
            raw_input = {**raw_input, "files": [str(path) for path in raw_input["files"]]}
        return super().decode(raw_input)


# -- workspace ------------------------------------------------------------------------------------------------------


class _SpeltBlockedPolicy(PathPolicy):
    """Blocked paths are matched against the path as the caller spelt it; only a path that is itself a link is
    judged by its target."""

    def is_blocked(self, raw, real):
        joined = os.path.join(self.work_dir, raw)
        judged = os.path.relpath(real, self.resolved_work_dir) if os.path.islink(joined) else raw
        return any(judged == blocked or judged.startswith(blocked.rstrip("/") + "/") for blocked in self.blocked)


@breaks("workspace.path-policy")
class BlockedPathAsSpelt(AdvisorRuntime):
    """blocked paths are matched against the path as spelt, so ./secrets/token.txt slips past a block on secrets"""

    policy_class = _SpeltBlockedPolicy


@breaks("workspace.path-policy", variant="tilde-literal", modules=("test_workspace_home.py",))
class TildeTakenLiterally(PathPolicy):
    """a blocked path written with ~ is taken literally, as a folder under the working directory (as Go's
    filepath.Join, Python's os.path.join and Node's path.resolve take it), so ~/.ssh blocks nothing and the private
    key, named by its absolute path, is read and sent"""

    def expand_home(self, blocked):
        return blocked


def _lexically_inside(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _LexicalBlockedPolicy(PathPolicy):
    """The blocked-path check compares normalised paths lexically, without following links."""

    def is_blocked(self, raw, real):
        lexical = os.path.normpath(os.path.join(self.work_dir, raw))
        return any(
            _lexically_inside(lexical, os.path.normpath(os.path.join(self.work_dir, blocked)))
            for blocked in self.blocked
        )


@breaks("workspace.symlinks")
class BlockedCheckIgnoresLinks(AdvisorRuntime):
    """the blocked-path check is lexical (normpath, no realpath), so a link into a blocked directory is read"""

    policy_class = _LexicalBlockedPolicy


class _LexicalConfinementPolicy(PathPolicy):
    """Confinement compares the normalised path lexically, without following links."""

    def is_outside(self, raw, real):
        return not _lexically_inside(
            os.path.normpath(os.path.join(self.work_dir, raw)), os.path.normpath(self.work_dir)
        )


@breaks("workspace.confinement")
class ConfinementIgnoresLinks(AdvisorRuntime):
    """confinement checks the normalised path lexically, so a link that leads out of the working directory is read"""

    policy_class = _LexicalConfinementPolicy


@breaks("workspace.capped-reader")
class SizeFromBytesRead(PathPolicy):
    """the true size is taken from the bytes read, not from stat, so a file cut at the cap looks exactly 32768 bytes
    long and gets no marker"""

    def read(self, fd, raw, at):
        data, _ = super().read(fd, raw, at)
        return data, len(data)


@breaks("workspace.display-path")
class DisplayPathAsGiven(PathPolicy):
    """the file is shown by the path as the caller gave it, unnormalised, and an absolute path as the host path"""

    def display_path(self, raw):
        return raw


@breaks("workspace.special-files")
class NoFileTypeCheck(check_forgotten(PathPolicy, "refuse_kind")):
    """the file is opened non-blocking and read without a file-type check, so a FIFO reads as empty and a directory
    fails only when it is read"""


@breaks("workspace.pseudo-files")
class PseudoFilesRead(check_forgotten(PathPolicy, "is_pseudo", answer=False)):
    """only special files are refused: /proc/self/environ is a regular file, so the process's environment is read and
    sent"""


@breaks("workspace.error-paths")
class FileErrorsNamedByDisplayPath(PathPolicy):
    """file errors name the file by its normalised display path, not as the caller gave it"""

    def open(self, raw, at):
        return super().open(self.display_path(raw), at)


class _SkipMissingFiles(AdvisorHandler):
    """Files that are not there are left out, as if the caller had not named them."""

    def load(self, paths):
        policy = self.runtime.policy
        present = [path for path in paths if policy is None or os.path.lexists(os.path.join(policy.work_dir, path))]
        return super().load(present) if present else []


@breaks("workspace.missing-file")
class MissingFileSkipped(AdvisorRuntime):
    """a missing file is skipped and the call goes on with the files that are there"""

    handler_class = _SkipMissingFiles


# -- handler --------------------------------------------------------------------------------------------------------


@breaks("handler.one-request")
class SnapshotTakenOncePerTurn(AdvisorHandler):
    """the handler keeps the snapshot of its first call, so a later call in the same turn sends a stale conversation"""

    first_snapshot = None

    def handle(self, raw_input, snapshot):
        if snapshot is not None and self.first_snapshot is None:
            self.first_snapshot = snapshot
        return super().handle(raw_input, self.first_snapshot if snapshot is not None else None)


@breaks("handler.file-count-first")
class FilesCountedAfterLoading(AdvisorHandler):
    """the files are loaded first and the loaded ones counted, so a bad file among nine fails as a file_error"""

    def validate(self, raw_input, snapshot):
        tool_input = self.decode(raw_input)
        if snapshot is None:
            raise AdvisorInputError("the live conversation snapshot is missing", at="snapshot", code="missing_snapshot")
        files = self.load(tool_input.files) if tool_input.files else []
        self.runtime.builder.check_file_count(len(files), at="input.files")
        return tool_input, files


# (Checking the file count before the types is not broken: both are the call's arguments, and no sentence orders
# them; clar. §4 asks only that the count comes before any file is read.)
@breaks("handler.step-order")
class SnapshotBeforeTypes(AdvisorHandler):
    """the snapshot is checked before the arguments are decoded, so a wrongly typed question with no snapshot gives
    missing_snapshot"""

    def validate(self, raw_input, snapshot):
        if snapshot is None:
            raise AdvisorInputError("the live conversation snapshot is missing", at="snapshot", code="missing_snapshot")
        return super().validate(raw_input, snapshot)


@breaks("handler.provider-request")
class DefaultMaxTokens(AdvisorHandler):
    """max_tokens is not passed on: the request carries the default 4096 whatever is configured"""

    def request(self, messages):
        return replace(super().request(messages), max_tokens=RuntimeConfig().max_tokens)


@breaks("handler.failure-consumes-use")
class RateLimitRefundsUse(AdvisorHandler):
    """a 429 (rate limited) is taken as no call made and the use is given back"""

    def ask(self, request):
        try:
            return super().ask(request)
        except AdvisorCallFailed as exc:
            if exc.status == 429:
                with self.counter.lock:
                    self.counter.used -= 1
            raise


@breaks("handler.note-trimmed")
class NoteTrimmedByPythonStrip(AdvisorHandler):
    """the answer is trimmed with Python's str.strip, which also strips U+001C..U+001F that Go's TrimSpace keeps"""

    def note(self, answer):
        note = answer.text.strip() or self.runtime.strings.no_content_note
        if answer.finish_reason == "length":
            note += "\n\n" + self.runtime.strings.token_limit_note
        return note


@breaks("handler.token-limit-note")
class TokenLimitByStopReason(AdvisorHandler):
    """the token limit is recognised by Anthropic's stop reason max_tokens, not the neutral finish reason length, so the
    note is never added"""

    def note(self, answer):
        note = trim_space(answer.text) or self.runtime.strings.no_content_note
        if answer.finish_reason == "max_tokens":
            note += "\n\n" + self.runtime.strings.token_limit_note
        return note


@breaks("handler.empty-answer-note")
class EmptyCheckedBeforeTrim(AdvisorHandler):
    """emptiness is checked before trimming, so a blank answer becomes an empty note"""

    def note(self, answer):
        note = trim_space(answer.text) if answer.text else self.runtime.strings.no_content_note
        if answer.finish_reason == "length":
            note += "\n\n" + self.runtime.strings.token_limit_note
        return note
