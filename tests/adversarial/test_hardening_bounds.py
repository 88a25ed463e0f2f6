"""Bounded reads for the readers added since the last adversarial run (issue 19, defects 3-5).

Every command runs as a real CLI process under a timeout and an address-space limit, and
its peak resident memory is read from ``VmHWM`` in its own ``/proc/self/status`` as it
exits (not ``ru_maxrss``, which Linux carries over ``execve`` from a large parent). Inputs:
a 1 GiB sparse ``package.json`` and a 100,000-deep one behind ``npm run X``; agents' own
settings nested 100,000 deep; a recursive YAML alias in a ``.mdc``, a Claude rule and a
Boost rule; a 300 MB transcript turn, a transcript line and a ``content`` nested 100,000
deep; a memory v2 topics folder with more than 100,000 entries; and the real server over
stdio asked for an agent whose settings are nested too deeply.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from adversarial.hostile import (
    TIMEOUT_S,
    Tree,
    assert_clean,
    make_tree,
    one_error_line,
    run_limited,
)
from rulelens.memory.v2 import MAX_DIR_ENTRIES, locate_v2

#: What a child may map at most (the old readers peaked at 1.2-2.1 GB on these inputs).
ADDRESS_LIMIT = 1 << 30
#: Peak resident memory every bounded read must stay under.
PEAK_LIMIT_KIB = 200 * 1024
#: The hostile trees that used to hang must answer within this.
ANSWER_S = 5.0
DEEP = 100_000

def measured(tree: Tree, *args: str, cwd: Path | None = None
             ) -> tuple[subprocess.CompletedProcess[bytes], int, float]:
    """``rulelens ARGS`` under the limits: (result, peak RSS in KiB, seconds)."""
    return run_limited(tree, args, cwd or tree.repo, ADDRESS_LIMIT, TIMEOUT_S)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    t = make_tree(tmp_path)
    t.env["RULELENS_CACHE_DIR"] = str(tmp_path / "cache")
    (t.repo / "src").mkdir()
    (t.repo / "src" / "main.py").write_text("print('hi')\n")
    return t


# -- package.json and Makefile ------------------------------------------------------------

def _npm_rule(tree: Tree) -> Path:
    rule = tree.repo / "AGENTS.md"
    rule.write_text("# Rules\n\nRun `npm run build` before every commit.\n")
    return rule


def test_sparse_gib_package_json_is_skipped_by_its_size(tree: Tree) -> None:
    _npm_rule(tree)
    with open(tree.repo / "package.json", "wb") as fh:
        fh.truncate(1 << 30)  # a hole: no disk, 1 GiB to a reader
    done, peak, took = measured(tree, "lint", "AGENTS.md")
    assert done.returncode == 0, done.stderr.decode()
    lines = [ln for ln in done.stdout.decode().splitlines() if "RL506" in ln]
    assert len(lines) == 1, done.stdout.decode()
    assert "package.json is too large (1073741824 bytes" in lines[0]
    assert "its scripts were not checked" in lines[0]
    assert 0 < peak < PEAK_LIMIT_KIB, peak  # the old reader peaked at 2.1 GB
    assert took < ANSWER_S, took
    print(f"1 GiB package.json: peak {peak // 1024} MB, {took:.2f} s")


def test_deep_package_json_is_one_line(tree: Tree) -> None:
    _npm_rule(tree)
    (tree.repo / "package.json").write_text(
        '{"scripts": ' + "[" * DEEP + "]" * DEEP + "}")
    done, peak, _ = measured(tree, "lint", "AGENTS.md")
    assert done.returncode == 0, done.stderr.decode()
    lines = [ln for ln in done.stdout.decode().splitlines() if "RL506" in ln]
    assert len(lines) == 1 and "nested deeper than 64 levels" in lines[0], lines
    assert 0 < peak < PEAK_LIMIT_KIB


def test_deep_composer_and_turbo_json_are_not_parsed(tree: Tree) -> None:
    (tree.repo / "AGENTS.md").write_text(
        "# Rules\n\nRun `composer run lint` and `turbo run build`.\n")
    (tree.repo / "composer.json").write_text('{"scripts": ' + "[" * DEEP + "]" * DEEP + "}")
    (tree.repo / "turbo.json").write_text('{"tasks": ' + '{"a": ' * DEEP + "1" + "}" * DEEP
                                          + "}")
    done, peak, took = measured(tree, "lint", "AGENTS.md")
    assert done.returncode == 0, done.stderr.decode()  # cannot know: nothing reported
    assert took < ANSWER_S and 0 < peak < PEAK_LIMIT_KIB


def test_package_json_with_brackets_in_strings_still_checks_scripts(tree: Tree) -> None:
    """The depth scan skips strings: ``[[[[`` inside a script is not nesting."""
    _npm_rule(tree)
    (tree.repo / "package.json").write_text(json.dumps(
        {"scripts": {"test": "echo '" + "[" * 500 + "'"}}))
    done = tree.run("lint", str(tree.repo / "AGENTS.md"))
    assert_clean(done)
    out = done.stdout.decode()
    assert "no script `build` is defined in package.json" in out, out


# -- agents' own config files ----------------------------------------------------------------

def _deep_json() -> str:
    return '{"a": ' * DEEP + "1" + "}" * DEEP


@pytest.mark.parametrize(("agent", "rel", "content"), [
    ("claude", ".claude/settings.json", _deep_json()),
    ("gemini", ".gemini/settings.json", "[" * DEEP + "]" * DEEP),
    ("codex", ".codex/config.toml", "x = " + "[" * DEEP + "]" * DEEP + "\n"),
    ("codex", ".codex/config.toml", "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n"),
], ids=["claude-settings", "gemini-settings", "codex-array", "codex-inline-table"])
def test_agent_config_nested_too_deeply_is_one_line_and_exit_2(
        tree: Tree, agent: str, rel: str, content: str) -> None:
    (tree.repo / "AGENTS.md").write_text("# a\n")
    (tree.repo / "CLAUDE.md").write_text("# c\n")
    (tree.repo / "GEMINI.md").write_text("# g\n")
    path = tree.home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    done, peak, took = measured(tree, "chain", "--agent", agent, str(tree.repo / "AGENTS.md"))
    line = one_error_line(done)
    # Named from the home (~/…), never by the machine's absolute path.
    assert line == f"rulelens: error: ~/{rel}: nested deeper than 64 levels; not parsed", line
    assert took < ANSWER_S and 0 < peak < PEAK_LIMIT_KIB


# -- YAML frontmatter ------------------------------------------------------------------------

RECURSIVE = "---\nglobs: &a [*a]\nalwaysApply: false\n---\nBody.\n"
DEEP_YAML = "---\npaths: " + "[" * 5000 + "]" * 5000 + "\n---\nBody.\n"


@pytest.mark.parametrize("rel", [".cursor/rules/loop.mdc", ".claude/rules/loop.md",
                                 ".github/instructions/loop.instructions.md"])
def test_recursive_alias_in_frontmatter_answers_quickly(tree: Tree, rel: str) -> None:
    path = tree.repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RECURSIVE.replace("globs", "applyTo" if "github" in rel else
                                      "paths" if "claude" in rel else "globs"))
    done, peak, took = measured(tree, "lint", rel)
    assert took < ANSWER_S, took  # it used to run past 40 s at 1.3 GB
    assert 0 < peak < PEAK_LIMIT_KIB
    out = done.stdout.decode()
    assert "recursive alias" in out, out
    done, _, took = measured(tree, "chain", "--agent", "all", str(path))
    assert done.returncode == 0, done.stderr.decode()
    assert took < ANSWER_S


@pytest.mark.parametrize(("agent", "rel", "content"), [
    ("aider", ".aider.conf.yml", "read: &a [*a]\n"),
    ("cline", ".clinerules/loop.md", RECURSIVE.replace("globs", "paths")),
    ("cline", ".clinerules/deep.md", DEEP_YAML),
])
def test_other_agents_yaml_recursive_or_deep(tree: Tree, agent: str, rel: str,
                                             content: str) -> None:
    (tree.repo / "AGENTS.md").write_text("# a\n")
    path = tree.repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    done, peak, took = measured(tree, "chain", "--agent", agent, str(tree.repo / "AGENTS.md"))
    assert done.returncode == 0, done.stderr.decode()
    assert took < ANSWER_S and 0 < peak < PEAK_LIMIT_KIB
    out = done.stdout.decode()
    assert "recursive alias" in out or "nested deeper than 64 levels" in out, out


def test_boost_rule_frontmatter_nested_or_recursive(tree: Tree) -> None:
    (tree.repo / "artisan").write_text("#!/usr/bin/env php\n")
    rules = tree.repo / ".ai" / "rules"
    rules.mkdir(parents=True)
    (rules / "deep.md").write_text(DEEP_YAML)
    (rules / "loop.md").write_text(RECURSIVE.replace("globs", "paths"))
    (rules / "ok.md").write_text('---\npaths:\n  - "src/**"\n---\nUse hints.\n')
    done, peak, took = measured(tree, "chain", "--agent", "boost", "--json",
                                str(tree.repo / "src" / "main.py"))
    assert done.returncode == 0, done.stderr.decode()
    assert took < ANSWER_S and 0 < peak < PEAK_LIMIT_KIB
    json.loads(done.stdout)


# -- transcripts ------------------------------------------------------------------------------

def _chunk(kind: str, text: str, key: int) -> str:
    meta = {"promptId": f"p{key}"} if kind == "agent_message_chunk" else {"promptIndex": key}
    return json.dumps({"timestamp": 1784278800 + key, "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": kind,
                                     "content": {"type": "text", "text": text}},
        "_meta": meta}}) + "\n"


def _session(tree: Tree, lines: list[str] | None = None) -> Path:
    """A Grok session for the repository (config enables memory); returns updates.jsonl."""
    (tree.grok_home / "config.toml").write_text("[memory]\nenabled = true\n")
    group = tree.grok_home / "sessions" / urllib.parse.quote(str(tree.repo), safe="")
    d = group / "s1"
    d.mkdir(parents=True)
    (d / "summary.json").write_text(json.dumps(
        {"info": {"id": "s1", "cwd": str(tree.repo)}, "generated_title": "Title"}))
    path = d / "updates.jsonl"
    path.write_text("".join(lines or []))
    return path


def _search(tree: Tree) -> tuple[list[dict[str, object]], str, int, float]:
    done, peak, took = measured(tree, "memory", "search", "transfers deadlock", "--sources",
                                "memory,transcript", "--json", "--workspace", str(tree.repo))
    assert done.returncode == 0, done.stderr.decode()
    hits = json.loads(done.stdout).get("transcripts", [])
    return hits, done.stderr.decode(), peak, took


def test_300mb_transcript_turn_is_counted_not_held(tree: Tree) -> None:
    path = _session(tree)
    piece = "x" * ((1 << 20) - 200)
    with open(path, "w") as fh:
        fh.write(_chunk("user_message_chunk", "why do transfers deadlock", 0))
        for _ in range(300):  # one assistant turn: 300 chunks of 1 MiB, one promptId
            fh.write(_chunk("agent_message_chunk", piece, 1))
        fh.write(_chunk("user_message_chunk", "and transfers deadlock again?", 2))
    assert path.stat().st_size > 300 * 1000 * 1000
    hits, stderr, peak, _ = _search(tree)
    assert 0 < peak < PEAK_LIMIT_KIB, peak  # holding the turn peaked at 1.2 GB
    assert {h["start_line"] for h in hits} == {1, 302}, hits
    assert re.search(r"transcript skipped .*updates\.jsonl: turn at line 2: more than"
                     r" 8388608 characters of text \(\d+\); not indexed", stderr), stderr
    print(f"300 MB turn: peak {peak // 1024} MB")


def test_transcript_line_or_content_nested_too_deeply_is_skipped(tree: Tree) -> None:
    deep_content = json.dumps({"method": "session/update", "params": {"update": {
        "sessionUpdate": "agent_message_chunk", "content": []}}}).replace(
        "[]", "[" * DEEP + "]" * DEEP) + "\n"
    deep_line = '{"x": "agent_message_chunk", "y": ' + "[" * DEEP + "\n"
    _session(tree, [_chunk("user_message_chunk", "why do transfers deadlock", 0),
                    deep_content, deep_line,
                    _chunk("agent_message_chunk", "transfers deadlock: lock order", 1)])
    hits, _, peak, took = _search(tree)
    assert sorted(h["role"] for h in hits) == ["assistant", "user"], hits
    assert took < ANSWER_S * 2 and 0 < peak < PEAK_LIMIT_KIB


# -- memory v2 folders ------------------------------------------------------------------------

def test_v2_topics_folder_with_more_than_100k_entries(tree: Tree) -> None:
    (tree.grok_home / "config.toml").write_text(
        "[memory]\nenabled = true\n[memory_v2]\nenabled = true\n")
    scope = locate_v2(str(tree.repo), str(tree.grok_home)).workspace_scope
    topics = Path(scope.topics)
    topics.mkdir(parents=True)
    (topics / "deploy.md").write_text("# Deploy\n\nTags promote to production.\n")
    fd = os.open(topics, os.O_RDONLY)
    try:
        for i in range(MAX_DIR_ENTRIES + 10):
            os.close(os.open(f"n{i}.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    done, peak, _ = measured(tree, "memory", "status", "--workspace", str(tree.repo))
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    line = next(ln for ln in out.splitlines() if "more than" in ln)
    assert f"topics: more than {MAX_DIR_ENTRIES} entries: only the first" in line, line
    assert 0 < peak < PEAK_LIMIT_KIB
    done, _, _ = measured(tree, "memory", "manifest", "--json", "--workspace", str(tree.repo))
    assert done.returncode == 0, done.stderr.decode()
    json.loads(done.stdout)


# -- the server -------------------------------------------------------------------------------

async def test_server_answers_for_an_agent_whose_settings_are_too_deep(tree: Tree) -> None:
    """``rulelens/agentsForFile`` over stdio: Claude's view carries the one-line reason,
    the other agents' views are whole, and the server logs no traceback."""
    import asyncio

    from lsp.conftest import open_doc, request, start_client, stop_client
    from rulelens.lsp import protocol

    (tree.repo / "CLAUDE.md").write_text("# c\n")
    (tree.repo / "AGENTS.md").write_text("# a\n")
    settings = tree.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(_deep_json())
    client = await asyncio.wait_for(start_client(tree.env, [tree.repo], "neovim"), TIMEOUT_S)
    try:
        uri = (tree.repo / "src" / "main.py").as_uri()
        open_doc(client, uri, language="python")
        got = await asyncio.wait_for(request(client, protocol.AGENTS_FOR_FILE, {
            "uri": uri, "agents": ["claude", "codex"]}), TIMEOUT_S)
        views = {v["agent"]: v for v in got["agents"]}
        assert views["claude"]["notes"] == [
            "not shown: ~/.claude/settings.json: nested deeper than 64 levels; not parsed"], \
            views["claude"]
        assert views["claude"]["files"] == []
        assert str(tree.repo / "AGENTS.md") in [f["path"] for f in views["codex"]["files"]]
        chain = await asyncio.wait_for(request(client, protocol.CHAIN, {
            "uri": uri, "agent": "claude"}), TIMEOUT_S)
        assert chain["notes"] == views["claude"]["notes"], chain
    finally:
        await stop_client(client)
    logs = "\n".join(m.message for m in client.log_messages)
    assert "Traceback" not in logs and "RecursionError" not in logs, logs
