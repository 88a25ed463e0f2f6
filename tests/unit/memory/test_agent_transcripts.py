"""Codex rollouts and Claude Code transcripts as a search source, on real files.

The session files are written by ``tests/unit/sessions/formats.py`` in each agent's exact
on-disk format at its exact location (Codex: ``$CODEX_HOME/sessions/YYYY/MM/DD/
rollout-<ts>-<uuid>.jsonl``, origin openai/codex@03932b81:codex-rs/core/src/rollout/tests.rs
``write_session_file``; Claude Code: ``~/.claude/projects/<slug>/<uuid>.jsonl``, [3p] research
agent-sessions §4). The ``event_msg`` ``agent_message`` / ``turn_context`` and the Claude
``message.id`` blocks follow the same research (§1 fact 6, §4 fact 41). The CLI runs as a
subprocess; the index is real SQLite in the cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulelens.memory.agent_transcripts import ClaudeTranscripts, CodexTranscripts, index_path
from unit.sessions.formats import claude_transcript, codex_rollout

TS = "2026-09-01T10:00:00.000Z"


def line(record: Any) -> str:
    return (record if isinstance(record, str) else json.dumps(record)) + "\n"


def codex_event(kind: str, text: str) -> dict[str, Any]:
    return {"timestamp": TS, "type": "event_msg", "payload": {"type": kind, "message": text}}


#: Lines 5.. of the rollout (1 session_meta, 2 environment context, 3 turn_context,
#: 4 the user's "Hello from user").
CODEX_EXTRA: list[Any] = [
    {"timestamp": TS, "type": "response_item", "payload": {
        "type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "Transfers deadlock (response item)"}]}},
    codex_event("agent_message", "Transfers deadlock because rows are locked in request order."),
    '{"timestamp":"x","type":"event_msg","payload":{"type":"agent_message","message":"torn',
    codex_event("agent_message", "Lock the accounts in id order to stop the deadlock."),
    {"timestamp": TS, "type": "turn_context", "payload": {"cwd": "/x", "model": "gpt-5-codex"}},
    codex_event("agent_message", "A second turn about the ledger export."),
    codex_event("user_message", "Why do transfers deadlock under load?"),
]


def claude_record(kind: str, uuid: str, content: Any, cwd: str, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if "msg" in extra:
        message["id"] = extra.pop("msg")
    return {"type": kind, "uuid": uuid, "parentUuid": None, "sessionId": "5b0e8f7a",
            "cwd": cwd, "version": "2.1.240", "timestamp": TS, "isSidechain": False,
            "message": message, **extra}


def claude_tail(cwd: str) -> str:
    """Lines 2.. of a transcript whose line 1 is the user's "fix the tests"."""
    return "".join(line(r) for r in [
        claude_record("assistant", "a1", [{"type": "thinking", "thinking": "webhook?"}], cwd,
                      msg="msg_1"),
        claude_record("assistant", "a2", [{"type": "text", "text":
                      "The flaky test races the webhook retry queue."}], cwd, msg="msg_1"),
        claude_record("assistant", "a3", [{"type": "tool_use", "id": "t1", "name": "Bash",
                                           "input": {"command": "pytest"}}], cwd, msg="msg_1"),
        claude_record("user", "r1", [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "webhook retry queue ok"}], cwd),
        claude_record("assistant", "a4", [{"type": "text", "text":
                      "Fixed: the retry queue is drained before asserting."}], cwd, msg="msg_2"),
        claude_record("user", "m1", "Caveat: webhook local command output", cwd, isMeta=True),
        claude_record("user", "s1", "subagent prompt about the webhook", cwd, isSidechain=True),
        "{not json",
        claude_record("user", "u9", "now check the webhook retries in CI", cwd),
    ])


class Home:
    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        self.home.mkdir()
        self.work = base / "work" / "ledger-api"
        self.work.mkdir(parents=True)
        self.cache = base / "cache"
        self.env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "RULELENS_CACHE_DIR": str(self.cache)}

    def codex(self, cwd: Path, ts: str, uuid: str, extra: list[Any]) -> Path:
        path = codex_rollout(self.home / ".codex", str(cwd), ts, uuid, None)
        with path.open("a", encoding="utf-8") as fh:
            fh.writelines(line(r) for r in extra)
        return path

    def claude(self, cwd: Path, sid: str, tail: str) -> Path:
        return claude_transcript(self.home, str(cwd), sid, TS, None, tail=tail)

    def search(self, query: str, agent: str, *extra: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-m", "rulelens", "memory", "search", query,
                               "--agent", agent, "--workspace", str(self.work), "--json",
                               *extra], env=self.env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture
def h(tmp_path: Path) -> Home:
    return Home(Path(os.path.realpath(tmp_path)))


def tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_codex_turns_never_cross_a_turn_and_skip_malformed_lines(h: Home) -> None:
    path = h.codex(h.work, "2026-09-01T10-00-00", "0199a1b2-0000-7000-8000-00000000c0de",
                   CODEX_EXTRA)
    with CodexTranscripts(index_path(h.env, "codex", str(h.work))) as idx:
        synced = idx.sync_agent(h.env, str(h.work))
        assert synced.parsed == (str(path),)
        turns = [(role, ln, text) for _, role, ln, _, text in idx.turns(str(path))]
    assert turns == [
        ("user", 4, "Hello from user"),
        # two agent messages of one turn (the torn line 7 between them skipped) ...
        ("assistant", 6, "Transfers deadlock because rows are locked in request order.\n\n"
                         "Lock the accounts in id order to stop the deadlock."),
        # ... and the turn_context on line 9 ends it
        ("assistant", 10, "A second turn about the ledger export."),
        ("user", 11, "Why do transfers deadlock under load?"),
    ]


