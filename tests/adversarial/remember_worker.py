"""A child process for the concurrency tests: ``remember`` notes, or append like the agent.

    python remember_worker.py remember CWD PREFIX COUNT   (env: the memory home)
    python remember_worker.py agent PATH PREFIX COUNT

``remember`` prints one JSON line per note: ``{"marker", "sha256"}`` when acknowledged,
``{"marker", "refused"}`` otherwise; every other note passes a stale ``expectedSha256``
(the hash of the file as first read) so some are refused. ``agent`` appends like Grok's
``append_to_memory`` (``O_APPEND``, ``"\\n\\n"`` and the note as two writes, no lock).
"""

from __future__ import annotations

import json
import os
import sys


def note(prefix: str, i: int) -> tuple[str, str]:
    """(text to remember, the marker line that appears once in the file)."""
    marker = f"body {prefix}-{i:04d} end"
    return f"Note {prefix}-{i}\n{marker}", marker


def agent_append(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size > 0:
            os.write(fd, b"\n\n")
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def remember(cwd: str, prefix: str, count: int) -> None:
    from rulelens.memory.remember import RememberError
    from rulelens.memory.service import MemoryService, content_sha256

    svc = MemoryService()
    path, _ = svc.memory_file(cwd, "global")
    with open(path, "rb") as fh:
        stale = content_sha256(fh.read())
    for i in range(count):
        text, marker = note(prefix, i)
        try:
            done = svc.remember(cwd, text, "global",
                                expected_sha256=stale if i % 2 else None)
            print(json.dumps({"marker": marker, "sha256": done.sha256}), flush=True)
        except RememberError as exc:
            print(json.dumps({"marker": marker, "refused": str(exc)}), flush=True)


def main(argv: list[str]) -> int:
    mode, target, prefix, count = argv[1], argv[2], argv[3], int(argv[4])
    if mode == "agent":
        for i in range(count):
            agent_append(target, f"## Agent {prefix}-{i}\n\n{note(prefix, i)[1]}")
    else:
        remember(target, prefix, count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
