"""`advisor-conformance init` writes only below the folder it is given, never through a symbolic link, and leaves a
project's own pyproject.toml as it is."""

from __future__ import annotations

import pytest

from advisor_conformance._tools.cli import main


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_a_dangling_link_where_a_file_goes_is_not_followed(tmp_path, capsys, force):
    """A dangling symbolic link where the harness would go stops init (with --force too): nothing is written, and
    nothing appears where the link points, outside --dir."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "advisor_harness.py").symlink_to(outside / "planted.py")
    assert main(["init", "--harness", "--dir", str(project), *(["--force"] if force else [])]) == 2
    assert "advisor_harness.py" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    assert [path.name for path in project.iterdir()] == ["advisor_harness.py"]


def test_a_linked_package_folder_is_not_entered(tmp_path, capsys):
    """A package folder that is a symbolic link to another folder is not written into, with --force too."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "myadvisor").symlink_to(outside, target_is_directory=True)
    assert main(["init", "--python", "myadvisor", "--dir", str(project), "--force"]) == 2
    assert "myadvisor" in capsys.readouterr().err
    assert list(outside.iterdir()) == [] and not (project / "pyproject.toml").exists()


def test_an_existing_pyproject_is_left_as_it_is_and_the_lines_to_add_are_printed(tmp_path, capsys):
    """In a project that has a pyproject.toml, init --python writes the package, keeps the file as it was (also with
    --force), and prints the conformance_impl line to add and the loop with --impl."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    assert main(["init", "--python", "myadvisor", "--dir", str(tmp_path), "--force"]) == 0
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'mine'\n"
    out = capsys.readouterr().out
    assert 'conformance_impl = "myadvisor.advisor_adapter"' in out
    assert "python3 -m pytest --impl=myadvisor.advisor_adapter -x --quick" in out
