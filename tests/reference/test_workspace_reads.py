"""advisor_reference._workspace, part two: capped reads of regular files, everything else refused unread, pseudo-files,
and paths swapped while they are resolved; the path policy and load_files are in test_workspace_policy.py."""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

import advisor_reference
from advisor_reference import FileRefused, PathPolicy, load_files, read_capped


def _read(path, cap=32768):
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_capped(fd, cap)
    finally:
        os.close(fd)


def _refused(policy, raw, at="at"):
    """The FileRefused that loading ``raw`` raises, checked to be a file_error at ``at`` naming ``raw``."""
    with pytest.raises(FileRefused) as info:
        fd = policy.open(raw, at)
        try:
            policy.read(fd, raw, at)
        finally:
            os.close(fd)
    assert (info.value.code, info.value.at) == ("file_error", at)
    assert info.value.detail.startswith(raw), info.value.detail
    return info.value


# --- capped reads ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cap, data",
    [(10, b"0123456789"), (1, b"0"), (0, b""), (25, b"0123456789" * 2 + b"01234"), (100, b"0123456789" * 2 + b"01234")],
)
def test_read_is_capped_and_reports_the_true_size(tmp_path, cap, data):
    """At most ``cap`` bytes are read, and the size is the file's true size."""
    path = tmp_path / "f"
    path.write_bytes(b"0123456789" * 2 + b"01234")
    assert _read(path, cap) == (data, 25)


def test_default_cap_is_32768_bytes(tmp_path):
    """Without a cap argument a read stops at 32768 bytes."""
    path = tmp_path / "big"
    path.write_bytes(bytes(range(256)) * 200)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert read_capped(fd) == ((bytes(range(256)) * 200)[:32768], 51200)
    finally:
        os.close(fd)


def test_empty_file_reads_empty(tmp_path):
    """An empty regular file reads as no bytes and size 0."""
    (tmp_path / "e").write_bytes(b"")
    assert _read(tmp_path / "e") == (b"", 0)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_size_is_never_below_the_bytes_read():
    """A file whose stat size is 0 but which has content (procfs) reports the length read as its size."""
    assert os.stat("/proc/self/status").st_size == 0
    data, size = _read("/proc/self/status")
    assert data.startswith(b"Name:") and size == len(data)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs /proc")
def test_read_failure_is_a_file_error_naming_the_path():
    """A read that fails is refused naming the path as given and the system's reason."""
    fd = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        with pytest.raises(FileRefused) as info:
            PathPolicy("/").read(fd, "mem", "input.files[2]")
    finally:
        os.close(fd)
    assert (info.value.code, info.value.at) == ("file_error", "input.files[2]")
    assert info.value.detail.startswith("mem") and os.strerror(errno.EIO) in info.value.detail


def test_a_read_beyond_the_cap_costs_one_read(tmp_path, monkeypatch):
    """A file larger than the cap is read with a single read of the cap's size, never a second one."""
    (tmp_path / "big").write_bytes(b"y" * 100_000)
    real_read, sizes = os.read, []

    def counting_read(fd, size):
        sizes.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", counting_read)
    assert _read(tmp_path / "big") == (b"y" * 32768, 100_000)
    assert sizes == [32768]


def test_short_reads_are_joined_up_to_the_cap(tmp_path, monkeypatch):
    """When the system returns fewer bytes than asked, reads go on and their bytes are joined as they were."""
    content = bytes(range(256)) * 4
    (tmp_path / "f").write_bytes(content)
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: real_read(fd, min(size, 7)))
    assert _read(tmp_path / "f", 100) == (content[:100], 1024)
    assert _read(tmp_path / "f") == (content, 1024)


# --- anything but a regular file ------------------------------------------------------------------------------------


def _kind_cases(tmp_path):
    os.mkdir(tmp_path / "dir")
    os.mkfifo(tmp_path / "fifo")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "sock"))
    os.symlink("dir", tmp_path / "link-to-dir")
    (tmp_path / "file").write_bytes(b"x")
    return server


