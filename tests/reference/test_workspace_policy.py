"""advisor_reference._workspace, part one: the path policy (display paths, blocked paths, confinement) and
load_files; the capped reads of regular files are in test_workspace_reads.py."""

from __future__ import annotations

import os

import pytest

from advisor_reference import AdvisorInputError, FileRefused, LoadedFile, PathPolicy, load_files
from advisor_reference._workspace import MAX_PATH_BYTES


@pytest.fixture
def work(tmp_path):
    """A working directory ``work/`` with a few files, a blocked ``keys/`` and a sibling ``outside/``."""
    root = tmp_path.resolve()
    work = root / "work"
    (work / "src").mkdir(parents=True)
    (work / "keys").mkdir()
    (work / "keys2").mkdir()
    (root / "outside").mkdir()
    (work / "src" / "a.txt").write_bytes(b"alpha\n")
    (work / "keys" / "id").write_bytes(b"secret")
    (work / "keys2" / "id").write_bytes(b"not secret")
    (work / "token").write_bytes(b"tok")
    (root / "outside" / "o.txt").write_bytes(b"outside")
    os.symlink("../keys/id", work / "src" / "link-to-key")
    os.symlink("a.txt", work / "src" / "link-to-a")
    os.symlink("../../outside/o.txt", work / "src" / "link-out")
    return work


def _refusal(policy, raw, at="input.files[0]"):
    """The detail of the file_error ``policy`` raises at ``at`` for ``raw``."""
    with pytest.raises(FileRefused) as info:
        policy.resolve(raw, at)
    assert info.value.code == "file_error" and info.value.at == at
    return info.value.detail


# --- the policy -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("work_dir", ["work", "", "./w", "relative/dir"])
def test_policy_needs_an_absolute_working_directory(work_dir):
    """A working directory that is not absolute is refused when the policy is made."""
    with pytest.raises(ValueError):
        PathPolicy(work_dir)


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("src/a.txt", "src/a.txt"),
        ("./src/a.txt", "src/a.txt"),
        ("src/../src/./a.txt", "src/a.txt"),
        ("src//a.txt", "src/a.txt"),
        ("../outside/o.txt", "../outside/o.txt"),
        ("src/link-to-a", "src/link-to-a"),
        (".", "."),
    ],
)
def test_display_path_is_normalised_and_relative(work, raw, shown):
    """The display path is the caller's path normalised lexically, relative to the working directory."""
    assert PathPolicy(str(work)).display_path(raw) == shown


def test_display_path_of_an_absolute_path_is_relative(work):
    """An absolute path inside or outside the working directory is shown relative to it, never as the host path."""
    policy = PathPolicy(str(work))
    assert policy.display_path(str(work / "src" / "a.txt")) == "src/a.txt"
    assert policy.display_path(str(work.parent / "outside" / "o.txt")) == "../outside/o.txt"


@pytest.mark.parametrize(
    "raw, shown",
    [("", "''"), ("a\x00b", "'a\\x00b'"), ("\x00", "'\\x00'"), ("a\ud800b", "'a\\ud800b'")],
    ids=["empty", "nul-inside", "nul-only", "lone-surrogate"],
)
def test_empty_nul_or_surrogate_path_is_invalid_input(work, raw, shown):
    """An empty path, or one with a NUL byte or a lone surrogate, is invalid input before the file system sees it,
    the path shown quoted."""
    with pytest.raises(AdvisorInputError) as info:
        load_files(PathPolicy(str(work)), ["src/a.txt", raw])
    assert not isinstance(info.value, FileRefused)
    assert (info.value.code, info.value.at) == ("invalid_input", "input.files[1]")
    assert shown in info.value.detail


