"""`advisor-conformance init` (a starting adapter or harness) and `advisor-conformance shape` (a rendered request)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from advisor_conformance._contract.implementation import load_target
from advisor_conformance._contract.protocol import AREA_OPERATIONS, message_errors, schema_errors
from advisor_conformance._paths import fixtures_dir
from advisor_conformance._tools.cli import init as init_module
from advisor_conformance._tools.cli import main
from advisor_conformance.catalogue import load_catalogue
from advisor_conformance.wire import neutral_request

TRANSCRIPT = [
    {"role": "user", "content": "fix the test"},
    {
        "role": "assistant",
        "content": "Reading it.",
        "tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "a.go"}}],
    },
    {"role": "tool", "name": "read", "tool_call_id": "c1", "content": "package a"},
]
NODE = shutil.which("node")


@pytest.fixture
def skeleton(tmp_path, monkeypatch, request):
    """A package written by `init --python` into a temporary directory, importable under a name of this test."""
    package = f"skeleton_{request.node.name.replace('[', '_').replace(']', '').replace('-', '_')}"
    assert main(["init", "--python", package, "--dir", str(tmp_path)]) == 0
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package
    for name in [name for name in sys.modules if name == package or name.startswith(f"{package}.")]:
        del sys.modules[name]


def reference():
    return load_target("reference")


# -- init --python -------------------------------------------------------------------------------------------------


def test_init_python_writes_a_package_and_a_pyproject_naming_it(tmp_path, capsys):
    """`init --python` writes PACKAGE/__init__.py, PACKAGE/advisor_adapter.py and a pyproject.toml whose
    conformance_impl names the adapter, and prints the fast loop."""
    assert main(["init", "--python", "myadvisor", "--dir", str(tmp_path)]) == 0
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "myadvisor/__init__.py",
        "myadvisor/advisor_adapter.py",
        "pyproject.toml",
    ]
    configured = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert configured["tool"]["pytest"]["ini_options"]["conformance_impl"] == "myadvisor.advisor_adapter"
    assert "python3 -m pytest -x --quick" in capsys.readouterr().out


def test_skeleton_declares_the_areas_it_answers_and_lists_the_others(skeleton, tmp_path):
    """The skeleton's description fits the schema and declares exactly the areas whose operations it answers (the
    suite's start-of-run check passes); every other catalogue area is in the file, commented out."""
    implementation = load_target(f"{skeleton}.advisor_adapter")
    assert schema_errors("describe.result", implementation.description) == []
    assert implementation.name == skeleton
    assert implementation.areas == {area for area, ops in AREA_OPERATIONS.items() if set(ops) == {"shape"}}
    assert implementation.missing_operations() == {}
    text = (tmp_path / skeleton / "advisor_adapter.py").read_text()
    assert set(re.findall(r'^\s*(?:# )?"([a-z]+)",', text, re.M)) == set(load_catalogue().areas)


def test_skeleton_answers_every_operation_within_the_schema(skeleton):
    """The skeleton renders a request frame for shape and answers unsupported_op to the other operations."""
    implementation = load_target(f"{skeleton}.advisor_adapter")
    shaped = implementation.call("shape", {"transcript": TRANSCRIPT, "question": " Why? "})
    assert [m["role"] for m in shaped["messages"]] == ["system", "user"]
    assert shaped["messages"][0]["content"] == implementation.strings["system_prompt"]
    assert shaped["messages"][-1]["content"].endswith(implementation.strings["guidance_request"])
    params = {
        "tool_definition": {},
        "scenario": {"runtime": {}, "work_dir": "/tmp", "steps": []},
        "encode": {"provider": "openai", "request": neutral_request(shaped["messages"])},
    }
    for op, op_params in params.items():
        assert implementation.call(op, op_params)["error"]["code"] == "unsupported_op", op


