"""Print the README's two quickstart commands, one per line: the install-and-run command, then the test command.

`.ci/run` runs exactly these, and tests/test_ci.py checks there are exactly two, each one line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def quickstart_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks in the README's Quickstart section, in order."""
    section = re.search(r"^## Quickstart\n(.*?)(?=^## )", text, re.S | re.M)
    if section is None:
        raise SystemExit("README.md has no '## Quickstart' section")
    blocks = re.findall(r"^```sh\n(.*?)^```", section[1], re.S | re.M)
    commands = [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]
    if len(commands) != 2:
        raise SystemExit(f"README.md's Quickstart must hold exactly two commands, it holds {len(commands)}")
    return commands


if __name__ == "__main__":
    sys.stdout.write("\n".join(quickstart_commands(README.read_text(encoding="utf-8"))) + "\n")
