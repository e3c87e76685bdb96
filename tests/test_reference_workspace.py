"""Unit tests of the reference's workspace: the path policy, capped reads of regular files, and their errors."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

import advisor_reference
from advisor_reference import MAX_FILE_BYTES, FileRefused, LoadedFile, PathPolicy, load_files
from advisor_reference._workspace import read_capped


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
    with pytest.raises(FileRefused) as info:
        policy.resolve(raw, at)
    assert info.value.code == "file_error" and info.value.at == at
    return info.value.detail


# --- the policy -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("work_dir", ["work", "", "./w"])
def test_policy_needs_an_absolute_working_directory(work_dir):
    """A working directory that is not absolute is refused when the policy is made."""
    with pytest.raises(ValueError, match="^the working directory must be an absolute path$"):
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


@pytest.mark.parametrize("raw, shown", [("", "''"), ("a\x00b", "'a\\x00b'"), ("\x00", "'\\x00'")],
                         ids=["empty", "nul-inside", "nul-only"])
def test_empty_or_nul_path_is_not_a_file_path(work, raw, shown):
    """An empty path or one with a NUL byte is refused before the file system sees it."""
    assert _refusal(PathPolicy(str(work)), raw, at="input.files[3]") == f"{shown} is not a file path"


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
    ids=["inside", "dot-slash", "dot-dot", "the-directory", "trailing-slash", "dot-entry", "exact-file",
         "second-entry", "link-into-blocked", "root", "link-inside-blocked"],
)
def test_blocked_paths_are_refused(work, blocked, raw):
    """A path equal to or inside a blocked entry, after resolving links and dots, is refused naming the path as given."""
    assert _refusal(PathPolicy(str(work), blocked=blocked), raw) == f"{raw}: blocked by the path policy"


def test_absolute_blocked_entry_blocks_that_path(work):
    """A blocked entry given as an absolute path blocks that path, wherever the working directory is."""
    policy = PathPolicy(str(work), blocked=(str(work.parent / "outside"),))
    assert _refusal(policy, "../outside/o.txt") == "../outside/o.txt: blocked by the path policy"
    assert _refusal(policy, "src/link-out") == "src/link-out: blocked by the path policy"


def test_blocked_entry_reached_through_a_link_is_resolved(work):
    """A blocked entry that is itself a link blocks what it points to."""
    os.symlink("keys", work / "keys-link")
    assert _refusal(PathPolicy(str(work), blocked=("keys-link",)), "keys/id") == "keys/id: blocked by the path policy"


@pytest.mark.parametrize("raw", ["keys2/id", "src/a.txt", "token"], ids=["prefix-sibling", "other-dir", "file"])
def test_paths_beside_a_blocked_entry_are_allowed(work, raw):
    """A path that only shares a name prefix with a blocked entry is not blocked."""
    policy = PathPolicy(str(work), blocked=("keys", "tok", "src/a"))
    assert policy.resolve(raw, "input.files[0]") == str(work / raw)


@pytest.mark.parametrize("raw", ["../outside/o.txt", "src/link-out", str(os.sep + "etc" + os.sep + "hostname"), ".."],
                         ids=["dot-dot", "link-out", "absolute", "parent"])
def test_confinement_refuses_paths_outside_the_working_directory(work, raw):
    """With confinement on, a path that resolves outside the working directory is refused naming the path as given."""
    policy = PathPolicy(str(work), confine=True)
    assert _refusal(policy, raw) == f"{raw}: outside the working directory"


def test_without_confinement_outside_paths_resolve(work):
    """With confinement off (the default), a path outside the working directory resolves to its real target."""
    outside = str(work.parent / "outside" / "o.txt")
    assert PathPolicy(str(work)).resolve("../outside/o.txt", "at") == outside
    assert PathPolicy(str(work)).resolve("src/link-out", "at") == outside


@pytest.mark.parametrize("raw, target", [("src/a.txt", "src/a.txt"), ("src/link-to-a", "src/a.txt"), (".", ""),
                                         ("src/../token", "token")],
                         ids=["file", "link", "work-dir-itself", "dot-dot-inside"])
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
    assert _refusal(policy, "keys/id") == "keys/id: blocked by the path policy"
    assert policy.display_path("src/a.txt") == "src/a.txt"


def test_blocked_is_checked_before_confinement(work):
    """A path both blocked and outside is reported as blocked."""
    policy = PathPolicy(str(work), blocked=("../outside",), confine=True)
    assert _refusal(policy, "../outside/o.txt") == "../outside/o.txt: blocked by the path policy"


# --- capped reads ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cap, data", [(10, b"0123456789"), (1, b"0"), (0, b""), (25, b"0123456789" * 2 + b"01234"),
                                       (100, b"0123456789" * 2 + b"01234")])
def test_read_is_capped_and_reports_the_true_size(tmp_path, cap, data):
    """At most ``cap`` bytes are read, and the size is the file's true size."""
    path = tmp_path / "f"
    path.write_bytes(b"0123456789" * 2 + b"01234")
    assert read_capped(str(path), "f", "at", cap=cap) == (data, 25)


