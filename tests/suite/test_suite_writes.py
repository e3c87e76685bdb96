"""The suite's own writes: snapshot files and reports written whole or not at all, for any text; outputs checked
before a run; the suite's shipped snapshots chosen only for the bundled reference, never by a name."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from syrupy.data import Snapshot, SnapshotCollection

from advisor_conformance._contract.implementation import Implementation, load_target
from advisor_conformance._outputs import unwritable, write_atomic
from advisor_conformance._paths import reference_snapshots_dir
from advisor_conformance._pytest_plugin import snapshots
from advisor_conformance._pytest_plugin.reporting import RuleTally
from advisor_conformance.catalogue import load_catalogue

ANSWERS = [
    {"messages": [{"role": "user", "content": "an emoji cut in half \ud83d\nand its other half \ude00 alone"}]},
    {"messages": [{"role": "user", "content": "a carriage return\r\nand a lone one\rhere"}]},
    {"messages": [{"role": "user", "content": "plain\nlines\x0band a vertical tab \u2028 and U+2028"}]},
    {"messages": [{"role": "user", "content": "one line with \udfff"}], "\ud800key": "\ud800"},
]


def _write(directory: Path, answers: dict[str, object]) -> Path:
    """Record ``answers`` by name as the snapshot test does (the extension's serializer, merged into the file)."""
    extension = snapshots.extension(str(directory))
    location = directory / snapshots.SNAPSHOT_FILE
    collection = SnapshotCollection(location=str(location))
    for name, answer in answers.items():
        collection.add(
            Snapshot(name=f"test_rendered_request_matches_snapshot[{name}]", data=extension().serialize(answer))
        )
    extension.write_snapshot_collection(snapshot_collection=collection)
    return location


@pytest.mark.parametrize("answer", ANSWERS, ids=["lone-surrogates", "carriage-returns", "line-separators", "keys"])
def test_any_text_is_recorded_so_that_a_later_run_compares_equal(tmp_path, answer):
    """An answer holding lone surrogates, carriage returns or other line separators is written as valid UTF-8, and
    the recording read back equals the answer serialized again (a later run compares equal)."""
    location = _write(tmp_path, {"x": answer})
    location.read_bytes().decode("utf-8")  # valid UTF-8, whatever the answer held
    stored = snapshots.extension(str(tmp_path)).serializer_class.read_file(str(location))
    recorded = stored.get("test_rendered_request_matches_snapshot[x]")
    assert recorded is not None and recorded.data == snapshots.extension(str(tmp_path))().serialize(answer)
    assert snapshots.recorded(tmp_path, "x") and not snapshots.recorded(tmp_path, "y")


def test_a_carriage_return_is_recorded_apart_from_a_line_feed(tmp_path):
    """A request whose line ends change from LF to CRLF (or a lone CR) records differently: the change is seen."""
    serialize = snapshots.extension(str(tmp_path))().serialize
    texts = ["a\nb\n", "a\r\nb\r\n", "a\rb\r"]
    assert len({serialize({"content": text}) for text in texts}) == 3


def test_a_write_that_fails_half_way_leaves_the_snapshot_file_whole(tmp_path):
    """A write that stops half-way (here a recording syrupy cannot encode) leaves the file as it was, all its entries
    there, and no temporary file behind."""
    location = _write(tmp_path, {f"t{i}": {"messages": [{"role": "user", "content": f"{i}\nx"}]} for i in range(7)})
    before = location.read_bytes()
    broken = SnapshotCollection(location=str(location))
    broken.add(Snapshot(name="test_rendered_request_matches_snapshot[t3]", data="written as is\n\ud83d\n"))
    with pytest.raises(UnicodeEncodeError):
        snapshots.extension(str(tmp_path)).write_snapshot_collection(snapshot_collection=broken)
    assert location.read_bytes() == before and before.count(b"# name:") == 7
    left = [path.name for path in tmp_path.iterdir() if not path.name.endswith(".lock")]  # syrupy's lock, under xdist
    assert left == [snapshots.SNAPSHOT_FILE]


def _config(tmp_path: Path, configured: str = "", update: bool = False) -> SimpleNamespace:
    """What the snapshot choice reads of a pytest config: the options, the checked snapshot setting (resolved from
    where the run starts), no configuration file, and where pytest runs."""
    from _advisor_conformance_pytestplugin import _PROJECT
    from advisor_conformance._pytest_plugin.plugin import _SNAPSHOTS

    options = {"conformance_snapshots": configured or None, "update_snapshots": update}
    stash = {_SNAPSHOTS: (tmp_path / configured).resolve() if configured else None, _PROJECT: (None, {})}
    return SimpleNamespace(
        getoption=lambda name, default=None: options.get(name, default),
        getini=lambda name: "",
        stash=stash,
        inipath=None,
        invocation_params=SimpleNamespace(dir=tmp_path),
    )


@pytest.fixture(scope="module")
def bundled() -> Implementation:
    return load_target("reference")


@pytest.fixture(scope="module")
def impostor() -> Implementation:
    return load_target("tests.fakes.renamed:NamedReference")


def test_only_the_bundled_reference_reads_the_shipped_snapshots(tmp_path, bundled, impostor):
    """The reference target reads the suite's snapshots; an implementation naming itself reference gets
    snapshots/reference where pytest runs, like any other name."""
    assert snapshots.is_bundled_reference(bundled) and not snapshots.is_bundled_reference(impostor)
    assert snapshots.snapshot_dir(_config(tmp_path), bundled) == reference_snapshots_dir()
    assert snapshots.snapshot_dir(_config(tmp_path), impostor) == tmp_path / "snapshots" / "reference"
    assert snapshots.refusal(_config(tmp_path, update=True), impostor) is None


def test_a_name_that_lands_on_the_shipped_snapshots_is_refused(bundled, impostor):
    """Where pytest runs in the suite's checkout, an implementation named reference would be held to (and with
    --snapshot-update would overwrite) the shipped snapshots: refused, naming the folder; the reference is not."""
    root = reference_snapshots_dir().parent.parent
    for update in (False, True):
        reason = snapshots.refusal(_config(root, update=update), impostor)
        assert reason and str(reference_snapshots_dir()) in reason and "--impl-snapshots" in reason
    assert snapshots.refusal(_config(root, update=True), bundled) is None


def test_snapshot_update_never_writes_into_the_shipped_snapshots_for_another_implementation(tmp_path, impostor):
    """--impl-snapshots naming the shipped folder is read, and refused only for --snapshot-update."""
    shipped = str(reference_snapshots_dir())
    assert snapshots.refusal(_config(tmp_path, configured=shipped), impostor) is None
    assert "--snapshot-update" in (
        snapshots.refusal(_config(tmp_path, configured=shipped, update=True), impostor) or ""
    )


def test_snapshot_update_never_writes_into_installed_data(tmp_path, bundled, monkeypatch):
    """In an installed wheel (the shipped data under the package's _data/), --snapshot-update is refused even for the
    bundled reference."""
    package = tmp_path / "advisor_conformance"
    shipped = package / "_data" / "snapshots" / "reference"
    shipped.mkdir(parents=True)
    monkeypatch.setattr(snapshots, "PACKAGE_DIR", package)
    monkeypatch.setattr(snapshots, "reference_snapshots_dir", lambda: shipped)
    assert snapshots.refusal(_config(tmp_path), bundled) is None
    assert "installed data" in (snapshots.refusal(_config(tmp_path, update=True), bundled) or "")


@pytest.mark.parametrize(
    "target, bundled_",
    [
        ("cmd:advisor-conformance harness", True),
        ("cmd:/venv/bin/advisor-conformance harness --impl=reference", True),
        ("cmd:python3 -m advisor_conformance harness --impl reference", True),
        ("cmd:advisor-conformance harness --impl tests.fakes.renamed:NamedReference", False),
        ("cmd:node harness.js", False),
    ],
)
def test_the_suites_harness_serving_the_reference_is_the_bundled_reference(target, bundled_):
    """The reference through the suite's own harness counts as the bundled reference; any other command, whatever
    its describe says, does not."""
    implementation = Implementation(target, transport=SimpleNamespace(), description={"name": "reference"})  # type: ignore[arg-type]
    assert snapshots.is_bundled_reference(implementation) is bundled_


@pytest.mark.parametrize("case", ["missing-folder", "a-folder", "file-as-folder", "fifo"])
def test_an_output_that_cannot_be_written_is_named_before_the_work(tmp_path, case):
    """A missing folder, a folder, a file where a folder should be, or a FIFO: each has a reason; a new file in an
    existing folder has none."""
    paths = {
        "missing-folder": tmp_path / "missing" / "r.json",
        "a-folder": tmp_path,
        "file-as-folder": tmp_path / "f" / "r.json",
        "fifo": tmp_path / "pipe",
    }
    (tmp_path / "f").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    assert unwritable(paths[case])
    assert unwritable(tmp_path / "new.json") is None


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """When the rename cannot happen, the old file stays as it was and the temporary file is gone."""
    target = tmp_path / "report.json"
    target.write_bytes(b"old")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [path.name for path in tmp_path.iterdir()] == ["report.json"]


class _Terminal:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_sep(self, sep: str, title: str, **markup: object) -> None:
        self.lines.append(title)

    def write_line(self, line: str, **markup: object) -> None:
        self.lines.append(line)


def test_a_rule_report_that_cannot_be_written_at_the_end_keeps_the_summary_and_says_so(tmp_path):
    """The report's folder gone by the end of the run: no traceback, the summary is printed, then a line naming
    --rule-report and the path; a run that would pass exits 3 (an internal error), a failing one keeps its 1."""
    path = str(tmp_path / "gone" / "rules.json")
    for status, expected in ((pytest.ExitCode.OK, pytest.ExitCode.INTERNAL_ERROR), (1, 1)):
        tally = RuleTally(load_catalogue(), {"name": "impl", "version": "1"})
        options = {"rule_report": path, "rule_summary": True}
        config = SimpleNamespace(getoption=options.get, invocation_params=SimpleNamespace(dir=tmp_path))
        session = SimpleNamespace(config=config, exitstatus=status)
        tally.pytest_sessionfinish(session)  # type: ignore[arg-type]
        assert session.exitstatus == expected
        terminal = _Terminal()
        tally.pytest_terminal_summary(terminal, config)  # type: ignore[arg-type]
        assert any("outcome per rule" in line for line in terminal.lines), terminal.lines[:3]
        assert "--rule-report" in terminal.lines[-1] and path in terminal.lines[-1]
