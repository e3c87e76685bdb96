"""Loading caller files from the workspace, under a path policy.

The rules, in order, for each path the caller gives:

1. **A path, not data**: an empty path, or one holding a NUL byte or a lone
   surrogate, is not a path at all: ``invalid_input``. A path longer than
   :data:`MAX_PATH_BYTES` (4096, Linux's ``PATH_MAX``) is one no filesystem
   call would take (``ENAMETOOLONG``, the origin's read error): ``file_error``,
   naming the path by its head and its length.
2. The path is taken relative to the working directory (an absolute path is
   taken as it is) and normalised lexically; its **display path** is that
   path relative to the working directory, so an absolute host path never
   reaches the prompt (a file outside it shows as ``../...``).
3. **Resolution without a race**: the path is walked one component at a time
   (in time linear in its components, the links' included),
   each directory opened relative to the one before with ``O_NOFOLLOW``, and
   each symbolic link met on the way read and followed by the walk itself
   (at most 40). The path the policy judges is therefore the path of the very
   descriptors the walk holds: swapping a directory for a link between the
   check and the read cannot lead the read anywhere the check did not see. A
   component that changes kind while it is walked (a directory that becomes a
   link) is a ``file_error``.
4. **Symbolic links** are judged by what they point to: the policy checks the
   fully resolved path, so a link into a blocked path is blocked, and with
   confinement on a link that leads out of the working directory is refused.
5. **Blocked paths**: a resolved path equal to, or inside, a blocked path
   (itself resolved) is refused. A blocked path written ``~`` or starting
   ``~/`` stands for the home directory, as in the origin's policy paths
   (:meth:`PathPolicy.expand_home`). So is a path inside a pseudo-filesystem
   (``/proc``, ``/sys``, ``/dev``): ``/proc/self/environ`` is a regular file
   that holds the process's environment, API keys included.
6. **Confinement** (an option, off by default as in the origin): a resolved
   path outside the resolved working directory is refused.
7. **Only regular files** are read. The last component is opened with
   ``O_NONBLOCK | O_NOFOLLOW`` and checked with ``fstat`` on the open
   descriptor, so a FIFO never blocks the open, and a FIFO, socket, device or
   directory is refused before any byte is read.
8. **Capped read**: at most 32768 bytes are read; the true size comes from
   ``fstat``. A 4 GiB file costs one 32 KiB read.
9. Bytes that are not valid UTF-8 are kept as bytes and rendered with one
   U+FFFD per invalid byte (the origin's rule), after the caps.

Every refusal is a :class:`FileRefused` naming the path as the caller gave it
(never the host path) and consumes no advisor use.

A limit of every path-based policy: a hard link is another name for the same
file, so a hard link to a blocked file, made outside the blocked path, is read.
Block the directories a secret lives in, or keep secrets off the agent's
filesystem.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._errors import AdvisorInputError
from ._files import MAX_FILE_BYTES, LoadedFile


class FileRefused(AdvisorInputError):
    """A caller file that the policy refuses or that cannot be read."""

    def __init__(self, message: str, *, at: str) -> None:
        super().__init__(message, at=at, code="file_error")


_KIND = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFLNK: "a symbolic link",
}
#: Pseudo-filesystems: their regular files are views of the kernel and of processes, never caller files.
PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
MAX_LINKS = 40  # as the kernel's own limit on links followed in one path (ELOOP past it)
#: The longest caller path, in bytes of UTF-8: Linux's PATH_MAX, the longest path one system call takes.
MAX_PATH_BYTES = 4096
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_path_text(value: str, at: str, what: str = "a file path") -> None:
    """A path must be text a filesystem can hold: not empty, no NUL byte, no lone surrogate (invalid_input)."""
    if not value or "\x00" in value:
        raise AdvisorInputError(f"{value!r} is not {what}", at=at)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise AdvisorInputError(f"{value!r} is not {what}: it holds a lone surrogate", at=at) from None


class _Walk:
    """The descriptor of the directory the walk stands in, and the real path of that directory."""

    def __init__(self) -> None:
        self.fd = os.open("/", _DIRECTORY)
        self.parts: list[str] = []

    @property
    def path(self) -> str:
        return "/" + "/".join(self.parts)

    def enter(self, fd: int, name: str | None) -> None:
        os.close(self.fd)
        self.fd = fd
        if name is None:
            if self.parts:
                self.parts.pop()
        else:
            self.parts.append(name)

    def restart(self) -> None:
        self.enter(os.open("/", _DIRECTORY), None)
        self.parts = []

    def close(self) -> None:
        os.close(self.fd)


def user_home() -> str | None:
    """The user's home directory: ``HOME``, else (``HOME`` unset) the user's entry in the password database, as a
    shell finds it; None when that is no absolute path (``HOME`` set empty, as Go's os.UserHomeDir refuses it)."""
    home = os.environ.get("HOME")
    if home is None:
        home = os.path.expanduser("~")
    return home if os.path.isabs(home) else None


def check_blocked_path(entry: str, at: str) -> None:
    """A blocked path must be text a filesystem can hold, and not a ``~user`` form (invalid_input).

    Only ``~`` alone and ``~/`` at the head are the home directory (:meth:`PathPolicy.expand_home`). A ``~user``
    form (``~alice/.ssh``, ``~root``) is refused, not taken literally: the origin takes it literally (its
    expansion, like Go's and Node's path libraries, knows only ``~`` and ``~/``), as a folder under the working
    directory, so the entry would silently block nothing the user meant, which is how ``~/.ssh`` leaked a private
    key before ``~`` was expanded. Expanding it instead would need the password database, which the origin never
    reads and the protocol cannot give a test (``runtime.home_dir`` names one home). A name of the working
    directory that starts with ``~`` is written ``./~name``. A ``~`` anywhere after the first character
    (``notes~``, an editor's backup; ``docs/~``) is part of a name, left as it is, as shells and the origin do.
    """
    if entry:  # an empty entry is the working directory itself (joined to it), as in the origin
        check_path_text(entry, at, "a blocked path")
    if entry.startswith("~") and entry != "~" and not entry.startswith("~/"):
        raise AdvisorInputError(
            f"{entry[:100]!r}: a ~user form is not expanded (only ~ and ~/ stand for the home directory); write "
            "the absolute path, or ./~... for a name in the working directory",
            at=at,
        )


@dataclass(frozen=True)
class PathPolicy:
    """Where caller files may be read from; every step is a method a variant can replace.

    ``home`` is the directory a blocked path's ``~`` stands for (None: the user's home, :func:`user_home`). The
    entries come checked (:func:`check_blocked_path`, where the scenario reads them): here a ``~user`` form is a name.
    """

    work_dir: str
    blocked: tuple[str, ...] = ()
    confine: bool = False
    home: str | None = None
    _resolved_blocked: tuple[str, ...] = field(init=False, repr=False, compare=False)
    resolved_work_dir: str = field(init=False, repr=False, compare=False)  # work_dir, its links resolved

    def __post_init__(self) -> None:
        if not os.path.isabs(self.work_dir):
            raise ValueError("the working directory must be an absolute path")
        if self.home is not None and not os.path.isabs(self.home):
            raise ValueError("the home directory must be an absolute path")
        object.__setattr__(self, "resolved_work_dir", os.path.realpath(self.work_dir))
        resolved = tuple(
            os.path.realpath(os.path.join(self.work_dir, self.expand_home(blocked))) for blocked in self.blocked
        )
        object.__setattr__(self, "_resolved_blocked", resolved)

    def expand_home(self, blocked: str) -> str:
        """A blocked path written ``~`` or starting ``~/``, with the home directory in place of its ``~``; any other
        path as it is (:func:`check_blocked_path` says why a ``~user`` form is refused before it gets here).

        The origin expands ``~`` and ``~/`` in its policy paths; taken literally, ``~/.ssh`` would be a folder under
        the working directory and would block nothing (rule: workspace.path-policy).
        """
        if blocked != "~" and not blocked.startswith("~/"):
            return blocked
        home = self.home if self.home is not None else user_home()
        if home is None:
            raise AdvisorInputError(
                "a blocked path starts with ~, and no home directory is known (HOME is not set)", at="runtime.home_dir"
            )
        return os.path.join(home, blocked[2:])  # ~ and ~/ are the home itself

    def display_path(self, raw: str) -> str:
        """The path as the prompt shows it: normalised and relative to the working directory.

        rule: workspace.display-path
        """
        return os.path.relpath(os.path.normpath(os.path.join(self.work_dir, raw)), self.work_dir)

    # -- judging a resolved path --------------------------------------------------------------------

    def judge(self, raw: str, real: str, at: str) -> None:
        """Refuse a resolved path the policy does not allow: blocked, a pseudo-file, outside when confined."""
        if self.is_blocked(raw, real):  # rule: workspace.path-policy
            raise FileRefused(f"{raw}: blocked by the path policy", at=at)
        if self.is_pseudo(real):  # rule: workspace.pseudo-files
            raise FileRefused(f"{raw}: a file of a pseudo-filesystem, not a caller file", at=at)
        if self.confine and self.is_outside(raw, real):  # rule: workspace.confinement
            raise FileRefused(f"{raw}: outside the working directory", at=at)

    def is_blocked(self, raw: str, real: str) -> bool:
        """Whether the path is a blocked path or lies under one, judged by its real target (links followed).

        rules: workspace.path-policy, workspace.symlinks
        """
        return any(_inside(real, blocked) for blocked in self._resolved_blocked)

    def is_pseudo(self, real: str) -> bool:
        """Whether the resolved path lies in a pseudo-filesystem (/proc, /sys, /dev)."""
        return any(_inside(real, root) for root in PSEUDO_FILESYSTEMS)

    def is_outside(self, raw: str, real: str) -> bool:
        """Whether the path's real target lies outside the working directory."""
        return not _inside(real, self.resolved_work_dir)

    def refuse_kind(self, mode: int, raw: str, at: str) -> None:
        """Anything but a regular file is refused before a byte is read (rule: workspace.special-files)."""
        if not stat.S_ISREG(mode):
            raise FileRefused(f"{raw}: {_KIND.get(stat.S_IFMT(mode), 'a special file')}, not a regular file", at=at)

    # -- opening and reading --------------------------------------------------------------------------

    def resolve(self, raw: str, at: str) -> str:
        """The real path ``raw`` names (links followed), once the policy has judged it; nothing is opened."""
        walk, name, real = self._resolve(raw, at)
        walk.close()
        return real

    def open(self, raw: str, at: str) -> int:
        """A descriptor of the regular file ``raw`` names, judged by the policy on the path the walk resolved.

        rules: workspace.symlinks, workspace.special-files, workspace.missing-file
        """
        walk, name, _ = self._resolve(raw, at)
        try:
            if not name:  # the path names a directory (the root, or one ending in ..)
                self.refuse_kind(stat.S_IFDIR, raw, at)
            try:
                # Non-blocking, so a FIFO never blocks the open; no link followed: the walk judged this name.
                fd = os.open(name, _FILE, dir_fd=walk.fd)
            except OSError as exc:
                raise self._refusal(exc, raw, at) from None
        finally:
            walk.close()
        try:
            self.refuse_kind(os.fstat(fd).st_mode, raw, at)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _resolve(self, raw: str, at: str) -> tuple[_Walk, str, str]:
        """The walk standing in the last component's directory, that component's name, and the judged real path."""
        check_path_text(raw, at)
        size = len(raw.encode("utf-8"))
        if size > MAX_PATH_BYTES:  # named by its head: the whole path would make the message as long
            raise FileRefused(
                f"{raw[:100]}…: a path of {size} bytes, longer than the {MAX_PATH_BYTES} a filesystem "
                f"takes ({os.strerror(errno.ENAMETOOLONG)})",
                at=at,
            )
        walk = _Walk()
        try:
            name = self._walk(walk, os.path.join(self.work_dir, raw), raw, at)
            real = os.path.join(walk.path, name) if name else walk.path
            self.judge(raw, real, at)
        except BaseException:
            walk.close()
            raise
        return walk, name, real

    def _walk(self, walk: _Walk, path: str, raw: str, at: str) -> str:
        """Walk every component of ``path`` but the last, following links; the last one's name."""
        pending = deque(part for part in path.split("/") if part not in ("", "."))  # popped from the left: linear
        links = 0
        while pending:
            part = pending.popleft()
            if part == "..":
                self._step(walk, "..", None, raw, at)
                continue
            try:
                target = os.readlink(part, dir_fd=walk.fd)
            except OSError as exc:
                if exc.errno == errno.EINVAL:  # not a link
                    if not pending:
                        return part
                    self._step(walk, part, part, raw, at)
                    continue
                if exc.errno == errno.ENOENT and not pending:
                    return part  # the open says it is missing, naming the path as given
                raise self._refusal(exc, raw, at) from None
            links += 1
            if links > MAX_LINKS:
                raise FileRefused(f"{raw}: {os.strerror(errno.ELOOP)}", at=at)
            if target.startswith("/"):
                walk.restart()
            # rule: workspace.symlinks
            pending.extendleft(reversed([p for p in target.split("/") if p not in ("", ".")]))
        return ""

    def _step(self, walk: _Walk, part: str, name: str | None, raw: str, at: str) -> None:
        try:
            walk.enter(os.open(part, _DIRECTORY, dir_fd=walk.fd), name)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # it was a directory a moment ago, and is a link now
                raise FileRefused(f"{raw}: changed while it was being resolved", at=at) from None
            raise self._refusal(exc, raw, at) from None

    @staticmethod
    def _refusal(exc: OSError, raw: str, at: str) -> FileRefused:
        """The file_error of a failed open or walk, naming the path as the caller gave it, never the host path.

        rule: workspace.error-paths
        """
        if exc.errno == errno.ENOENT:  # named as the caller gave it (rule: workspace.missing-file)
            return FileRefused(f"{raw}: no such file", at=at)
        if exc.errno == errno.ELOOP:  # the last component became a link after the walk judged it
            return FileRefused(f"{raw}: changed while it was being resolved", at=at)
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a FIFO or socket with no peer
            return FileRefused(f"{raw}: not a regular file", at=at)
        if exc.errno == errno.ENOTDIR:
            return FileRefused(f"{raw}: a part of the path is not a directory", at=at)
        return FileRefused(f"{raw}: cannot be opened ({os.strerror(exc.errno or 0)})", at=at)

    def read(self, fd: int, raw: str, at: str) -> tuple[bytes, int]:
        """At most 32768 bytes of an open regular file, and its true size from ``fstat``.

        rule: workspace.capped-reader
        """
        try:
            return read_capped(fd)
        except OSError as exc:
            raise FileRefused(f"{raw}: cannot be read ({os.strerror(exc.errno or 0)})", at=at) from None


def read_capped(fd: int, cap: int = MAX_FILE_BYTES) -> tuple[bytes, int]:
    """At most ``cap`` bytes read from ``fd``, and the file's true size (``fstat``, or the bytes read if more)."""
    size = os.fstat(fd).st_size
    chunks, remaining = [], cap
    while remaining > 0:
        chunk = os.read(fd, remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    return data, max(size, len(data))


def load_files(policy: PathPolicy, paths: Sequence[str]) -> list[LoadedFile]:
    """Open and read each caller path under the policy, in order; the first refusal stops the call."""
    files = []
    for index, raw in enumerate(paths):
        at = f"input.files[{index}]"
        fd = policy.open(raw, at)
        try:
            data, size = policy.read(fd, raw, at)
        finally:
            os.close(fd)
        files.append(LoadedFile(path=policy.display_path(raw), data=data, size=size))  # rule: workspace.display-path
    return files
