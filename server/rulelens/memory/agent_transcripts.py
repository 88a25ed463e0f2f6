"""Codex rollouts and Claude Code transcripts as a search source (``transcript``), opt-in.

The same source as Grok's transcripts (:mod:`rulelens.memory.transcripts`: ``--sources
memory,transcript``), for the other agents whose session files RuleLens already reads:
the files are found by the session readers of :mod:`rulelens.sessions` (``codex``,
``claude``: their roots, file names and header records), split into lines by the bounded
splitter every reader shares (:func:`rulelens.sessions.jsonl.bounded_lines`) and opened
beneath the agent's sessions directory. Every hit is labelled
:data:`~rulelens.memory.transcripts.LABEL` (no agent's memory tools search its transcripts).

What one turn is (a hit never holds two):

- **Codex** (research agent-sessions §1, [code]): the ``event_msg`` records
  ``user_message`` (what the user typed; the injected AGENTS.md and environment messages
  are ``response_item`` lines and are not turns) and ``agent_message``. Each user message is
  one turn; the agent messages after it, up to the next user message or ``turn_context``,
  are one assistant turn.
- **Claude Code** ([3p], research §4): ``user`` and ``assistant`` records' ``message``; the
  text parts only (tool calls, tool results and thinking are not turns). Each user text
  record is one turn; the records of one assistant message (one ``message.id``, which Claude
  Code writes as one record per content block) are one turn. ``isMeta`` records (injected
  caveats) and ``isSidechain`` records (a subagent's conversation) are left out.

The index is RuleLens's own SQLite file per agent and workspace
(``<cache>/agent-transcripts/<agent>/<key>/index.sqlite``), incremental per transcript
exactly as Grok's (a SHA-256 of the bytes read; only new bytes are parsed). Each
transcript's header (its ``cwd``) is kept with the file's size and mtime, so a rollout of
another project is read once, not on every search. Nothing is written next to the agent's
files; a malformed line is skipped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime

from blake3 import blake3

from rulelens.agents import bounded, safeio
from rulelens.memory.beneath import Refused, SkippedFile, lstat_beneath
from rulelens.memory.index import cache_root
from rulelens.memory.transcripts import (
    Role,
    SessionInfo,
    TranscriptIndex,
    TranscriptSync,
    Turn,
    _under,
    group_turns,
)
from rulelens.sessions import claude, codex
from rulelens.sessions.model import SessionRef

#: One message of a transcript line: (role, join key, timestamp, text), or None.
Message = tuple[Role, str, float | None, str] | None


def _seconds(value: object) -> float | None:
    """An RFC 3339 timestamp as Unix seconds, or None."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _decode(raw: bytes) -> dict[str, object] | None:
    try:
        value = bounded.json_loads(raw)
    except ValueError:  # a torn line, not JSON, or nested too deeply
        return None
    return value if isinstance(value, dict) else None


def parse_turns(chunks: Iterable[bytes], offset: int, line_no: int,
                message: Callable[[bytes, int], Message | bool]
                ) -> Iterator[Turn | tuple[int, int]]:
    """Turns from a JSONL transcript, as :func:`rulelens.memory.transcripts.parse_updates`
    yields them (:func:`~rulelens.memory.transcripts.group_turns`): ``message(line, n)``
    gives the line's message, ``True`` for a line that ends the current turn without
    starting one, or None/False for a line that is neither. Texts of a turn are joined by
    a blank line."""
    return group_turns(chunks, offset, line_no, message, "\n\n")


# -- Codex ----------------------------------------------------------------------------------

_CODEX_KINDS: dict[str, Role] = {"user_message": "user", "agent_message": "assistant"}


def codex_message(raw: bytes, n: int) -> Message | bool:
    """A rollout line's message: ``event_msg`` ``user_message`` / ``agent_message``; a
    ``turn_context`` line ends the assistant turn before it."""
    if b"_message" not in raw and b"turn_context" not in raw:
        return None  # response items, tool calls, token counts: never decoded
    record = _decode(raw)
    if record is None:
        return None
    if record.get("type") == "turn_context":
        return True
    payload = record.get("payload")
    if record.get("type") != "event_msg" or not isinstance(payload, dict):
        return None
    role = _CODEX_KINDS.get(str(payload.get("type")))
    text = payload.get("message")
    if role is None or not isinstance(text, str) or not text.strip():
        return None
    # Each user message is its own turn; the agent messages after it share one key.
    return role, "user" if role == "assistant" else f"line-{n}", _seconds(
        record.get("timestamp")), text


def parse_codex(chunks: Iterable[bytes], offset: int = 0, line_no: int = 0
                ) -> Iterator[Turn | tuple[int, int]]:
    return parse_turns(chunks, offset, line_no, codex_message)


# -- Claude Code ----------------------------------------------------------------------------

def _claude_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(p["text"]) for p in content if isinstance(p, dict)
                     and p.get("type") == "text" and isinstance(p.get("text"), str))


