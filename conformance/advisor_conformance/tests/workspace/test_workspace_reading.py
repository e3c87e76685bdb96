"""Caller files read from the workspace: the capped reader, display paths, and confinement to the working directory.

Each file read is compared with what ``shape`` renders for the same display path, bytes and true size, so a mistake
of the files rules (caps, markers, rendering) is theirs, not blamed here.
"""

from __future__ import annotations

import base64
import os

import pytest

from advisor_conformance.checks import check_equal
from advisor_conformance.scenarios import call, error_of, requests_of, result_of, scenario
from advisor_conformance.workspace import workspace

from .reads import RUNTIME, SOURCE, SPEC, _refused, _run_within, check_loaded, loaded

KIB32 = 32768
PATTERN = b"0123456789abcdef" * 4096  # 64 KiB


@pytest.mark.rule(id="workspace.capped-reader")
@pytest.mark.parametrize("size", [0, 1, KIB32 - 1, KIB32, KIB32 + 1, 50000],
                         ids=["empty", "one-byte", "below-cap", "at-cap", "just-above-cap", "far-above-cap"])
def test_file_is_read_up_to_the_cap_with_its_true_size(impl, size):
    """A file is read as its first 32768 bytes (all of it when shorter), with its true size on disk."""
    data = PATTERN[:size]
    got, params = loaded(impl, ["big.txt"], "workspace.capped-reader",
                         spec={**SPEC, "big.txt": {"text": data.decode()}})
    check_loaded(impl, got, [("big.txt", data[:KIB32], size)], "workspace.capped-reader",
                 f"a {size}-byte file was not read as its first {min(size, KIB32)} bytes with its size {size}", params)


@pytest.mark.rule(id="workspace.capped-reader")
def test_huge_sparse_file_is_read_capped(impl):
    """A 4 GiB file is sent as its first 32768 bytes and a marker with its true size."""
    got, params = loaded(impl, ["huge.bin"], "workspace.capped-reader")
    check_loaded(impl, got, [("huge.bin", b"\0" * KIB32, 4 * 1024**3)], "workspace.capped-reader",
                 "the huge file was not read capped with its true size", params)


#: Sparse sizes to try, largest first: beyond any address space, then the limits of common file systems (ext4
#: stops just short of 16 TiB). Any of them is far more than memory, so only a capped read can answer.
VAST_SIZES = (2**50, 2**44 - 4096, 2**40)


@pytest.mark.rule(id="workspace.capped-reader")
def test_file_larger_than_memory_is_read_capped(impl):
    """A sparse file far larger than memory is sent at once as its first 32768 bytes and a marker with its size."""
    with workspace(SPEC) as work:
        for size in VAST_SIZES:
            try:
                with open(work / "vast.bin", "wb") as handle:
                    handle.truncate(size)
                break
            except OSError:
                continue
        else:
            pytest.skip("the file system holds no sparse file of 1 TiB")
        params = scenario([{"call": call(input={"files": ["vast.bin"]})}], work_dir=str(work))
        answer = _run_within(impl, params, "workspace.capped-reader")
        result_of(answer, 0, "workspace.capped-reader", params)
        (request,) = requests_of(answer, 0)
    check_loaded(impl, request["messages"][-1]["content"], [("vast.bin", b"\0" * KIB32, size)],
                 "workspace.capped-reader", f"a file of {size} bytes was not read capped with its true size", params)


@pytest.mark.rule(id="workspace.capped-reader")
@pytest.mark.parametrize("path, data", [("latin1.txt", b"caf\xe9 cr\xe8me\n"),
                                        ("split.txt", b"a" * (KIB32 - 1) + "\u00e9".encode() + b"tail")],
                         ids=["not-utf8", "character-across-the-cap"])
def test_file_bytes_are_read_as_they_are(impl, path, data):
    """A file's bytes are read as they are, not decoded first: invalid UTF-8 stays bytes, and the cap cuts bytes."""
    spec = {**SPEC, path: {"base64": base64.b64encode(data).decode()}}
    got, params = loaded(impl, [path], "workspace.capped-reader", spec=spec)
    check_loaded(impl, got, [(path, data[:KIB32], len(data))], "workspace.capped-reader",
                 "the file's bytes were not read as they are", params)


@pytest.mark.rule(id="workspace.capped-reader")
def test_several_files_are_each_read_capped(impl):
    """Each of several files is read through its own capped reader, in the order given."""
    spec = {**SPEC, "a.txt": {"text": "a" * 40000}, "b.txt": {"text": "b" * 100}}
    got, params = loaded(impl, ["a.txt", "b.txt", "a.txt"], "workspace.capped-reader", spec=spec)
    check_loaded(impl, got, [("a.txt", b"a" * KIB32, 40000), ("b.txt", b"b" * 100, 100),
                             ("a.txt", b"a" * KIB32, 40000)], "workspace.capped-reader",
                 "the files were not each read capped with their sizes", params)


