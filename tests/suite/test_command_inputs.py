"""The commands' own input files, hostile: every defect ends in the command's documented exit code (2) with a
message naming the file and the field, never a traceback (report, compare, cache-sim, shape; in process, and one
real process each for the exit code)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from advisor_conformance._tools.cachesim import loader
from advisor_conformance._tools.cachesim.loader import load
from advisor_conformance._tools.cli import main
from advisor_conformance._tools.cli.shape import load_transcript
from advisor_conformance._tools.inputs import InputError, read_json
from advisor_conformance._tools.report import build_page, parse_run
from advisor_conformance._tools.report.page import script_json

from ..support.hostile_inputs import REPORT, SESSION, TRANSCRIPT, Hostile, hostile, render

#: Each command with the document it reads and how it is run on a file (``good``: a valid report beside it).
COMMANDS = {
    "report": (REPORT, lambda bad, good, out: ["report", good, bad, "-o", out]),
    "compare-old": (REPORT, lambda bad, good, out: ["compare", bad, good]),
    "compare-new": (REPORT, lambda bad, good, out: ["compare", good, bad]),
    "cache-sim": (SESSION, lambda bad, good, out: ["cache-sim", bad]),
    "shape": (TRANSCRIPT, lambda bad, good, out: ["shape", bad]),
}
_FOLDER = tempfile.TemporaryDirectory(prefix="hostile-inputs-")  # one folder for every example: no fixture per call
_LOCK = threading.Lock()


def run_in_process(command: str, data: bytes) -> tuple[int, str, str]:
    """Run ``command`` in process on a file holding ``data``: its exit code, stderr and the file's path."""
    base, argv = COMMANDS[command]
    folder = Path(_FOLDER.name)
    bad, good, out = folder / "hostile-input.json", folder / "good.json", folder / "page.html"
    with _LOCK:
        bad.write_bytes(data)
        good.write_text(json.dumps(REPORT), encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv(str(bad), str(good), str(out)))
        assert not out.exists() or command != "report", "the page was written from a bad run report"
    return code, err.getvalue(), str(bad)


def assert_refused(command: str, hostile_case: Hostile) -> None:
    data, field = render(COMMANDS[command][0], hostile_case)
    code, err, path = run_in_process(command, data)
    assert code == 2, (code, err)
    assert "Traceback" not in err and len(err) < 2000, err
    assert f"{path}: {field}" in err if field is not None else f"{path}: is " in err, err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_documents_the_properties_start_from_are_valid(command, tmp_path):
    """Each valid document loads (so a refusal below is the defect's); a UTF-8 byte order mark is ignored."""
    base = COMMANDS[command][0]
    path = tmp_path / "valid.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(base, ensure_ascii=False).encode("utf-8"))
    if base is REPORT:
        assert build_page([parse_run(read_json(path, limit=10**6), str(path))])
    elif base is SESSION:
        assert len(load(path).calls) == 1
    else:
        assert load_transcript(path)[0] == "fixture"


# One property per command: every defect class drawn (the @examples hold one of each).
_SETTINGS = settings(max_examples=40, derandomize=True, database=None, deadline=None)


@_SETTINGS
@given(hostile("report"))
@example(Hostile("wrong-type", ("tests", 0, "checked_rules"), 5))
@example(Hostile("wrong-type", ("run", "arguments"), 7))
@example(Hostile("wrong-type", ("counts",), [1]))
@example(Hostile("digits", ("run", "duration_s"), 5000))
@example(Hostile("deep", ("run", "arguments"), 100_000))
@example(Hostile("constant", ("run", "duration_s"), "NaN", bom=True))
@example(Hostile("beyond-double", ("counts", "tests", "passed"), "1e400"))
@example(Hostile("repeated-key", ("rules", 0)))
@example(Hostile("latin-1"))
@example(Hostile("utf-16"))
def test_report_refuses_a_hostile_run_report(case):
    """`report` given a hostile run report exits 2 naming the file and the field, and writes no page."""
    assert_refused("report", case)


@_SETTINGS
@given(hostile("report"), st.sampled_from(["compare-old", "compare-new"]))
@example(Hostile("deep", ("run", "arguments"), 100_000), "compare-old")
@example(Hostile("digits", ("run", "duration_s"), 5000), "compare-old")
@example(Hostile("wrong-type", ("tests", 0, "checked_rules"), 5), "compare-new")
@example(Hostile("constant", ("rules", 0, "tests"), "Infinity"), "compare-new")
@example(Hostile("repeated-key", ("run",), None, bom=True), "compare-old")
@example(Hostile("utf-32"), "compare-new")
def test_compare_refuses_a_hostile_run_report_as_a_usage_error_not_a_regression(case, which):
    """`compare` given a hostile baseline or new run exits 2 (never 1, "got worse"), naming the file and field."""
    assert_refused(which, case)


