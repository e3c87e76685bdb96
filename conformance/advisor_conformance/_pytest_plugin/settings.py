"""The suite's settings: each read where the run names it, checked, and refused with a usage error naming it.

A setting comes from its command-line option, else ``-o name=value``, else the
project's configuration file (``pyproject.toml``'s ``[tool.pytest.ini_options]``,
``pytest.ini``, ``tox.ini``, ``setup.cfg``; under `advisor-conformance run`, the
file nearest the directory it starts in), else its default. Each has one
loader here that checks the value before use (its type, a finite number in
range, a word it knows, a regular file of UTF-8 text within a bound) and
stops the run with a usage error naming the setting, its value and where it
was read (:func:`origin`). A path read from a configuration file is relative
to that file's folder, as pytest's own paths are; a path given on the command
line is relative to the directory the run starts in.
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from _advisor_conformance_pytestplugin import ENVIRONMENT_VARIABLE, Setting, ini_setting, project_configuration

#: The seconds a harness may take over one operation, when nothing says otherwise.
HARNESS_TIMEOUT_DEFAULT = 60.0
#: The longest a harness may be given for one operation: a day (a poll's timeout in milliseconds stays an int).
HARNESS_TIMEOUT_MAX = 86400.0
#: The largest xfails file read: a list of expected failures, never a megabyte.
XFAILS_MAX_BYTES = 1 << 20
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")

#: Each setting: its ini key, and its command-line option (the pytest dest, and the flag as the user types it).
SETTINGS = {
    "conformance_harness_timeout": ("harness_timeout", "--harness-timeout"),
    "conformance_strict_should": ("strict_should", "--strict-should"),
    "conformance_xfails_file": ("xfails_file", "--xfails-file"),
    "conformance_snapshots": ("conformance_snapshots", "--impl-snapshots"),
}
#: The option of each ini key, as the user types it.
FLAGS = {"conformance_impl": "--impl", **{name: flag for name, (_, flag) in SETTINGS.items()}}


def origin(name: str, setting: Setting, invocation_dir: Path | None = None) -> str:
    """Where a setting was read, as the user wrote it: ``--harness-timeout=ten``, ``-o
    conformance_harness_timeout=ten``, ``conformance_harness_timeout = ten (pyproject.toml)``; the implementation
    also ``ADVISOR_CONFORMANCE_IMPL=X`` and the default of `advisor-conformance run`."""
    value = setting.value
    if setting.source == "flag":
        return f"{FLAGS.get(name, name)}={value}"
    if setting.source == "override":
        return f"-o {name}={value}"
    if setting.source == "environment":
        return f"{ENVIRONMENT_VARIABLE}={value}"
    if setting.source == "default":
        return f"the default of advisor-conformance run ({value})"
    shown = value if isinstance(value, str) and value.isprintable() else repr(value)
    return f"{name} = {_short(str(shown))} ({shown_path(setting.file, invocation_dir)})"


def shown_path(file: Path | None, invocation_dir: Path | None = None) -> str:
    """A configuration file as the user finds it from the directory the run started in."""
    if file is None:
        return "the default"
    if invocation_dir is None:
        return file.name
    try:
        return os.path.relpath(file, invocation_dir)
    except ValueError:  # another drive
        return str(file)


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _refuse(name: str, setting: Setting, why: str, invocation_dir: Path | None = None) -> pytest.UsageError:
    return pytest.UsageError(f"{origin(name, setting, invocation_dir)}: {why}")


def read(config: pytest.Config, name: str) -> Setting | None:
    """A setting as the run names it: its option, else ``-o``, else the project's file; None when unset."""
    dest, _ = SETTINGS[name]
    value = config.getoption(dest, None)
    if value is not None and value is not False:
        return Setting(value, "flag")
    return ini_setting(config, name)


def base_dir(config: pytest.Config, setting: Setting) -> Path:
    """The folder a path setting is relative to: the configuration file's for a value read from it (or given with
    ``-o``), the directory the run started in for an option."""
    if setting.source in ("ini", "default") and setting.file is not None:
        return setting.file.parent
    if setting.source == "override":
        inipath, _ = project_configuration(config)
        if inipath is not None:
            return inipath.parent
    return config.invocation_params.dir


# -- the loaders: each takes the setting as read, and answers its checked value or raises a usage error -------------