def claude_message(raw: bytes, n: int) -> Message | bool:
    """A transcript line's message: the text of a ``user`` or ``assistant`` record."""
    if b'"message"' not in raw:
        return None  # attachments, summaries, system records
    record = _decode(raw)
    if record is None or record.get("type") not in ("user", "assistant"):
        return None
    if record.get("isMeta") is True or record.get("isSidechain") is True:
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    text = _claude_text(message.get("content"))
    if not text.strip():
        return None  # a tool result or a tool call: no text of the conversation
    role: Role = "assistant" if record["type"] == "assistant" else "user"
    key = message.get("id") if role == "assistant" else record.get("uuid")
    return role, str(key) if isinstance(key, str) else f"line-{n}", _seconds(
        record.get("timestamp")), text


def parse_claude(chunks: Iterable[bytes], offset: int = 0, line_no: int = 0
                 ) -> Iterator[Turn | tuple[int, int]]:
    return parse_turns(chunks, offset, line_no, claude_message)


# -- the indexes ----------------------------------------------------------------------------

_HEADS = """
CREATE TABLE IF NOT EXISTS heads(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,
  session_id TEXT, started TEXT, cwd TEXT);
"""


class AgentTranscriptIndex(TranscriptIndex):
    """Transcripts of one agent other than Grok, for one workspace."""

    reader = codex  # the session reader module: ``root``, ``ref_of``

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.conn.execute(_HEADS)

    def files(self, env: Mapping[str, str], cwd: str) -> Iterator[str]:
        raise NotImplementedError

    def _ref(self, path: str, st: os.stat_result, env: Mapping[str, str]
             ) -> tuple[str, str | None, str | None] | None:
        """(session id, start time, cwd) of a transcript; read again only when it changed."""
        row = self.conn.execute("SELECT size, mtime_ns, session_id, started, cwd FROM heads"
                                " WHERE path=?", (path,)).fetchone()
        if row is not None and (row[0], row[1]) == (st.st_size, st.st_mtime_ns):
            return None if row[2] is None else (str(row[2]), row[3], row[4])
        ref: SessionRef | None = self.reader.ref_of(path, env)
        self.conn.execute("INSERT OR REPLACE INTO heads VALUES (?,?,?,?,?,?)",
                          (path, st.st_size, st.st_mtime_ns, ref.id if ref else None,
                           ref.started if ref else None, ref.cwd if ref else None))
        return None if ref is None else (ref.id, ref.started, ref.cwd)

    def sync_agent(self, env: Mapping[str, str], cwd: str) -> TranscriptSync:
        """Index the transcripts of sessions started in ``cwd`` or below it."""
        root = self.reader.root(env)
        skipped: list[SkippedFile] = []
        sessions: list[SessionInfo] = []
        with self._lock:
            for path in self.files(env, cwd):
                try:
                    st = lstat_beneath(root, path)
                except Refused as exc:
                    if exc.code != "missing":
                        skipped.append(exc.skipped())
                    continue
                if not stat.S_ISREG(st.st_mode):
                    skipped.append(SkippedFile(path, f"not-a-file: {safeio.kind_of(st.st_mode)}"))
                    continue
                head = self._ref(path, st, env)
                if head is None or not _under(head[2], cwd):
                    continue
                sid, started, where = head
                sessions.append(SessionInfo(sid, os.path.dirname(path), where, None, started,
                                            None, None, file=path))
            return self.sync_listed(root, sessions, skipped)


class CodexTranscripts(AgentTranscriptIndex):
    agent = "codex"
    reader = codex
    parse = staticmethod(parse_codex)

    def files(self, env: Mapping[str, str], cwd: str) -> Iterator[str]:
        """Every rollout in the day folders (the header says whose workspace it is)."""
        return codex._files(codex.root(env))


class ClaudeTranscripts(AgentTranscriptIndex):
    agent = "claude"
    reader = claude
    parse = staticmethod(parse_claude)

    def files(self, env: Mapping[str, str], cwd: str) -> Iterator[str]:
        """Transcripts in the slug folder of ``cwd`` and of folders below it (the slug
        of a subdirectory extends the workspace's; the records' ``cwd`` decides)."""
        top = claude.root(env)
        name = claude.slug(cwd)
        try:
            folders = sorted(e.path for e in os.scandir(top) if e.is_dir(follow_symlinks=False)
                             and (e.name == name or e.name.startswith(name + "-")))
        except OSError:
            return
        for folder in folders:
            yield from claude._files(folder)


#: The transcript index of each agent other than Grok whose transcripts RuleLens reads.
TRANSCRIPTS: dict[str, type[AgentTranscriptIndex]] = {"codex": CodexTranscripts,
                                                       "claude": ClaudeTranscripts}


def index_path(env: Mapping[str, str], agent: str, cwd: str) -> str:
    """``<cache>/agent-transcripts/<agent>/<key of cwd>/index.sqlite``."""
    key = blake3(os.path.abspath(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_root(env), "agent-transcripts", agent, key, "index.sqlite")
