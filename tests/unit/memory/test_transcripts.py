"""Session transcripts as a source: real updates.jsonl files on disk, a real SQLite index."""

from __future__ import annotations

import json
import os
import tracemalloc
import urllib.parse

from rulelens.memory.transcripts import LABEL, TranscriptIndex, list_sessions, read_session

CWD = "/home/me/src/ledger-api"


def update(kind: str, text: str | list[dict[str, str]], *, ts: int | None = None,
           prompt_id: str | None = None, prompt_index: int | None = None,
           meta_ms: int | None = None) -> str:
    meta: dict[str, object] = {}
    if prompt_id is not None:
        meta["promptId"] = prompt_id
    if prompt_index is not None:
        meta["promptIndex"] = prompt_index
    if meta_ms is not None:
        meta["agentTimestampMs"] = meta_ms
    content = {"type": "text", "text": text} if isinstance(text, str) else text
    record: dict[str, object] = {"method": "session/update", "params": {
        "sessionId": "s1", "update": {"sessionUpdate": kind, "content": content}, "_meta": meta}}
    if ts is not None:
        record = {"timestamp": ts, **record}
    return json.dumps(record) + "\n"


def tool(ts: int, size: int) -> str:
    return json.dumps({"timestamp": ts, "method": "session/update", "params": {
        "sessionId": "s1", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                                      "rawOutput": {"stdout": "x" * size}}}}) + "\n"


def session(home: str, sid: str, lines: list[str], *, summary: dict[str, object] | None = None,
            cwd: str = CWD, cwd_file: bool = False) -> str:
    group = os.path.join(home, "sessions", urllib.parse.quote(cwd, safe=""))
    d = os.path.join(group, sid)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "updates.jsonl"), "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    if summary is not None:
        with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as fh:
            json.dump(summary, fh)
    if cwd_file:
        with open(os.path.join(group, ".cwd"), "w", encoding="utf-8") as fh:
            fh.write(cwd + "\n")
    return os.path.join(d, "updates.jsonl")


CONVERSATION = [
    update("user_message_chunk", "Why do transfers ", ts=1784278800, prompt_index=0),
    update("user_message_chunk", "deadlock under load?", ts=1784278800, prompt_index=0),
    tool(1784278801, 5000),
    update("agent_message_chunk", "Rows are locked in request order; ", ts=1784278802,
           prompt_id="prompt-1"),
    update("agent_message_chunk", [{"type": "text", "text": "lock both accounts "},
                                   {"type": "image", "data": "AAAA"},
                                   {"type": "text", "text": "ordered by id."}],
           ts=1784278803, prompt_id="prompt-1"),
    update("user_message_chunk", "Add a regression test", ts=1784278900, prompt_index=1),
    update("agent_message_chunk", "Added test_concurrent_transfers.py with 50 workers.",
           ts=1784278901, prompt_id="prompt-2"),
]


def summary(title: str = "Deadlock in transfers") -> dict[str, object]:
    return {"info": {"id": "0193a077-aaaa", "cwd": CWD}, "generated_title": title,
            "session_summary": "older summary", "created_at": "2026-07-17T08:00:00Z",
            "updated_at": "2026-07-17T08:05:00Z"}


def test_chunks_join_by_prompt_and_tool_payloads_are_dropped(tmp_path) -> None:
    home = str(tmp_path / "grok")
    path = session(home, "0193a077-aaaa", CONVERSATION, summary=summary())
    with TranscriptIndex(str(tmp_path / "cache" / "t.sqlite")) as idx:
        report = idx.sync(home, CWD)
        assert report.parsed == (path,) and report.turns_added == 4
        turns = idx.turns(path)
    assert [(t[1], t[2], t[4]) for t in turns] == [
        ("user", 1, "Why do transfers deadlock under load?"),
        ("assistant", 4, "Rows are locked in request order; lock both accounts ordered by id."),
        ("user", 6, "Add a regression test"),
        ("assistant", 7, "Added test_concurrent_transfers.py with 50 workers."),
    ]
    assert all("xxxx" not in t[4] for t in turns)  # the tool output never reaches the index
    assert turns[1][3] == 1784278802.0


def test_summary_title_and_fallbacks(tmp_path) -> None:
    home = str(tmp_path / "grok")
    session(home, "with-summary", CONVERSATION, summary=summary("Generated title"))
    session(home, "no-summary", CONVERSATION, cwd="/srv/other", cwd_file=True)
    infos = {s.id: s for s in list_sessions(home)}
    assert infos["0193a077-aaaa"].title == "Generated title"  # generated_title wins
    assert infos["0193a077-aaaa"].cwd == CWD
    bare = infos["no-summary"]
    assert (bare.cwd, bare.title, bare.created_at) == ("/srv/other", None, None)
    os.remove(os.path.join(os.path.dirname(bare.dir), ".cwd"))
    assert read_session(bare.dir).cwd == "/srv/other"  # decoded directory name, last resort