def parse_timeout(name: str, setting: Setting, invocation_dir: Path | None = None) -> float:
    """A harness timeout: a finite number of seconds above 0 and at most :data:`HARNESS_TIMEOUT_MAX`."""
    value = setting.value
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _refuse(name, setting, f"expects a number of seconds, got {type(value).__name__}", invocation_dir)
    try:
        seconds = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        raise _refuse(name, setting, "expects a number of seconds, such as 60", invocation_dir) from None
    if not math.isfinite(seconds) or not 0 < seconds <= HARNESS_TIMEOUT_MAX:
        raise _refuse(
            name,
            setting,
            f"expects a number of seconds above 0 and at most {HARNESS_TIMEOUT_MAX:g} (a day)",
            invocation_dir,
        )
    return seconds


def parse_bool(name: str, setting: Setting, invocation_dir: Path | None = None) -> bool:
    """A switch: true, false (or 1, yes, on / 0, no, off), in any case; a TOML boolean."""
    value = setting.value
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _refuse(name, setting, "expects true or false", invocation_dir)


def parse_path(name: str, setting: Setting, base: Path, invocation_dir: Path | None = None) -> Path:
    """A path: a non-empty string of printable characters, relative to ``base``."""
    value = setting.value
    if not isinstance(value, str) or not value.strip():
        raise _refuse(name, setting, "expects a path", invocation_dir)
    if not value.isprintable():
        raise _refuse(name, setting, "expects a path of printable characters", invocation_dir)
    try:
        return base / Path(os.path.expanduser(value.strip()))
    except (ValueError, RuntimeError):  # an embedded NUL; a ~user that does not exist expands to itself
        raise _refuse(name, setting, "expects a path", invocation_dir) from None


def read_text_file(name: str, setting: Setting, path: Path, invocation_dir: Path | None = None) -> str:
    """The text of a file a setting names: a regular file (not a folder, a pipe or a device) of at most
    :data:`XFAILS_MAX_BYTES` bytes of UTF-8 (a byte-order mark allowed), with no NUL."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _refuse(name, setting, f"no such file: {path}", invocation_dir) from None
    except OSError as exc:
        raise _refuse(name, setting, f"cannot be read: {exc.strerror or exc}", invocation_dir) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refuse(name, setting, f"not a regular file: {path}", invocation_dir)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(XFAILS_MAX_BYTES + 1)
    except OSError as exc:
        raise _refuse(name, setting, f"cannot be read: {exc.strerror or exc}", invocation_dir) from None
    finally:
        os.close(fd)
    if len(data) > XFAILS_MAX_BYTES:
        raise _refuse(name, setting, f"larger than {XFAILS_MAX_BYTES} bytes: not a list of entries", invocation_dir)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _refuse(
            name,
            setting,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line}); save it as UTF-8",
            invocation_dir,
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise _refuse(name, setting, f"holds a NUL character (line {line}): not a text file", invocation_dir)
    return text


# -- the settings of a run -------------------------------------------------------------------------------------------


def check(name: str, setting: Setting, base: Path, invocation_dir: Path | None = None) -> Any:
    """One setting's value as :func:`read` gives it, checked by its loader, with paths relative to ``base``: a
    timeout's seconds, a switch's bool, the xfails file's ``(path, text)``, the snapshot folder; else a usage error
    naming the setting and where it was read."""
    if name == "conformance_harness_timeout":
        return parse_timeout(name, setting, invocation_dir)
    if name == "conformance_strict_should":
        return parse_bool(name, setting, invocation_dir)
    path = parse_path(name, setting, base, invocation_dir)
    if name == "conformance_xfails_file":
        return path, read_text_file(name, setting, path, invocation_dir)
    path = path.resolve()
    if path.exists() and not path.is_dir():
        raise _refuse(name, setting, f"not a folder: {path}", invocation_dir)
    return path


def load(config: pytest.Config, name: str) -> Any:
    """A setting of the run, read (:func:`read`) and checked (:func:`check`); None when unset."""
    setting = read(config, name)
    if setting is None:
        return None
    return check(name, setting, base_dir(config, setting), config.invocation_params.dir)


def harness_timeout(config: pytest.Config) -> float:
    """``--harness-timeout`` / ``conformance_harness_timeout``; 60 when unset."""
    seconds = load(config, "conformance_harness_timeout")
    return HARNESS_TIMEOUT_DEFAULT if seconds is None else seconds


def strict_should(config: pytest.Config) -> bool:
    """``--strict-should`` / ``conformance_strict_should``: whether a failing `should` test fails the run."""
    return bool(load(config, "conformance_strict_should"))
