"""Hostile files in memory v2 scopes and in Grok's session transcripts (issue 11, items 1
and 5, for ``memory/v2.py`` and ``memory/transcripts.py``).

A FIFO, a link to ``/dev/zero`` or a link out of the root named like a v2 topic or
observation, or like a transcript's ``updates.jsonl``, ``summary.json`` or ``.cwd``: the
CLI (``memory manifest``, ``memory status``, ``memory search --sources transcript``) runs as
a real process under a timeout and must finish, print no traceback, never show the
outside content, and list the file as skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from adversarial.hostile import TIMEOUT_S, Tree, assert_clean, make, make_tree
from rulelens.memory.v2 import locate_v2

#: Outside content; it must never appear in any output.
SECRET = "ZZOUTSIDEZZ"
KINDS = ("fifo", "dev-zero", "fifo-link", "link-out")
V2_REASONS = {"fifo": "not-a-file: a FIFO; memory v2 lists regular files only",
              "dev-zero": "link: a symbolic link (to /dev/zero)",
              "fifo-link": "link: a symbolic link (to ", "link-out": "link: a symbolic link (to "}
REASONS = {"fifo": "not-a-file: a FIFO", "dev-zero": "outside-roots: a link to /dev/zero",
           "fifo-link": "not-a-file: a FIFO", "link-out": "outside-roots: a link to"}


def _tree(tmp_path: Path, v2: bool) -> Tree:
    tree = make_tree(tmp_path)
    tree.env["RULELENS_CACHE_DIR"] = str(tmp_path / "cache")
    config = "[memory]\nenabled = true\n" + ("[memory_v2]\nenabled = true\n" if v2 else "")
    (tree.grok_home / "config.toml").write_text(config, encoding="utf-8")
    return tree


def _link_out(path: Path, outside_dir: Path, outside_text: str) -> None:
    outside_dir.mkdir(parents=True, exist_ok=True)
    target = outside_dir / path.name
    target.write_text(outside_text, encoding="utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def _put(path: Path, kind: str, outside_dir: Path, outside_text: str) -> None:
    if kind == "link-out":
        _link_out(path, outside_dir, outside_text)
    else:
        make(path, kind)


def _run(tree: Tree, *args: str) -> subprocess.CompletedProcess[bytes]:
    done = tree.run("memory", *args, "--workspace", str(tree.repo))
    assert_clean(done)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode() + done.stderr.decode()
    assert SECRET not in out, out
    return done


# -- memory v2 --------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["topics", "inbox"])
@pytest.mark.parametrize("kind", KINDS)
def test_v2_scope_file(tmp_path: Path, where: str, kind: str) -> None:
    tree = _tree(tmp_path, v2=True)
    scope = locate_v2(str(tree.repo), str(tree.grok_home)).workspace_scope
    directory = Path(scope.topics if where == "topics" else scope.inbox)
    directory.mkdir(parents=True)
    (directory / "deploy.md").write_text("# Deploy\n\nTags promote to production.\n",
                                         encoding="utf-8")
    evil = directory / "evil.md"
    _put(evil, kind, tmp_path / "outside", f"# {SECRET}\n\n{SECRET} production\n")

    manifest = json.loads(_run(tree, "manifest", "--json").stdout)
    text = next(m["text"] for m in manifest if m["scope"] == "workspace")
    assert "**Deploy**" in text and "evil" not in text

    status = _run(tree, "status").stdout.decode()
    line = next(ln for ln in status.splitlines() if "skipped" in ln and "evil.md" in ln)
    sub = "topics" if where == "topics" else "observations/_inbox"
    assert f"/{sub}/evil.md: {V2_REASONS[kind]}" in line, line
    data = json.loads(_run(tree, "status", "--json").stdout)
    assert [os.path.basename(k["path"]) for k in data["v2_skipped"]] == ["evil.md"]

    found = json.loads(_run(tree, "search", "production", "--json").stdout)
    paths = [os.path.basename(r["path"]) for r in found["results"]]
    assert "deploy.md" in paths and "evil.md" not in paths


@pytest.mark.parametrize("kind", KINDS)
def test_v2_entry_reader_refuses_what_replaced_a_listed_file(tmp_path: Path, kind: str
                                                             ) -> None:
    """A topic that became a FIFO, a device link or a link out after it was listed: the
    manifest reader (its own process, under a timeout) reads nothing from it."""
    scope = tmp_path / "memory-v2" / "global"
    path = scope / "topics" / "evil.md"
    _put(path, kind, tmp_path / "outside", f"# {SECRET}\n\n{SECRET}\n")
    code = ("import sys; from rulelens.memory.v2 import read_entry;"
            " e = read_entry(sys.argv[1], sys.argv[2], 'topics/evil.md', 512);"
            " print(e.title, '|', e.description)")
    done = subprocess.run([sys.executable, "-c", code, str(scope), str(path)],
                          capture_output=True, timeout=TIMEOUT_S, check=False)
    assert_clean(done)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == "evil | \n"


def test_v2_index_unavailable_falls_back_and_repairs(tmp_path: Path) -> None:
    tree = _tree(tmp_path, v2=True)
    v2 = locate_v2(str(tree.repo), str(tree.grok_home))
    topics = Path(v2.workspace_scope.topics)
    topics.mkdir(parents=True)
    (topics / "deploy.md").write_text("# Deploy\n\nTags promote to production.\n",
                                      encoding="utf-8")
    index = tmp_path / "cache" / "memory-v2" / v2.workspace.name / "index.sqlite"
    index.mkdir(parents=True)  # a directory where our index file goes
    done = _run(tree, "search", "production", "--json")
    found = json.loads(done.stdout)
    assert found["note"].startswith(f"index unavailable: {index} is a directory")
    assert "showing unindexed results" in found["note"]
    assert [os.path.basename(r["path"]) for r in found["results"]] == ["deploy.md"]
    assert b"apsw" not in done.stderr
    index.rmdir()
    found = json.loads(_run(tree, "search", "production", "--json").stdout)
    assert not (found["note"] or "").startswith("index unavailable")
    assert index.is_file()


# -- transcripts ------------------------------------------------------------------------

def _chunk(kind: str, text: str, key: int) -> str:
    meta = {"promptId": f"p{key}"} if kind == "agent_message_chunk" else {"promptIndex": key}
    return json.dumps({"timestamp": 1784278800 + key, "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": kind,
                                     "content": {"type": "text", "text": text}},
        "_meta": meta}}) + "\n"


def _session(tree: Tree, sid: str, text: str) -> Path:
    group = tree.grok_home / "sessions" / urllib.parse.quote(str(tree.repo), safe="")
    d = group / sid
    d.mkdir(parents=True)
    (d / "updates.jsonl").write_text(
        _chunk("user_message_chunk", f"why do transfers deadlock {text}", 0)
        + _chunk("agent_message_chunk", f"transfers deadlock because of lock order {text}", 1),
        encoding="utf-8")
    (d / "summary.json").write_text(json.dumps(
        {"info": {"id": sid, "cwd": str(tree.repo)}, "generated_title": f"Title {sid}"}),
        encoding="utf-8")
    return d


def _transcripts(tree: Tree) -> tuple[list[dict[str, object]], str]:
    done = _run(tree, "search", "transfers deadlock", "--sources", "memory,transcript",
                "--json")
    text = _run(tree, "search", "transfers deadlock", "--sources", "transcript")
    assert "transcripts (not searched by the agent's memory tools)" in text.stdout.decode()
    hits: list[dict[str, object]] = json.loads(done.stdout).get("transcripts", [])
    return hits, done.stderr.decode()


@pytest.mark.parametrize("target", ["updates.jsonl", "summary.json", ".cwd"])
@pytest.mark.parametrize("kind", KINDS)
def test_transcript_file(tmp_path: Path, target: str, kind: str) -> None:
    tree = _tree(tmp_path, v2=False)
    _session(tree, "good", "goodturn")
    evil = _session(tree, "evil", "evilturn")
    outside = tmp_path / "outside"
    if target == "updates.jsonl":
        path = evil / "updates.jsonl"
        path.unlink()
        content = _chunk("agent_message_chunk", f"transfers deadlock {SECRET}", 2)
    elif target == "summary.json":
        path = evil / "summary.json"
        path.unlink()
        content = json.dumps({"info": {"id": SECRET, "cwd": str(tree.repo)},
                              "generated_title": SECRET})
    else:
        (evil / "summary.json").unlink()  # the group's .cwd is read only without a summary
        path = evil.parent / ".cwd"
        content = str(tree.repo / SECRET)
    _put(path, kind, outside, content)

    hits, stderr = _transcripts(tree)
    sessions = {h["session_id"] for h in hits}
    assert "good" in sessions
    assert f"transcript skipped {path}: {REASONS[kind]}" in stderr, stderr
    if target == "updates.jsonl":
        assert "evil" not in sessions
    else:  # the session is still found: its cwd comes from the group name
        assert "evil" in sessions


def test_transcript_that_becomes_a_link_leaves_the_index(tmp_path: Path) -> None:
    tree = _tree(tmp_path, v2=False)
    evil = _session(tree, "evil", "evilturn")
    hits, _ = _transcripts(tree)
    assert {h["session_id"] for h in hits} == {"evil"}
    (evil / "updates.jsonl").unlink()
    _link_out(evil / "updates.jsonl", tmp_path / "outside",
              _chunk("agent_message_chunk", f"transfers deadlock {SECRET}", 2))
    hits, stderr = _transcripts(tree)
    assert hits == [] and "outside-roots" in stderr


def test_transcript_line_that_never_ends_is_not_held(tmp_path: Path) -> None:
    """A 300 MB ``updates.jsonl`` line (sparse: no newline for 300 MB) is counted, not held:
    the turn after it is indexed and the process stays far below the line's size."""
    tree = _tree(tmp_path, v2=False)
    d = _session(tree, "big", "bigturn")
    path = d / "updates.jsonl"
    tail = path.read_bytes()
    with open(path, "wb") as fh:  # 300 MB of zero bytes (a hole), then the two turns
        fh.truncate(300 << 20)
        fh.seek(300 << 20)
        fh.write(b"\n" + tail)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over execve, so a child of a large
    # pytest process would report the parent's peak.
    code = ("import re, sys; from rulelens.memory.transcripts import TranscriptIndex;"
            " idx = TranscriptIndex(sys.argv[2]); r = idx.sync(sys.argv[1]);"
            " hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read());"
            " print(r.turns_added, hwm.group(1) if hwm else -1)")
    done = subprocess.run([sys.executable, "-c", code, str(tree.grok_home),
                           str(tmp_path / "t.sqlite")], capture_output=True,
                          timeout=TIMEOUT_S * 2, check=False)
    assert_clean(done)
    assert done.returncode == 0, done.stderr.decode()
    turns, max_rss_kib = map(int, done.stdout.split())
    assert turns == 2
    assert 0 < max_rss_kib < 150 * 1024, max_rss_kib  # holding the line alone would be 300 MB
    print(f"max RSS {max_rss_kib // 1024} MB")