@pytest.mark.parametrize(
    "name, shown",
    [
        ("dir", "directory"),
        ("fifo", "FIFO"),
        ("sock", None),
        ("link-to-dir", "directory"),
        ("missing", None),
        ("dir/missing", None),
        ("fifo/x", None),
        ("file/x", None),
        ("..", "directory"),
    ],
    ids=["dir", "fifo", "sock", "link-to-dir", "missing", "missing-in-dir", "under-a-fifo", "under-a-file", "dot-dot"],
)
def test_anything_but_a_regular_file_is_refused_unread(tmp_path, name, shown):
    """Special files, missing files and bad paths are refused naming the path as given (and the file's kind), never
    the host path."""
    server = _kind_cases(tmp_path)
    try:
        error = _refused(PathPolicy(str(tmp_path)), name, "input.files[1]")
    finally:
        server.close()
    assert shown is None or shown in error.detail
    assert str(tmp_path) not in str(error)


@pytest.mark.parametrize(
    "mode, shown",
    [(stat.S_IFCHR | 0o644, "character device"), (stat.S_IFBLK | 0o644, "block device"), (0o644, "special file")],
    ids=["character-device", "block-device", "unknown-kind"],
)
def test_kinds_are_named_in_the_refusal(mode, shown):
    """Every kind of file but a regular one is refused, naming the kind (a file of no known kind as a special file)."""
    with pytest.raises(FileRefused) as info:
        PathPolicy("/").refuse_kind(mode, "thing", "input.files[4]")
    assert info.value.at == "input.files[4]" and shown in info.value.detail


@pytest.mark.parametrize(
    "target", ["/proc/self/environ", "/proc/self/status", "/sys/class", "/dev/zero", "/dev/null", "/dev/shm"]
)
def test_pseudo_filesystems_are_refused(tmp_path, target):
    """A file of /proc, /sys or /dev is refused unread, by its path or through a link (rule: workspace.pseudo-files)."""
    if not os.path.exists(target):
        pytest.skip(f"{target} does not exist here")
    os.symlink(target, tmp_path / "link")
    policy = PathPolicy(str(tmp_path))
    assert "pseudo" in _refused(policy, target, "input.files[0]").detail
    assert "pseudo" in _refused(policy, "link", "input.files[0]").detail


def test_fifo_with_a_writer_waiting_is_still_refused(tmp_path):
    """A FIFO is refused from its file type even when a writer holds it open, and nothing is read from it."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write():
        try:
            with open(fifo, "wb") as pipe:  # blocks until some reader opens the FIFO
                pipe.write(b"data")
        except BrokenPipeError:  # the reader below came and went first (a loaded machine): nothing was read
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with pytest.raises(FileRefused) as info:
        load_files(PathPolicy(str(tmp_path)), ["pipe"])
    assert info.value.at == "input.files[0]" and "FIFO" in info.value.detail
    # release the writer thread without waiting for it: if the refusal's own open already let it through and it
    # has finished, a blocking open here would wait for a writer forever
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer.join(60)  # the reader stays open until the writer is through, however late a loaded machine runs it
    os.close(reader)
    assert not writer.is_alive()


def test_link_loop_is_refused_with_the_reason(tmp_path):
    """A link loop cannot be read: the error names the path as given and the system's reason."""
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    assert os.strerror(errno.ELOOP) in _refused(PathPolicy(str(tmp_path)), "a").detail


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_loads_close_every_descriptor(tmp_path):
    """Every load, good or refused at any step, closes every descriptor it opened."""
    server = _kind_cases(tmp_path)
    policy = PathPolicy(str(tmp_path), blocked=("dir",))
    before = _open_fds()
    try:
        for _ in range(5):
            assert load_files(policy, ["file"])[0].data == b"x"
            for name in ("dir", "fifo", "sock", "missing", "link-to-dir", "file/x", "/proc/self/environ"):
                with pytest.raises(FileRefused):
                    load_files(policy, [name])
        assert _open_fds() == before
    finally:
        server.close()


# --- paths that change while they are resolved ----------------------------------------------------------------------