def test_default_cap_is_32768_bytes(tmp_path):
    """Without a cap argument a read stops at 32768 bytes."""
    path = tmp_path / "big"
    path.write_bytes(bytes(range(256)) * 200)
    data, size = read_capped(str(path), "big", "at")
    assert MAX_FILE_BYTES == 32768
    assert (data, size) == ((bytes(range(256)) * 200)[:32768], 51200)


def test_empty_file_reads_empty(tmp_path):
    """An empty regular file reads as no bytes and size 0."""
    (tmp_path / "e").write_bytes(b"")
    assert read_capped(str(tmp_path / "e"), "e", "at") == (b"", 0)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_size_is_never_below_the_bytes_read():
    """A regular file whose stat size is 0 but which has content (procfs) reports the length read as its size."""
    assert os.stat("/proc/self/status").st_size == 0
    data, size = read_capped("/proc/self/status", "status", "at")
    assert data.startswith(b"Name:") and size == len(data)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs /proc")
def test_read_failure_is_a_file_error_naming_the_path():
    """A regular file whose read fails is refused naming the path as given and the system's reason."""
    with pytest.raises(FileRefused) as info:
        read_capped("/proc/self/mem", "mem", "input.files[2]")
    assert info.value.detail == "mem: cannot be read (Input/output error)"
    assert info.value.at == "input.files[2]" and info.value.code == "file_error"


def test_a_read_beyond_the_cap_costs_one_read(tmp_path, monkeypatch):
    """A file larger than the cap is read with a single read of the cap's size, never a second one."""
    (tmp_path / "big").write_bytes(b"y" * 100_000)
    real_read, sizes = os.read, []

    def counting_read(fd, size):
        sizes.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", counting_read)
    assert read_capped(str(tmp_path / "big"), "big", "at") == (b"y" * 32768, 100_000)
    assert sizes == [32768]


def test_short_reads_are_joined_up_to_the_cap(tmp_path, monkeypatch):
    """When the system returns fewer bytes than asked, reads go on and their bytes are joined as they were."""
    content = bytes(range(256)) * 4
    (tmp_path / "f").write_bytes(content)
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: real_read(fd, min(size, 7)))
    assert read_capped(str(tmp_path / "f"), "f", "at", cap=100) == (content[:100], 1024)
    assert read_capped(str(tmp_path / "f"), "f", "at") == (content, 1024)


def _kind_cases(tmp_path):
    os.mkdir(tmp_path / "dir")
    os.mkfifo(tmp_path / "fifo")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "sock"))
    os.symlink("dir", tmp_path / "link-to-dir")
    return server


@pytest.mark.parametrize(
    "name, detail",
    [
        ("dir", "a directory, not a regular file"),
        ("fifo", "a FIFO, not a regular file"),
        ("sock", "a socket, not a regular file"),
        ("link-to-dir", "a directory, not a regular file"),
        ("/dev/null", "a character device, not a regular file"),
        ("missing", "no such file"),
        ("dir/missing", "no such file"),
        ("fifo/x", "cannot be read (Not a directory)"),
    ],
)
def test_anything_but_a_regular_file_is_refused_unread(tmp_path, name, detail):
    """Special files, missing files and bad paths are refused with the kind or reason, naming the path as given."""
    server = _kind_cases(tmp_path)
    try:
        with pytest.raises(FileRefused) as info:
            read_capped(os.path.join(str(tmp_path), name), name, "input.files[1]")
    finally:
        server.close()
    assert info.value.detail == f"{name}: {detail}"
    assert info.value.at == "input.files[1]"
    assert str(tmp_path) not in str(info.value)


def test_block_device_is_refused(tmp_path):
    """A block device is refused as one."""
    device = next((f"/dev/{name}" for name in sorted(os.listdir("/dev"))
                   if stat.S_ISBLK(os.stat(f"/dev/{name}").st_mode)), None)
    if device is None:
        pytest.skip("no block device here")
    with pytest.raises(FileRefused) as info:
        read_capped(device, "disk", "at")
    assert info.value.detail == "disk: a block device, not a regular file"


def test_link_loop_is_refused_with_the_reason(tmp_path):
    """A link loop cannot be read: the error names the path as given and the system's reason."""
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    with pytest.raises(FileRefused) as info:
        read_capped(str(tmp_path / "a"), "a", "at")
    assert info.value.detail == "a: cannot be read (Too many levels of symbolic links)"


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_reads_close_their_descriptor(tmp_path):
    """Every read, good or refused after opening, closes the descriptor it opened."""
    (tmp_path / "f").write_bytes(b"x" * 100)
    before = _open_fds()
    for _ in range(5):
        read_capped(str(tmp_path / "f"), "f", "at", cap=10)
        with pytest.raises(FileRefused):
            read_capped("/proc/self/mem", "mem", "at")
    assert _open_fds() == before


# --- a path swapped between the check and the open ------------------------------------------------------------------

@pytest.fixture
def regular_stat(monkeypatch):
    """Make ``os.stat`` call the given paths regular files, as if they were swapped right after the check."""
    real_stat, swapped = os.stat, set()

    def fake_stat(path, *args, **kwargs):
        if str(path) in swapped:
            return os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 5, 0, 0, 0))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", fake_stat)
    return swapped