def test_templates_name_only_catalogue_rules_and_shipped_transcripts():
    """The rules and the shipped transcript the templates and init's next steps point to exist in this release."""
    from advisor_conformance._tools.cli.init import TEMPLATES_DIR

    text = "".join(path.read_text(encoding="utf-8") for path in TEMPLATES_DIR.iterdir())
    text += Path(init_module.__file__).read_text(encoding="utf-8")
    rules = re.findall(r"where ([a-z]+\.[a-z0-9-]+)", text)
    assert rules and set(rules) <= set(load_catalogue().rules), rules
    transcripts = re.findall(r"advisor-conformance shape ([a-z0-9_]+)", text)
    assert transcripts and all((fixtures_dir() / "transcripts" / f"{name}.json").is_file() for name in transcripts)


def test_init_refuses_to_overwrite_and_names_the_files(tmp_path, capsys):
    """A second `init --python` exits 2 naming the existing files and leaves them as they were; --force rewrites."""
    assert main(["init", "--python", "myadvisor", "--dir", str(tmp_path)]) == 0
    adapter = tmp_path / "myadvisor" / "advisor_adapter.py"
    adapter.write_text("# mine\n")
    capsys.readouterr()
    assert main(["init", "--python", "myadvisor", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(adapter) in err and str(tmp_path / "myadvisor" / "__init__.py") in err
    assert adapter.read_text() == "# mine\n"
    assert main(["init", "--python", "myadvisor", "--dir", str(tmp_path), "--force"]) == 0
    assert "class Adapter" in adapter.read_text()


@pytest.mark.parametrize(
    "arguments, named",
    [
        (["--python", "my-advisor"], "my-advisor"),
        (["--python", "class"], "class"),
        (["--python", "x.y"], "x.y"),
        (["--python", "café"], "café"),
        (["--python", "advisor_conformance"], "advisor_conformance"),
        (["--python", "mine", "--language", "node"], "--language"),
    ],
)
def test_init_refuses_what_is_not_a_python_package(tmp_path, capsys, arguments, named):
    """A package name that is not one ASCII identifier (a name the protocol would refuse) or is the suite's own, or
    --language with --python, exits 2 naming it and writes nothing."""
    assert main(["init", *arguments, "--dir", str(tmp_path)]) == 2
    assert named in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_init_needs_python_or_harness(tmp_path):
    """`init` without --python or --harness, or with both, is a usage error."""
    for arguments in ([], ["--python", "mine", "--harness"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["init", *arguments, "--dir", str(tmp_path)])
        assert exit_info.value.code == 2


# -- init --harness -------------------------------------------------------------------------------------------------


def harness_session(argv: list[str], cwd: Path) -> tuple[list[dict], int, str]:
    """Answers of a harness to a fixed session: start (seq "a"), describe, shape, encode, an unknown op, a line that
    is not JSON, stop, and a request after stop that must stay unanswered."""
    requests = [
        {"seq": "a", "op": "start", "params": {"protocol": 1}},
        {"seq": 2, "op": "describe", "params": {}},
        {"seq": 3, "op": "shape", "params": {"transcript": TRANSCRIPT, "question": "Why?"}},
        {"seq": 4, "op": "encode", "params": {"provider": "anthropic", "request": neutral_request([])}},
        {"seq": 5, "op": "frobnicate", "params": {}},
        "not json {",
        {"seq": 6, "op": "stop", "params": {}},
        {"seq": 7, "op": "shape", "params": {"transcript": []}},
    ]
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    result = subprocess.run(argv, input=text, capture_output=True, text=True, cwd=cwd, timeout=60)
    return [json.loads(line) for line in result.stdout.splitlines()], result.returncode, result.stderr


@pytest.mark.parametrize("language", ["python", "node"])
def test_init_harness_speaks_the_protocol(tmp_path, capsys, language):
    """The written harness answers each request with one line echoing its seq, within the schemas, unsupported_op
    for unimplemented operations, a failure for unknown ones, and exits 0 after stop."""
    if language == "node" and NODE is None:
        pytest.skip("node is not installed")
    assert main(["init", "--harness", "--language", language, "--dir", str(tmp_path)]) == 0
    (written,) = tmp_path.iterdir()
    assert f"cmd:{'python3' if language == 'python' else 'node'} {written.name}" in capsys.readouterr().out
    answers, code, stderr = harness_session([sys.executable if language == "python" else NODE, written.name], tmp_path)
    assert code == 0, stderr
    assert [answer["seq"] for answer in answers] == ["a", 2, 3, 4, 5, 6]
    assert all(message_errors("answer", answer) == [] for answer in answers), answers
    start, describe, shape, encode, unknown, stop = answers
    assert message_errors("start_result", start["result"]) == []
    assert set(start["result"]["areas"]) == {area for area, ops in AREA_OPERATIONS.items() if set(ops) == {"shape"}}
    assert describe["result"] == start["result"]
    assert schema_errors("shape.result", shape["result"]) == [] and "messages" in shape["result"]
    assert encode["result"]["error"]["code"] == "unsupported_op"
    assert "failure" in unknown and stop["result"] == {}


def test_init_go_harness_declares_the_areas_of_shape_and_says_how_to_build_it(tmp_path, capsys):
    """`init --harness --language go` writes one Go program declaring exactly the areas of `shape` (the others
    commented out) and prints the build command before the suite's (tests/meta/test_skeletons.py builds and runs it)."""
    assert main(["init", "--harness", "--language", "go", "--dir", str(tmp_path)]) == 0
    (written,) = tmp_path.iterdir()
    text = written.read_text(encoding="utf-8")
    assert written.name == "advisor-harness.go" and text.count("package main") == 1
    areas_block = text.split("var areas = []string{", 1)[1].split("\n}", 1)[0]
    declared = {line.strip().split('"')[1] for line in areas_block.splitlines() if line.strip().startswith('"')}
    assert declared == {area for area, ops in AREA_OPERATIONS.items() if set(ops) == {"shape"}}
    out = capsys.readouterr().out
    assert out.index("go build -o advisor-harness advisor-harness.go") < out.index("--impl='cmd:./advisor-harness'")


@pytest.mark.parametrize("language", ["python", "node"])
def test_init_harness_refuses_another_protocol(tmp_path, language):
    """The written harness answers start of a protocol it does not speak with a failure."""
    if language == "node" and NODE is None:
        pytest.skip("node is not installed")
    assert main(["init", "--harness", "--language", language, "--dir", str(tmp_path)]) == 0
    (written,) = tmp_path.iterdir()
    argv = [sys.executable if language == "python" else NODE, written.name]
    result = subprocess.run(
        argv,
        input=json.dumps({"seq": 1, "op": "start", "params": {"protocol": 2}}) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert "failure" in json.loads(result.stdout) and result.returncode == 0


# -- shape ----------------------------------------------------------------------------------------------------------


def test_shape_of_a_shipped_transcript_prints_every_message(capsys):
    """`shape NAME` renders a shipped transcript with the reference and prints each message's role and content."""
    fixture = json.loads((fixtures_dir() / "transcripts" / "go_ratelimit_failing_test.json").read_text())
    expected = reference().call("shape", fixture["input"])["messages"]
    assert main(["shape", "go_ratelimit_failing_test"]) == 0
    out = capsys.readouterr().out
    position = 0
    for index, message in enumerate(expected):
        role_at = out.find(message["role"], position)
        at = out.find(message["content"], role_at + len(message["role"]))
        assert role_at >= 0 and at >= 0, f"message {index} ({message['role']}) is not printed in order"
        position = at + len(message["content"])


def test_shape_fills_a_fixtures_placeholders_with_the_declared_strings(capsys):
    """A fixture's {{placeholders}} are filled with the implementation's declared strings before shaping."""
    assert main(["shape", "django_webhooks_partial_reads.json", "--json"]) == 0
    text = json.dumps(json.loads(capsys.readouterr().out), ensure_ascii=False)
    assert "{{" not in text
    assert json.dumps(reference().strings["line_truncation_marker"], ensure_ascii=False)[1:-1] in text


def test_shape_of_a_message_list_with_question_and_files(tmp_path, monkeypatch, capsys):
    """A bare message list with --question and --file sends the question and each file's path, content and size."""
    monkeypatch.chdir(tmp_path)
    Path("session.json").write_text(json.dumps(TRANSCRIPT))
    Path("notes.txt").write_bytes(b"caf\xc3\xa9\n")
    Path("blob.bin").write_bytes(b"\xff\x00")
    assert (
        main(
            [
                "shape",
                "session.json",
                "--question",
                "Is it right?",
                "--file",
                "notes.txt",
                "--file",
                "blob.bin",
                "--json",
            ]
        )
        == 0
    )
    params = {
        "transcript": TRANSCRIPT,
        "question": "Is it right?",
        "files": [
            {"path": "notes.txt", "content": "café\n", "size": 6},
            {"path": "blob.bin", "content_base64": "/wA=", "size": 2},
        ],
    }
    assert json.loads(capsys.readouterr().out) == reference().call("shape", params)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "codex"])
def test_shape_with_a_provider_prints_the_encoded_body(tmp_path, capsys, provider):
    """--provider prints the body encode makes of a neutral request around the messages; with --json, the request."""
    path = tmp_path / "session.json"
    path.write_text(json.dumps(TRANSCRIPT))
    impl = reference()
    messages = impl.call("shape", {"transcript": TRANSCRIPT})["messages"]
    encoded = impl.call("encode", {"provider": provider, "request": neutral_request(messages)})
    assert main(["shape", str(path), "--provider", provider]) == 0
    assert json.loads(capsys.readouterr().out) == encoded["body"]
    assert main(["shape", str(path), "--provider", provider, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == encoded


def test_shape_through_a_harness_and_its_error_answer(tmp_path, monkeypatch, capsys):
    """`shape --impl cmd:...` renders through a harness; an error answer of encode exits 2 naming its code."""
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--harness"]) == 0
    Path("session.json").write_text(json.dumps(TRANSCRIPT))
    target = f"cmd:{sys.executable} advisor_harness.py"
    capsys.readouterr()
    assert main(["shape", "session.json", "--impl", target, "--question", "Why?"]) == 0
    assert "Why?" in capsys.readouterr().out
    assert main(["shape", "session.json", "--impl", target, "--provider", "openai"]) == 2
    assert "unsupported_op" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content, shown",
    [
        (None, "missing.json"),
        ("{not json", "broken.json"),
        ('{"neither": 1}', "broken.json"),
        ('[{"role": "narrator", "content": "x"}]', "transcript[0].role"),
    ],
)
def test_shape_input_problems_exit_2_naming_the_file_or_field(tmp_path, monkeypatch, capsys, content, shown):
    """A missing or non-JSON transcript, one of no known form, or an error answer exits 2 naming the file or `at`."""
    monkeypatch.chdir(tmp_path)
    name = "missing.json" if content is None else "broken.json"
    if content is not None:
        Path(name).write_text(content)
    assert main(["shape", name]) == 2
    captured = capsys.readouterr()
    assert shown in captured.err and captured.out == ""


def test_shape_with_an_unreadable_file_exits_2_naming_it(tmp_path, monkeypatch, capsys):
    """A --file that cannot be read exits 2 naming it, before anything is printed."""
    monkeypatch.chdir(tmp_path)
    Path("session.json").write_text(json.dumps(TRANSCRIPT))
    assert main(["shape", "session.json", "--file", "nowhere.txt"]) == 2
    captured = capsys.readouterr()
    assert "nowhere.txt" in captured.err and captured.out == ""


def test_shape_with_an_unknown_impl_exits_2(capsys):
    """An --impl target that cannot be loaded exits 2 naming it."""
    assert main(["shape", "go_ratelimit_failing_test", "--impl", "no_such_package_here.adapter"]) == 2
    assert "no_such_package_here" in capsys.readouterr().err


def test_shape_and_init_are_subcommands():
    """`shape` and `init` are listed among the commands, shape after where and init before harness."""
    from advisor_conformance._tools.cli import commands

    names = [module.NAME for module in commands()]
    assert names.index("where") < names.index("shape") < names.index("init") < names.index("harness")
