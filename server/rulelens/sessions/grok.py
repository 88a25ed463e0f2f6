"""Grok Build sessions: ``$GROK_HOME/sessions/<encoded cwd>/<id>/``.

The session folders are found and described by the transcript reader RuleLens already has
for memory search (:func:`rulelens.memory.transcripts.list_sessions`, ``summary.json``
``info.cwd`` / ``created_at``, the ``.cwd`` file, the decoded folder name), and every file
is opened beneath the sessions directory as it does. Facts
(``../shared/research/agent-sessions.md`` §2, graded [code] xai-org/grok-build@19d42e3):
``prompt_context.json`` ``agents_md_files`` lists every loaded file with its path and the
text injected; ``chat_history.jsonl`` holds the same as the ``project_instructions`` user
item (``## From: <path>`` blocks inside ``<system-reminder>``; older sessions: untagged,
recognised by the reminder's first words). Grok injects nothing on read (its runtime
tracker is dormant), so every file is ``start``. Sessions do not record Grok's version.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

from rulelens.memory import transcripts
from rulelens.memory.beneath import Refused, read_beneath
from rulelens.sessions import jsonl
from rulelens.sessions.model import Record, SeenFile, SessionRef, home_of, rfc3339

AGENT = "grok"
PREFIX = ("\n\n<system-reminder>\nAs you answer the user's questions, you can use the"
          " following context")
FROM = "\n## From: "
CLOSING = ("\nFollow these instructions exactly. When working in subdirectories not listed"
           " above")
#: ``prompt_context.json`` holds every file's text once: the bound of a held text file.
CONTEXT_LIMIT = 64 << 20


def home(env: Mapping[str, str]) -> str:
    return env.get("GROK_HOME") or os.path.join(home_of(env), ".grok")


def root(env: Mapping[str, str]) -> str:
    return transcripts.sessions_root(home(env))


def _ref(info: transcripts.SessionInfo) -> SessionRef:
    return SessionRef(AGENT, info.id, info.dir, rfc3339(info.created_at), info.cwd, None)


def sessions(env: Mapping[str, str], hint: str | None = None) -> Iterator[SessionRef]:
    for info in transcripts.list_sessions(home(env)):
        yield _ref(info)


def ref_of(path: str, env: Mapping[str, str], hint: str | None = None
           ) -> SessionRef | None:
    """A session folder (or a file in it) named on the command line."""
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    folder = os.path.abspath(folder)
    top = root(env)
    inside = folder.startswith(top.rstrip(os.sep) + os.sep)
    info = transcripts.read_session(folder, top if inside else os.path.dirname(
        os.path.dirname(folder)))
    return _ref(info)


def _root_for(ref: SessionRef, env: Mapping[str, str]) -> str:
    top = root(env)
    return top if ref.path.startswith(top.rstrip(os.sep) + os.sep) else os.path.dirname(
        os.path.dirname(ref.path))


def parse_reminder(text: str) -> list[tuple[str, str]] | None:
    """(path, text) per ``## From:`` block of Grok's reminder; None when it is not one."""
    if not text.startswith(PREFIX):
        return None
    end = text.rfind(CLOSING)
    inner = text[:end] if end >= 0 else text
    out: list[tuple[str, str]] = []
    pieces = inner.split(FROM)[1:]
    for piece in pieces:
        path, _, content = piece.partition("\n")
        # render_agents_md writes "\n## From: <path>\n<content>\n" per file.
        out.append((path, content[:-1] if content.endswith("\n") else content))
    return out


def _from_context(data: Any) -> list[tuple[str, str]] | None:
    files = data.get("agents_md_files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return None
    out = []
    for f in files:
        if isinstance(f, dict) and isinstance(f.get("file_path"), str) and isinstance(
                f.get("content"), str):
            out.append((f["file_path"], f["content"]))
    return out


def _user_text(item: Any) -> str | None:
    if not isinstance(item, dict) or item.get("type") != "user":
        return None
    content = item.get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return None
    text = content[0].get("text")
    return text if isinstance(text, str) else None


def read(ref: SessionRef, env: Mapping[str, str]) -> Record:
    rec = Record()
    top = _root_for(ref, env)
    found: list[tuple[str, str]] | None = None
    try:
        raw = read_beneath(top, os.path.join(ref.path, "prompt_context.json"),
                           CONTEXT_LIMIT)[0]
        found = _from_context(json.loads(raw))
    except Refused as exc:
        if exc.code != "missing":
            rec.notes.append(f"prompt_context.json not read: {exc}")
    except (ValueError, RecursionError):
        rec.stats.malformed += 1
    if found is None:
        found = _from_history(top, ref, rec)
    if found is None and not os.path.lexists(os.path.join(ref.path, "chat_history.jsonl")):
        rec.problem = ("this Grok session folder has neither prompt_context.json nor"
                       " chat_history.jsonl (a Grok build whose session format RuleLens does"
                       " not know)")
        return rec
    if found is None:
        rec.start_text_seen = True  # no reminder item: Grok found no instruction files
        rec.notes.append("no project_instructions item in chat_history.jsonl and no"
                         " prompt_context.json: no instruction file was injected, or the"
                         " template put them in the system prompt (Plan mode, <rules>)")
        return rec
    rec.start_text_seen = True
    rec.files = [SeenFile(path, "start", content) for path, content in found]
    return rec


def _from_history(top: str, ref: SessionRef, rec: Record) -> list[tuple[str, str]] | None:
    path = os.path.join(ref.path, "chat_history.jsonl")
    try:
        for item in jsonl.stream(top, path, rec.stats,
                                 lambda raw: b"project_instructions" in raw
                                 or b"As you answer the user" in raw):
            text = _user_text(item)
            if text is None:
                continue
            tagged = isinstance(item, dict) and item.get(
                "synthetic_reason") == "project_instructions"
            parsed = parse_reminder(text)
            if parsed is not None and (tagged or text.startswith(PREFIX)):
                return parsed
    except Refused as exc:
        if exc.code != "missing":
            rec.notes.append(f"chat_history.jsonl not read: {exc}")
    return None