@pytest.mark.parametrize(
    "blocked, raw",
    [
        (("keys",), "keys/id"),
        (("keys",), "./keys/id"),
        (("keys",), "src/../keys/id"),
        (("keys",), "keys"),
        (("keys/",), "keys/id"),
        (("./keys",), "keys/id"),
        (("token",), "token"),
        (("other", "token"), "token"),
        (("keys",), "src/link-to-key"),
        (("/",), "src/a.txt"),
        (("src",), "src/link-to-a"),
    ],
    ids=[
        "inside",
        "dot-slash",
        "dot-dot",
        "the-directory",
        "trailing-slash",
        "dot-entry",
        "exact-file",
        "second-entry",
        "link-into-blocked",
        "root",
        "link-inside-blocked",
    ],
)
def test_blocked_paths_are_refused(work, blocked, raw):
    """A path equal to or inside a blocked entry, after resolving links and dots, is refused naming the path as given."""
    assert raw in _refusal(PathPolicy(str(work), blocked=blocked), raw)


def test_blocked_paths_are_resolved_against_the_working_directory(tmp_path):
    """A blocked entry given relative to the working directory blocks that directory's files."""
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "id").write_text("secret")
    assert load_files(PathPolicy(str(tmp_path)), ["keys/id"]) == [LoadedFile("keys/id", b"secret", 6)]
    with pytest.raises(FileRefused) as info:
        load_files(PathPolicy(str(tmp_path), blocked=("keys",)), ["keys/id"])
    assert info.value.at == "input.files[0]" and "keys/id" in info.value.detail


def test_absolute_blocked_entry_blocks_that_path(work):
    """A blocked entry given as an absolute path blocks that path, wherever the working directory is."""
    policy = PathPolicy(str(work), blocked=(str(work.parent / "outside"),))
    assert "../outside/o.txt" in _refusal(policy, "../outside/o.txt")
    assert "src/link-out" in _refusal(policy, "src/link-out")


def test_blocked_entry_reached_through_a_link_is_resolved(work):
    """A blocked entry that is itself a link blocks what it points to."""
    os.symlink("keys", work / "keys-link")
    assert "keys/id" in _refusal(PathPolicy(str(work), blocked=("keys-link",)), "keys/id")


@pytest.mark.parametrize(
    "blocked, raw",
    [("~/.ssh", "{home}/.ssh/id"), ("~/.ssh/", "../home/.ssh/id"), ("~", "{home}/notes"), ("~/", "{home}/.ssh/id")],
    ids=["tilde-slash", "trailing-slash", "tilde-alone", "tilde-slash-alone"],
)
def test_a_blocked_path_with_a_tilde_is_under_the_home_directory(work, blocked, raw):
    """A blocked path written ``~`` or starting ``~/`` stands for the policy's home directory; a folder named ``~`` in
    the working directory is not it."""
    home = work.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id").write_bytes(b"key")
    (home / "notes").write_bytes(b"notes")
    (work / "~" / ".ssh").mkdir(parents=True)
    (work / "~" / ".ssh" / "id").write_bytes(b"a name")
    (work / "~" / "notes").write_bytes(b"a name")
    policy = PathPolicy(str(work), blocked=(blocked,), home=str(home))
    raw = raw.format(home=home)
    assert raw in _refusal(policy, raw)
    named = "./~/.ssh/id" if ".ssh" in raw else "./~/notes"
    assert policy.resolve(named, "at") == str(work / named)


def test_a_tilde_stands_for_home_when_no_home_is_given(work, monkeypatch):
    """Without a home directory of its own, ``~`` is ``HOME``; ``HOME`` set empty is no home, an invalid_input."""
    monkeypatch.setenv("HOME", str(work / "keys"))
    assert "keys/id" in _refusal(PathPolicy(str(work), blocked=("~",)), "keys/id")
    monkeypatch.setenv("HOME", "")
    with pytest.raises(AdvisorInputError) as info:
        PathPolicy(str(work), blocked=("src", "~/.ssh"))
    assert (info.value.code, info.value.at) == ("invalid_input", "runtime.home_dir")
    assert PathPolicy(str(work), blocked=("src",)).resolve("token", "at") == str(work / "token")  # no ~, no home


@pytest.mark.parametrize("blocked", ["keys/~", "keys~", "./~keys"], ids=["tilde-segment", "tilde-last", "dot-slash"])
def test_a_tilde_after_the_first_character_is_a_name(work, blocked):
    """A ``~`` anywhere but at the head of a blocked path is part of a name, blocked as it is written."""
    name = blocked.removeprefix("./")
    (work / name).parent.mkdir(parents=True, exist_ok=True)
    (work / name).write_bytes(b"x")
    assert name in _refusal(PathPolicy(str(work), blocked=(blocked,), home=str(work / "src")), name)


