"""Sessions: realistic growing coding-agent sessions, as data (``fixtures/sessions/*.json``).

A session file (``format: "advisor-cache-session/1"``; ``fixtures/sessions/README.md`` documents it for other
languages) holds the conversations of one agent run (the main agent's, and each sub-agent's, a compaction
starting a new conversation), the files of its workspace, and the advisor calls in time order::

    {"format": "advisor-cache-session/1", "name": "...", "description": "...",
     "session_id": "...", "model": "...",
     "workspace": {"src/app.py": {"seed": 11, "bytes": 5400}, ...},
     "conversations": [{"id": "main-1", "agent": null, "conversation": 1, "messages": [MESSAGE, ...]}, ...],
     "calls": [{"at": 312.5, "conversation": "main-1", "turn": 2, "messages": 23,
                "input": {"question": "...", "files": ["src/app.py"]}}, ...]}

A call's snapshot is the first ``messages`` messages of its conversation. The last of them is the assistant
message that issued the call; its tool calls have no result yet, so the snapshot carries it without them (the
spec's replay sanitising), and the message after it is the advisor's tool result, whose content is the
answer the call is scripted to get.

Large strings are written as macros, expanded anywhere a string goes:

* ``{"$text": {"seed": S, "bytes": B, "style": "code" | "log" | "prose"}}``: B bytes of ASCII text drawn from the
  style's line pool by the generator below (:func:`text`);
* ``{"$file": {"path": P}}``: the content of workspace file P;
* ``{"$read": {"path": P, "seed": S, "bytes": B, "start": 1, "end": null}}``: a result of the read tool (the JSON
  object of clarifications §1) over the content ``$text`` (code) of that seed and size, lines ``start`` to
  ``end`` (the whole file when ``end`` is null);
* ``{"$repeat": [s, n]}`` and ``{"$concat": [...]}`` as in ``fixtures/README.md``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..._paths import fixtures_dir
from ...oracle import file_hash

FORMAT = "advisor-cache-session/1"
_MASK = (1 << 64) - 1

# The words of each style's line pool (the pools are part of the format: changing them changes every session).
_WORDS = {
    "code": (
        "self",
        "value",
        "result",
        "request",
        "config",
        "items",
        "index",
        "cache",
        "client",
        "error",
        "handler",
        "payload",
        "session",
        "record",
        "buffer",
        "options",
        "context",
        "response",
        "total",
        "count",
        "user",
        "order",
        "path",
        "name",
        "data",
        "key",
        "limit",
        "offset",
        "state",
        "event",
    ),
    "log": (
        "PASS",
        "FAIL",
        "ok",
        "tests/test_api.py",
        "collected",
        "passed",
        "failed",
        "warning",
        "INFO",
        "DEBUG",
        "ERROR",
        "took",
        "ms",
        "assert",
        "expected",
        "got",
        "line",
        "module",
        "build",
        "step",
        "running",
        "done",
        "retry",
        "timeout",
        "exit",
        "status",
        "0",
        "1",
        "42",
        "200",
    ),
    "prose": (
        "the",
        "test",
        "change",
        "function",
        "because",
        "should",
        "first",
        "then",
        "we",
        "it",
        "a",
        "this",
        "fails",
        "when",
        "order",
        "service",
        "call",
        "before",
        "after",
        "check",
        "keep",
        "module",
        "plan",
        "risk",
        "input",
        "value",
        "edge",
        "case",
        "works",
        "next",
    ),
}
_POOL_SIZE = 512


def splitmix64(x: int) -> int:
    """One step of SplitMix64 (Steele, Lea, Flood 2014): the generator's only source of numbers."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


@cache
def _pool(style: str) -> tuple[str, ...]:
    """512 lines of a style: line i has 3 + (h % 9) words chosen by successive SplitMix64 values of 1000 * i."""
    words = _WORDS[style]
    lines = []
    for i in range(_POOL_SIZE):
        h = splitmix64(1000 * i + len(style))
        count = 3 + h % 9
        chosen = []
        for j in range(count):
            h = splitmix64(h + j)
            chosen.append(words[h % len(words)])
        if style == "code":
            indent = "    " * (h % 3)
            line = f"{indent}{chosen[0]} = {'.'.join(chosen[1:3])}({', '.join(chosen[3:])})"
        elif style == "log":
            line = " ".join(chosen)
        else:
            line = " ".join(chosen).capitalize() + "."
        lines.append(line + "\n")
    return tuple(lines)


