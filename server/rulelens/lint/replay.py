"""A whole ``rulelens lint`` run answered from the record of the last identical run.

The result cache (:mod:`rulelens.lint.resultcache`) keeps each file's findings, but a run
whose files all answer from it still imports the walker, ``argparse``, the finding model
and the output writers. This record keeps what the last run printed, with everything that
decided it:

* the key: the command line, the working directory, the agents' environment variables
  and ``PATH``, the Python;
* RuleLens's own code (size and mtime of its modules);
* every directory the walk entered or peeked into, with its mtime (a file added, removed
  or renamed anywhere in the tree changes it), and the directories from each path up to
  its git root (a ``.git`` appearing or going changes one of them);
* the blake3 digest of every file the findings depended on (the linted files, their
  chains, the manifests their commands were checked against, the configuration) and of
  the git ignore inputs (the root ``.gitignore``, the git configs naming an excludes file,
  that file).

When every one of them still holds, the run prints exactly what it printed and exits with
the same status, importing nothing but this module, ``json`` and ``blake3``. Anything else
(a changed byte, a new file, ``--fix``, ``--diff``, ``--no-cache``, a terminal on stdout)
runs the linter as usual, which writes a new record. What the result cache does not
cover, this does not either (files outside the tree probed only for existence, agents'
home configuration read by the RL213/RL406 views); ``--no-cache`` is the way round both.

Deliberately light: standard library, ``blake3`` and :mod:`rulelens.agents.safeio` only,
and no ``typing`` at run time (``rulelens lint`` starts through here).
"""

from __future__ import annotations

import json
import os
import sys

import blake3

from rulelens.agents import safeio

TYPE_CHECKING = False  # not typing's: importing typing costs a replayed run ~8 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

VERSION = "lint-v3"
#: Environment variables that decide what an agent loads (their values key every cache).
ENV_PREFIXES = ("GROK_", "CODEX_", "GEMINI_", "CLAUDE_", "COPILOT_", "XDG_CONFIG_HOME",
                "HOME", "OPENCODE_", "QWEN_")
#: Options whose runs are never answered from a record (they write, or ask for no cache).
_NOT_REPLAYED = ("--fix", "--diff", "--no-cache", "-h", "--help", "--version")


def cache_dir(env: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/rulelens/lint-v3`` (``~/.cache`` when unset)."""
    from rulelens.agents.fs import home_of

    base = env.get("XDG_CACHE_HOME") or os.path.join(home_of(env), ".cache")
    return os.path.join(base, "rulelens", VERSION)


def code_signature() -> str:
    """Size and mtime of every RuleLens module: a changed linter never reads old results."""
    import rulelens

    root = os.path.dirname(os.path.abspath(rulelens.__file__))
    h = blake3.blake3()
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(directory, name))
                except OSError:
                    continue
                h.update(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def digest(path: str) -> str:
    """blake3 of the file's bytes; ``missing`` or ``unreadable`` when it cannot be read."""
    try:
        return blake3.blake3(safeio.read_bytes(path, safeio.TEXT_LIMIT)).hexdigest()
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return "unreadable"


def replayable(argv: Sequence[str]) -> bool:
    """Whether this ``rulelens lint ...`` command line may be answered from a record."""
    if argv[:1] != ["lint"] or any(a.split("=", 1)[0] in _NOT_REPLAYED for a in argv):
        return False
    try:
        return not (sys.stdout.isatty() or sys.stderr.isatty())
    except (AttributeError, ValueError):
        return False


def record_path(argv: Sequence[str], env: Mapping[str, str]) -> str:
    wanted = sorted((k, v) for k, v in env.items()
                    if k.startswith(ENV_PREFIXES) or k == "PATH")
    key = json.dumps([list(argv), os.getcwd(), wanted, sys.version, sys.executable])
    name = blake3.blake3(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(cache_dir(env), "replay", name + ".json")


def replay(argv: Sequence[str], env: Mapping[str, str]) -> int | None:
    """Print the recorded output and return its exit status if nothing it depended on
    changed; ``None`` (nothing printed) otherwise."""
    try:
        with open(record_path(argv, env), encoding="utf-8") as fh:
            record = json.load(fh)
        dirs, files = record["dirs"], record["files"]
        out, err, status = record["stdout"], record["stderr"], record["status"]
        if not (isinstance(out, str) and isinstance(err, str) and isinstance(status, int)):
            return None
        if record["code"] != code_signature():
            return None
        for path, mtime in dirs:
            if os.stat(path).st_mtime_ns != mtime:
                return None
        for path, known in files:
            if digest(path) != known:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for stream, text in ((sys.stderr, err), (sys.stdout, out)):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
        stream.write(text)
    return status


class _Tee:
    """A text stream that writes through and keeps a copy of what was written."""

    def __init__(self, stream: object) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)  # type: ignore[attr-defined, no-any-return]

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


class Recorder:
    """While a replayable run prints, keeps a copy; :meth:`save` writes the record."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.path = record_path(argv, env)
        self.out, self.err = _Tee(sys.stdout), _Tee(sys.stderr)
        self.saved = (sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = self.out, self.err

    def close(self) -> None:
        sys.stdout, sys.stderr = self.saved

    def save(self, status: int, code: str, dirs: Iterable[tuple[str, int]],
             files: Mapping[str, str]) -> None:
        """Write the record: the exit ``status``, the :func:`code_signature` the run was
        keyed by, the directories and their mtimes, the files and their digests. A record
        that cannot be written only costs time."""
        record = {"code": code, "status": status,
                  "stdout": "".join(self.out.parts), "stderr": "".join(self.err.parts),
                  "dirs": sorted(set(dirs)), "files": sorted(files.items())}
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(json.dumps(record, separators=(",", ":")))
            os.replace(tmp, self.path)
        except OSError:
            pass
