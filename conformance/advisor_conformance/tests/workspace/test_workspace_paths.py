"""Caller paths that resolve in less usual ways: paths that can name no file, links with absolute or dotted targets
and links in the middle of a path, a blocked root and a blocked name that ends in a space, and the path named in the
error of every kind of refusal (a socket, a path through a file, a directory spelt with .., a link loop, a pseudo-file,
a name too long, a path outside the confined working directory).

The plain cases of the same rules are in ``test_workspace.py`` and ``test_workspace_reading.py``.
"""

from __future__ import annotations

import os

import pytest

from advisor_conformance.checks import check, violation
from advisor_conformance.scenarios import call, requests_of, scenario
from advisor_conformance.workspace import workspace

from .reads import RUNTIME, SOURCE, SPEC, _refused, _run_within, check_loaded, loaded

LONG_NAME = "n" * 1000  # longer than any file system's limit on one name (255 bytes on Linux and macOS)
LONG_PATH = "a/" * 2100 + "x.go"  # every name short, the whole longer than one system call takes (4096 bytes on Linux)


# -- paths that can name no file ------------------------------------------------------------------------------------

NO_FILE = [
    ([""], True), (["src/main.go", ""], True), (["src/\x00main.go"], True), (["src/\ud800.go"], True),
    ([f"src/{LONG_NAME}.go"], True), ([LONG_PATH], True), (["no-such-file-advisor.txt"], False),
]


@pytest.mark.rule(id="workspace.missing-file")
@pytest.mark.rule(id="handler.validation-no-use")
@pytest.mark.parametrize("paths, with_work_dir", NO_FILE,
                         ids=["empty", "empty-after-a-good-file", "nul-byte", "lone-surrogate", "name-too-long",
                              "path-too-long", "missing-without-a-working-directory"])
def test_path_that_names_no_file_is_refused_without_a_use(impl, paths, with_work_dir):
    """A path that can name no file (empty, holding a NUL byte or a lone surrogate, a name or a whole path too long for
    any file system, or a missing file when no working directory is given) is refused as an error that makes no provider call
    and keeps the use."""
    rules = ["workspace.missing-file", "handler.validation-no-use"]
    with workspace(SPEC) as work:
        params = scenario([{"call": call(input={"files": paths})}, {"call": call(turn=2)}],
                          runtime={"max_uses_per_run": 1}, work_dir=str(work) if with_work_dir else None)
        try:
            answer = _run_within(impl, params, rules)
        except AssertionError as exc:  # its message may hold the lone surrogate, which no report can write
            raise violation(getattr(exc, "rules", rules), _escaped(str(exc))) from None
    shown = _escaped(params)
    first = _escaped(answer["calls"][0] if answer["calls"] else {})
    if "error" not in first or requests_of(answer, 0):
        raise violation("workspace.missing-file", "the call went on without the file its path cannot name",
                        input=shown, actual=first)
    check(first["error"].get("code") in ("invalid_input", "file_error"), "handler.validation-no-use",
          "a path that names no file was not refused as invalid_input or file_error", input=shown, actual=first)
    second = _escaped(answer["calls"][1] if len(answer["calls"]) > 1 else {})
    check("result" in second, "handler.validation-no-use",
          "with the cap at 1, the call after the refused one was not answered: the refusal took the use",
          input=shown, actual=second)


def _escaped(value):
    """``value`` with every lone surrogate of its strings written as a \\udXXX escape, so a report can hold it."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escaped(key): _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


# -- the blocked paths ------------------------------------------------------------------------------------------------

SPACED = {**SPEC, "notes /a.txt": {"text": "TOKEN=do-not-send\n"}, "notes/a.txt": {"text": "plain notes\n"}}


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("blocked, path", [(["/"], "src/main.go"), (["notes "], "notes /a.txt")],
                         ids=["the-root", "name-ending-in-a-space"])
def test_blocked_root_or_spaced_name_blocks_what_lies_under_it(impl, blocked, path):
    """The root blocks every file, and a blocked directory whose name ends in a space blocks what lies inside it."""
    _refused(impl, path, "workspace.path-policy", runtime={**RUNTIME, "blocked_paths": blocked}, spec=SPACED)


@pytest.mark.rule(id="workspace.path-policy")
def test_name_without_the_space_of_a_blocked_name_is_read(impl):
    """A blocked name that ends in a space does not block the directory named without the space."""
    got, params = loaded(impl, ["notes/a.txt"], "workspace.path-policy",
                         runtime={**RUNTIME, "blocked_paths": ["notes "]}, spec=SPACED)
    check_loaded(impl, got, [("notes/a.txt", b"plain notes\n", 12)], "workspace.path-policy",
                 "'notes/a.txt' is not inside the blocked path 'notes ', but was not read", params)


# -- links ----------------------------------------------------------------------------------------------------------

#: Links to src/main.go, by the path they are read through and their target ({work}: the working directory).
ALLOWED_LINKS = {
    "absolute-target": ("abs-main", "{work}/src/main.go"),
    "absolute-target-unnormalised": ("abs-dotted", "{work}/./src//main.go"),
    "dotted-target": ("docs/dotted", "./../src/./main.go"),
    "doubled-slashes": ("docs/slashes", "..//src//main.go"),
    "directory-link-mid-path": ("docs/src-dir/main.go", "../src"),
    "directory-link-absolute-mid-path": ("abs-src/main.go", "{work}/src"),
}


@pytest.mark.rule(id="workspace.symlinks")
@pytest.mark.parametrize("case", list(ALLOWED_LINKS))
def test_link_to_an_allowed_file_is_read_however_its_target_is_spelt(impl, case):
    """A link to an allowed file, whose target is absolute, holds . segments or doubled slashes, or that is a
    directory in the middle of the path, is read and shown under the path as given."""
    path, target = ALLOWED_LINKS[case]
    got, params = _loaded_through_link(impl, path, path.removesuffix("/main.go"), target)
    check_loaded(impl, got, [(path, SOURCE.encode(), len(SOURCE))], "workspace.symlinks",
                 f"{path!r}, a link to an allowed file, was not read under its own path", params)


def _loaded_through_link(impl, path, link, target):
    """The trailing message of a call that reads ``path`` in a workspace with one more link, ``link`` to ``target``
    ({work} filled in with the working directory), and the scenario's params."""
    with workspace(SPEC) as work:
        os.symlink(target.format(work=work), work / link)
        params = scenario([{"call": call(input={"files": [path]})}], runtime=RUNTIME, work_dir=str(work))
        answer = _run_within(impl, params, "workspace.symlinks")
        outcome = answer["calls"][0] if answer["calls"] else {}
        if "result" not in outcome:
            raise violation("workspace.symlinks", f"{path!r} leads to the allowed src/main.go, but was not read",
                            input=params, actual=outcome)
        (request,) = requests_of(answer, 0)
        check(str(work) not in str(request["messages"][-1]), "workspace.display-path",
              "the working directory's host path reached the request", input=params)
        return request["messages"][-1]["content"], params