def text(seed: int, nbytes: int, style: str = "code") -> str:
    """``nbytes`` bytes of ASCII text: a header line naming the seed, then pool lines ``splitmix64(seed * 2**20 + i)
    % 512`` for i = 0, 1, ..., cut to exactly ``nbytes``."""
    pool = _pool(style)
    parts = [f"# {style} {seed}\n"]
    size = len(parts[0])
    i = 0
    base = seed << 20
    while size < nbytes:
        line = pool[splitmix64(base + i) % _POOL_SIZE]
        parts.append(line)
        size += len(line)
        i += 1
    return "".join(parts)[:nbytes]


def read_result(path: str, content: str, start: int = 1, end: int | None = None) -> str:
    """The read tool's JSON result (clarifications §1) over lines ``start``..``end`` of ``content``."""
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = max(1, len(lines))
    end = total if end is None else min(end, total)
    output = "\n".join(lines[start - 1 : end])
    return json.dumps(
        {
            "path": path,
            "start_line": start,
            "end_line": end,
            "total_lines": total,
            "file_hash": file_hash(content.encode("utf-8")),
            "output": output,
        }
    )


@dataclass
class Conversation:
    id: str
    agent: str | None
    conversation: int
    messages: list[dict[str, Any]]


@dataclass
class Call:
    index: int
    at: float
    conversation: str
    turn: int
    messages: int
    input: dict[str, Any]


@dataclass
class Session:
    """A session file, expanded."""

    name: str
    description: str
    session_id: str
    model: str
    workspace: dict[str, str]
    conversations: dict[str, Conversation]
    calls: list[Call]
    path: Path | None = None
    raw_bytes: int = 0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def message_count(self) -> int:
        return sum(len(c.messages) for c in self.conversations.values())

    def snapshot(self, call: Call) -> list[dict[str, Any]]:
        """The live snapshot of a call: its conversation so far, the in-flight message without its tool calls."""
        messages = self.conversations[call.conversation].messages[: call.messages]
        last = dict(messages[-1])
        last.pop("tool_calls", None)
        return [*messages[:-1], last]

    def answer(self, call: Call) -> str:
        """The advisor's answer to a call: the content of the tool result that follows the in-flight message."""
        return self.conversations[call.conversation].messages[call.messages]["content"]


def load_session(path: str | Path) -> Session:
    """Read, check and expand one session file (``loader.py``: bounded, every field checked); raises
    :class:`~advisor_conformance._tools.inputs.InputError` (a ``ValueError``) naming the file and the field."""
    from .loader import load

    return load(path)


def sessions_dir() -> Path:
    return fixtures_dir() / "sessions"


def shipped_sessions() -> list[Path]:
    """The session files shipped with the suite, by name."""
    return sorted(sessions_dir().glob("*.json"))


def find_session(name: str) -> Path:
    """A session by file path or by the name of a shipped one."""
    candidate = Path(name)
    if candidate.suffix == ".json" and candidate.exists():
        return candidate
    for path in shipped_sessions():
        if path.stem == name:
            return path
    known = ", ".join(p.stem for p in shipped_sessions())
    raise FileNotFoundError(f"no session {name!r} (shipped: {known})")


@dataclass(frozen=True)
class Shape:
    """What a session models, counted from it: the gaps between its advisor calls, its sub-agents and compactions."""

    messages: int
    calls: int
    subagent_calls: int
    subagents: int
    compactions: int
    median_gap: float  # seconds between consecutive advisor calls (any conversation)
    longest_gap: float
    gaps_over_5m: int
    gaps_over_1h: int


def shape(session: Session) -> Shape:
    gaps = sorted(b.at - a.at for a, b in itertools.pairwise(session.calls))
    agents = {c.agent for c in session.conversations.values() if c.agent}
    mains = [c for c in session.conversations.values() if not c.agent]
    return Shape(
        session.message_count,
        len(session.calls),
        sum(1 for call in session.calls if session.conversations[call.conversation].agent),
        len(agents),
        max(0, len(mains) - 1),
        gaps[len(gaps) // 2] if gaps else 0.0,
        gaps[-1] if gaps else 0.0,
        sum(g > 300 for g in gaps),
        sum(g > 3600 for g in gaps),
    )
