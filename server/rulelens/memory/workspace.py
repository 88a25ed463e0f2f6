"""Where the agent keeps memory for a folder: roots, the ``<slug>-<hash8>`` name, the files.

Everything here reproduces Grok Build byte for byte (spec §7.2–7.3), because a name that
differs by one character points RuleLens at a different directory than the agent uses, and
the user would see memories the agent never reads (or miss the ones it does).
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass

from blake3 import blake3

from rulelens.agents.fs import canonical, discover_git_root
from rulelens.memory.beneath import (
    Refused,
    SkippedFile,
    entries_beneath,
    kind_of,
    lstat_beneath,
    read_beneath,
    relative_to,
)

#: Memory-file source labels (spec §7.3). ``dream`` is only ever carried over from the
#: agent's own index: it is the label of workspace MEMORY.md rows first written by a dream.
SOURCES = ("global", "workspace", "session", "dream")
EVERGREEN = frozenset({"global", "workspace"})


def normalize_remote_url(url: str) -> str | None:
    """The agent's ``normalize_remote_url``: ``org/repo`` (or ``group/sub/proj``) or None.

    Quirks kept on purpose: ``https://h/a/b.git/`` gives ``a/b.git`` (``.git`` is stripped
    before the trailing ``/``), ``file:///srv/git/proj.git`` gives ``srv/git/proj``, and a
    local path remote (no ``:``) gives None.
    """
    if ":" not in url:
        return None
    before, _, after = url.partition(":")
    if "@" in before and "/" not in before:
        path = after
    else:
        pieces = url.split("//")  # Rust ``split("//").nth(1)``: up to the NEXT "//"
        if len(pieces) < 2:
            return None
        _, sep, path = pieces[1].partition("/")
        if not sep:
            return None
    while path.endswith(".git"):
        path = path[: -len(".git")]
    path = path.rstrip("/").lstrip("/")
    if not path or "/" not in path:
        return None
    return path


def slugify(text: str, max_chars: int) -> str:
    """The memory ``slugify``: lowercase, non-``[a-z0-9]`` to ``-``, collapse, truncate, trim.

    Truncation (in characters) happens before trimming, so ``slugify("-aaaaaaaaa-bbbb", 10)``
    is ``aaaaaaaaa``. (The sessions-directory slugify trims first; it is another function.)
    """
    out: list[str] = []
    for ch in text.lower():
        mapped = ch if ("a" <= ch <= "z" or "0" <= ch <= "9") else "-"
        if mapped == "-" and out and out[-1] == "-":
            continue
        out.append(mapped)
    return "".join(out[:max_chars]).strip("-")


def origin_url(repo_root: str) -> str | None:
    """``remote.origin.url`` of the repository at ``repo_root``, or None.

    Asked of git itself so that includes, worktrees and ``.git`` files resolve as git does.
    ``safe.directory=*`` keeps a repository owned by another user readable (libgit2's
    discovery is not known to refuse it either; spec §11).
    """
    try:
        proc = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", repo_root, "config", "--get",
             "remote.origin.url"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = proc.stdout.strip()
    return url if proc.returncode == 0 and url else None


@dataclass(frozen=True)
class WorkspaceName:
    """The agent's workspace directory name and how it was derived (for ``memory status``)."""

    name: str
    slug: str
    hash8: str
    hash_input: str
    identity: str | None  # ``org/repo`` from origin, or None when the path was hashed
    remote_url: str | None


