"""Caller files loaded from the workspace: the path policy, links, special and pseudo files, missing files, errors.

What is read and how it is shown (the capped reader, display paths, confinement): ``test_workspace_reading.py``.
"""

from __future__ import annotations

import os

import pytest

from advisor_conformance.checks import check, check_equal
from advisor_conformance.scenarios import call, error_of, mentions, requests_of, result_of, scenario
from advisor_conformance.workspace import workspace

from .reads import RUNTIME, SOURCE, SPEC, _refused, _run_within, check_loaded, loaded


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("path", [
    "secrets/token.txt", "secrets/sub/deep.txt", "./secrets/token.txt", "secrets/../secrets/token.txt",
    "src/../secrets/token.txt", "secrets//token.txt", "secrets/./token.txt", "{work}/secrets/token.txt",
    ["src/main.go", "secrets/token.txt"],
], ids=["inside", "nested", "dot-slash", "dot-dot", "dot-dot-through-src", "double-slash", "dot-segment", "absolute",
        "after-a-good-file"])
def test_blocked_paths_are_refused(impl, path):
    """A path inside a blocked directory, however it is spelt, is refused without using the budget."""
    _refused(impl, path, "workspace.path-policy")


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("blocked, path", [
    (["secrets/token.txt"], "secrets/token.txt"), (["secrets/"], "secrets/token.txt"),
    (["./secrets"], "secrets/sub/deep.txt"), (["{work}/secrets"], "secrets/token.txt"),
    (["docs/none", "secrets"], "secrets/token.txt"),
], ids=["the-file-itself", "trailing-slash", "dot-slash", "absolute", "second-of-two"])
def test_blocked_paths_however_configured_are_refused(impl, blocked, path):
    """A blocked path blocks itself and what lies under it, however it is spelt in the configuration, and each of
    several blocked paths blocks."""
    _refused(impl, path, "workspace.path-policy", runtime={**RUNTIME, "blocked_paths": blocked})


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("path, text", [("secrets-old/notes.txt", "old notes\n"),
                                        ("secretsfile.txt", "not a secret\n"),
                                        ("Secrets/notes.txt", "other case\n")],
                         ids=["sibling-directory", "sibling-file", "other-case"])
def test_paths_sharing_a_prefix_with_a_blocked_path_are_read(impl, path, text):
    """A path that only shares a prefix (or the letters, in another case) with a blocked path is not inside it."""
    with workspace(SPEC) as work:
        if os.path.samefile(work / "secrets", work / "Secrets"):
            pytest.skip("the file system does not tell letter case apart")
    got, params = loaded(impl, [path], "workspace.path-policy", runtime=RUNTIME)
    check_loaded(impl, got, [(path, text.encode(), len(text))], "workspace.path-policy",
                 f"{path!r} is not inside the blocked path 'secrets', but was not read", params)


@pytest.mark.rule(id="workspace.symlinks")
@pytest.mark.parametrize("path", ["docs/link-to-secret", "docs/secret-dir/token.txt", "docs/hop", "absolute-link"],
                         ids=["link-to-blocked-file", "through-link-to-blocked-dir", "chain-of-links",
                              "absolute-target"])
def test_link_into_a_blocked_path_is_blocked(impl, path):
    """A symbolic link that leads into a blocked path, by any route, is refused like the path itself."""
    with workspace(SPEC) as work:
        os.symlink(work / "secrets" / "token.txt", work / "absolute-link")
        params = scenario([{"call": call(input={"files": [path]})}, {"call": call(turn=2)}], runtime=RUNTIME,
                          work_dir=str(work))
        answer = _run_within(impl, params, "workspace.symlinks")
        if "error" not in answer["calls"][0]:  # a control: the policy judges a path by where it leads, not its spelling
            for spelt in ("./secrets/token.txt", "src/../secrets/token.txt"):
                _refused(impl, spelt, "workspace.path-policy")
        error = error_of(answer, 0, "workspace.symlinks", params)
        check_equal(error["code"], "file_error", "workspace.symlinks", f"{path!r} was not refused with file_error",
                    input=params, actual=error)
        check(not mentions(answer["provider_requests"], "do-not-send"), "workspace.symlinks",
              "a blocked file's content leaked through a link", input=params, actual=answer)
        result_of(answer, 1, "workspace.symlinks", params)


@pytest.mark.rule(id="workspace.symlinks")
def test_link_loop_is_refused(impl):
    """A symbolic link that leads back to itself is refused as a file_error at once."""
    _refused(impl, "docs/loop", "workspace.symlinks")


@pytest.mark.rule(id="workspace.symlinks")
@pytest.mark.parametrize("path, text", [("docs/link-to-main", SOURCE), ("docs/link-to-old", "old notes\n")],
                         ids=["allowed-file", "target-sharing-a-blocked-prefix"])
