"""Unit tests of the reference runtime's Python surface: tool input, path policy, counters, provider."""

from __future__ import annotations

import os
import threading

import pytest

from reference import (
    AdvisorInputError, AdvisorRuntime, FileRefused, PathPolicy, ProviderError, RuntimeConfig, ScriptedProvider,
    UseCounter, decode_tool_input, load_files, parse_transcript, transport_sessions,
)


def test_bare_and_missing_inputs_decode_to_an_empty_call():
    """A null or empty tool input is a bare call without question or files."""
    assert decode_tool_input(None) == decode_tool_input({}) == decode_tool_input({"other": 1})
    assert decode_tool_input({}).files == ()


def test_non_object_input_is_an_error_naming_input():
    """A tool input that is not an object is an input error at ``input``."""
    with pytest.raises(AdvisorInputError) as info:
        decode_tool_input(["question"])
    assert info.value.at == "input" and info.value.code == "invalid_input"


def test_policy_needs_an_absolute_working_directory():
    """A relative working directory is rejected when the policy is made."""
    with pytest.raises(ValueError, match="absolute"):
        PathPolicy("relative/dir")


def test_nul_in_a_path_is_refused(tmp_path):
    """A path with a NUL byte is refused before the file system sees it."""
    with pytest.raises(FileRefused):
        load_files(PathPolicy(str(tmp_path)), ["a\x00b"])


def test_fifo_with_a_writer_waiting_is_still_refused(tmp_path):
    """A FIFO is refused from its file type even when a writer holds it open, and nothing is read from it."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as pipe:  # blocks until some reader opens the FIFO
            pipe.write(b"data")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with pytest.raises(FileRefused, match="FIFO"):
        load_files(PathPolicy(str(tmp_path)), ["pipe"])
    reader = os.open(fifo, os.O_RDONLY)  # release the writer thread
    writer.join(5)
    os.close(reader)
    assert not writer.is_alive()


def test_blocked_paths_are_resolved_against_the_working_directory(tmp_path):
    """A blocked entry given relative to the working directory blocks that directory's files."""
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "id").write_text("secret")
    with pytest.raises(FileRefused, match="blocked"):
        load_files(PathPolicy(str(tmp_path), blocked=("keys",)), ["keys/id"])


def test_use_counter_rejects_a_negative_cap():
    """A negative cap is a configuration error."""
    with pytest.raises(ValueError):
        UseCounter(-1)


def test_use_counter_counts_exactly_the_cap_under_threads():
    """Many threads taking uses get exactly ``limit`` grants."""
    counter, grants = UseCounter(7), []
    threads = [threading.Thread(target=lambda: grants.append(counter.take().granted)) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert grants.count(True) == 7 and counter.used == 7


def test_session_names():
    """Main and sub-agent advisors get their transport sessions under the parent session."""
    assert transport_sessions("s", sub_agent=False) == ("s-advisor", "s")
    assert transport_sessions("s", sub_agent=True) == ("s-subagent-advisor", "s")
    assert transport_sessions("", sub_agent=True) == (None, None)


def test_scripted_provider_without_replies_fails():
    """A scripted provider asked more often than scripted raises a provider error."""
    runtime = AdvisorRuntime(RuntimeConfig(), ScriptedProvider())
    with pytest.raises(Exception) as info:
        runtime.new_handler().handle({}, parse_transcript([]))
    assert isinstance(info.value.__cause__, ProviderError)
