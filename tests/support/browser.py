"""Debian's Chromium, headless, as the HTML report's browser test and its benchmark start it (through playwright,
which downloads no browser)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: Headless flags for this machine: as root, no sandbox; no background traffic (the network is closed).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1366, "height": 768}  # a laptop screen


def chromium_path() -> str | None:
    """Debian's Chromium: ADVISOR_CHROMIUM, /usr/bin/chromium, or chromium on PATH."""
    for candidate in (os.environ.get("ADVISOR_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None