def test_codex_search_is_labelled_and_only_this_workspace(h: Home) -> None:
    mine = h.codex(h.work, "2026-09-01T10-00-00", "0199a1b2-0000-7000-8000-00000000c0de",
                   CODEX_EXTRA)
    other = h.work.parent / "other"
    other.mkdir()
    h.codex(other, "2026-09-02T10-00-00", "0199a1b2-0000-7000-8000-0000000000ff",
            [codex_event("agent_message", "Transfers deadlock in the other project too.")])
    without = h.search("transfers deadlock", "codex")
    assert "transcripts" not in without  # opt-in
    out = h.search("transfers deadlock", "codex", "--sources", "memory,transcript")
    hits = out["transcripts"]
    assert hits and {t["path"] for t in hits} == {str(mine)}
    assert all(t["source"] == "transcript" and t["agent"] == "codex" for t in hits)
    assert all(t["label"] == "not searched by the agent's memory tools" for t in hits)
    assert {(t["role"], t["start_line"]) for t in hits} >= {("assistant", 6), ("user", 11)}


def test_claude_turns_text_only_one_message_id_per_turn(h: Home) -> None:
    path = h.claude(h.work, "5b0e8f7a-0000-4000-8000-000000000001", claude_tail(str(h.work)))
    with ClaudeTranscripts(index_path(h.env, "claude", str(h.work))) as idx:
        idx.sync_agent(h.env, str(h.work))
        turns = [(role, ln, text) for _, role, ln, _, text in idx.turns(str(path))]
    assert turns == [
        ("user", 1, "fix the tests"),
        ("assistant", 3, "The flaky test races the webhook retry queue."),
        ("assistant", 6, "Fixed: the retry queue is drained before asserting."),
        ("user", 10, "now check the webhook retries in CI"),
    ]


def test_claude_incremental_a_growing_turn_is_read_again(h: Home) -> None:
    cwd = str(h.work)
    path = h.claude(h.work, "5b0e8f7a-0000-4000-8000-000000000001", claude_tail(cwd))
    with ClaudeTranscripts(index_path(h.env, "claude", cwd)) as idx:
        idx.sync_agent(h.env, cwd)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line(claude_record("assistant", "a5", [{"type": "text", "text":
                                        "CI retries twice."}], cwd, msg="msg_3")))
        second = idx.sync_agent(h.env, cwd)
        assert second.appended == (str(path),) and second.turns_added == 2  # from line 10
        with path.open("a", encoding="utf-8") as fh:  # the same message goes on
            fh.write(line(claude_record("assistant", "a6", [{"type": "text", "text":
                                        "Then it gives up."}], cwd, msg="msg_3")))
        assert idx.sync_agent(h.env, cwd).appended == (str(path),)
        assert idx.sync_agent(h.env, cwd).appended == ()  # nothing changed
        turns = idx.turns(str(path))
    assert [(t[1], t[2], t[4]) for t in turns[-2:]] == [
        ("user", 10, "now check the webhook retries in CI"),
        ("assistant", 11, "CI retries twice.\n\nThen it gives up.")]


def test_all_agents_transcripts_in_our_cache_agents_files_untouched(h: Home) -> None:
    codex = h.codex(h.work, "2026-09-01T10-00-00", "0199a1b2-0000-7000-8000-00000000c0de",
                    [codex_event("agent_message", "The webhook retry queue deadlocks.")])
    sub = h.work / "services" / "api"
    sub.mkdir(parents=True)
    claude = h.claude(sub, "5b0e8f7a-0000-4000-8000-000000000002", claude_tail(str(sub)))
    before = tree(h.home)
    out = h.search("webhook retry queue", "all", "--sources", "memory,transcript")
    agents = {t["agent"] for t in out["transcripts"]}
    assert agents == {"codex", "claude"}
    assert {t["path"] for t in out["transcripts"]} == {str(codex), str(claude)}
    assert tree(h.home) == before  # nothing written next to the agents' files
    assert list((h.cache / "agent-transcripts").glob("*/*/index.sqlite"))
    text = subprocess.run([sys.executable, "-m", "rulelens", "memory", "search",
                           "webhook retry queue", "--agent", "all", "--workspace",
                           str(h.work), "--sources", "transcript"], env=h.env,
                          capture_output=True, text=True, check=True).stdout
    assert "transcripts (not searched by the agent's memory tools):" in text
    row = next(r for r in text.splitlines() if f"{claude.name}:3" in r)
    assert " claude  assistant " in row


def test_a_link_out_of_the_sessions_dir_is_never_read(h: Home) -> None:
    outside = h.home / "secret.jsonl"
    outside.write_text(line({"timestamp": TS, "type": "session_meta", "payload": {
        "id": "x", "cwd": str(h.work)}}) + line(codex_event("user_message", "secret webhook")))
    day = h.home / ".codex" / "sessions" / "2026" / "09" / "01"
    day.mkdir(parents=True)
    link = day / "rollout-2026-09-01T10-00-00-0199a1b2-0000-7000-8000-00000000dead.jsonl"
    link.symlink_to(outside)
    out = h.search("secret webhook", "codex", "--sources", "transcript")
    assert out["transcripts"] == []
    assert any(str(link) in n and "transcript skipped" in n for n in out["notes"])
