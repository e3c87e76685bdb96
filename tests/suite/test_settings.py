"""The suite's settings are checked before use: every hostile value of every setting is a usage error naming the
setting and where it was read, never a traceback, a hang or a silent default."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _advisor_conformance_pytestplugin import Setting
from advisor_conformance._pytest_plugin import settings as loaders
from advisor_conformance._tools.cli._options import seconds

#: Values of the wrong type for any setting, as a TOML configuration file can hold them.
WRONG_TYPES = st.one_of(
    st.none(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
#: Numbers that are no timeout: not finite, not above 0, or above a day.
BAD_NUMBERS = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, 1e9, 86400.001, 10**400]),
    st.floats().filter(lambda x: not 0 < x <= loaders.HARNESS_TIMEOUT_MAX),
    st.integers().filter(lambda x: not 0 < x <= loaders.HARNESS_TIMEOUT_MAX),
)
BAD_TIMEOUTS = st.one_of(
    BAD_NUMBERS,
    BAD_NUMBERS.map(lambda x: repr(x) if isinstance(x, float) else str(x)),
    st.sampled_from(["ten", "", " ", "60s", "1_0e9", "0x10", "NaN", "Infinity", "-inf", "1e400"]),
    st.booleans(),
    WRONG_TYPES,
)
BAD_SWITCHES = st.one_of(
    st.text(max_size=8).filter(
        lambda t: t.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off", "")
    ),
    st.integers(),
    st.floats(),
    WRONG_TYPES,
)
BAD_PATHS = st.one_of(
    st.just(""), st.just("   "), st.text(min_size=1).map(lambda t: t + "\x00"), st.integers(), WRONG_TYPES
)
#: The bytes of an xfails file that is no UTF-8 text: Latin-1 with a byte no UTF-8 has, UTF-16, NUL, any bytes with
#: a lone continuation byte.
BAD_FILE_BYTES = st.one_of(
    st.text(min_size=1, max_size=40).map(
        lambda t: ("elision.marker-format  # " + t + " ÿ").encode("latin-1", "replace")
    ),
    st.text(min_size=1, max_size=40).map(lambda t: ("elision.marker-format\n" + t).encode("utf-16")),
    st.binary(max_size=40).map(lambda b: b"elision.marker-format\n" + b + b"\x00"),
    st.binary(max_size=40).map(lambda b: b + b"\x80" + b),
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # a TOML-typed value may be anything


def _refused(name: str, value: object, base: Path, file: Path) -> str:
    with pytest.raises(pytest.UsageError) as caught:
        loaders.check(name, Setting(value, "ini", file), base, base)
    return str(caught.value)


def _names_the_setting(message: str, name: str, file: Path) -> None:
    assert name in message and file.name in message, message


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=BAD_TIMEOUTS)
def test_a_hostile_harness_timeout_is_a_usage_error(tmp_path, value):
    """A harness timeout that is no finite number of seconds in (0, 86400] is refused, naming the setting and its
    file; an explicit 0 never becomes the default."""
    file = tmp_path / "pyproject.toml"
    _names_the_setting(
        _refused("conformance_harness_timeout", value, tmp_path, file), "conformance_harness_timeout", file
    )


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=BAD_SWITCHES)
def test_a_hostile_switch_is_a_usage_error(tmp_path, value):
    """conformance_strict_should that is no word for true or false is refused (it was read as false)."""
    file = tmp_path / "pytest.ini"
    _names_the_setting(_refused("conformance_strict_should", value, tmp_path, file), "conformance_strict_should", file)


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["conformance_xfails_file", "conformance_snapshots"]), value=BAD_PATHS)
def test_a_hostile_path_is_a_usage_error(tmp_path, name, value):
    """A path setting that is not a non-empty string of printable characters is refused."""
    file = tmp_path / "tox.ini"
    _names_the_setting(_refused(name, value, tmp_path, file), name, file)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=BAD_FILE_BYTES)
def test_an_xfails_file_in_another_encoding_is_a_usage_error(tmp_path, data):
    """An xfails file that is not UTF-8 text (Latin-1, UTF-16, NUL, stray bytes) is refused, naming the setting."""
    (tmp_path / "xfails.txt").write_bytes(data)
    file = tmp_path / "setup.cfg"
    _names_the_setting(
        _refused("conformance_xfails_file", "xfails.txt", tmp_path, file), "conformance_xfails_file", file
    )


@pytest.mark.parametrize("kind", ["folder", "fifo", "missing", "oversize", "link-to-folder"])
def test_an_xfails_file_that_is_no_regular_file_of_text_is_a_usage_error(tmp_path, kind):
    """An xfails file that is a folder, a pipe (never opened for a read that would wait), missing, larger than its
    bound or a link to a folder is refused, naming the setting."""
    target = tmp_path / "xfails.txt"
    if kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "oversize":
        target.write_bytes(b"# padding\n" * (loaders.XFAILS_MAX_BYTES // 10 + 1))
    elif kind == "link-to-folder":
        target.symlink_to(tmp_path)
    file = tmp_path / "pyproject.toml"
    _names_the_setting(
        _refused("conformance_xfails_file", "xfails.txt", tmp_path, file), "conformance_xfails_file", file
    )


def test_a_snapshot_folder_that_is_a_file_is_a_usage_error(tmp_path):
    """conformance_snapshots naming an existing file (not a folder) is refused."""
    (tmp_path / "snaps").write_text("not a folder")
    file = tmp_path / "pytest.ini"
    _names_the_setting(_refused("conformance_snapshots", "snaps", tmp_path, file), "conformance_snapshots", file)


def test_good_values_are_read_and_paths_resolve_from_the_files_folder(tmp_path):
    """Valid values load: seconds as a number or its text, the switch's words and TOML booleans, and a path read from a
    configuration file is relative to that file's folder (not the directory the run starts in)."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "xfails.txt").write_bytes("\ufeffelision.marker-format  # é\n".encode())
    file = project / "pyproject.toml"
    assert loaders.check("conformance_harness_timeout", Setting("2.5", "ini", file), project) == 2.5
    assert loaders.check("conformance_harness_timeout", Setting(86400, "ini", file), project) == 86400
    assert loaders.check("conformance_strict_should", Setting(" Yes", "ini", file), project) is True
    assert loaders.check("conformance_strict_should", Setting(False, "ini", file), project) is False
    path, text = loaders.check("conformance_xfails_file", Setting("xfails.txt", "ini", file), project, elsewhere)
    assert path == project / "xfails.txt" and text.startswith("elision.marker-format")
    assert (
        loaders.check("conformance_snapshots", Setting("snaps", "ini", file), project) == (project / "snaps").resolve()
    )


def test_an_option_is_named_as_typed(tmp_path):
    """A value given on the command line is named by its option, as the user typed it."""
    with pytest.raises(pytest.UsageError, match="--harness-timeout=nan"):
        loaders.check("conformance_harness_timeout", Setting(math.nan, "flag"), tmp_path)
    with pytest.raises(pytest.UsageError, match="-o conformance_strict_should=maybe"):
        loaders.check("conformance_strict_should", Setting("maybe", "override"), tmp_path)


@settings(max_examples=30)
@given(value=st.one_of(BAD_NUMBERS.map(str), st.sampled_from(["ten", "", "nan", "inf", "1e9", "0"])))
def test_a_commands_hostile_harness_timeout_is_refused(value):
    """`--harness-timeout` of cache-sim and diff takes a finite number of seconds in (0, 86400] only."""
    with pytest.raises(argparse.ArgumentTypeError):
        seconds(value)
