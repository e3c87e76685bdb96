"""advisor_reference._workspace, part two: capped reads of regular files, everything else refused unread, and paths
swapped between the check and the open; the path policy and load_files are in test_workspace_policy.py."""

from __future__ import annotations

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
from advisor_reference import FileRefused, PathPolicy, load_files
from advisor_reference._workspace import read_capped


def _refused(host_path, raw, at="at"):
    """The FileRefused that reading ``host_path`` (given as ``raw``) raises, checked to name ``raw`` and ``at``."""
    with pytest.raises(FileRefused) as info:
        read_capped(host_path, raw, at)
    assert (info.value.code, info.value.at) == ("file_error", at)
    assert info.value.detail.startswith(raw), info.value.detail
    return info.value


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
    error = _refused("/proc/self/mem", "mem", "input.files[2]")
    assert os.strerror(errno.EIO) in error.detail


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


# --- anything but a regular file ------------------------------------------------------------------------------------

def _kind_cases(tmp_path):
    os.mkdir(tmp_path / "dir")
    os.mkfifo(tmp_path / "fifo")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "sock"))
    os.symlink("dir", tmp_path / "link-to-dir")
    return server


@pytest.mark.parametrize(
    "name, shown",
    [
        ("dir", "directory"),
        ("fifo", "FIFO"),
        ("sock", "socket"),
        ("link-to-dir", "directory"),
        ("/dev/null", "character device"),
        ("missing", None),
        ("dir/missing", None),
        ("fifo/x", os.strerror(errno.ENOTDIR)),
    ],
    ids=["dir", "fifo", "sock", "link-to-dir", "dev-null", "missing", "missing-in-dir", "under-a-fifo"],
)
def test_anything_but_a_regular_file_is_refused_unread(tmp_path, name, shown):
    """Special files, missing files and bad paths are refused naming the path as given and the file's kind or the
    system's reason, never the host path."""
    server = _kind_cases(tmp_path)
    try:
        error = _refused(os.path.join(str(tmp_path), name), name, "input.files[1]")
    finally:
        server.close()
    assert shown is None or shown in error.detail
    assert str(tmp_path) not in str(error)


def test_fifo_with_a_writer_waiting_is_still_refused(tmp_path):
    """A FIFO is refused from its file type even when a writer holds it open, and nothing is read from it."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as pipe:  # blocks until some reader opens the FIFO
            pipe.write(b"data")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with pytest.raises(FileRefused) as info:
        load_files(PathPolicy(str(tmp_path)), ["pipe"])
    assert info.value.at == "input.files[0]" and "FIFO" in info.value.detail
    reader = os.open(fifo, os.O_RDONLY)  # release the writer thread
    writer.join(5)
    os.close(reader)
    assert not writer.is_alive()


def test_block_device_is_refused(tmp_path):
    """A block device is refused as one."""
    device = next((f"/dev/{name}" for name in sorted(os.listdir("/dev"))
                   if stat.S_ISBLK(os.stat(f"/dev/{name}").st_mode)), None)
    if device is None:
        pytest.skip("no block device here")
    assert "block device" in _refused(device, "disk").detail


def test_link_loop_is_refused_with_the_reason(tmp_path):
    """A link loop cannot be read: the error names the path as given and the system's reason."""
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    assert os.strerror(errno.ELOOP) in _refused(str(tmp_path / "a"), "a").detail


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


@pytest.mark.parametrize("name", ["fifo", "dir", "sock", "gone"])
def test_path_swapped_after_the_check_is_refused_without_blocking(tmp_path, regular_stat, name):
    """A path that passed the check but is a FIFO, directory, socket or gone at open is refused at once, naming it."""
    server = _kind_cases(tmp_path)
    path = str(tmp_path / name)
    regular_stat.add(path)
    try:
        box = _read_within(path, name)
    finally:
        server.close()
    assert "error" in box, box
    assert box["error"].detail.startswith(name) and str(tmp_path) not in box["error"].detail
    assert (box["error"].code, box["error"].at) == ("file_error", "input.files[0]")


def test_open_failure_after_the_check_names_the_reason(tmp_path, regular_stat):
    """An open that fails for another reason is refused naming the path and the system's reason."""
    os.symlink("loop", tmp_path / "loop")
    path = str(tmp_path / "loop")
    regular_stat.add(path)
    box = _read_within(path, "loop")
    assert box["error"].detail.startswith("loop") and os.strerror(errno.ELOOP) in box["error"].detail
    assert box["error"].at == "input.files[0]" and box["error"].code == "file_error"


def test_file_of_an_unknown_kind_is_a_special_file(tmp_path, monkeypatch):
    """A path whose stat shows no known file type is refused unread as a special file."""
    real_stat, path = os.stat, str(tmp_path / "odd")

    def fake_stat(target, *args, **kwargs):
        if str(target) == path:
            return os.stat_result((0o644, 0, 0, 1, 0, 0, 5, 0, 0, 0))
        return real_stat(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", fake_stat)
    assert "special file" in _refused(path, "odd", "input.files[4]").detail


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
        print("refused", exc.code, exc.at, exc.detail.startswith("tty"))
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
        assert "character device" in _refused(os.ttyname(slave), "tty").detail
    finally:
        os.close(master)
        os.close(slave)
    root = os.path.dirname(os.path.dirname(os.path.abspath(advisor_reference.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", _SWAP_IN_A_TERMINAL], capture_output=True, text=True, timeout=30,
                          start_new_session=True, env=env, check=True)
    assert done.stdout.splitlines() == ["refused file_error at True", "has no controlling terminal"]