def workspace_name_for(hash_input: str, slug_source: str, identity: str | None,
                       remote_url: str | None = None) -> WorkspaceName:
    slug = slugify(slug_source, 40) or "workspace"
    hash8 = blake3(hash_input.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return WorkspaceName(f"{slug}-{hash8}", slug, hash8, hash_input, identity, remote_url)


def compute_workspace_name(cwd: str) -> WorkspaceName:
    """``compute_workspace_hash(cwd)`` (spec §7.2 steps 1–4); ``cwd`` is the session cwd.

    With an ``origin`` that normalises, the identity is hashed, so clones and worktrees of
    one repository share memory. Otherwise the canonical cwd is hashed, so subdirectories
    of a repository without a remote get different memory directories.
    """
    root = discover_git_root(cwd)
    url = origin_url(root) if root else None
    identity = normalize_remote_url(url) if url else None
    if identity:
        return workspace_name_for(identity, identity.rsplit("/", 1)[-1], identity, url)
    path = canonical(cwd)
    last = os.path.basename(path.rstrip(os.sep)) or "workspace"
    return workspace_name_for(path, last, None, url)


def _starts_with(path: str, prefix: str) -> bool:
    """Rust ``Path::starts_with``: whole components, trailing ``/`` and ``.`` ignored."""
    a = [c for c in path.split(os.sep) if c not in ("", ".")]
    b = [c for c in prefix.split(os.sep) if c not in ("", ".")]
    return path.startswith(os.sep) == prefix.startswith(os.sep) and a[: len(b)] == b


def is_ephemeral_cwd(cwd: str, tmpdir: str | None = None) -> bool:
    """``is_ephemeral_cwd``: the agent skips workspace memory writes in temp directories."""
    temp = tmpdir if tmpdir is not None else (os.environ.get("TMPDIR") or "/tmp")
    canon = canonical(cwd)
    if _starts_with(canon, canonical(temp)):
        return True
    if cwd.startswith(("/tmp/", "/var/tmp/")):
        return True
    if "/var/folders/" in cwd and "/T/" in cwd:
        return True
    if canon.startswith(("/private/tmp/", "/private/var/tmp/")):
        return True
    return "/private/var/folders/" in canon and "/T/" in canon


@dataclass(frozen=True)
class MemoryFile:
    path: str
    source: str


@dataclass(frozen=True)
class MemoryScan:
    """The memory files RuleLens reads, and the ones it skips (with the reason)."""

    files: list[MemoryFile]
    skipped: list[SkippedFile]


def _agent_follows(exc: Refused) -> SkippedFile:
    """A refusal as a skip record; a link out of the root says what the agent does."""
    if exc.code == "outside-roots":
        return SkippedFile(exc.path, f"{exc} (the agent follows the link and indexes the"
                                     " target; RuleLens does not read it)")
    return exc.skipped()


@dataclass(frozen=True)
class MemoryLocation:
    """The memory roots for one session cwd."""

    cwd: str
    grok_home: str
    global_dir: str
    workspace_dir: str
    workspace: WorkspaceName
    ephemeral: bool

    @property
    def global_memory(self) -> str:
        return os.path.join(self.global_dir, "MEMORY.md")

    @property
    def workspace_memory(self) -> str:
        return os.path.join(self.workspace_dir, "MEMORY.md")

    @property
    def sessions_dir(self) -> str:
        return os.path.join(self.workspace_dir, "sessions")

    @property
    def agent_index(self) -> str:
        return os.path.join(self.workspace_dir, "index.sqlite")

    @property
    def dream_lock(self) -> str:
        return os.path.join(self.workspace_dir, ".dream-lock")

    def classify_source(self, path: str) -> str:
        """``classify_source``: workspace MEMORY.md, other workspace files, global, else session."""
        if _starts_with(path, self.workspace_dir):
            return "workspace" if os.path.basename(path) == "MEMORY.md" else "session"
        if _starts_with(path, self.global_dir):
            return "global"
        return "session"

    def session_files(self) -> list[str]:
        return [f.path for f in self.scan().files if f.source == "session"]

    def memory_files(self) -> list[MemoryFile]:
        """``list_memory_files``: global MEMORY.md, workspace MEMORY.md, sessions/*.md sorted,
        minus what :meth:`scan` skips (links out of the memory root, non-regular files).

        Other workspaces' directories are not listed, exactly like the agent.
        """
        return self.scan().files

    def scan(self) -> MemoryScan:
        """The agent's file list, each entry resolved beneath the memory root without being
        opened: regular files are listed, the rest skipped with the reason (a link leaving
        the root is one the agent follows: its index holds that file's content)."""
        files: list[MemoryFile] = []
        skipped: list[SkippedFile] = []
        for path in (self.global_memory, self.workspace_memory):
            self._probe(path, files, skipped)
        try:
            entries = entries_beneath(self.global_dir, self.sessions_dir)
        except Refused as exc:
            skipped.append(_agent_follows(exc))
            entries = []
        for name, mode in sorted((os.path.join(self.sessions_dir, n), m) for n, m in entries
                                 if os.path.splitext(n)[1] == ".md"):
            self._probe(name, files, skipped, "session", mode)
        return MemoryScan(files, skipped)

    def _probe(self, path: str, files: list[MemoryFile], skipped: list[SkippedFile],
               source: str | None = None, mode: int | None = None) -> None:
        """List ``path`` or skip it; ``mode`` is its type from a directory listing (None:
        look it up beneath the root, following links that stay beneath)."""
        if mode is None:
            try:
                mode = lstat_beneath(self.global_dir, path).st_mode
            except Refused as exc:
                if exc.code != "missing":
                    skipped.append(_agent_follows(exc))
                return
        if stat.S_ISREG(mode):
            files.append(MemoryFile(path, source or self.classify_source(path)))
        else:
            skipped.append(SkippedFile(path, f"not-a-file: {kind_of(mode)}"))

    @property
    def roots(self) -> tuple[str, ...]:
        """The directories memory files are read beneath: the global dir, which holds the
        legacy workspace dirs; plus the workspace dir when it lies elsewhere (memory v2
        keeps ``global/`` and ``workspaces/<name>/`` side by side)."""
        if relative_to(self.global_dir, self.workspace_dir) is not None:
            return (self.global_dir,)
        return (self.global_dir, self.workspace_dir)

    def read_file(self, path: str) -> tuple[bytes, os.stat_result]:
        """(content, fstat) of a memory file, opened beneath the memory root it is under:
        the one read of memory content (raises :class:`~rulelens.memory.beneath.Refused`)."""
        roots = self.roots
        root = next((r for r in reversed(roots) if relative_to(r, path) is not None),
                    roots[0])
        return read_beneath(root, path)

    def is_under_roots(self, path: str) -> bool:
        """Opening a result is restricted to the memory roots (``memory_get``'s rule)."""
        return _starts_with(canonical(path), canonical(self.global_dir))


def locate(cwd: str, grok_home: str) -> MemoryLocation:
    """Memory roots for a session started in ``cwd`` with ``GROK_HOME = grok_home``."""
    global_dir = os.path.join(grok_home, "memory")
    name = compute_workspace_name(cwd)
    return MemoryLocation(cwd, grok_home, global_dir, os.path.join(global_dir, name.name), name,
                          is_ephemeral_cwd(cwd))
