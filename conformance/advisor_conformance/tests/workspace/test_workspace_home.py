"""Blocked paths written with ``~``: the home directory, as the origin expands its policy paths.

The suite never touches the machine's home: it names a home of its own, ``home/`` beside the working directory, in
``runtime.home_dir`` (the capability ``home_dir``; an implementation that does not declare it has these tests skipped,
naming it). A ``~user`` form and a ``~`` after the first character are left open (the reference refuses the first and
keeps the second as a name).
"""

from __future__ import annotations

import pytest

from .reads import SOURCE, _refused, check_loaded, loaded

pytestmark = pytest.mark.needs(capabilities=["home_dir"])

HOME_SPEC = {
    "src/main.go": {"text": SOURCE},
    "../home/.ssh/id_ed25519": {"text": "PRIVATE KEY=do-not-send\n"},
    "../home/notes.txt": {"text": "HOME NOTES=do-not-send\n"},
    "~/.ssh/id_ed25519": {"text": "a folder named ~ in the working directory\n"},
}


def _home(blocked):
    return {"blocked_paths": blocked, "home_dir": "{home}", "max_uses_per_run": 1}


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("blocked, path", [
    (["~/.ssh"], "{home}/.ssh/id_ed25519"), (["~/.ssh"], "../home/.ssh/id_ed25519"),
    (["~/.ssh/"], "{home}/.ssh/id_ed25519"), (["~"], "{home}/notes.txt"), (["~"], "{home}/.ssh/id_ed25519"),
    (["~/"], "{home}/notes.txt"), (["secrets", "~/.ssh"], "{home}/.ssh/id_ed25519"),
], ids=["tilde-slash-absolute", "tilde-slash-through-dot-dot", "tilde-slash-trailing-slash", "tilde-alone",
        "tilde-alone-nested", "tilde-slash-alone", "second-of-two"])
def test_blocked_path_with_a_tilde_blocks_the_home_directory(impl, blocked, path):
    """A blocked path written ``~`` or starting ``~/`` stands for the home directory: a file there, named by its
    absolute path or through ``..``, is refused without using the budget, and nothing of it reaches the provider."""
    _refused(impl, path, "workspace.path-policy", runtime=_home(blocked), spec=HOME_SPEC)


@pytest.mark.rule(id="workspace.path-policy")
@pytest.mark.parametrize("blocked", [["~/.ssh"], ["~"]], ids=["tilde-slash", "tilde-alone"])
def test_folder_named_tilde_in_the_working_directory_is_not_the_home(impl, blocked):
    """With ``~/.ssh`` (or ``~``) blocked, a folder literally named ``~`` in the working directory is not the home
    directory: its files are read, while the home's own are refused."""
    _refused(impl, "{home}/.ssh/id_ed25519", "workspace.path-policy", runtime=_home(blocked), spec=HOME_SPEC)
    path = "./~/.ssh/id_ed25519"
    text = HOME_SPEC["~/.ssh/id_ed25519"]["text"]
    got, params = loaded(impl, [path], "workspace.path-policy", runtime=_home(blocked), spec=HOME_SPEC)
    check_loaded(impl, got, [("~/.ssh/id_ed25519", text.encode(), len(text))], "workspace.path-policy",
                 f"{path!r} lies in a folder named ~ in the working directory, not in the home that {blocked[0]!r} "
                 "blocks, but was not read as it is", params)
