"""Caller files loaded from the workspace: path policy, special files, capped reads, display paths."""

from __future__ import annotations

import base64
import os
import threading

import pytest

from advisor_conformance import oracle
from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.scenarios import call, error_of, mentions, requests_of, result_of, run, scenario
from advisor_conformance.workspace import workspace

SOURCE = "package main\n\nfunc main() {}\n"
SPEC = {
    "src/main.go": {"text": SOURCE},
    "secrets/token.txt": {"text": "TOKEN=do-not-send\n"},
    "docs/link-to-secret": {"symlink": "../secrets/token.txt"},
    "docs/link-to-main": {"symlink": "../src/main.go"},
    "docs": {"dir": True},
    "pipe": {"fifo": True},
    "sock": {"socket": True},
    "zero": {"symlink": "/dev/zero"},
    "huge.bin": {"sparse": 4 * 1024**3},
    "latin1.txt": {"base64": base64.b64encode(b"caf\xe9 cr\xe8me\n").decode()},
    "../outside/notes.txt": {"text": "outside the workspace\n"},
}
RUNTIME = {"blocked_paths": ["secrets"], "max_uses_per_run": 1}


def _run_within(impl, params, rules, seconds=30):
    """Run a scenario in a daemon thread, failing (not hanging) if it takes longer than ``seconds``."""
    box = {}

    def answer():
        try:
            box["answer"] = run(impl, params, rules)
        except AssertionError as exc:  # a rule violation: raised again below, in the test's own thread
            box["raised"] = exc

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise violation(rules, f"the call did not return within {seconds} s (a blocking read?)", input=params)
    if "raised" in box:
        raise box["raised"]
    if "answer" not in box:
        raise violation(rules, "the scenario raised instead of answering", input=params)
    return box["answer"]


def _refused(impl, path, rule, runtime=RUNTIME, spec=SPEC, refusing=None):
    """Call with one refused path, then a good call: the refusal is a file_error, costs no use, and nothing of the
    refused file, nor the host path, reaches the provider. Returns the error and the working directory's path.
    ``refusing``: the rule that refuses the path, when the test is about something else (what the error says)."""
    rule = refusing or rule
    with workspace(spec) as work:
        params = scenario([{"call": call(input={"files": [path]})}, {"call": call(turn=2)}], runtime=runtime,
                          work_dir=str(work))
        answer = _run_within(impl, params, rule)
        error = error_of(answer, 0, rule, params)
        check_equal(error["code"], "file_error", rule, f"{path!r} was not refused with file_error", input=params,
                    actual=error)
        check_equal(requests_of(answer, 0), [], rule, "a refused file still reached the provider", input=params)
        result_of(answer, 1, rule, params)  # the only use is still there
        check(not mentions(answer["provider_requests"], str(work)), rule,
              "the working directory's host path reached the provider", input=params, actual=answer)
        check(not mentions(answer["provider_requests"], "do-not-send"), rule, "a blocked file's content leaked",
              input=params, actual=answer)
        return error, str(work)


def _final_message(impl, paths, rule, runtime=None):
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": paths})}], runtime=runtime or {}, work_dir=str(work))
        answer = _run_within(impl, params, rule)
        result_of(answer, 0, rule, params)
        (request,) = requests_of(answer, 0)
        check(not mentions(answer, str(work)), rule, "the working directory's host path reached the request",
              input=params, actual=request["messages"][-1])
        return request["messages"][-1]["content"], params


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("path", ["secrets/token.txt", "secrets/../secrets/token.txt", "./secrets/token.txt"])
def test_blocked_paths_are_refused(impl, path):
    """A path inside a blocked directory, however it is spelt, is refused without using the budget."""
    _refused(impl, path, "workspace.path-policy")


@pytest.mark.rule(id="workspace.symlinks")
def test_link_into_a_blocked_path_is_blocked(impl):
    """A symbolic link that leads into a blocked path is refused like the path itself."""
    _refused(impl, "docs/link-to-secret", "workspace.symlinks")


@pytest.mark.rule(id="workspace.symlinks")
def test_link_to_an_allowed_file_is_read(impl, strings):
    """A symbolic link to an allowed file is read and shown under the link's own path."""
    final, params = _final_message(impl, ["docs/link-to-main"], "workspace.symlinks")
    check(final.startswith(oracle.file_block("docs/link-to-main", SOURCE.encode())), "workspace.symlinks",
          "the linked file was not sent under the link's path", input=params, actual=final)


