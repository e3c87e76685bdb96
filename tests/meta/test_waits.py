"""Every wait in the reference, the suite and this repository's tests has a deadline: no join, wait, queue get,
result, barrier, executor, server shutdown or subprocess without a timeout (a read of the source, in process)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHERE = ("reference", "conformance", "tests")
#: Waits without a deadline on purpose, each with its reason: (path, the call's source start).
ALLOWED = {
    # `advisor-conformance run` is the user's own pytest run in the foreground: it lasts as long as the suite does,
    # and every operation in it has the harness's deadline.
    ("conformance/advisor_conformance/_tools/cli/run.py", "subprocess.call("),
    # a ContextVar's get, not a queue's
    ("reference/advisor_reference/_http.py", "_DEADLINE.get()"),
}
#: Methods that wait forever when called with no argument at all.
_NO_ARGUMENT = {"join", "wait", "get", "result", "exception", "acquire", "shutdown"}
_SUBPROCESS = {"run", "call", "check_call", "check_output"}


def _name(node: ast.Call) -> tuple[str, str]:
    func = node.func
    if isinstance(func, ast.Attribute):
        return ast.unparse(func.value), func.attr
    return "", func.id if isinstance(func, ast.Name) else ""


def untimed_waits(source: str) -> list[tuple[int, str]]:
    """The waits without a deadline in one module's source: (line, the call's source)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        owner, name = _name(node)
        keywords = {keyword.arg for keyword in node.keywords}
        bare = not node.args and not node.keywords
        if (
            (name in _NO_ARGUMENT and bare)
            or (name == "Barrier" and "timeout" not in keywords and len(node.args) < 3)
            or name in ("ThreadPoolExecutor", "ProcessPoolExecutor")  # their shutdown waits for every task
            or (name == "communicate" and "timeout" not in keywords)
            or (owner == "subprocess" and name in _SUBPROCESS and "timeout" not in keywords)
        ):
            found.append((node.lineno, ast.unparse(node)))
    return found


def _modules():
    for where in WHERE:
        yield from sorted((ROOT / where).rglob("*.py"))


@pytest.mark.parametrize(
    "source, expected",
    [
        ("t.join()", 1),
        ("t.join(5)", 0),
        ("','.join(parts)", 0),
        ("e.wait()", 1),
        ("e.wait(timeout=1)", 0),
        ("q.get()", 1),
        ("d.get('k')", 0),
        ("f.result()", 1),
        ("threading.Barrier(3)", 1),
        ("threading.Barrier(3, timeout=1)", 0),
        ("ThreadPoolExecutor(4)", 1),
        ("p.communicate(b'x')", 1),
        ("p.communicate(timeout=3)", 0),
        ("subprocess.run(['a'])", 1),
        ("subprocess.run(['a'], timeout=9)", 0),
        ("server.shutdown()", 1),
        ("sock.shutdown(socket.SHUT_WR)", 0),
        ("lock.acquire()", 1),
    ],
)
def test_the_audit_finds_untimed_waits(source, expected):
    """The audit flags each kind of wait without a deadline, and nothing that has one (or is no wait)."""
    assert len(untimed_waits(source)) == expected


def test_every_wait_has_a_deadline():
    """No module of the reference, the suite or the tests waits without a deadline, but the allowed ones."""
    found = []
    for path in _modules():
        relative = path.relative_to(ROOT).as_posix()
        for line, call in untimed_waits(path.read_text(encoding="utf-8")):
            if not any(relative == where and call.startswith(start) for where, start in ALLOWED):
                found.append(f"{relative}:{line}: {call[:100]}")
    assert not found, "waits without a deadline:\n" + "\n".join(found)
