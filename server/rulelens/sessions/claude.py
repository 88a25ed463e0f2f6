"""Claude Code transcripts: ``~/.claude/projects/<slug of cwd>/<session uuid>.jsonl``.

Claude Code is closed source; every fact here is [3p] (``../shared/research/
agent-sessions.md`` §4: independent parsers' fixtures and a write-up verified against
2.1.2xx). Every record carries ``cwd``, ``sessionId``, ``version`` and ``timestamp``. Newer
builds store the instruction files loaded at start as an ``attachment`` of type
``instructions`` (``files: [{path, type, content}]``; later deltas with ``removed`` paths)
and a file pulled in on read as ``nested_memory`` (``path``, ``content.content``). Older
transcripts have no ``instructions`` record: their start set is unknown, not empty.
``CLAUDE_CONFIG_DIR`` replaces ``~/.claude``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rulelens.sessions import jsonl
from rulelens.sessions.model import Record, SeenFile, SessionRef, home_of, rfc3339

AGENT = "claude"
OLD = ("this transcript has no 'instructions' record (Claude Code builds before 2.1.2xx did"
       " not store the start files), so what loaded at start is not recorded")
_HEAD_LINES = 64


def home(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(home_of(env), ".claude")


def root(env: Mapping[str, str]) -> str:
    return os.path.join(home(env), "projects")


def slug(cwd: str) -> str:
    """The folder name Claude Code uses: every non-alphanumeric character as ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _files(folder: str) -> list[str]:
    try:
        return sorted(e.path for e in os.scandir(folder)
                      if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))
    except OSError:
        return []


def ref_of(path: str, env: Mapping[str, str], hint: str | None = None
           ) -> SessionRef | None:
    """The first record that carries ``cwd`` and ``sessionId`` describes the transcript."""
    stats = jsonl.LineStats()
    top = root(env)
    real = os.path.abspath(path)
    base = top if real.startswith(top.rstrip(os.sep) + os.sep) else os.path.dirname(real)
    try:
        head = jsonl.first(base, real, stats, _HEAD_LINES)
    except OSError:
        return None
    for rec in head:
        if isinstance(rec, dict) and isinstance(rec.get("cwd"), str) and isinstance(
                rec.get("sessionId"), str):
            version = rec.get("version")
            return SessionRef(AGENT, rec["sessionId"], real, rfc3339(rec.get("timestamp")),
                              rec["cwd"], version if isinstance(version, str) else None)
    return None


def sessions(env: Mapping[str, str], hint: str | None = None) -> Iterator[SessionRef]:
    """Transcripts in the slug folder of ``hint`` (every folder when None): the slug is not
    reversible, so the records' own ``cwd`` decides."""
    top = root(env)
    if hint is not None:
        folders = [os.path.join(top, slug(hint))]
    else:
        try:
            folders = sorted(e.path for e in os.scandir(top) if e.is_dir(follow_symlinks=False))
        except OSError:
            folders = []
    for folder in folders:
        for path in _files(folder):
            ref = ref_of(path, env)
            if ref is not None:
                yield ref


def _attachment(line: Any) -> dict[str, Any] | None:
    if not isinstance(line, dict) or line.get("type") != "attachment":
        return None
    att = line.get("attachment")
    return att if isinstance(att, dict) else None


def read(ref: SessionRef, env: Mapping[str, str]) -> Record:
    rec = Record()
    top = root(env)
    base = top if ref.path.startswith(top.rstrip(os.sep) + os.sep) else os.path.dirname(ref.path)
    start: dict[str, str] | None = None
    later: dict[str, str] = {}
    deltas = 0
    for line in jsonl.stream(base, ref.path, rec.stats,
                             lambda raw: b'"attachment"' in raw):
        att = _attachment(line)
        if att is None:
            continue
        kind = att.get("type")
        if kind == "instructions":
            listed = att.get("files")
            files: list[Any] = listed if isinstance(listed, list) else []
            if start is None:
                start = {}
            else:
                deltas += 1
            for f in files:
                if isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(
                        f.get("content"), str):
                    start[f["path"]] = f["content"]
            removed = att.get("removed")
            for gone in removed if isinstance(removed, list) else []:
                if isinstance(gone, str):
                    start.pop(gone, None)
        elif kind == "nested_memory":
            content = att.get("content")
            path = att.get("path")
            text = content.get("content") if isinstance(content, dict) else None
            if isinstance(path, str) and isinstance(text, str):
                later.setdefault(path, text)
    if start is None:
        rec.unrecorded = ("start",)
        rec.unrecorded_why = OLD
    else:
        rec.start_text_seen = True
        rec.files = [SeenFile(p, "start", t) for p, t in start.items()]
    rec.files += [SeenFile(p, "on-read", t) for p, t in later.items()
                  if start is None or p not in start]
    if deltas:
        rec.notes.append(f"{deltas} later 'instructions' record(s) changed the start set;"
                         " the latest text of each file is compared.")
    return rec