@pytest.mark.rule(id="workspace.special-files")
@pytest.mark.parametrize("path", ["docs", "pipe", "sock", "zero", "/dev/zero", "/dev/null"],
                         ids=["directory", "fifo", "socket", "link-to-dev-zero", "dev-zero", "dev-null"])
def test_special_files_are_refused_unread(impl, path):
    """Directories, FIFOs, sockets and devices are refused at once, without blocking or reading forever."""
    _refused(impl, path, "workspace.special-files")


@pytest.mark.rule(id="workspace.pseudo-files")
@pytest.mark.parametrize("path", ["/proc/self/environ", "proc-environ", "/proc/self/status", "/sys/class"],
                         ids=["proc-environ", "link-to-proc-environ", "proc-status", "sys"])
def test_pseudo_filesystem_files_are_refused(impl, path):
    """A file of /proc or /sys, named or reached through a link, is refused: the process's environment never reaches
    the provider."""
    if not os.path.exists(path if path.startswith("/") else "/proc/self/environ"):
        pytest.skip(f"{path} does not exist on this machine")
    _refused(impl, path, "workspace.pseudo-files", spec={**SPEC, "proc-environ": {"symlink": "/proc/self/environ"}})


@pytest.mark.rule(id="workspace.missing-file")
@pytest.mark.parametrize("paths", [["src/nope.go"], ["src/main.go", "src/nope.go"]], ids=["alone", "after-a-good-one"])
def test_missing_file_is_an_error_that_costs_no_use(impl, paths):
    """A missing file is a file_error, alone or after a good file: the call does not go on without it, and the
    use stays."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": paths})}, {"call": call(turn=2)}], runtime=RUNTIME,
                          work_dir=str(work))
        answer = _run_within(impl, params, "workspace.missing-file")
        error = error_of(answer, 0, "workspace.missing-file", params)
        check_equal(error["code"], "file_error", "workspace.missing-file", "a missing file was not a file_error",
                    input=params, actual=error)
        check_equal(requests_of(answer, 0), [], "workspace.missing-file", "the call went on without the file",
                    input=params)
        result_of(answer, 1, "workspace.missing-file", params)


@pytest.mark.rule(id="workspace.error-paths")
@pytest.mark.parametrize("path, refusing", [
    ("./src/nope.go", "workspace.missing-file"), ("src/../src/nope.go", "workspace.missing-file"),
    ("docs/../src/nope.go", "workspace.missing-file"), ("secrets/token.txt", "workspace.path-policy"),
    ("pipe", "workspace.special-files"), ("docs/link-to-secret", "workspace.symlinks"),
], ids=["missing-dot-slash", "missing-dot-dot", "missing-through-docs", "blocked", "fifo", "link-to-blocked"])
def test_file_errors_name_the_path_as_given_and_no_host_path(impl, path, refusing):
    """A file error names the file exactly as the caller spelt it, and no absolute host path."""
    error, work = _refused(impl, path, "workspace.error-paths", refusing=refusing)
    check(path in error["message"], "workspace.error-paths", "the error does not name the path as the caller spelt it",
          input={"files": [path]}, actual=error)
    check(work not in error["message"] and os.path.realpath(work) not in error["message"], "workspace.error-paths",
          "the error carries the working directory's host path", input={"files": [path]}, actual=error)


@pytest.mark.rule(id="workspace.capped-reader")
def test_huge_sparse_file_is_read_capped(impl):
    """A 4 GiB file is sent as its first 32768 bytes and a marker with its true size."""
    final, params = _final_message(impl, ["huge.bin"], "workspace.capped-reader")
    expected = oracle.file_block("huge.bin", b"\0" * 32768 + oracle.marker(4 * 1024**3).encode())
    check(final.startswith(expected), "workspace.capped-reader", "the huge file was not capped with its true size",
          input=params, actual=final[:200] + "…" + final[32700:33000])


#: Sparse sizes to try, largest first: beyond any address space, then the limits of common file systems (ext4
#: stops just short of 16 TiB). Any of them is far more than memory, so only a capped read can answer.
VAST_SIZES = (2**50, 2**44 - 4096, 2**40)


@pytest.mark.rule(id="workspace.capped-reader")
def test_file_larger_than_memory_is_read_capped(impl):
    """A sparse file far larger than memory is sent at once as its first 32768 bytes and a marker with its size."""
    with workspace(SPEC) as work:
        for size in VAST_SIZES:
            try:
                with open(work / "vast.bin", "wb") as handle:
                    handle.truncate(size)
                break
            except OSError:
                continue
        else:
            pytest.skip("the file system holds no sparse file of 1 TiB")
        params = scenario([{"call": call(input={"files": ["vast.bin"]})}], work_dir=str(work))
        answer = _run_within(impl, params, "workspace.capped-reader")
        result_of(answer, 0, "workspace.capped-reader", params)
        (request,) = requests_of(answer, 0)
        final = request["messages"][-1]["content"]
        expected = oracle.file_block("vast.bin", b"\0" * 32768 + oracle.marker(size).encode())
        check(final.startswith(expected), "workspace.capped-reader",
              f"a file of {size} bytes was not capped with its true size", input=params,
              actual=final[:200] + "…" + final[32700:33000])


@pytest.mark.rule(id="workspace.capped-reader")
def test_file_bytes_are_read_as_they_are(impl):
    """Bytes that are not UTF-8 are read as they are and rendered with one U+FFFD each."""
    final, params = _final_message(impl, ["latin1.txt"], "workspace.capped-reader")
    check(final.startswith(oracle.file_block("latin1.txt", b"caf\xe9 cr\xe8me\n")), "workspace.capped-reader",
          "the file's bytes were not rendered with one U+FFFD per invalid byte", input=params, actual=final)


@pytest.mark.rule(id="workspace.display-path")
@pytest.mark.parametrize("given, shown", [("src/main.go", "src/main.go"), ("./src/main.go", "src/main.go"),
                                          ("src/../src/main.go", "src/main.go")],
                         ids=["plain", "dot-slash", "dot-dot-inside"])
def test_display_path_is_relative_and_normalised(impl, given, shown):
    """A file is shown by its normalised path relative to the working directory."""
    final, params = _final_message(impl, [given], "workspace.display-path")
    check(final.startswith(f"File: {shown}\n"), "workspace.display-path", f"{given!r} is not shown as {shown!r}",
          input=params, actual=final[:200])


@pytest.mark.rule(id="workspace.display-path")
def test_absolute_path_inside_the_workspace_is_shown_relative(impl):
    """An absolute path inside the working directory is shown relative to it; the host path never appears."""
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": [str(work / "src" / "main.go")]})}], work_dir=str(work))
        answer = _run_within(impl, params, "workspace.display-path")
        (request,) = requests_of(answer, 0)
        final = request["messages"][-1]["content"]
        check(final.startswith("File: src/main.go\n"), "workspace.display-path",
              "an absolute path inside the workspace is not shown relative to it", input=params, actual=final[:200])
        check(not mentions(answer, str(work)), "workspace.display-path", "the host path reached the request",
              input=params, actual=final[:200])


def _requires_confinement(impl):
    if not impl.description.get("options", {}).get("confinement"):
        pytest.skip(f"{impl.name} does not declare the confinement option")


@pytest.mark.rule(id="workspace.confinement")
@pytest.mark.parametrize("path", ["../outside/notes.txt", "src/../../outside/notes.txt", "/etc/hostname"],
                         ids=["dot-dot", "dot-dot-through-src", "absolute"])
def test_confinement_refuses_paths_outside(impl, path):
    """With confinement on, a path that resolves outside the working directory is refused."""
    _requires_confinement(impl)
    _refused(impl, path, "workspace.confinement", runtime={**RUNTIME, "confine_to_work_dir": True})


@pytest.mark.rule(id="workspace.confinement")
def test_confinement_follows_links(impl):
    """With confinement on, a link that leads out of the working directory is refused."""
    _requires_confinement(impl)
    spec_link = "../outside/notes.txt"
    with workspace({**SPEC, "escape": {"symlink": spec_link}}) as work:
        params = scenario([{"call": call(input={"files": ["escape"]})}],
                          runtime={"confine_to_work_dir": True}, work_dir=str(work))
        answer = _run_within(impl, params, "workspace.confinement")
        error = error_of(answer, 0, "workspace.confinement", params)
        check_equal(error["code"], "file_error", "workspace.confinement", "a link out of the workspace was read",
                    input=params, actual=error)


@pytest.mark.rule(id="workspace.confinement")
def test_without_confinement_outside_files_show_relative(impl):
    """With confinement off, a file outside the working directory is read and shown by a relative path."""
    final, params = _final_message(impl, ["../outside/notes.txt"], "workspace.confinement")
    check(final.startswith(oracle.file_block("../outside/notes.txt", b"outside the workspace\n")),
          "workspace.confinement", "a file outside the workspace was not shown by its relative path", input=params,
          actual=final[:200])
