"""``rulelens verify`` on a 1 GiB Codex rollout stays in bounded memory.

The file: the ``session_meta`` line, one 640 MiB line that never ends (a sparse hole of
zero bytes: it cannot be held, only counted), then ~385 MiB of ordinary 1 KiB
``event_msg`` lines and last the AGENTS.md message. The run is a real ``rulelens verify``
in a child process; its peak is the child's own ``VmHWM`` (not ``ru_maxrss``, which Linux
carries over ``execve`` from a large parent).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

from .conftest import Workspace
from .formats import codex_rollout, codex_text

HOLE = 640 << 20
FILLER = 385 << 20
#: Far below either the file (1 GiB) or its longest line (640 MiB).
PEAK_LIMIT_KIB = 200 * 1024


def test_one_gigabyte_session_in_bounded_memory(ws: Workspace) -> None:
    ws.write("AGENTS.md", "Use pytest.\n")
    cwd = str(ws.repo)
    text = codex_text(cwd, None, ["Use pytest.\n"])
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00",
                         "0199a1b2-0000-7000-8000-0000000b16f1", None)
    head = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    line = json.dumps({"timestamp": "2026-09-01T10:00:01.000Z", "type": "event_msg",
                       "payload": {"type": "agent_message", "message": "x" * 900}}).encode()
    block = (line + b"\n") * ((1 << 20) // (len(line) + 1))
    last = json.dumps({"timestamp": "2026-09-01T10:00:00.000Z", "type": "response_item",
                       "payload": {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]}})
    with path.open("wb") as f:
        f.write(head)
        f.truncate(len(head) + HOLE)  # the hole: zero bytes, no newline
        f.seek(len(head) + HOLE)
        f.write(b"\n")
        for _ in range(FILLER // len(block)):
            f.write(block)
        f.write(last.encode() + b"\n")
    size = path.stat().st_size
    assert size >= 1 << 30
    code = ("import re, sys; from rulelens.cli import main; rc = main(sys.argv[1:]);"
            " hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read());"
            " print('HWM', hwm.group(1) if hwm else -1, file=sys.stderr); sys.exit(rc)")
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code, "verify", "--agent", "codex", "--cwd",
                           cwd, "--json"], env={**ws.env, "PYTHONPATH": ":".join(sys.path)},
                          capture_output=True, timeout=600, check=False)
    seconds = time.monotonic() - began
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert done.returncode == 0, done.stderr.decode()
    result = json.loads(done.stdout)
    assert result["verdict"] == "match"
    assert result["observed"] == [{"path": str(ws.repo / "AGENTS.md"), "when": "start",
                                   "matches_disk": True}]
    assert "1 line over 32 MiB skipped" in result["reason"]
    found = re.search(rb"HWM (\d+)", done.stderr)
    assert found is not None
    peak = int(found.group(1))
    print(f"1 GiB rollout ({size:,} bytes): peak RSS {peak // 1024} MiB, {seconds:.1f} s")
    assert 0 < peak < PEAK_LIMIT_KIB, peak
