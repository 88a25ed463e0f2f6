"""Hostile files on disk, for every adversarial test that needs one.

:func:`make` puts a FIFO, a socket, a character device (``mknod``, root only), or a symlink
to ``/dev/zero``, ``/dev/urandom``, ``/proc/self/mem`` or a FIFO at a path; the other
builders write a 200,000-deep ``config.toml``, catastrophic and huge ``.gitignore`` files,
and names that are not UTF-8. :class:`Tree` is a git repository with a fake home, and runs
the CLI as a real process under a timeout, so a hang fails the test instead of stalling CI.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Every child process gets this long; a hang is a failure, not a stall.
TIMEOUT_S = 60

#: Kinds :func:`make` builds, and what ``safeio`` calls each (``kind`` in a reason).
KINDS: dict[str, str] = {
    "fifo": "a FIFO",
    "socket": "a socket",
    "chardev": "a character device",
    "dev-zero": "a character device",
    "dev-urandom": "a character device",
    "proc-self-mem": "a kernel pseudo-file (/proc)",
    "fifo-link": "a FIFO",
}

#: A rules-directory name that is not UTF-8 (``\xff\xfe.md``), as the file system holds it.
NON_UTF8_NAME = b"\xff\xfe.md"


def available(kind: str) -> bool:
    """``mknod`` of a character device needs root; everything else always works here."""
    return kind != "chardev" or os.geteuid() == 0


def kinds() -> list[str]:
    return [k for k in KINDS if available(k)]


def make(path: Path, kind: str) -> Path:
    """Put a ``kind`` (see :data:`KINDS`) at ``path``; parents are created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        _bind_socket(path)
    elif kind == "chardev":
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "dev-urandom":
        path.symlink_to("/dev/urandom")
    elif kind == "proc-self-mem":
        path.symlink_to("/proc/self/mem")
    elif kind == "fifo-link":
        target = path.with_name(path.name + ".fifo-target")
        os.mkfifo(target)
        path.symlink_to(target.name)
    else:
        raise ValueError(kind)
    return path


def _bind_socket(path: Path) -> None:
    """A socket file at ``path`` (an ``AF_UNIX`` address is at most 108 bytes: bind in a
    short directory, then move the inode into place)."""
    short = tempfile.mkdtemp(prefix="s", dir="/tmp")
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(os.path.join(short, "s"))
        finally:
            sock.close()
        os.rename(os.path.join(short, "s"), path)
    finally:
        shutil.rmtree(short, ignore_errors=True)


def deep_toml(depth: int = 200_000) -> str:
    """``x = [[[[...]]]]``, ``depth`` levels: tomllib recurses once per level."""
    return "x = " + "[" * depth + "]" * depth + "\n"


def deep_inline_tables(depth: int = 100_000) -> str:
    return "x = " + "{a = " * depth + "1" + "}" * depth + "\n"


def catastrophic_pattern(stars: int = 30) -> str:
    """``a*a*a*...a*b``: exponential for a backtracking matcher against ``aaaa...``."""
    return "a*" * stars + "b"


@dataclass
class Tree:
    """A git repository ``repo`` and a fake home; the CLI runs against them only."""

    base: Path
    home: Path
    grok_home: Path
    repo: Path
    env: dict[str, str]

    def rules(self, name: str | bytes = "") -> Path:
        rules = self.repo / ".grok" / "rules"
        rules.mkdir(parents=True, exist_ok=True)
        if isinstance(name, bytes):
            return Path(os.fsdecode(os.fsencode(rules) + b"/" + name))
        return rules / name if name else rules

    def run(self, *args: str, timeout: float = TIMEOUT_S,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        """``rulelens ARGS`` as a real process, killed (and the test failed) on timeout."""
        return subprocess.run([sys.executable, "-m", "rulelens", *args], cwd=self.base,
                              env={**self.env, **(env or {})}, capture_output=True,
                              timeout=timeout, check=False)

    def chain(self, path: Path | None = None) -> dict[str, Any]:
        done = self.run("chain", "--json", str(path or self.repo))
        assert_clean(done)
        assert done.returncode == 0, done.stderr.decode()
        result: dict[str, Any] = json.loads(done.stdout.decode("utf-8"))
        return result

    def reasons(self, chain: dict[str, Any]) -> dict[str, tuple[str, str]]:
        """Skipped entries as ``{path relative to base: (reason, detail)}``."""
        return {os.path.relpath(s["path"], self.base): (s["reason"], s["detail"])
                for s in chain["skipped"]}


def make_tree(base: Path) -> Tree:
    home = base / "home"
    grok_home = home / ".grok"
    grok_home.mkdir(parents=True)
    repo = base / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=TIMEOUT_S)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "GIT_"))}
    env.update(HOME=str(home), GROK_HOME=str(grok_home), LANG="C.UTF-8",
               XDG_CONFIG_HOME=str(base / "xdg" / "config"),
               XDG_CACHE_HOME=str(base / "xdg" / "cache"),
               XDG_STATE_HOME=str(base / "xdg" / "state"),
               XDG_DATA_HOME=str(base / "xdg" / "data"),
               GIT_CONFIG_NOSYSTEM="1",
               # Folder trust (grok 1.0.45) would withhold every project file of a fresh
               # repository; these tests are about reading files, not about trust.
               GROK_FOLDER_TRUST="0")
    return Tree(base, home, grok_home, repo, env)


def assert_clean(done: subprocess.CompletedProcess[bytes]) -> None:
    """No traceback, and stdout and stderr are valid UTF-8."""
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    done.stdout.decode("utf-8")
    done.stderr.decode("utf-8")


def one_error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The single ``rulelens: error: ...`` line of a command that exited 2."""
    assert_clean(done)
    assert done.returncode == 2, (done.returncode, done.stderr.decode())
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("rulelens: error: "), lines
    return lines[0]


#: Runs ``rulelens ARGS`` (argv[2:]) and writes its peak resident KiB (VmHWM, the child's
#: own: ru_maxrss would carry the parent's over ``execve``) to argv[1] at exit.
PEAK_WRAP = (
    "import atexit, re, runpy, sys\n"
    "out = sys.argv[1]\n"
    "def _peak():\n"
    "    m = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())\n"
    "    open(out, 'w').write(m.group(1) if m else '-1')\n"
    "atexit.register(_peak)\n"
    "sys.argv = ['rulelens', *sys.argv[2:]]\n"
    "runpy.run_module('rulelens', run_name='__main__', alter_sys=True)\n"
)


def run_limited(tree: Tree, args: tuple[str, ...], cwd: Path, address_limit: int,
                timeout: float = TIMEOUT_S
                ) -> tuple[subprocess.CompletedProcess[bytes], int, float]:
    """``rulelens ARGS`` in ``cwd`` under an address-space limit and a timeout:
    (result, peak RSS in KiB or -1, seconds); no traceback and valid UTF-8 asserted."""
    import resource
    import time

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_limit, address_limit))

    peak_file = tree.base / "peak.txt"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", PEAK_WRAP, str(peak_file), *args], cwd=cwd,
                          env=tree.env, capture_output=True, timeout=timeout, check=False,
                          preexec_fn=limit)
    took = time.monotonic() - start
    assert_clean(done)
    peak = int(peak_file.read_text()) if peak_file.exists() else -1
    peak_file.unlink(missing_ok=True)
    return done, peak, took
