"""Gemini CLI chat recordings: ``~/.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl``.

Facts (``../shared/research/agent-sessions.md`` §3, graded [code]
google-gemini/gemini-cli@5411f113 ``services/chatRecordingService.ts``,
``tools/jit-context.ts``, ``utils/memoryDiscovery.ts``): the first line is the metadata
``{sessionId, projectHash, startTime, …}``; ``projectHash`` is the SHA-256 of the project
root (the directory is never stored as a path; the ``<project>`` folder is tied to it by
``projects.json`` / ``.project_root``, older versions named it by the hash). The files
loaded at start are **not recorded**. Files found on read are: a tool result carries
``--- Newly Discovered Project Context ---`` with one ``--- Context from: <path> ---`` block
per file (text trimmed). ``{"$rewindTo": id}`` drops that message and what follows. The
recording does not carry Gemini CLI's version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rulelens.memory.beneath import Refused, read_beneath
from rulelens.sessions import jsonl
from rulelens.sessions.model import Record, SeenFile, SessionRef, home_of, rfc3339

AGENT = "gemini"
JIT_PREFIX = "\n\n--- Newly Discovered Project Context ---\n"
_BLOCK = re.compile(r"--- Context from: (.+?) ---\n(.*?)\n--- End of Context from: \1 ---",
                    re.DOTALL)
_TOUCHED = re.compile(rb'"(?:file_path|absolute_path)":("(?:[^"\\]|\\.)*")')
_ID = re.compile(rb'\A\s*\{"id":"((?:[^"\\]|\\.)*)"')
NOT_RECORDED = ("Gemini CLI does not record the GEMINI.md files it loads at start (they go"
                " into the system instruction and the first history turn, which the chat"
                " recording leaves out)")


def home(env: Mapping[str, str]) -> str:
    return os.path.join(env.get("GEMINI_CLI_HOME") or home_of(env), ".gemini")


def root(env: Mapping[str, str]) -> str:
    return os.path.join(home(env), "tmp")


def project_hash(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def _roots_by_folder(env: Mapping[str, str]) -> dict[str, list[str]]:
    """Project folder name -> candidate project roots (``projects.json``, ``.project_root``)."""
    out: dict[str, list[str]] = {}
    gem = home(env)
    with contextlib.suppress(Refused, ValueError, RecursionError):
        data = json.loads(read_beneath(gem, os.path.join(gem, "projects.json"), 4 << 20)[0])
        projects = data.get("projects") if isinstance(data, dict) else None
        if isinstance(projects, dict):
            for project, slug in projects.items():
                if isinstance(project, str) and isinstance(slug, str):
                    out.setdefault(slug, []).append(project)
    top = root(env)
    try:
        folders = [e.name for e in os.scandir(top) if e.is_dir(follow_symlinks=False)]
    except OSError:
        folders = []
    for name in folders:
        with contextlib.suppress(Refused, UnicodeDecodeError):
            marker = read_beneath(top, os.path.join(top, name, ".project_root"), 64 << 10)[0]
            out.setdefault(name, []).append(marker.decode("utf-8").strip())
    return out


def _chat_files(top: str) -> Iterator[str]:
    try:
        folders = sorted(e.path for e in os.scandir(top) if e.is_dir(follow_symlinks=False))
    except OSError:
        return
    for folder in folders:
        chats = os.path.join(folder, "chats")
        try:
            names = sorted((e.name for e in os.scandir(chats) if e.name.startswith("session-")
                            and e.name.endswith(".jsonl")), reverse=True)
        except OSError:
            continue
        for name in names:
            yield os.path.join(chats, name)


def _ref(path: str, top: str, roots: list[str]) -> SessionRef | None:
    stats = jsonl.LineStats()
    try:
        head = jsonl.first(top, path, stats)
    except OSError:
        return None
    meta = head[0] if head else None
    if not isinstance(meta, dict) or not isinstance(meta.get("sessionId"), str) or (
            not isinstance(meta.get("projectHash"), str)):
        return None
    cwd = next((r for r in roots if project_hash(r) == meta["projectHash"]), None)
    return SessionRef(AGENT, meta["sessionId"], path, rfc3339(meta.get("startTime")), cwd, None)


def sessions(env: Mapping[str, str], hint: str | None = None) -> Iterator[SessionRef]:
    """Every main-session recording; a session's ``cwd`` is the project root whose hash its
    metadata carries (``hint``, the directory asked about, is one more candidate: a legacy
    folder named by the hash has no marker)."""
    top = root(env)
    by_folder = _roots_by_folder(env)
    for path in _chat_files(top):
        folder = os.path.basename(os.path.dirname(os.path.dirname(path)))
        roots = list(by_folder.get(folder, []))
        if hint:
            roots.append(hint)
        ref = _ref(path, top, roots)
        if ref is not None:
            yield ref


def ref_of(path: str, env: Mapping[str, str], hint: str | None = None) -> SessionRef | None:
    real = os.path.abspath(path)
    top = root(env)
    inside = real.startswith(top.rstrip(os.sep) + os.sep)
    folder = os.path.basename(os.path.dirname(os.path.dirname(real)))
    roots = list(_roots_by_folder(env).get(folder, [])) + ([hint] if hint else [])
    return _ref(real, top if inside else os.path.dirname(real), roots)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if JIT_PREFIX in value:
            yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def read(ref: SessionRef, env: Mapping[str, str]) -> Record:
    rec = Record(unrecorded=("start",), unrecorded_why=NOT_RECORDED)
    top = root(env)
    base = top if ref.path.startswith(top.rstrip(os.sep) + os.sep) else os.path.dirname(ref.path)
    order: dict[str, int] = {}  # message id -> position
    found: list[tuple[int, SeenFile]] = []
    touched: list[tuple[int, str]] = []
    position = 0

    def wanted(raw: bytes) -> bool:
        nonlocal position
        m = _ID.match(raw)
        if m is not None:
            position += 1
            order.setdefault(m.group(1).decode("utf-8", "replace"), position)
        if b'"toolCalls"' in raw:
            for t in _TOUCHED.finditer(raw):
                with contextlib.suppress(ValueError):
                    touched.append((position, json.loads(t.group(1))))
        return b"Newly Discovered Project Context" in raw or b'"$rewindTo"' in raw

    for line in jsonl.stream(base, ref.path, rec.stats, wanted):
        if not isinstance(line, dict):
            continue
        target = line.get("$rewindTo")
        if isinstance(target, str):
            cut = order.get(target)
            if cut is not None:
                found = [(p, f) for p, f in found if p < cut]
                touched = [(p, t) for p, t in touched if p < cut]
            continue
        for text in _strings(line.get("toolCalls")):
            block = text[text.index(JIT_PREFIX) + len(JIT_PREFIX):]
            for m in _BLOCK.finditer(block):
                found.append((position, SeenFile(m.group(1), "on-read", m.group(2))))
    rec.touched = {t for _pos, t in touched}
    seen: set[str] = set()
    for _pos, f in found:  # each file is announced once per session (markAsLoaded)
        if f.path not in seen:
            seen.add(f.path)
            rec.files.append(f)
    return rec
