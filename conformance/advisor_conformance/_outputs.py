"""The files the suite writes (the rule report, the HTML report): checked before a run, written whole or not at all.

An output named on the command line is checked before any work (:func:`unwritable`: its folder exists, is a folder
and can be written to, and the path is not a folder), so a path that cannot be written is a usage error at once,
not a traceback after the whole run. The file is then written to a temporary file in the same folder and renamed
over the path (:func:`write_atomic`): a reader sees the old file or the new one, never a part, and a write that
fails leaves no temporary file behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def unwritable(path: str | Path) -> str | None:
    """Why the file ``path`` cannot be written (a bounded reason), or None when it can."""
    target = Path(path)
    folder = target.parent
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror or exc})"
    if info is not None and stat.S_ISDIR(info.st_mode):
        return "is a folder"
    if info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISLNK(info.st_mode):
        return "is not a regular file (a FIFO, a device or a socket)"
    if not folder.exists():
        return f"its folder {str(folder)[:300]} does not exist"
    if not folder.is_dir():
        return f"{str(folder)[:300]} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {str(folder)[:300]} cannot be written to"
    return None


def _mode() -> int:
    """The mode a new file gets from ``open``: 0o666 less the process's umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: to a new temporary file in the same folder, then renamed over
    ``path`` (a symbolic link at ``path`` is replaced, not followed). Raises ``OSError`` when it cannot; the
    temporary file is gone then."""
    target = Path(path)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:100]}.", suffix=".tmp")
    try:
        with open(fd, "wb", closefd=True) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _mode())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