def test_millisecond_timestamps_and_meta_fallback(tmp_path) -> None:
    home = str(tmp_path / "grok")
    path = session(home, "ms", [
        update("user_message_chunk", "deploy the statement export job", ts=1784278800123,
               prompt_index=0),
        update("agent_message_chunk", "Deployed via Argo CD.", meta_ms=1784278801500,
               prompt_id="p1"),
    ], summary=summary())
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        idx.sync(home, CWD)
        assert [t[3] for t in idx.turns(path)] == [1784278800.123, 1784278801.5]


def test_append_continues_the_last_turn_and_reads_only_new_bytes(tmp_path) -> None:
    home = str(tmp_path / "grok")
    path = session(home, "s", CONVERSATION[:4], summary=summary())
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        idx.sync(home, CWD)
        with open(path, "a", encoding="utf-8") as fh:
            fh.writelines(CONVERSATION[4:])
            fh.write('{"timestamp": 1784278999, "params": {"update": {"sessionUp')  # torn
        report = idx.sync(home, CWD)
        assert report.appended == (path,) and report.parsed == ()
        texts = [t[4] for t in idx.turns(path)]
    assert texts[1] == "Rows are locked in request order; lock both accounts ordered by id."
    assert len(texts) == 4


def test_rewind_that_truncates_and_regrows_is_reparsed(tmp_path) -> None:
    home = str(tmp_path / "grok")
    path = session(home, "s", CONVERSATION, summary=summary())
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        idx.sync(home, CWD)
        # Rewind to the first answer, then a different second prompt, longer than before.
        regrown = [
            *CONVERSATION[:5],
            update("user_message_chunk", "Instead, explain the FOR UPDATE ordering in detail",
                   ts=1784279000, prompt_index=1),
            update("agent_message_chunk", "SELECT ... FOR UPDATE takes row locks " * 20,
                   ts=1784279001, prompt_id="prompt-2b"),
        ]
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(regrown)
        assert os.path.getsize(path) > sum(len(x) for x in CONVERSATION)
        report = idx.sync(home, CWD)
        assert report.parsed == (path,)
        texts = [t[4] for t in idx.turns(path)]
        assert "Add a regression test" not in texts
        assert texts[2] == "Instead, explain the FOR UPDATE ordering in detail"
        assert [h.turn for h in idx.search("regression test workers")] == []
        # Shrinking below what was read is a rewind too.
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(CONVERSATION[:2])
        assert idx.sync(home, CWD).parsed == (path,)
        assert [t[4] for t in idx.turns(path)] == ["Why do transfers deadlock under load?"]


def test_search_hit_points_at_the_turn_and_is_labelled(tmp_path) -> None:
    home = str(tmp_path / "grok")
    path = session(home, "s", CONVERSATION, summary=summary())
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        idx.sync(home, CWD)
        hits = idx.search("lock accounts ordered by id")
        assert idx.search("banana bread recipe") == []
    assert hits[0].path == path and hits[0].line == 4 and hits[0].role == "assistant"
    assert hits[0].label == LABEL == "not searched by the agent's memory tools"
    assert hits[0].to_json()["source"] == "transcript"
    assert hits[0].title == "Deadlock in transfers"


def test_other_workspaces_sessions_are_not_indexed(tmp_path) -> None:
    home = str(tmp_path / "grok")
    session(home, "mine", CONVERSATION, summary=summary())
    session(home, "theirs", CONVERSATION, summary={"info": {"id": "theirs", "cwd": "/srv/x"}},
            cwd="/srv/x")
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        assert idx.sync(home, CWD).sessions == 1
        assert idx.sync(home, None).sessions == 2


def test_a_50_mb_transcript_is_indexed_without_holding_it(tmp_path) -> None:
    home = str(tmp_path / "grok")
    d = os.path.join(home, "sessions", "big", "s")
    os.makedirs(d)
    path = os.path.join(d, "updates.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        n = 0
        while fh.tell() < 50 * 1024 * 1024:
            fh.write(update("user_message_chunk", f"question tag{n} about ledger journal rows",
                            ts=1784278800 + n, prompt_index=n))
            fh.write(tool(1784278800 + n, 60_000))
            fh.write(update("agent_message_chunk", f"answer {n}: balances reconcile",
                            ts=1784278800 + n, prompt_id=f"p{n}"))
            n += 1
    assert os.path.getsize(path) >= 50 * 1024 * 1024
    with TranscriptIndex(str(tmp_path / "t.sqlite")) as idx:
        tracemalloc.start()
        try:
            report = idx.sync(home, None)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert report.turns_added == 2 * n
        assert peak < 8 * 1024 * 1024, peak  # a few lines at a time, not the 50 MB file
        assert idx.search(f"tag{n - 1}")[0].turn == 2 * (n - 1)
