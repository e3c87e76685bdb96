"""Every command that runs an implementation finds it as a pytest run does (--impl, the environment variable, the
nearest configuration file, the reference), and says which in its first line; a misspelt variable is an error."""

from __future__ import annotations

import re

import pytest

from advisor_conformance._tools.cli import main


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder whose pyproject.toml names the reference, entered from a subfolder; no variable set."""
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\nconformance_impl = "reference"\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    monkeypatch.delenv("ADVISOR_CONFORMANCE_IMPL", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "setting, origin",
    [
        ({}, "conformance_impl = reference (../pyproject.toml)"),
        ({"ADVISOR_CONFORMANCE_IMPL": "reference"}, "ADVISOR_CONFORMANCE_IMPL=reference"),
        (
            {"ADVISOR_CONFORMANCE_IMPL": "advisor_reference.adapter:adapter"},
            "ADVISOR_CONFORMANCE_IMPL=advisor_reference.adapter:adapter; ../pyproject.toml names reference, not run here",
        ),
    ],
    ids=["configuration-file", "environment", "environment-over-another"],
)
def test_shape_names_the_implementation_and_where_it_was_named_first(project, monkeypatch, capsys, setting, origin):
    """`shape` from a subfolder of a configured project renders with the implementation the nearest configuration
    file names (the environment variable wins over it) and says so in the first line of its stderr, naming the
    file's implementation when it runs another."""
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    assert main(["shape", "django_webhooks_partial_reads"]) == 0
    first = capsys.readouterr().err.splitlines()[0]  # stdout is the request
    assert "reference" in first and first.endswith(f"from {origin}"), first


@pytest.mark.parametrize("command", [["rules"], ["shape", "django_webhooks_partial_reads"], ["where", "question.trim"]])
def test_an_unknown_variable_of_the_suite_is_an_error_naming_the_known_ones(project, monkeypatch, capsys, command):
    """An ADVISOR_CONFORMANCE_* variable the suite does not know (a misspelt ADVISOR_CONFORMANCE_IMPL) stops every
    command with exit 2, naming it and the known one, before any implementation is loaded."""
    monkeypatch.setenv("ADVISOR_CONFORMANCE_IMP", "myadvisor.advisor_adapter")
    assert main(command) == 2
    captured = capsys.readouterr()
    assert re.search(r"\bADVISOR_CONFORMANCE_IMP\b", captured.err) and "ADVISOR_CONFORMANCE_IMPL" in captured.err
    assert captured.out == ""
