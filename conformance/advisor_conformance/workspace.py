"""Workspaces for runtime scenarios: a JSON description the suite turns into real files.

An implementation reads caller files from disk the way it does in
production, so the suite prepares a working directory in a temporary
directory and passes its absolute path as ``work_dir``. A workspace is a map
from relative path to one of::

    {"text": "..."}            a regular file with this UTF-8 text
    {"base64": "..."}          a regular file with these bytes
    {"sparse": 4294967296}     a sparse file of this size (no disk blocks)
    {"symlink": "target"}      a symbolic link (target relative to the link, or absolute)
    {"fifo": true}             a named pipe
    {"socket": true}           a bound UNIX socket
    {"dir": true}              a directory
"""

from __future__ import annotations

import base64
import collections
import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


def materialise(root: Path, spec: Mapping[str, Mapping[str, Any]]) -> list[socket.socket]:
    """Create the entries of ``spec`` under ``root``; returns the sockets to keep open while it is used."""
    sockets = []
    for relative, entry in spec.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        ((kind, value),) = entry.items()
        if kind == "text":
            path.write_bytes(value.encode("utf-8"))
        elif kind == "base64":
            path.write_bytes(base64.b64decode(value))
        elif kind == "sparse":
            with open(path, "wb") as handle:
                handle.truncate(value)
        elif kind == "symlink":
            os.symlink(value, path)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(str(path))
            sockets.append(server)
        elif kind == "dir":
            path.mkdir(exist_ok=True)
        else:
            raise ValueError(f"unknown workspace entry kind {kind!r} for {relative}")
    return sockets


@contextlib.contextmanager
def workspace(spec: Mapping[str, Any] | None = None) -> Iterator[Path]:  # each value: a mapping (materialise)
    """A temporary directory holding ``work/`` (the working directory) and ``outside/`` next to it.

    Yields the working directory; ``path.parent / "outside"`` is a sibling for
    files that are not in the workspace. Keys of ``spec`` starting with
    ``../outside/`` land there.
    """
    with tempfile.TemporaryDirectory(prefix="advisor-ws-") as tmp:
        root = Path(tmp).resolve()
        work = root / "work"
        work.mkdir()
        (root / "outside").mkdir()
        sockets = materialise(work, spec or {})
        _RECENT.append((str(work), dict(spec or {})))
        try:
            yield work
        finally:
            for server in sockets:
                server.close()


#: The last working directories :func:`workspace` made, with their specs: a failing test's scenario can be replayed
#: in one made again (:func:`again`) after the test has removed it.
_RECENT: collections.deque[tuple[str, dict[str, Any]]] = collections.deque(maxlen=8)


@contextlib.contextmanager
def again(work_dir: str) -> Iterator[bool]:
    """The working directory ``work_dir`` that :func:`workspace` made and removed since, made again at the same place
    from the same spec for as long as the block runs (True); False when it still exists, or was not made here, or
    its place is taken."""
    spec = next((spec for made, spec in reversed(_RECENT) if made == work_dir), None)
    work = Path(work_dir)
    root = work.parent
    if spec is None or root.exists():
        yield False
        return
    try:
        root.mkdir(mode=0o700)
    except OSError:
        yield False
        return
    sockets: list[socket.socket] = []
    try:
        work.mkdir()
        (root / "outside").mkdir()
        sockets = materialise(work, spec)
        yield True
    finally:
        for server in sockets:
            server.close()
        shutil.rmtree(root, ignore_errors=True)