@pytest.mark.rule(id="workspace.display-path")
@pytest.mark.parametrize("given, shown", [
    ("src/main.go", "src/main.go"), ("./src/main.go", "src/main.go"), ("src/../src/main.go", "src/main.go"),
    ("src//main.go", "src/main.go"), ("src/./main.go", "src/main.go"), ("../work/src/main.go", "src/main.go"),
    ("{work}/src/main.go", "src/main.go"), ("{work}/./src//main.go", "src/main.go"),
    ("../outside/notes.txt", "../outside/notes.txt"), ("{work}/../outside/notes.txt", "../outside/notes.txt"),
    ("{work}2/notes.txt", "../work2/notes.txt"),
], ids=["plain", "dot-slash", "dot-dot-inside", "double-slash", "dot-segment", "out-and-back-in", "absolute-inside",
        "absolute-unnormalised", "outside", "absolute-outside", "absolute-sibling-sharing-the-prefix"])
def test_display_path_is_relative_and_normalised(impl, given, shown):
    """A file is shown by its normalised path relative to the working directory; the host path never appears."""
    text = {"src/main.go": SOURCE, "../outside/notes.txt": "outside the workspace\n",
            "../work2/notes.txt": "a sibling sharing the working directory's prefix\n"}[shown]
    got, params = loaded(impl, [given], "workspace.display-path")
    check_loaded(impl, got, [(shown, text.encode(), len(text.encode()))], "workspace.display-path",
                 f"{given!r} is not shown as {shown!r}", params)


#: The tests of confinement need the option declared.
CONFINEMENT = pytest.mark.needs(options={"confinement": True})
CONFINED = {**RUNTIME, "confine_to_work_dir": True}


@pytest.mark.rule(id="workspace.confinement")
@CONFINEMENT
@pytest.mark.parametrize("path", ["../outside/notes.txt", "src/../../outside/notes.txt", "/etc/hostname",
                                  "{work}/../outside/notes.txt", "../work2/notes.txt", "{work}2/notes.txt",
                                  ["src/main.go", "../outside/notes.txt"]],
                         ids=["dot-dot", "dot-dot-through-src", "absolute", "absolute-through-the-work-dir",
                              "sibling-sharing-the-prefix", "absolute-sibling-sharing-the-prefix",
                              "after-a-good-file"])
def test_confinement_refuses_paths_outside(impl, path):
    """With confinement on, a path that resolves outside the working directory is refused, a sibling directory whose
    name extends the working directory's included."""
    if path == "/etc/hostname" and not os.path.exists(path):
        pytest.skip("/etc/hostname does not exist on this machine")
    _refused(impl, path, "workspace.confinement", runtime=CONFINED)


@pytest.mark.rule(id="workspace.confinement")
@CONFINEMENT
@pytest.mark.parametrize("target", ["../outside/notes.txt", "{work}2/notes.txt", "/etc"],
                         ids=["relative-target", "sibling-sharing-the-prefix", "absolute-target"])
def test_confinement_follows_links(impl, target):
    """With confinement on, a link that leads out of the working directory is refused."""
    with workspace(SPEC) as work:
        os.symlink(target.format(work=work), work / "escape")
        path = "escape/passwd" if target == "/etc" else "escape"
        params = scenario([{"call": call(input={"files": [path]})}], runtime={"confine_to_work_dir": True},
                          work_dir=str(work))
        answer = _run_within(impl, params, "workspace.confinement")
        error = error_of(answer, 0, "workspace.confinement", params)
        check_equal(error["code"], "file_error", "workspace.confinement", "a link out of the workspace was read",
                    input=params, actual=error)


@pytest.mark.rule(id="workspace.confinement")
@CONFINEMENT
@pytest.mark.parametrize("path", ["src/main.go", "../work/src/main.go", "{work}/src/main.go", "docs/link-to-main"],
                         ids=["relative", "out-and-back-in", "absolute-inside", "link-inside"])
def test_confinement_reads_paths_inside(impl, path):
    """With confinement on, a path that resolves inside the working directory, however spelt, is still read."""
    got, params = loaded(impl, [path], "workspace.confinement", runtime=CONFINED)
    shown = "docs/link-to-main" if path.startswith("docs") else "src/main.go"
    # read it was (an error fails above, naming confinement); how it is shown is workspace.display-path's
    check_loaded(impl, got, [(shown, SOURCE.encode(), len(SOURCE))], "workspace.display-path",
                 f"{path!r} lies inside the working directory, but it was not shown as {shown!r}", params)


@pytest.mark.rule(id="workspace.confinement")
@pytest.mark.parametrize("path", ["../outside/notes.txt", "{work}/../outside/notes.txt"],
                         ids=["relative", "absolute"])
def test_without_confinement_outside_files_show_relative(impl, path):
    """With confinement off, a file outside the working directory is read and shown by a relative path."""
    got, params = loaded(impl, [path], "workspace.confinement")
    text = b"outside the workspace\n"
    # read it was (an error fails above, naming confinement); how it is shown is workspace.display-path's
    check_loaded(impl, got, [("../outside/notes.txt", text, len(text))], "workspace.display-path",
                 "a file outside the workspace was not shown by its relative path", params)
