"""Fixtures of the project's own tests."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest


@pytest.fixture(scope="session")
def progress(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Print a progress line of a long-running step on the terminal, past pytest's output capture."""
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def show(line: str) -> None:
        with capture.global_and_fixture_disabled():
            sys.stdout.write(f"\n    {line}")
            sys.stdout.flush()

    return show
