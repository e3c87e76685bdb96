"""The workspace, runtime and invalid advisor calls shared by the handler tests."""

from __future__ import annotations

import pytest

from advisor_conformance.scenarios import call

SPEC = {"src/app.py": {"text": "print('hello')\n"}, "pipe": {"fifo": True},
        "secrets/key.txt": {"text": "KEY=do-not-send\n"},
        **{f"pkg/f{i}.py": {"text": f"# file {i}\n"} for i in range(9)}}


RUNTIME = {"max_uses_per_run": 1, "blocked_paths": ["secrets"]}


#: Each validation failure, its error code, and the rule that makes it an error (the failure's own rule; whether it
#: then consumes a use is handler.validation-no-use's, and whether it comes before the budget handler.step-order's).
VALIDATION_FAILURES = [
    (call(input={"question": 1}), "invalid_input", "tool.wrong-type-error"),
    (call(input={"files": "src/app.py"}), "invalid_input", "tool.wrong-type-error"),
    (call(input={"files": ["src/app.py", 7]}), "invalid_input", "tool.wrong-type-error"),
    (call(input={"files": ["src/app.py"] * 9}), "too_many_files", "files.max-count"),
    (call(input={"files": ["missing.txt"]}), "file_error", "workspace.missing-file"),
    (call(input={"files": ["src/app.py", "missing.txt"]}), "file_error", "workspace.missing-file"),
    (call(input={"files": ["secrets/key.txt"]}), "file_error", "workspace.path-policy"),
    (call(input={"files": ["pipe"]}), "file_error", "workspace.special-files"),
    (call(snapshot=None), "missing_snapshot", "handler.validation-no-use"),
]


VALIDATION_IDS = ["argument-type", "files-not-a-list", "file-item-not-a-string", "too-many-files", "missing-file",
                  "missing-after-a-good-file", "blocked-file", "special-file", "no-snapshot"]


def validation_cases(indexes=None, whole=True):
    """The validation failures (those at ``indexes``, all by default) as parameters, each marked with the area of the
    rule that refuses it (the tool's input types, the files' count, the workspace's reads): ``whole``, the case's
    ``(call, code, rule)``; else its index."""
    chosen = range(len(VALIDATION_FAILURES)) if indexes is None else indexes
    return [
        pytest.param(*(VALIDATION_FAILURES[index] if whole else (index,)), id=VALIDATION_IDS[index],
                     marks=[pytest.mark.needs(areas=[VALIDATION_FAILURES[index][2].split(".", 1)[0]])])
        for index in chosen
    ]
