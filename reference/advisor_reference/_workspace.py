"""Loading caller files from the workspace, under a path policy.

The rules, in order, for each path the caller gives:

1. The path is taken relative to the working directory (an absolute path is
   taken as it is) and normalised lexically; its **display path** is that
   path relative to the working directory, so an absolute host path never
   reaches the prompt (a file outside it shows as ``../...``).
2. **Symbolic links** are judged by what they point to: the policy checks the
   fully resolved path, so a link into a blocked path is blocked, and with
   confinement on a link that leads out of the working directory is refused.
3. **Blocked paths**: a resolved path equal to, or inside, a blocked path
   (itself resolved) is refused.
4. **Confinement** (an option, off by default as in the origin): a resolved
   path outside the resolved working directory is refused.
5. **Only regular files** are read. The file is opened with ``O_NONBLOCK`` and
   checked with ``fstat`` on the open descriptor, so a FIFO never blocks the
   open, and a FIFO, socket, device (``/dev/zero``) or directory is refused
   before any byte is read.
6. **Capped read**: at most 32768 bytes are read; the true size comes from
   ``fstat``. A 4 GiB file costs one 32 KiB read.
7. Bytes that are not valid UTF-8 are kept as bytes and rendered with one
   U+FFFD per invalid byte (the origin's rule), after the caps.

Every refusal is a :class:`FileRefused` naming the path as the caller gave it
(never the host path) and consumes no advisor use.
"""

from __future__ import annotations

import errno
import os
import stat
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


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class PathPolicy:
    """Where caller files may be read from."""

    work_dir: str
    blocked: tuple[str, ...] = ()
    confine: bool = False
    _resolved_blocked: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _resolved_work_dir: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not os.path.isabs(self.work_dir):
            raise ValueError("the working directory must be an absolute path")
        object.__setattr__(self, "_resolved_work_dir", os.path.realpath(self.work_dir))
        resolved = tuple(os.path.realpath(os.path.join(self.work_dir, blocked)) for blocked in self.blocked)
        object.__setattr__(self, "_resolved_blocked", resolved)

    def display_path(self, raw: str) -> str:
        """The path as the prompt shows it: normalised and relative to the working directory.

        rule: workspace.display-path
        """
        return os.path.relpath(os.path.normpath(os.path.join(self.work_dir, raw)), self.work_dir)

    def resolve(self, raw: str, at: str) -> str:
        """The host path to read for ``raw``, or :class:`FileRefused`; never opens the file."""
        if not raw or "\x00" in raw:
            raise FileRefused(f"{raw!r} is not a file path", at=at)
        real = os.path.realpath(os.path.join(self.work_dir, raw))  # links followed (rule: workspace.symlinks)
        if self.is_blocked(raw, real):  # rule: workspace.path-policy
            raise FileRefused(f"{raw}: blocked by the path policy", at=at)
        if self.confine and self.is_outside(raw, real):  # rule: workspace.confinement
            raise FileRefused(f"{raw}: outside the working directory", at=at)
        return real

    def is_blocked(self, raw: str, real: str) -> bool:
        """Whether the path is a blocked path or lies under one, judged by its real target (links followed).

        rules: workspace.path-policy, workspace.symlinks
        """
        return any(_inside(real, blocked) for blocked in self._resolved_blocked)

    def is_outside(self, raw: str, real: str) -> bool:
        """Whether the path's real target lies outside the working directory."""
        return not _inside(real, self._resolved_work_dir)

    def read(self, host_path: str, raw: str, at: str) -> tuple[bytes, int]:
        """The content, capped, and the true size of a resolved path (:func:`read_capped`)."""
        return read_capped(host_path, raw, at)


def read_capped(host_path: str, raw: str, at: str, cap: int = MAX_FILE_BYTES) -> tuple[bytes, int]:
    """At most ``cap`` bytes of a regular file and its true size; anything else is refused unread.

    A special file is refused from ``stat`` without being opened; the open
    itself is non-blocking and re-checked with ``fstat``, in case the path was
    swapped for a special file in between.
    """
    try:
        info = os.stat(host_path)
    except FileNotFoundError:  # named as the caller gave it (rule: workspace.missing-file)
        raise FileRefused(f"{raw}: no such file", at=at) from None
    except OSError as exc:
        raise FileRefused(f"{raw}: cannot be read ({os.strerror(exc.errno or 0)})", at=at) from None
    if not stat.S_ISREG(info.st_mode):  # refused before it is opened (rule: workspace.special-files)
        raise FileRefused(f"{raw}: {_KIND.get(stat.S_IFMT(info.st_mode), 'a special file')}, not a regular file", at=at)
    # Non-blocking, so a FIFO swapped in after the stat never blocks (rule: workspace.special-files).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(host_path, flags)
    except FileNotFoundError:  # rule: workspace.missing-file
        raise FileRefused(f"{raw}: no such file", at=at) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO or socket with no peer
            raise FileRefused(f"{raw}: not a regular file", at=at) from None
        raise FileRefused(f"{raw}: cannot be opened ({os.strerror(exc.errno or 0)})", at=at) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # rule: workspace.special-files
            raise FileRefused(f"{raw}: no longer a regular file", at=at)
        chunks, remaining = [], cap  # at most 32768 bytes are read (rule: workspace.capped-reader)
        while remaining > 0:
            chunk = os.read(fd, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        return data, max(info.st_size, len(data))  # the true size from fstat (rule: workspace.capped-reader)
    except OSError as exc:
        raise FileRefused(f"{raw}: cannot be read ({os.strerror(exc.errno or 0)})", at=at) from None
    finally:
        os.close(fd)


def load_files(policy: PathPolicy, paths: Sequence[str]) -> list[LoadedFile]:
    """Resolve and read each caller path, in order; the first refusal stops the call."""
    files = []
    for index, raw in enumerate(paths):
        at = f"input.files[{index}]"
        host_path = policy.resolve(raw, at)
        data, size = policy.read(host_path, raw, at)
        files.append(LoadedFile(path=policy.display_path(raw), data=data, size=size))  # rule: workspace.display-path
    return files
