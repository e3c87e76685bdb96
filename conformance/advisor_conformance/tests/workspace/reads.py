"""A workspace, its runtime and the checks of what a call loads from it, shared by the workspace tests."""

from __future__ import annotations

import base64
import os
import threading
from typing import Any

from advisor_conformance.checks import check, check_equal, violation
from advisor_conformance.scenarios import SNAPSHOT, call, error_of, mentions, requests_of, result_of, run, scenario
from advisor_conformance.shaping import file_param, final, shape
from advisor_conformance.workspace import workspace

SOURCE = "package main\n\nfunc main() {}\n"


SPEC = {
    "src/main.go": {"text": SOURCE},
    "secrets/token.txt": {"text": "TOKEN=do-not-send\n"},
    "secrets/sub/deep.txt": {"text": "DEEP=do-not-send\n"},
    "secrets-old/notes.txt": {"text": "old notes\n"},
    "secretsfile.txt": {"text": "not a secret\n"},
    "Secrets/notes.txt": {"text": "other case\n"},
    "docs/link-to-secret": {"symlink": "../secrets/token.txt"},
    "docs/link-to-main": {"symlink": "../src/main.go"},
    "docs/secret-dir": {"symlink": "../secrets"},
    "docs/hop": {"symlink": "link-to-secret"},
    "docs/link-to-old": {"symlink": "../secrets-old/notes.txt"},
    "docs/link-to-pipe": {"symlink": "../pipe"},
    "docs/link-to-docs": {"symlink": "."},
    "docs/dangling": {"symlink": "../nowhere.txt"},
    "docs/loop": {"symlink": "loop"},
    "docs": {"dir": True},
    "pipe": {"fifo": True},
    "sock": {"socket": True},
    "zero": {"symlink": "/dev/zero"},
    "huge.bin": {"sparse": 4 * 1024**3},
    "latin1.txt": {"base64": base64.b64encode(b"caf\xe9 cr\xe8me\n").decode()},
    "../outside/notes.txt": {"text": "outside the workspace\n"},
    "../work2/notes.txt": {"text": "a sibling sharing the working directory's prefix\n"},
}


RUNTIME = {"blocked_paths": ["secrets"], "max_uses_per_run": 1}


def _run_within(impl, params, rules, seconds=30):
    """Run a scenario in a daemon thread, failing (not hanging) if it takes longer than ``seconds``."""
    box: dict[str, Any] = {}

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


def fill(paths, work):
    """The caller's paths, ``{work}`` made the working directory, ``{root}`` the root relative to it and ``{home}``
    the home directory of the workspace (``home/`` beside the working directory: :func:`home_of`)."""
    root = os.path.relpath("/", work)
    return [path.format(work=work, root=root, home=home_of(work))
            for path in ([paths] if isinstance(paths, str) else paths)]


def home_of(work):
    """The home directory the workspace tests give as ``runtime.home_dir``: ``home/`` beside the working directory
    (the workspace's ``../home/`` entries), never the machine's own."""
    return work.parent / "home"


def _filled(runtime, work):
    """The runtime with its blocked paths and its home directory filled in (:func:`fill`)."""
    runtime = dict(runtime)
    if "blocked_paths" in runtime:
        runtime["blocked_paths"] = fill(runtime["blocked_paths"], work)
    if "home_dir" in runtime:
        runtime["home_dir"] = fill(runtime["home_dir"], work)[0]
    return runtime


def _refused(impl, path, rule, runtime=RUNTIME, spec=SPEC, refusing=None):
    """Call with refused path(s), then a good call: the refusal is a file_error, costs no use, and nothing of the
    refused file, nor the host path, reaches the provider. Returns the error and the working directory's path.
    ``refusing``: the rule that refuses the path, when the test is about something else (what the error says)."""
    rule = refusing or rule
    with workspace(spec) as work:
        params = scenario([{"call": call(input={"files": fill(path, work)})}, {"call": call(turn=2)}],
                          runtime=_filled(runtime, work), work_dir=str(work))
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


def loaded(impl, paths, rule, *, runtime=None, spec=SPEC):
    """The trailing message of a call with ``paths`` (filled in), which must load; and the scenario's params."""
    with workspace(spec) as work:
        params = scenario([{"call": call(input={"files": fill(paths, work)})}], runtime=_filled(runtime or {}, work),
                          work_dir=str(work))
        answer = _run_within(impl, params, rule)
        result_of(answer, 0, rule, params)
        (request,) = requests_of(answer, 0)
        check(not mentions(answer, str(work)), "workspace.display-path",
              "the working directory's host path reached the request", input=params, actual=request["messages"][-1])
        return request["messages"][-1]["content"], params


def check_loaded(impl, got, files, rule, what, params):
    """The trailing message is what ``shape`` renders for ``files`` (display path, bytes read, true size): how files are
    capped and rendered is the files rules', so only what was read, and under which path, is judged here."""
    request = {"transcript": SNAPSHOT, "files": [file_param(path, data, size) for path, data, size in files]}
    check_equal(got, final(shape(impl, request, rule)), rule, what, input=params)
