"""Session files in each agent's exact on-disk format, at the agent's exact location.

Origins (see ``../shared/research/agent-sessions.md`` for the facts and grades):

- Codex: ``openai/codex@03932b81:codex-rs/core/src/rollout/tests.rs`` ``write_session_file``
  (``sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``, the ``session_meta`` line, the
  ``event_msg``/``user_message`` line); the AGENTS.md message from
  ``openai/codex@0b2b8c90:codex-rs/core/src/instructions/user_instructions.rs``
  (test ``test_user_instructions``) and ``agents_md.rs`` (``--- project-doc ---``).
- Grok Build: ``xai-org/grok-build@19d42e3`` ``persistence.rs`` ``struct Summary``,
  ``conversation.rs`` ``ConversationItem::project_instructions`` (test
  ``project_instructions_serde_roundtrip``), ``prompt/agents_md.rs`` ``render_agents_md``,
  ``prompt/context.rs`` ``PromptContext.agents_md_files`` (research §2, [code]).
- Gemini CLI: ``google-gemini/gemini-cli@5411f113``
  ``packages/core/src/services/chatRecordingService.ts`` ``initialize`` (file name
  ``session-<ISO minutes>-<id8>.jsonl``, the metadata record),
  ``config/projectRegistry.ts`` (``projects.json``, ``.project_root``, ``slugify``),
  ``utils/paths.ts`` ``getProjectHash``, ``tools/jit-context.ts`` (``JIT_CONTEXT_PREFIX``)
  and ``utils/memoryDiscovery.ts`` ``concatenateInstructions``.
- Claude Code (closed source, [3p]): the ``instructions`` and ``nested_memory``
  attachment records of research §4 (parsers' fixtures, a write-up against 2.1.2xx).
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from pathlib import Path
from typing import Any


def _jsonl(path: Path, records: list[Any], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write((r if isinstance(r, str) else json.dumps(r, separators=(",", ":"))) + "\n")
        f.write(tail)
    return path


# ------------------------------------------------------------------------- Codex
def codex_text(cwd: str, global_text: str | None, project: list[str]) -> str:
    """The ``input_text`` Codex sends (single environment, legacy layout)."""
    body = "\n\n".join(project)
    text = (global_text + "\n\n--- project-doc ---\n\n" + body if global_text and body
            else global_text or body)
    return f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>"


def codex_rollout(codex_home: Path, cwd: str, ts: str, uuid: str, instructions: str | None,
                  version: str = "0.63.0", extra: list[Any] | None = None) -> Path:
    """``ts`` as in the file name: ``2026-09-01T10-00-00``."""
    day, clock = ts.split("T")
    y, m, d = day.split("-")
    iso = f"{day}T{clock.replace('-', ':')}.000Z"
    records: list[Any] = [
        {"timestamp": iso, "type": "session_meta",
         "payload": {"id": uuid, "timestamp": iso, "cwd": cwd, "originator": "codex_cli_rs",
                     "cli_version": version, "source": "cli", "model_provider": "openai",
                     "base_instructions": None}},
    ]
    if instructions is not None:
        records.append({"timestamp": iso, "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": instructions}]}})
    records += [
        {"timestamp": iso, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text":
                f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"}]}},
        {"timestamp": iso, "type": "turn_context", "payload": {
            "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex"}},
        {"timestamp": iso, "type": "event_msg", "payload": {
            "type": "user_message", "message": "Hello from user", "kind": "plain"}},
        *(extra or []),
    ]
    path = codex_home / "sessions" / y / m / d / f"rollout-{ts}-{uuid}.jsonl"
    return _jsonl(path, records)


# -------------------------------------------------------------------------- Grok
GROK_PREFIX = ("\n\n<system-reminder>\nAs you answer the user's questions, you can use the"
               " following context (ordered from repo root to current directory - deeper"
               " files take precedence on conflicts):\n")
GROK_CLOSING = ("\nFollow these instructions exactly. When working in subdirectories not"
                " listed above, check for additional project instruction files (AGENTS.md,"
                " Claude.md, etc.).\n</system-reminder>")


def grok_reminder(files: list[tuple[str, str]]) -> str:
    return GROK_PREFIX + "".join(f"\n## From: {p}\n{c}\n" for p, c in files) + GROK_CLOSING


def grok_session(grok_home: Path, cwd: str, sid: str, created: str,
                 files: list[tuple[str, str]], prompt_context: bool = True,
                 tagged: bool = True, history_tail: str = "") -> Path:
    """A session folder: ``summary.json``, ``updates.jsonl``, ``chat_history.jsonl`` and
    (optionally) ``prompt_context.json``. ``created`` is RFC 3339."""
    group = grok_home / "sessions" / urllib.parse.quote(cwd, safe="")
    folder = group / sid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps({
        "info": {"id": sid, "cwd": cwd}, "session_summary": "", "created_at": created,
        "updated_at": created, "num_messages": 2, "num_chat_messages": 4,
        "current_model_id": "grok-code-fast-1", "next_trace_turn": 1,
        "chat_format_version": 1}))
    _jsonl(folder / "updates.jsonl", [
        {"timestamp": 1788256800, "method": "session/update", "params": {
            "sessionId": sid, "update": {"sessionUpdate": "user_message_chunk",
                                         "content": {"type": "text", "text": "fix the tests"}},
            "_meta": {"promptIndex": 0}}}])
    history: list[Any] = [{"type": "system", "content": "You are Grok, …"}]
    if files:
        item: dict[str, Any] = {"type": "user", "content": [
            {"type": "text", "text": grok_reminder(files)}]}
        if tagged:
            item["synthetic_reason"] = "project_instructions"
        history.append(item)
    history.append({"type": "user", "content": [{"type": "text", "text": "fix the tests"}],
                    "prompt_index": 0})
    _jsonl(folder / "chat_history.jsonl", history, history_tail)
    if prompt_context:
        (folder / "prompt_context.json").write_text(json.dumps({
            "version": 1, "working_directory": cwd,
            "agents_md_files": [{"file_name": Path(p).name, "file_path": p, "content": c}
                                for p, c in files]}, indent=2))
    return folder


# ------------------------------------------------------------------------ Gemini
def gemini_slug(root: str) -> str:
    return re.sub(r"^-|-$", "", re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-",
                                                             Path(root).name.lower()))) or (
        "project")


def gemini_jit(files: list[tuple[str, str]]) -> str:
    blocks = "\n\n".join(f"--- Context from: {p} ---\n{c.strip()}\n--- End of Context from:"
                         f" {p} ---" for p, c in files)
    return f"\n\n--- Newly Discovered Project Context ---\n{blocks}\n--- End Project Context ---"


def gemini_session(home: Path, root: str, sid: str, start: str, reads: list[tuple[str,
                   list[tuple[str, str]]]], tail: list[Any] | None = None,
                   register: bool = True) -> Path:
    """``start`` is ISO (``2026-09-01T10:00:00.000Z``); ``reads`` is one ``read_file`` tool
    call per (file read, GEMINI.md files it newly discovered)."""
    gem = home / ".gemini"
    slug = gemini_slug(root)
    tmp = gem / "tmp" / slug
    tmp.mkdir(parents=True, exist_ok=True)
    if register:
        registry = gem / "projects.json"
        data = json.loads(registry.read_text()) if registry.exists() else {"projects": {}}
        data["projects"][root] = slug
        registry.write_text(json.dumps(data, indent=2))
        (tmp / ".project_root").write_text(root)
    records: list[Any] = [{"sessionId": sid, "projectHash": hashlib.sha256(
        root.encode()).hexdigest(), "startTime": start, "lastUpdated": start, "kind": "main"}]
    for i, (target, found) in enumerate(reads):
        records.append({"id": f"u{i}", "timestamp": start, "type": "user",
                        "content": [{"text": f"look at {target}"}]})
        output = "export const x = 1;\n" + (gemini_jit(found) if found else "")
        records.append({"id": f"g{i}", "timestamp": start, "type": "gemini", "content": "",
                        "model": "gemini-3-pro", "toolCalls": [{
                            "id": f"read_file-{i}", "name": "read_file",
                            "args": {"file_path": target},
                            "result": [{"functionResponse": {
                                "id": f"read_file-{i}", "name": "read_file",
                                "response": {"output": output}}}],
                            "status": "success", "timestamp": start}]})
    records.append({"$set": {"lastUpdated": start}})
    records += tail or []
    name = f"session-{start[:16].replace(':', '-')}-{sid[:8]}.jsonl"
    return _jsonl(tmp / "chats" / name, records)


# ------------------------------------------------------------------------ Claude
def claude_slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def claude_transcript(home: Path, cwd: str, sid: str, ts: str,
                      start: list[tuple[str, str, str]] | None,
                      nested: list[tuple[str, str]] = (),  # type: ignore[assignment]
                      version: str = "2.1.240", tail: str = "") -> Path:
    """``start``: (path, type, content) of the ``instructions`` record (None: an older
    build that stored none); ``nested``: (path, content) ``nested_memory`` records."""
    common = {"sessionId": sid, "cwd": cwd, "version": version, "timestamp": ts,
              "gitBranch": "main", "userType": "external", "isSidechain": False}
    records: list[Any] = [{"type": "user", "uuid": "u1", "parentUuid": None, **common,
                           "message": {"role": "user", "content": "fix the tests"}}]
    if start is not None:
        records.append({"type": "attachment", "uuid": "a1", "parentUuid": "u1", **common,
                        "attachment": {"type": "instructions", "files": [
                            {"path": p, "type": t, "content": c} for p, t, c in start]}})
    for i, (p, c) in enumerate(nested):
        records.append({"type": "attachment", "uuid": f"n{i}", "parentUuid": "x1", **common,
                        "attachment": {"type": "nested_memory", "path": p, "content": {
                            "path": p, "type": "Project", "content": c,
                            "contentDiffersFromDisk": False},
                            "displayPath": Path(p).name}})
    path = home / ".claude" / "projects" / claude_slug(cwd) / f"{sid}.jsonl"
    return _jsonl(path, records, tail)