def _read_within(path, raw, seconds=10):
    """read_capped in a daemon thread, failing (not hanging) if the open blocks."""
    box = {}

    def read():
        try:
            box["value"] = read_capped(path, raw, "input.files[0]")
        except FileRefused as exc:
            box["error"] = exc

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the open blocked"
    return box


@pytest.mark.parametrize(
    "name, detail",
    [
        ("fifo", "no longer a regular file"),
        ("dir", "no longer a regular file"),
        ("sock", "not a regular file"),
        ("gone", "no such file"),
    ],
)
def test_path_swapped_after_the_check_is_refused_without_blocking(tmp_path, regular_stat, name, detail):
    """A path that passed the check but is a FIFO, directory, socket or gone at open is refused at once."""
    server = _kind_cases(tmp_path)
    path = str(tmp_path / name)
    regular_stat.add(path)
    try:
        box = _read_within(path, name)
    finally:
        server.close()
    assert "error" in box, box
    assert box["error"].detail == f"{name}: {detail}"
    assert box["error"].at == "input.files[0]"


def test_open_failure_after_the_check_names_the_reason(tmp_path, regular_stat):
    """An open that fails for another reason is refused naming the path and the system's reason."""
    os.symlink("loop", tmp_path / "loop")
    path = str(tmp_path / "loop")
    regular_stat.add(path)
    box = _read_within(path, "loop")
    assert box["error"].detail == "loop: cannot be opened (Too many levels of symbolic links)"
    assert box["error"].at == "input.files[0]" and box["error"].code == "file_error"


def test_file_of_an_unknown_kind_is_a_special_file(tmp_path, monkeypatch):
    """A path whose stat shows no known file type is refused unread as a special file."""
    real_stat, path = os.stat, str(tmp_path / "odd")

    def fake_stat(target, *args, **kwargs):
        if str(target) == path:
            return os.stat_result((0o644, 0, 0, 1, 0, 0, 5, 0, 0, 0))
        return real_stat(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", fake_stat)
    with pytest.raises(FileRefused) as info:
        read_capped(path, "odd", "input.files[4]")
    assert (info.value.detail, info.value.at) == ("odd: a special file, not a regular file", "input.files[4]")


_SWAP_IN_A_TERMINAL = textwrap.dedent("""
    import os, stat
    from advisor_reference import FileRefused
    from advisor_reference._workspace import read_capped
    master, slave = os.openpty()
    name = os.ttyname(slave)
    os.close(slave)
    real_stat = os.stat
    regular = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 5, 0, 0, 0))
    os.stat = lambda path, *args, **kwargs: regular if path == name else real_stat(path, *args, **kwargs)
    try:
        read_capped(name, "tty", "at")
    except FileRefused as exc:
        print(exc.detail)
    os.stat = real_stat
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY | os.O_NONBLOCK))
        print("has a controlling terminal")
    except OSError:
        print("has no controlling terminal")
""")


@pytest.mark.skipif(not hasattr(os, "openpty") or not os.path.exists("/dev/tty"), reason="needs ptys and /dev/tty")
def test_terminal_swapped_in_never_becomes_the_controlling_terminal():
    """A terminal swapped in after the check is refused, and opening it does not make it the process's terminal."""
    master, slave = os.openpty()
    try:  # in this process, a terminal that is one when checked is refused unopened
        with pytest.raises(FileRefused) as info:
            read_capped(os.ttyname(slave), "tty", "at")
        assert info.value.detail == "tty: a character device, not a regular file"
    finally:
        os.close(master)
        os.close(slave)
    root = os.path.dirname(os.path.dirname(os.path.abspath(advisor_reference.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", _SWAP_IN_A_TERMINAL], capture_output=True, text=True, timeout=30,
                          start_new_session=True, env=env, check=True)
    assert done.stdout.splitlines() == ["tty: no longer a regular file", "has no controlling terminal"]


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
    "paths, at, detail",
    [
        (["src/a.txt", "nope.txt"], "input.files[1]", "nope.txt: no such file"),
        (["src/a.txt", "token", "keys/id"], "input.files[2]", "keys/id: blocked by the path policy"),
        (["src", "keys/id"], "input.files[0]", "src: a directory, not a regular file"),
        (["nope.txt", "src"], "input.files[0]", "nope.txt: no such file"),
        (["src/a.txt", ""], "input.files[1]", "'' is not a file path"),
        (["../outside/o.txt"], "input.files[0]", "../outside/o.txt: outside the working directory"),
    ],
    ids=["missing-second", "blocked-third", "directory-first", "first-refusal-wins", "empty", "outside"],
)
def test_first_refusal_stops_and_names_its_index(work, paths, at, detail):
    """The first refused path stops the load with an error at its own index, naming it as given."""
    with pytest.raises(FileRefused) as info:
        load_files(PathPolicy(str(work), blocked=("keys",), confine=True), paths)
    assert (info.value.at, info.value.detail) == (at, detail)
    assert str(info.value) == f"{at}: {detail}"
    assert str(work) not in str(info.value)


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