def test_policy_needs_an_absolute_home_directory(work):
    """A home directory that is not absolute is refused when the policy is made."""
    with pytest.raises(ValueError):
        PathPolicy(str(work), home="home")


@pytest.mark.parametrize("raw", ["keys2/id", "src/a.txt", "token"], ids=["prefix-sibling", "other-dir", "file"])
def test_paths_beside_a_blocked_entry_are_allowed(work, raw):
    """A path that only shares a name prefix with a blocked entry is not blocked."""
    policy = PathPolicy(str(work), blocked=("keys", "tok", "src/a"))
    assert policy.resolve(raw, "input.files[0]") == str(work / raw)


@pytest.mark.parametrize(
    "raw",
    ["../outside/o.txt", "src/link-out", str(os.sep + "etc" + os.sep + "hostname"), ".."],
    ids=["dot-dot", "link-out", "absolute", "parent"],
)
def test_confinement_refuses_paths_outside_the_working_directory(work, raw):
    """With confinement on, a path that resolves outside the working directory is refused naming the path as given."""
    policy = PathPolicy(str(work), confine=True)
    assert raw in _refusal(policy, raw)


def test_without_confinement_outside_paths_resolve(work):
    """With confinement off (the default), a path outside the working directory resolves to its real target."""
    outside = str(work.parent / "outside" / "o.txt")
    assert PathPolicy(str(work)).resolve("../outside/o.txt", "at") == outside
    assert PathPolicy(str(work)).resolve("src/link-out", "at") == outside


@pytest.mark.parametrize(
    "raw, target",
    [("src/a.txt", "src/a.txt"), ("src/link-to-a", "src/a.txt"), (".", ""), ("src/../token", "token")],
    ids=["file", "link", "work-dir-itself", "dot-dot-inside"],
)
def test_confinement_allows_paths_inside(work, raw, target):
    """With confinement on, a path resolving inside (or to) the working directory resolves to its real path."""
    assert PathPolicy(str(work), confine=True).resolve(raw, "at") == os.path.join(str(work), target).rstrip(os.sep)


def test_confinement_judges_a_linked_working_directory_by_its_target(work):
    """A working directory given through a link confines to its target, and blocked entries resolve under it."""
    link = work.parent / "work-link"
    os.symlink(work, link)
    policy = PathPolicy(str(link), blocked=("keys",), confine=True)
    assert policy.resolve("src/a.txt", "at") == str(work / "src" / "a.txt")
    assert policy.resolve(str(work / "src" / "a.txt"), "at") == str(work / "src" / "a.txt")
    assert "keys/id" in _refusal(policy, "keys/id")
    assert policy.display_path("src/a.txt") == "src/a.txt"


def test_blocked_is_checked_before_confinement(work):
    """A path both blocked and outside is reported as blocked: the same refusal as with the block alone."""
    both = PathPolicy(str(work), blocked=("../outside",), confine=True)
    blocked_only = PathPolicy(str(work), blocked=("../outside",))
    confined_only = PathPolicy(str(work), confine=True)
    refusal = _refusal(both, "../outside/o.txt")
    assert refusal == _refusal(blocked_only, "../outside/o.txt") != _refusal(confined_only, "../outside/o.txt")


def test_policy_checks_see_the_path_as_given(work):
    """A policy that extends the blocked and confinement checks receives the caller's path and its real target."""
    seen = []

    class Recording(PathPolicy):
        def is_blocked(self, raw, real):
            seen.append(("blocked", raw, real))
            return super().is_blocked(raw, real)

        def is_outside(self, raw, real):
            seen.append(("outside", raw, real))
            return super().is_outside(raw, real)

    real = Recording(str(work), confine=True).resolve("./src/a.txt", "input.files[0]")
    assert seen == [("blocked", "./src/a.txt", real), ("outside", "./src/a.txt", real)]


# --- load_files -----------------------------------------------------------------------------------------------------


