"""The wire and streaming areas against the reference on the official SDKs (tests/fakes/sdk.py): the ``anthropic``
and ``openai`` clients make the HTTP calls and read the answers and event streams with their own parsers. Every test
passes on it but for the SDKs' documented departures from the event-stream standard (docs/measured.md, "The
reference on the official SDKs"), and each departure still shows: an SDK that mends one fails this test until the
list is brought up to date."""

from __future__ import annotations

import pytest

from ..fakes.sdk import EVENT_WITHOUT_DATA
from ..support.runner import SUITE, run_pytest

#: The tests a leading byte-order mark fails on the SDKs: both keep it in the first field's name (`\ufeffdata`), where
#: the standard drops it, so a chat stream whose first chunk carries text loses that text.
BYTE_ORDER_MARK = {
    "streaming/test_stream_reads.py::test_a_byte_order_mark_before_a_first_chunk_with_text_is_dropped"
    "[leading-byte-order-mark]",
    "streaming/test_stream_reads.py::test_a_byte_order_mark_before_a_first_chunk_with_text_is_dropped"
    "[crlf-line-ends-every-field]",
}


def _short(nodeid: str) -> str:
    path, sep, rest = nodeid.partition("::")
    return path.rpartition("tests/")[2] + sep + rest


@pytest.mark.slow
def test_wire_and_streaming_pass_on_the_official_sdks_but_for_their_departures(tmp_path, progress):
    """Every wire and streaming test passes on the official SDKs, but those failed by the SDKs' two departures from the
    event-stream standard: the OpenAI SDK's events without data (after an id, a keep-alive's blank line) read as JSON,
    and a leading byte-order mark kept; each departure fails at least one test."""
    run = run_pytest(
        f"{SUITE}/wire",
        f"{SUITE}/streaming",
        "--impl=tests.fakes.sdk",
        "-q",
        "-n",
        "2",
        progress=progress,
        label="the reference on the official SDKs",
    )
    assert run.report is not None, run.stdout[-3000:] + run.stderr[-3000:]
    failed = {_short(test["nodeid"]): test.get("message", "") for test in run.failed_tests()}
    without_data = {nodeid for nodeid, message in failed.items() if EVENT_WITHOUT_DATA in message}
    other = {
        nodeid: message[-900:] for nodeid, message in failed.items() if nodeid not in without_data | BYTE_ORDER_MARK
    }
    assert not other, f"{len(other)} test(s) fail on the official SDKs for no documented departure: {other}"
    assert without_data, "no test shows the OpenAI SDK reading an event without data: has it mended that?"
    assert BYTE_ORDER_MARK <= set(failed), (
        f"the byte-order-mark tests pass on the SDKs: {sorted(BYTE_ORDER_MARK - set(failed))}"
    )
    assert run.report["counts"]["tests"].get("passed", 0) > 400, run.report["counts"]
