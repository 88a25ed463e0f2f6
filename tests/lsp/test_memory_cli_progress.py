"""``rulelens memory index`` progress on stderr: a bar on a terminal, plain periodic lines
otherwise (a log or CI). The CLI is a separate process with stderr a pipe or a real pty.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from .memory_fixtures import Embeddings, MemDemo, api_config, cli


def test_plain_lines_when_stderr_is_not_a_terminal(md: MemDemo, api: Embeddings) -> None:
    api_config(md, api.base_url)
    out = cli(md, "index")
    lines = out.stderr.splitlines()
    assert "\r" not in out.stderr
    assert lines[0] == "rulelens: indexing memory files: 0/5 (MEMORY.md)"
    assert "rulelens: indexing memory files: 5/5" in lines
    assert lines[-1] == "rulelens: embedding chunks: 11/11"
    assert "reindexed 5" in out.stdout and "embedded 11 chunk(s)" in out.stdout
    again = cli(md, "index")                 # nothing to do: no progress lines at all
    assert again.stderr == ""


def test_a_bar_on_a_terminal(md: MemDemo) -> None:
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "rulelens", "memory", "index"],
                              cwd=md.repo, env=md.env, stdout=subprocess.PIPE,
                              stderr=secondary, text=True, timeout=120, check=True)
        os.close(secondary)
        secondary = -1
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:                  # EIO: the pty has no writer left
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if secondary >= 0:
            os.close(secondary)
        os.close(primary)
    text = seen.decode()
    assert "\r[" in text and "] 0/5 MEMORY.md" in text
    assert "rulelens: indexing" not in text, "no plain lines on a terminal"
    assert "reindexed 5" in proc.stdout