def test_load_files_reads_each_path_in_order(work):
    """Each path is read in order, under its display path, with its data and true size."""
    (work / "big.bin").write_bytes(b"z" * 40000)
    files = load_files(PathPolicy(str(work)), ["./src/a.txt", "token", "big.bin", "src/link-to-a", "src/a.txt"])
    assert files == [
        LoadedFile("src/a.txt", b"alpha\n", 6),
        LoadedFile("token", b"tok", 3),
        LoadedFile("big.bin", b"z" * 32768, 40000),
        LoadedFile("src/link-to-a", b"alpha\n", 6),
        LoadedFile("src/a.txt", b"alpha\n", 6),
    ]


def test_load_files_of_no_paths_is_empty(work):
    """No paths load no files."""
    assert load_files(PathPolicy(str(work)), []) == []


@pytest.mark.parametrize(
    "paths, at, shown",
    [
        (["src/a.txt", "nope.txt"], "input.files[1]", "nope.txt"),
        (["src/a.txt", "token", "keys/id"], "input.files[2]", "keys/id"),
        (["src", "keys/id"], "input.files[0]", "src"),
        (["nope.txt", "src"], "input.files[0]", "nope.txt"),
        (["../outside/o.txt"], "input.files[0]", "../outside/o.txt"),
    ],
    ids=["missing-second", "blocked-third", "directory-first", "first-refusal-wins", "outside"],
)
def test_first_refusal_stops_and_names_its_index(work, paths, at, shown):
    """The first refused path stops the load with a file_error at its own index, naming the path as given."""
    with pytest.raises(FileRefused) as info:
        load_files(PathPolicy(str(work), blocked=("keys",), confine=True), paths)
    assert (info.value.code, info.value.at) == ("file_error", at)
    assert shown in info.value.detail and at in str(info.value)
    assert str(work) not in str(info.value)


# -- a path's length, and the walk over its components -----------------------------------------------------------------


def test_a_path_of_the_longest_length_is_walked(work):
    """A path of exactly MAX_PATH_BYTES bytes is walked like any other: to its file, or to a missing one."""
    missing = "src/" + "./" * ((MAX_PATH_BYTES - 8) // 2) + "none"
    found = "src/" + "./" * ((MAX_PATH_BYTES - 10) // 2) + "/a.txt"
    assert len(missing) == len(found) == MAX_PATH_BYTES
    with pytest.raises(FileRefused) as info:
        PathPolicy(str(work)).open(missing, "input.files[0]")
    assert "no such file" in info.value.detail
    assert PathPolicy(str(work)).resolve(found, "input.files[0]") == str(work / "src" / "a.txt")


@pytest.mark.parametrize("extra", [1, 1_000_000])
def test_a_path_longer_than_the_limit_is_a_file_error_named_briefly(work, extra):
    """A path one byte (or megabytes) over MAX_PATH_BYTES is a file_error at its field whose message holds the path's
    head, not the whole path."""
    raw = "src/" + "../src/" * ((MAX_PATH_BYTES + extra) // 7) + "a.txt"
    assert len(raw.encode()) > MAX_PATH_BYTES
    detail = _refusal(PathPolicy(str(work)), raw, at="input.files[3]")
    assert raw[:50] in detail and len(detail) < 1000


@pytest.mark.parametrize(
    "layout, raw",
    [
        ({"l1": "src/../src/l2", "src/l2": "a.txt"}, "l1"),
        ({"l1": "./src/./", "l2": "l1/../l1/a.txt"}, "l2"),
        ({"deep": "src/" + "../src/" * 300 + "a.txt"}, "deep"),
        ({"up": "../work/src/link-to-a"}, "up"),
        ({"abs": "{work}/src/../token"}, "src/../abs"),
    ],
    ids=["chain", "link-in-link", "long-target", "up-and-back", "absolute"],
)
def test_links_with_many_components_resolve_as_the_kernel_does(work, layout, raw):
    """Links whose targets hold many components, dots and further links resolve to the path the kernel resolves."""
    for name, target in layout.items():
        os.symlink(target.format(work=work), work / name)
    assert PathPolicy(str(work)).resolve(raw, "input.files[0]") == os.path.realpath(work / raw)
