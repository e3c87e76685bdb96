"""Implementations that predate one newer feature of the spec: each is the reference without that one feature, as an
implementation written before it was specified behaves (the origin's older code). They must fail only the rules of
the feature they lack (``tests/meta/test_features.py``), and a failure names the feature's mistake."""

from __future__ import annotations

from advisor_reference import AdvisorRuntime, RequestBuilder
from advisor_reference.adapter import ReferenceAdapter

from . import breaks


@breaks(
    "inflight.label-at-head",
    "the in-flight message is not handled at all (the code predates the in-flight label): a trailing assistant message "
    "stays in the transcript like any other message and the final message has no in-flight block",
    also=("inflight.assistant-removed",),
    variant="predates-label",
)
class PredatesInFlightLabel(RequestBuilder):
    def split_in_flight(self, snapshot):
        return snapshot, None


class _DedupedWithoutNotice(RequestBuilder):
    def deduped_block(self, path):
        return (f"File: {path}\n```\n\n```\n\n",)  # the file template with no content


@breaks(
    "dedupe.notice",
    "a deduped file is rendered as the file block with no content (its path and an empty fence), with no notice "
    "(the code predates the deduped-file notice; it declares no layout of its own)",
    variant="predates-notice",
)
class PredatesDedupedNotice(ReferenceAdapter):
    builder_class = _DedupedWithoutNotice

    def describe(self, params=None):
        description = super().describe(params)
        description["strings"].pop("deduped_file_block", None)
        return description


@breaks(
    "transport.main-session",
    "no transport session is ever set, with or without a session id (the code predates transport sessions)",
    also=("transport.subagent-session",),
    variant="predates-sessions",
)
class PredatesTransportSessions(AdvisorRuntime):
    def new_handler(self, agent_id=None):
        handler = super().new_handler(agent_id)
        handler.transport_session = None
        handler.parent_session = None
        return handler