@pytest.mark.parametrize("swap", ["fifo", "dir", "sock", "gone", "link"])
def test_last_component_swapped_after_the_check_is_refused_without_blocking(tmp_path, monkeypatch, swap):
    """A file swapped, after the policy judged its path, for a FIFO, a directory, a socket, nothing, or a link is
    refused at once, naming it, and nothing blocks."""
    (tmp_path / "f").write_bytes(b"fine")
    (tmp_path / "secret").write_bytes(b"SECRET")
    sockets = []

    def judge_then_swap(self, raw, real, at):
        PathPolicy.judge(self, raw, real, at)
        os.remove(tmp_path / "f")
        if swap == "fifo":
            os.mkfifo(tmp_path / "f")
        elif swap == "dir":
            os.mkdir(tmp_path / "f")
        elif swap == "sock":
            sockets.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            sockets[-1].bind(str(tmp_path / "f"))
        elif swap == "link":
            os.symlink("secret", tmp_path / "f")

    policy = type("Swapping", (PathPolicy,), {"judge": judge_then_swap})(str(tmp_path))
    box = {}

    def load():
        try:
            box["files"] = load_files(policy, ["f"])
        except FileRefused as exc:
            box["error"] = exc

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(10)
    for server in sockets:
        server.close()
    assert not thread.is_alive(), "the open blocked"
    assert "error" in box, box
    assert box["error"].detail.startswith("f") and str(tmp_path) not in box["error"].detail
    assert (box["error"].code, box["error"].at) == ("file_error", "input.files[0]")


_RENAME_EXCHANGE = 2


def _renameat2():
    libc = ctypes.CDLL(None, use_errno=True)
    function = getattr(libc, "renameat2", None)
    if function is None:
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


@pytest.mark.skipif(sys.platform != "linux" or _renameat2() is None, reason="needs Linux renameat2")
@pytest.mark.parametrize("confine", [False, True], ids=["blocked-path", "confinement"])
def test_race_between_check_and_read_never_reads_what_the_policy_refuses(tmp_path, confine):
    """A directory swapped with a link to a blocked (or outside) directory, over and over while files are loaded,
    never lets a read reach the refused file and never raises anything but a file_error (about 1,000 tries)."""
    renameat2 = _renameat2()
    work, refused = tmp_path / "work", tmp_path / ("outside" if confine else "work/blocked")
    (work / "d").mkdir(parents=True)
    refused.mkdir(parents=True, exist_ok=True)
    (work / "d" / "f").write_bytes(b"allowed")
    (refused / "f").write_bytes(b"REFUSED")
    os.symlink(os.path.relpath(refused, work), work / "l")
    policy = PathPolicy(str(work), blocked=() if confine else ("blocked",), confine=confine)
    stop = threading.Event()
    swaps = [0]

    def swap():
        a, b = os.fsencode(work / "d"), os.fsencode(work / "l")
        while not stop.is_set():
            if renameat2(-100, a, -100, b, _RENAME_EXCHANGE) == 0:  # AT_FDCWD
                swaps[0] += 1

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    outcomes = {"allowed": 0, "refused-read": 0, "file_error": 0, "other": []}
    try:
        for _ in range(1000):
            try:
                data = load_files(policy, ["d/f"])[0].data
                outcomes["allowed" if data == b"allowed" else "refused-read"] += 1
            except FileRefused:
                outcomes["file_error"] += 1
            except Exception as exc:  # noqa: BLE001 - counted, and the assertion shows them
                outcomes["other"].append(repr(exc))
    finally:
        stop.set()
        swapper.join(5)
    assert swaps[0] > 0, "the swapper never swapped"
    assert outcomes["refused-read"] == 0 and outcomes["other"] == [], outcomes
    assert outcomes["allowed"] + outcomes["file_error"] == 1000


_LINK_TO_A_TERMINAL = textwrap.dedent("""
    import os, sys
    from advisor_reference import FileRefused, PathPolicy, load_files
    master, slave = os.openpty()
    os.symlink(os.ttyname(slave), os.path.join(sys.argv[1], "tty"))
    os.close(slave)
    try:
        load_files(PathPolicy(sys.argv[1]), ["tty"])
    except FileRefused as exc:
        print("refused", exc.code, exc.at, exc.detail.startswith("tty"))
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY | os.O_NONBLOCK))
        print("has a controlling terminal")
    except OSError:
        print("has no controlling terminal")
""")


@pytest.mark.skipif(not hasattr(os, "openpty") or not os.path.exists("/dev/tty"), reason="needs ptys and /dev/tty")
def test_link_to_a_terminal_never_becomes_the_controlling_terminal(tmp_path):
    """A link to a terminal is refused unopened, so the terminal never becomes the process's controlling terminal."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(advisor_reference.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", _LINK_TO_A_TERMINAL, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        start_new_session=True,
        env=env,
        check=True,
    )
    assert done.stdout.splitlines() == ["refused file_error input.files[0] True", "has no controlling terminal"]
