"""The snapshots of rendered requests (``flatten/test_snapshots.py``): where they live, and how they are written.

**Where.** An implementation's snapshots live in ``--impl-snapshots DIR`` (or ``conformance_snapshots``), else in
``snapshots/<describe's name>/`` where pytest runs. The snapshots the suite ships (the reference's recorded requests)
are read only for the bundled reference itself: the ``reference`` target in process, or the suite's own harness
serving it (``cmd:advisor-conformance harness``); never because an implementation *names* itself ``reference``.
Before any test runs (:func:`refusal`), the suite refuses a run whose snapshot directory is its own data when the
implementation is not the bundled reference (run in this repository, ``snapshots/reference/`` where pytest runs is
the shipped folder), and any ``--snapshot-update`` that would write into the suite's installed data (a wheel's
``_data/``) or, for another implementation, into the shipped snapshots: the suite never writes into its own data.

**How.** The snapshot file is written whole or not at all, for any text an implementation returns: syrupy's Amber
format writes a multi-line string's lines as they are, so a lone surrogate (JavaScript can cut an emoji between its
UTF-16 halves) stopped the write half-way with a ``UnicodeEncodeError``, and the file was left cut short; a
carriage return came back as a line feed, so the snapshot never compared equal again. Here a string holding either is
recorded as its Python ``repr`` on one line (``'cut \\ud83d here'``: every such character escaped, and the same text
every run, so a later run compares equal), and the file is written into a private temporary folder beside it and
renamed over it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from syrupy.data import SnapshotCollection
from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.extensions.amber.serializer import AmberDataSerializer
from syrupy.utils import exclusive_file_lock, snapshot_file_lock_enabled

from .._contract.implementation import BUILTIN_TARGETS, Implementation
from .._contract.transport import InProcessTransport
from .._paths import PACKAGE_DIR, reference_snapshots_dir

#: The file of the snapshot test's recordings in a snapshot directory.
SNAPSHOT_FILE = "test_snapshots.ambr"
_TEST = "test_rendered_request_matches_snapshot"
#: Characters a multi-line Amber string cannot carry as they are: lone surrogates (not UTF-8) and carriage returns
#: (read back as line feeds).
_UNWRITABLE = re.compile("[\ud800-\udfff\r]")


class RoundTripAmber(AmberDataSerializer):
    """Syrupy's Amber serializer, with every string recorded so that it reads back as written, and files written whole
    or not at all."""

    @classmethod
    def serialize_string(cls, data: str, *, depth: int = 0, **kwargs: Any) -> str:
        if _UNWRITABLE.search(data):
            return cls.with_indent(repr(data), depth)  # one line, every unwritable character escaped
        return super().serialize_string(data, depth=depth, **kwargs)

    @classmethod
    def write_file(
        cls,
        snapshot_collection: SnapshotCollection,
        merge: bool = False,
        name_order: dict[str, int] | None = None,
        *,
        file_lock: bool | None = None,
        _already_locked: bool = False,
    ) -> None:
        """Write the collection (merged into the file's, with ``merge``) to a file in a private temporary folder
        beside the snapshot file, then rename it over the snapshot file: a write that fails leaves the file as it
        was. Locked as syrupy locks it (under pytest-xdist)."""
        target = Path(snapshot_collection.location)
        locking = (snapshot_file_lock_enabled() if file_lock is None else file_lock) and not _already_locked
        with exclusive_file_lock(target) if locking else contextlib.nullcontext():
            collection = snapshot_collection
            if merge:
                collection = cls.read_file(str(target))
                collection.merge(snapshot_collection)
            staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
            try:
                staged = SnapshotCollection(location=str(staging / target.name))
                for snapshot in collection:
                    staged.add(snapshot)
                super().write_file(staged, merge=False, name_order=name_order, file_lock=False)
                os.replace(staging / target.name, target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)


@functools.cache
def extension(directory: str) -> type[AmberSnapshotExtension]:
    """The syrupy extension that stores the snapshot test's recordings in ``directory``, one per transcript."""

    class ImplementationSnapshots(AmberSnapshotExtension):
        serializer_class = RoundTripAmber

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return directory

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            # Named by the transcript alone: a session that parametrizes the test further (a run of several
            # implementations at once) still finds each transcript's one snapshot.
            return f"{test_location.methodname}[{index}]"

    return ImplementationSnapshots


def recorded(directory: Path, name: str) -> bool:
    """Whether ``directory`` holds a snapshot of the transcript ``name``."""
    stored = directory / SNAPSHOT_FILE
    try:
        text = stored.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return f"# name: {_TEST}[{name}]\n" in text


# -- where ------------------------------------------------------------------------------------------------------------


def configured(config: pytest.Config) -> str:
    """The snapshot directory the run names (``--impl-snapshots``, else ``conformance_snapshots``, resolved from the
    folder of the file that names it and checked before the run), or ''."""
    from .plugin import snapshots_setting  # the plugin reads and checks the setting; imported when asked

    named = snapshots_setting(config)
    return str(named) if named is not None else ""


def is_bundled_reference(implementation: Implementation) -> bool:
    """Whether ``implementation`` is the reference that ships with the suite, by what was loaded, never by the name it
    gives itself: the reference's own adapter object in process, or the suite's harness serving the reference."""
    transport = implementation.transport
    if isinstance(transport, InProcessTransport):
        module = sys.modules.get(BUILTIN_TARGETS["reference"].partition(":")[0])
        return module is not None and transport.adapter is getattr(module, "adapter", None)
    if not implementation.target.startswith("cmd:") or implementation.description.get("name") != "reference":
        return False
    try:
        argv = shlex.split(implementation.target[4:])
    except ValueError:
        return False
    if len(argv) >= 3 and Path(argv[0]).name.startswith("python") and argv[1:3] == ["-m", "advisor_conformance"]:
        argv = ["advisor-conformance", *argv[3:]]
    return (
        len(argv) >= 2
        and Path(argv[0]).name == "advisor-conformance"
        and argv[1] == "harness"
        and argv[2:] in ([], ["--impl", "reference"], ["--impl=reference"])
    )


def snapshot_dir(config: pytest.Config, implementation: Implementation) -> Path:
    """Where this implementation's snapshots live (the module says how it is chosen)."""
    from .plugin import project_dir

    named = configured(config)
    if named:
        return Path(named).resolve()
    if is_bundled_reference(implementation):
        return reference_snapshots_dir()
    return project_dir(config) / "snapshots" / implementation.name


def _within(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def refusal(config: pytest.Config, implementation: Implementation) -> str | None:
    """Why this run may not use its snapshot directory (a usage error before any test runs), or None."""
    directory = snapshot_dir(config, implementation).resolve()
    shipped = reference_snapshots_dir().resolve()
    installed = (PACKAGE_DIR / "_data").resolve()
    bundled = is_bundled_reference(implementation)
    updating = bool(config.getoption("update_snapshots", False))
    name = implementation.name
    if not bundled and not configured(config) and _within(directory, shipped):
        return (
            f"{name} would be held to the suite's own snapshots of the reference ({directory}): snapshots/{name}/ "
            "here is the suite's data. Name a snapshot directory of your own with --impl-snapshots DIR"
        )
    if updating and _within(directory, installed):
        return (
            f"--snapshot-update would write into the suite's installed data ({directory}); record into a directory "
            "of your own with --impl-snapshots DIR"
        )
    if updating and not bundled and _within(directory, shipped):
        return (
            f"--snapshot-update would write {name}'s snapshots over the suite's own snapshots of the reference "
            f"({directory}); record into a directory of your own with --impl-snapshots DIR"
        )
    return None
