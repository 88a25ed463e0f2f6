"""``rulelens/verify`` over the real server (pytest-lsp, VS Code and Neovim capabilities):
the same JSON as ``rulelens verify --json`` on the demo's recorded sessions (a Codex rollout
that matches, a deliberately stale Claude Code transcript), bad params refused, and lens and
hover latency while a large session file is being read."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import (
    Demo,
    hover,
    lenses,
    open_doc,
    request,
    start_client,
    stop_client,
    waiter,
)

DEEP = "src/app/handlers/orders.py"


def cli_verify(demo: Demo, agent: str) -> Any:
    out = subprocess.run([sys.executable, "-m", "rulelens", "verify", str(demo.deep_file),
                          "--agent", agent, "--cwd", str(demo.repo), "--json"],
                         env=demo.env, capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


async def test_verify_serves_the_cli_json(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    for agent, verdict in (("codex", "match"), ("claude", "differs"), ("grok", "match"),
                           ("gemini", "unknown"), ("cursor", "unknown")):
        got = await request(client, protocol.VERIFY, {"uri": uri, "agent": agent})
        assert got["verdict"] == verdict, got["reason"]
        assert got == cli_verify(demo, agent)
    claude = await request(client, protocol.VERIFY, {"uri": uri, "agent": "claude"})
    assert claude["differences"] == [{"path": str(demo.repo / "CLAUDE.local.md"),
                                      "predicted": "start", "observed": "absent"}]
    assert claude["observed"] == [{"path": str(demo.home / ".claude" / "CLAUDE.md"),
                                   "when": "start", "matches_disk": False}]


async def test_verify_params_are_checked(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    with pytest.raises(JsonRpcInvalidParams):
        await request(client, protocol.VERIFY, {"uri": uri})
    got = await request(client, protocol.VERIFY, {"uri": uri, "agent": "codex",
                                                  "session": "/etc/passwd"})
    assert got["verdict"] == "unknown" and "not a path" in got["reason"]
    got = await request(client, protocol.VERIFY, {"uri": uri, "agent": "codex",
                                                  "session": "0199dead-none"})
    assert got["verdict"] == "unknown" and "no codex session with id" in got["reason"]


def _big_rollout(demo: Demo, hole: int, filler: int) -> None:
    """A newer Codex rollout in the demo repository: one line that never ends (a sparse
    hole), then ``filler`` bytes of ordinary lines, then today's AGENTS.md message."""
    folder = demo.home / ".codex" / "sessions" / "2026" / "09" / "02"
    folder.mkdir(parents=True)
    cwd = str(demo.repo)
    text = (demo.repo / "AGENTS.md").read_text()
    meta = {"timestamp": "2026-09-02T08:00:00.000Z", "type": "session_meta", "payload": {
        "id": "0199a1b2-0000-7000-8000-0000000b16f2", "timestamp": "2026-09-02T08:00:00.000Z",
        "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.63.0"}}
    line = json.dumps({"timestamp": "2026-09-02T08:00:01.000Z", "type": "event_msg",
                       "payload": {"type": "agent_message", "message": "y" * 900}}).encode()
    block = (line + b"\n") * ((1 << 20) // (len(line) + 1))
    last = {"timestamp": "2026-09-02T08:00:00.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text":
            f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>"}]}}
    path = folder / "rollout-2026-09-02T08-00-00-0199a1b2-0000-7000-8000-0000000b16f2.jsonl"
    with path.open("wb") as f:
        f.write(json.dumps(meta).encode() + b"\n")
        f.truncate(f.tell() + hole)
        f.seek(0, 2)
        f.write(b"\n")
        for _ in range(filler // len(block)):
            f.write(block)
        f.write(json.dumps(last).encode() + b"\n")


async def test_lens_and_hover_stay_fast_while_a_session_is_read(demo: Demo) -> None:
    _big_rollout(demo, 256 << 20, 256 << 20)
    c = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(DEEP)
        open_doc(c, uri, language="python")
        await lenses(c, uri)
        await hover(c, uri)  # warm

        async def timed(call: Any) -> float:
            began = time.perf_counter()
            await call()
            return (time.perf_counter() - began) * 1000

        idle = sorted([await timed(lambda: hover(c, uri)) for _ in range(20)])
        began = time.perf_counter()
        pending = asyncio.ensure_future(request(c, protocol.VERIFY,
                                                {"uri": uri, "agent": "codex"}))
        busy: list[float] = []
        while not pending.done():
            busy.append(await timed(lambda: hover(c, uri)))
            busy.append(await timed(lambda: lenses(c, uri)))
        result = await pending
        read_s = time.perf_counter() - began
        assert result["session"]["id"].endswith("b16f2") and result["verdict"] == "match"
        assert "1 line over 32 MiB skipped" in result["reason"]
        busy.sort()
        p50, p95 = busy[len(busy) // 2], busy[int(len(busy) * 0.95)]
        print(f"verify read 512 MiB in {read_s:.1f} s; {len(busy)} lens/hover requests"
              f" meanwhile: p50 {p50:.1f} ms, p95 {p95:.1f} ms (idle hover p50"
              f" {idle[10]:.1f} ms)")
        assert len(busy) >= 10  # requests were answered while the read ran
        # bench/lsp.py's target is warm p95 < 10 ms: the median holds it even on a loaded
        # machine; the tail depends on the machine's load (p95 about 4 ms when quiet).
        assert p50 < 10, busy
        assert p95 < 100, busy
    finally:
        await stop_client(c)





async def test_hover_carries_each_agents_last_session_verdict(client: LanguageClient,
                                                               demo: Demo) -> None:
    """Computed in the background: the first hover says it is checking, a later one shows
    the verdicts of the demo's recorded sessions (Codex matches, Claude Code is stale)."""
    from helpers.waiting import until

    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")

    async def verdicts() -> str | None:
        got = await hover(client, uri)
        assert got is not None
        text = got.contents.value  # type: ignore[union-attr]
        block = text.split("**Last session, per agent**", 1)
        return block[1] if len(block) == 2 and "checking" not in block[1] else None

    block = await until(verdicts, "the hover's session verdicts", 60)
    assert "- Codex CLI: ✓ matches your Codex CLI session of 2026-09-01 14:02 UTC" in block
    assert ("- Claude Code: ⚠ differs: CLAUDE.local.md predicted start, absent in the"
            " session") in block
    assert "- Grok: ✓ matches your Grok session of 2026-09-01 13:40 UTC" in block
    assert "- Gemini CLI: ? nothing to compare" in block
    assert "Cursor:" not in block  # agents that record nothing are not listed


async def test_verify_refuses_an_unknown_agent_and_a_cwd_outside(client: LanguageClient,
                                                                 demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    with pytest.raises(JsonRpcInvalidParams):
        await request(client, protocol.VERIFY, {"uri": uri, "agent": "nope"})
    with pytest.raises(JsonRpcInvalidParams):
        await request(client, protocol.VERIFY, {"uri": uri, "agent": "codex", "cwd": "/etc"})


async def test_agents_for_file_carries_last_session(client: LanguageClient, demo: Demo) -> None:
    """The Active Rules view and the Neovim sidebar show each agent's ``last_session``."""
    from helpers.waiting import until

    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")

    async def ready() -> dict[str, Any] | None:
        got = await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri})
        lines = {a["agent"].split("@")[0]: a["last_session"] for a in got["agents"]}
        return lines if "checking" not in str(lines) else None

    lines = await until(ready, "every agent's last_session", 60)
    assert lines["codex"].startswith("✓ matches your Codex CLI session of 2026-09-01 14:02")
    assert lines["claude"].startswith("⚠ differs: CLAUDE.local.md predicted start")
    assert lines["cursor"] is None and lines["copilot"] is None


async def test_a_new_session_refreshes_the_verdict_and_observed_marks(demo: Demo) -> None:
    """The Claude Code session directory is watched: a new session there, in Claude Code's
    transcript format (the demo's template: a user line, then the ``instructions``
    attachment with the files' texts), turns the stale ``⚠ differs`` into ``✓ matches``,
    announced by ``rulelens/chainChanged`` well before the 30 s verdict TTL; the files the
    session loaded carry ``evidence: "observed"`` with the session as their source."""
    from helpers.waiting import until


    c = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(DEEP)
        open_doc(c, uri, language="python")

        async def views() -> dict[str, Any] | None:
            got = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
            by = {a["agent"].split("@")[0]: a for a in got["agents"]}
            return by if "checking" not in str([a["last_session"] for a in by.values()]) \
                else None

        before = await until(views, "every agent's last_session", 60)
        assert before["claude"]["last_session"].startswith("⚠ differs: CLAUDE.local.md")
        grades = {f["path"]: (f["evidence"], f["evidence_source"])
                  for f in before["codex"]["files"]}
        agents_md = str(demo.repo / "AGENTS.md")
        assert grades[agents_md][0] == "observed", grades
        assert "codex session 0199" in grades[agents_md][1], grades
        assert all(e == "code" for p, (e, _s) in grades.items() if p != agents_md), grades
        claude = {f["path"]: f["evidence"] for f in before["claude"]["files"]}
        local = str(demo.repo / "CLAUDE.local.md")
        assert claude[local] == "docs", claude  # not in the stale session
        text = (await hover(c, uri)).contents.value  # type: ignore[union-attr]
        row = next(line for line in text.split("\n") if line.startswith("| AGENTS.md |"))
        assert "start ᵒ" in row, row

        folder = demo.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-",
                                                             str(demo.repo))

        async def armed() -> bool:
            status = await request(c, protocol.SERVER_STATUS, {})
            return str(folder) in status["watching"].get("sessions", [])

        await until(armed, "the watch on Claude Code's session folder")
        old = next(folder.glob("*.jsonl")).read_text().split("\n")[0]
        sid = "5b0e8f7a-d3e0-4000-8000-00000000fe11"
        session = _claude_session(demo, old, sid, "2026-09-03T10:00:00.000Z")
        began = asyncio.get_running_loop().time()
        fut = waiter(c, protocol.CHAIN_CHANGED)
        (folder / f"{sid}.jsonl").write_text(session)
        while True:
            note = await asyncio.wait_for(fut, 20)
            fut = waiter(c, protocol.CHAIN_CHANGED)
            if uri not in list(note.uris):
                continue
            after = await views()
            assert after is not None
            if after["claude"]["last_session"].startswith("✓"):
                break
        took = asyncio.get_running_loop().time() - began
        assert after["claude"]["last_session"] == (
            "✓ matches your Claude Code session of 2026-09-03 10:00 UTC"), after["claude"]
        claude = {f["path"]: (f["evidence"], f["evidence_source"])
                  for f in after["claude"]["files"]}
        assert claude[local][0] == "observed" and sid in claude[local][1], claude
        print(f"new session -> verdict changed and announced in {took:.2f} s")
        assert took < 20, took  # the watch, not the 30 s TTL
    finally:
        await stop_client(c)


async def test_a_first_session_in_a_new_project_folder_is_seen(demo: Demo) -> None:
    """No Claude Code session here yet (its project folder does not exist): the watch on
    ``~/.claude/projects`` sees the folder appear, is armed on it, and the session written
    there (Claude Code's transcript format, as the demo's template) turns ``no session here
    yet`` into ``✓ matches`` without waiting for the 30 s TTL."""
    import shutil

    from helpers.waiting import until

    folder = demo.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(demo.repo))
    template = next(folder.glob("*.jsonl")).read_text().split("\n")[0]
    shutil.rmtree(folder)
    c = await start_client(demo.env, [demo.repo], "neovim")
    try:
        uri = demo.uri(DEEP)
        open_doc(c, uri, language="python")

        async def claude_line() -> str | None:
            got = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
            line = next(a["last_session"] for a in got["agents"] if a["agent"] == "claude")
            return None if "checking" in line else str(line)

        assert await until(claude_line, "Claude Code's verdict", 60) == "no session here yet"

        async def armed() -> bool:
            status = await request(c, protocol.SERVER_STATUS, {})
            return str(folder.parent) in status["watching"].get("sessions", [])

        await until(armed, "the watch on ~/.claude/projects")
        sid = "5b0e8f7a-d3e0-4000-8000-00000000fe12"
        session = _claude_session(demo, template, sid, "2026-09-04T08:30:00.000Z")
        began = asyncio.get_running_loop().time()
        fut = waiter(c, protocol.CHAIN_CHANGED)
        folder.mkdir()
        (folder / f"{sid}.jsonl").write_text(session)
        line = None
        while line is None or not line.startswith("✓"):
            note = await asyncio.wait_for(fut, 20)
            fut = waiter(c, protocol.CHAIN_CHANGED)
            if uri in list(note.uris):
                line = await claude_line()
        assert line == "✓ matches your Claude Code session of 2026-09-04 08:30 UTC"
        assert asyncio.get_running_loop().time() - began < 20  # the watch, not the TTL
    finally:
        await stop_client(c)


def _claude_session(demo: Demo, template: str, sid: str, timestamp: str) -> str:
    """A Claude Code transcript (the demo's first line as template, new id and time) whose
    instructions attachment lists the user's CLAUDE.md and the repository's
    CLAUDE.local.md, as Claude Code writes it."""
    head = json.loads(template) | {"sessionId": sid, "timestamp": timestamp}
    files = [{"path": str(p), "type": kind, "content": p.read_text()} for p, kind in (
        (demo.home / ".claude" / "CLAUDE.md", "User"), (demo.repo / "CLAUDE.local.md",
                                                        "Local"))]
    attach = head | {"type": "attachment", "uuid": "a1", "parentUuid": "u1",
                     "attachment": {"type": "instructions", "files": files}}
    attach.pop("message", None)
    return json.dumps(head) + "\n" + json.dumps(attach) + "\n"
