"""The toolchains of the skeletons' languages (Go, Node.js): found on PATH, or the test is skipped naming the one
missing, and fails instead when the environment variable ``CI`` is set (``.ci/run`` installs golang-go; Node.js
runs advisor-js too). A Go build runs offline, with its cache and module folders under a given folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .runner import clean_env


def toolchain(command: str, package: str) -> str:
    """The path of ``command``, or a skip naming it (a failure under CI)."""
    found = shutil.which(command)
    if found is None:
        reason = f"no {command} on PATH ({package})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, so every skeleton must run (.ci/run installs what it needs)")
        pytest.skip(reason)
    return found


def go_env(where: Path) -> dict[str, str]:
    """The environment of an offline Go build whose cache and module folders lie under ``where``."""
    return {
        **clean_env(),
        "GOCACHE": str(where / "gocache"),
        "GOPATH": str(where / "gopath"),
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "",
        "GOTELEMETRY": "off",
        "CGO_ENABLED": "0",
    }