#: Links into the blocked directory secrets/ whose target holds . segments or doubled slashes.
BLOCKED_LINKS = {
    "dotted-target": ("docs/dotted-secret", "./../secrets/./token.txt"),
    "dot-first-target": ("docs/dot-secret", "./../secrets/token.txt"),
    "doubled-slashes": ("docs/slashes-secret", "..//secrets//token.txt"),
    "dotted-directory-mid-path": ("docs/dotted-dir/token.txt", "./.././secrets"),
}


@pytest.mark.rule(id="workspace.symlinks")
@pytest.mark.parametrize("case", list(BLOCKED_LINKS))
def test_link_into_a_blocked_path_by_a_dotted_target_is_blocked(impl, case):
    """A link whose target reaches a blocked path through . segments or doubled slashes is refused like the path
    itself."""
    path, target = BLOCKED_LINKS[case]
    link = path.removesuffix("/token.txt")
    spec = {**SPEC, link: {"symlink": target}}
    with workspace(spec) as work:
        params = scenario([{"call": call(input={"files": [path]})}], runtime=RUNTIME, work_dir=str(work))
        answer = _run_within(impl, params, "workspace.symlinks")
    if "error" not in (answer["calls"][0] if answer["calls"] else {}):
        # a control: the policy judges a plainly spelt path by where it leads (workspace.path-policy)
        for spelt in ("./secrets/token.txt", "src/../secrets/token.txt"):
            _refused(impl, spelt, "workspace.path-policy")
    _refused(impl, path, "workspace.symlinks", spec=spec)


# -- the error of each kind of refusal names the path as given ------------------------------------------------------

ERRORS = {
    "socket": ("sock", "workspace.special-files", SPEC, RUNTIME),
    "through-a-file": ("src/main.go/x", "workspace.missing-file", SPEC, RUNTIME),
    "directory-by-dot-dot": ("src/..", "workspace.special-files", SPEC, RUNTIME),
    "link-to-its-own-directory": ("docs/link-to-docs", "workspace.special-files", SPEC, RUNTIME),
    "link-loop": ("docs/loop", "workspace.symlinks", SPEC, RUNTIME),
    "name-too-long": (f"src/{LONG_NAME}.go", "workspace.missing-file", SPEC, RUNTIME),
    "link-to-pseudo-file": ("proc-environ", "workspace.pseudo-files",
                            {**SPEC, "proc-environ": {"symlink": "/proc/self/environ"}}, RUNTIME),
    "outside-when-confined": ("../outside/notes.txt", "workspace.confinement", SPEC,
                              {**RUNTIME, "confine_to_work_dir": True}),
}


@pytest.mark.rule(id="workspace.error-paths")
@pytest.mark.parametrize("case", [pytest.param(case, marks=[pytest.mark.needs(options={"confinement": True})]
                                               if ERRORS[case][1] == "workspace.confinement" else [])
                                  for case in ERRORS])
def test_every_kind_of_refusal_names_the_path_as_given(impl, case):
    """The error of each kind of refusal (special file, path through a file, link loop, name too long, pseudo-file,
    outside the confined working directory) names the file exactly as the caller spelt it, and no host path."""
    path, refusing, spec, runtime = ERRORS[case]
    if refusing == "workspace.pseudo-files" and not os.path.exists("/proc/self/environ"):
        pytest.skip("/proc/self/environ does not exist on this machine")
    error, work = _refused(impl, path, "workspace.error-paths", runtime=runtime, spec=spec, refusing=refusing)
    check(path in error["message"], "workspace.error-paths", "the error does not name the path as the caller spelt it",
          input={"files": [path]}, actual=error)
    check(work not in error["message"] and os.path.realpath(work) not in error["message"], "workspace.error-paths",
          "the error carries the working directory's host path", input={"files": [path]}, actual=error)
