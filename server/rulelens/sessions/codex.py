"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``.

Facts (``../shared/research/agent-sessions.md`` §1, graded [code] openai/codex
``codex-rs/core/src/rollout/recorder.rs``, ``instructions/user_instructions.rs``): every
line is ``{"timestamp", "type", "payload"}``; the first is ``session_meta`` with the
start directory (``payload.cwd``) and ``cli_version``. The AGENTS.md text reaches the model
as one user message whose single ``input_text`` is ``# AGENTS.md instructions for <cwd>``
then ``<INSTRUCTIONS>\\n<text>\\n</INSTRUCTIONS>`` (older rollouts: ``<user_instructions>``).
No file path is recorded: :mod:`rulelens.sessions.verify` attributes the text to files by
content and order. No such message means Codex injected no AGENTS.md text (fact 14).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rulelens.sessions import jsonl
from rulelens.sessions.model import Record, SessionRef, home_of, rfc3339

AGENT = "codex"
HEADER = "# AGENTS.md instructions for "
LEGACY = "<user_instructions>"
OPEN_TAG = "<INSTRUCTIONS>\n"
CLOSE_TAG = "\n</INSTRUCTIONS>"
REPLACES = "These AGENTS.md instructions replace all previously provided"
REMOVED = "The previously provided AGENTS.md instructions no longer apply."
_NEEDLES = (b"AGENTS.md instructions", b"<user_instructions>")
_ROLLOUT = re.compile(r"rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-(.+)\.jsonl\Z")


#: ``sessions`` yields newest first (rollout names start with the start time): the first
#: one recorded in a directory is its latest.
NEWEST_FIRST = True


def home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(home_of(env), ".codex")


def root(env: Mapping[str, str]) -> str:
    return os.path.join(home(env), "sessions")


def _files(top: str) -> Iterator[str]:
    """Rollout files in the day folders, newest name first (names start with the time)."""
    def dirs(path: str) -> list[str]:
        try:
            return sorted((e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)),
                          reverse=True)
        except OSError:
            return []
    for y in dirs(top):
        for m in dirs(y):
            for d in dirs(m):
                try:
                    names = sorted((e.name for e in os.scandir(d)
                                    if _ROLLOUT.match(e.name)), reverse=True)
                except OSError:
                    continue
                for name in names:
                    yield os.path.join(d, name)


def ref_of(path: str, env: Mapping[str, str], hint: str | None = None
           ) -> SessionRef | None:
    """The header of one rollout, or None when its first line is not ``session_meta``."""
    stats = jsonl.LineStats()
    try:
        head = jsonl.first(_root_for(path, env), path, stats)
    except OSError:
        return None
    if not head or not isinstance(head[0], dict) or head[0].get("type") != "session_meta":
        return None
    payload = head[0].get("payload")
    if not isinstance(payload, dict):
        return None
    m = _ROLLOUT.search(os.path.basename(path))
    sid = payload.get("id") if isinstance(payload.get("id"), str) else (m.group(2) if m else
                                                                          path)
    started = rfc3339(payload.get("timestamp")) or rfc3339(head[0].get("timestamp")) or (
        rfc3339(m.group(1)) if m else None)
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    version = payload.get("cli_version")
    return SessionRef(AGENT, str(sid), path, started, cwd,
                      version if isinstance(version, str) else None)


def _root_for(path: str, env: Mapping[str, str]) -> str:
    """Rollouts are opened beneath ``$CODEX_HOME/sessions``; a file named on the command
    line elsewhere beneath its own directory."""
    top = root(env)
    real = os.path.abspath(path)
    return top if real.startswith(top.rstrip(os.sep) + os.sep) else os.path.dirname(real)


def sessions(env: Mapping[str, str], hint: str | None = None) -> Iterator[SessionRef]:
    for path in _files(root(env)):
        ref = ref_of(path, env)
        if ref is not None:
            yield ref


def instruction_text(payload: Any) -> str | None:
    """The single ``input_text`` of a user message that is Codex's AGENTS.md block."""
    if not isinstance(payload, dict) or payload.get("type") != "message" or (
            payload.get("role") != "user"):
        return None
    content = payload.get("content")
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return None
    part = content[0]
    text = part.get("text")
    if part.get("type") != "input_text" or not isinstance(text, str):
        return None
    if text.startswith((HEADER, LEGACY, REMOVED)) or (
            text.startswith(REPLACES) and HEADER in text):
        return text
    return None


def body(text: str) -> str | None:
    """The text between the tags (the global file, the separator, the project files);
    ``""`` for a removal notice; None when the block has no recognisable tags."""
    if text.startswith(REMOVED):
        return ""
    if text.startswith(LEGACY):
        inner = text[len(LEGACY):]
        end = inner.rfind("</user_instructions>")
        return inner[:end].strip("\n") if end >= 0 else None
    start = text.find(OPEN_TAG)
    end = text.rfind(CLOSE_TAG)
    if start < 0 or end < start:
        return None
    return text[start + len(OPEN_TAG):end]


def read(ref: SessionRef, env: Mapping[str, str]) -> Record:
    """Stream the rollout; the last AGENTS.md block wins (newer Codex re-sends the whole
    block when the set changes)."""
    rec = Record()
    blocks = 0
    unknown = 0
    for line in jsonl.stream(_root_for(ref.path, env), ref.path, rec.stats,
                             lambda raw: any(n in raw for n in _NEEDLES)):
        if not isinstance(line, dict) or line.get("type") != "response_item":
            continue
        text = instruction_text(line.get("payload"))
        if text is None:
            continue
        inner = body(text)
        if inner is None:
            unknown += 1
            continue
        blocks += 1
        rec.start_text = inner
    rec.start_text_seen = True
    if unknown and not blocks:
        rec.problem = (f"this rollout's AGENTS.md block has a layout RuleLens does not know"
                       f" ({unknown} block(s) without <INSTRUCTIONS> tags)")
    if blocks > 1:
        rec.notes.append(f"Codex re-sent its AGENTS.md block {blocks - 1} time(s) during the"
                         " session; the last one is compared.")
    return rec