def test_link_to_an_allowed_file_is_read(impl, path, text):
    """A symbolic link to an allowed file is read and shown under the link's own path."""
    if path == "docs/link-to-old":  # a control: the target, named plainly, is not blocked (workspace.path-policy)
        loaded(impl, ["secrets-old/notes.txt"], "workspace.path-policy", runtime=RUNTIME)
    got, params = loaded(impl, [path], "workspace.symlinks", runtime=RUNTIME)
    check_loaded(impl, got, [(path, text.encode(), len(text))], "workspace.symlinks",
                 "the linked file was not sent under the link's path", params)


@pytest.mark.rule(id="workspace.special-files")
@pytest.mark.parametrize("path", ["docs", "docs/", ".", "pipe", "sock", "zero", "/dev/zero", "/dev/null",
                                  "docs/link-to-pipe", "docs/link-to-docs", ["src/main.go", "pipe"]],
                         ids=["directory", "directory-trailing-slash", "working-directory", "fifo", "socket",
                              "link-to-dev-zero", "dev-zero", "dev-null", "link-to-fifo", "link-to-directory",
                              "fifo-after-a-good-file"])
def test_special_files_are_refused_unread(impl, path):
    """Directories, FIFOs, sockets and devices, named or reached through a link, are refused at once, without
    blocking or reading forever."""
    _refused(impl, path, "workspace.special-files")


def _pseudo_target(path):
    return "/proc/self/environ" if "{" in path or not path.startswith("/") else path


@pytest.mark.rule(id="workspace.pseudo-files")
@pytest.mark.parametrize("path", ["/proc/self/environ", "proc-environ", "/proc/self/status", "/sys/class",
                                  "/proc/self/../self/environ", "{root}/proc/self/environ"],
                         ids=["proc-environ", "link-to-proc-environ", "proc-status", "sys", "dot-dot-spelling",
                              "relative-spelling"])
def test_pseudo_filesystem_files_are_refused(impl, path):
    """A file of /proc or /sys, named by any spelling or reached through a link, is refused: the process's
    environment never reaches the provider."""
    if not os.path.exists(_pseudo_target(path)):
        pytest.skip(f"{_pseudo_target(path)} does not exist on this machine")
    _refused(impl, path, "workspace.pseudo-files", spec={**SPEC, "proc-environ": {"symlink": "/proc/self/environ"}})


@pytest.mark.rule(id="workspace.missing-file")
@pytest.mark.parametrize("paths", [["src/nope.go"], ["src/main.go", "src/nope.go"], ["src/nope.go", "src/main.go"],
                                   ["nope/main.go"], ["src/main.go/x"], ["docs/dangling"], ["../outside/nope.txt"]],
                         ids=["alone", "after-a-good-one", "before-a-good-one", "missing-directory",
                              "through-a-file", "dangling-link", "outside"])
def test_missing_file_is_an_error_that_costs_no_use(impl, paths):
    """A missing file is a file_error, alone or next to a good file: the call does not go on without it, and the
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
    ("docs/../src/nope.go", "workspace.missing-file"), ("src//nope.go", "workspace.missing-file"),
    ("nope/deeper/x.go", "workspace.missing-file"), ("../outside/nope.txt", "workspace.missing-file"),
    ("secrets/token.txt", "workspace.path-policy"), ("./secrets/../secrets/token.txt", "workspace.path-policy"),
    ("pipe", "workspace.special-files"), ("./pipe", "workspace.special-files"),
    ("docs/link-to-secret", "workspace.symlinks"),
], ids=["missing-dot-slash", "missing-dot-dot", "missing-through-docs", "missing-double-slash", "missing-directory",
        "missing-outside", "blocked", "blocked-dot-dot", "fifo", "fifo-dot-slash", "link-to-blocked"])
def test_file_errors_name_the_path_as_given_and_no_host_path(impl, path, refusing):
    """A file error names the file exactly as the caller spelt it, and no absolute host path."""
    error, work = _refused(impl, path, "workspace.error-paths", refusing=refusing)
    check(path in error["message"], "workspace.error-paths", "the error does not name the path as the caller spelt it",
          input={"files": [path]}, actual=error)
    check(work not in error["message"] and os.path.realpath(work) not in error["message"], "workspace.error-paths",
          "the error carries the working directory's host path", input={"files": [path]}, actual=error)


@pytest.mark.rule(id="workspace.error-paths")
def test_file_error_names_the_file_that_failed(impl):
    """The error of a call whose second file is missing names that file, not the first one."""
    error, _ = _refused(impl, ["src/main.go", "src/nope.go"], "workspace.error-paths",
                        refusing="workspace.missing-file")
    check("src/nope.go" in error["message"], "workspace.error-paths", "the error does not name the missing file",
          input={"files": ["src/main.go", "src/nope.go"]}, actual=error)