@_SETTINGS
@given(hostile("session"))
@example(Hostile("wrong-type", ("workspace",), None))
@example(Hostile("huge-count", ("workspace", "src/a.py", "bytes"), 1e11))
@example(Hostile("huge-count", ("conversations", 0, "messages", 3, "content", "$concat", 1, "$repeat", 1), 1e11))
@example(Hostile("huge-count", ("conversations", 0, "messages", 1, "content", "$text", "bytes"), 10**15))
@example(Hostile("wrong-type", ("calls", 0, "input", "files", 0), 7))
@example(Hostile("deep", ("conversations", 0, "messages", 0, "content"), 100_000))
@example(Hostile("digits", ("calls", 0, "at"), 5000))
@example(Hostile("constant", ("calls", 0, "at"), "-Infinity"))
@example(Hostile("beyond-double", ("calls", 0, "at"), "1e400", bom=True))
@example(Hostile("repeated-key", ("conversations", 0, "messages", 1, "content", "$text")))
@example(Hostile("utf-16-le"))
def test_cache_sim_refuses_a_hostile_session(case):
    """`cache-sim` given a hostile session exits 2 naming the file and the field, before any replay."""
    assert_refused("cache-sim", case)


@_SETTINGS
@given(hostile("transcript"))
@example(Hostile("constant", ("input", "transcript", 0, "metadata"), "NaN"))
@example(Hostile("constant", ("input", "files", 0, "size"), "Infinity"))
@example(Hostile("deep", ("input", "transcript", 1, "tool_calls", 0, "arguments"), 100_000))
@example(Hostile("digits", ("input", "files", 0, "size"), 5000))
@example(Hostile("wrong-type", ("input", "question"), 5))
@example(Hostile("beyond-double", ("input", "transcript", 0, "content"), "-1e309"))
@example(Hostile("repeated-key", ("input",), bom=True))
@example(Hostile("latin-1"))
def test_shape_refuses_a_hostile_transcript(case):
    """`shape` given a hostile transcript exits 2 naming the file and the field, before the implementation runs."""
    assert_refused("shape", case)


@pytest.mark.parametrize(
    "command, case",
    [
        ("report", Hostile("wrong-type", ("run", "arguments"), 7)),
        ("compare-old", Hostile("digits", ("run", "duration_s"), 5000)),
        (
            "cache-sim",
            Hostile("huge-count", ("conversations", 0, "messages", 3, "content", "$concat", 1, "$repeat", 1), 1e11),
        ),
        ("shape", Hostile("deep", ("input", "transcript"), 100_000)),
    ],
)
def test_a_real_process_exits_2_naming_the_file_and_field(tmp_path, command, case):
    """Run as a process, each command exits with code 2 on a hostile file, naming it and the field, no traceback."""
    data, field = render(COMMANDS[command][0], case)
    bad, good = tmp_path / "hostile-input.json", tmp_path / "good.json"
    bad.write_bytes(data)
    good.write_text(json.dumps(REPORT), encoding="utf-8")
    argv = COMMANDS[command][1](str(bad), str(good), str(tmp_path / "page.html"))
    run = subprocess.run(
        [sys.executable, "-m", "advisor_conformance", *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert run.returncode == 2 and f"{bad}: {field}" in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_a_session_whose_macros_together_exceed_the_budget_is_refused_at_the_one_that_crosses_it(tmp_path, monkeypatch):
    """Texts each within the schema's limit, together over the expansion budget (here made 1,000 characters):
    refused at the one that crosses it, before it is made."""
    monkeypatch.setattr(loader, "EXPANDED_CHARACTERS", 1_000)
    session = json.loads(json.dumps(SESSION))
    session["workspace"]["src/a.py"]["bytes"] = 990
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        load(path)
    assert refused.value.field.startswith("conversations/0/messages/"), str(refused.value)


@pytest.mark.parametrize(
    "workspace_path", ["/etc/cron.d/x", "../outside", "a/../../b", "src//a.py", "src/a.py/inner", "C:\\x"]
)
def test_a_workspace_path_outside_the_workspace_is_refused(tmp_path, workspace_path):
    """A workspace file written outside the workspace, or one that is another file's folder, is refused naming it."""
    session = json.loads(json.dumps(SESSION))
    session["workspace"][workspace_path] = {"seed": 1, "bytes": 1}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        load(path)
    assert refused.value.field in (f"workspace/{workspace_path}", "workspace/src/a.py"), str(refused.value)


def test_a_fifo_or_an_oversized_file_is_refused_unread(tmp_path, monkeypatch):
    """A FIFO is refused without blocking on its open; a file over the limit is refused by its size."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(InputError, match="regular file"):
        read_json(tmp_path / "pipe", limit=100)
    (tmp_path / "big.json").write_text("[" + "0," * 100 + "0]")
    with pytest.raises(InputError, match="at most 100"):
        read_json(tmp_path / "big.json", limit=100)


def test_the_page_embeds_strict_json_naming_the_field_of_a_value_it_cannot_carry():
    """A NaN anywhere in the page's data is refused naming its field (a browser's JSON.parse refuses NaN)."""
    assert json.loads(script_json({"runs": [{"duration": 1.5}]})) == {"runs": [{"duration": 1.5}]}
    with pytest.raises(InputError) as refused:
        script_json({"runs": [{"duration": float("nan")}]})
    assert refused.value.field == "runs/0/duration"
    nan = json.loads(json.dumps(REPORT))
    nan["run"]["duration_s"] = float("nan")
    with pytest.raises(InputError) as refused:
        parse_run(nan, "run.json")
    assert refused.value.field == "run/duration_s"
