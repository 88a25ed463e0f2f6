"""``rulelens memory status|manifest|context|remember|search --rank`` end to end: a real
process, a fake home on disk with a real git repository, the agent version chosen by
``--agent``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from memhome import MemHome

from rulelens.memory.search import FRAMING_SENTENCE
from rulelens.memory.v2 import locate_v2, render_manifest


def run(mh: MemHome, *args: str, code: int = 0, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rulelens", "memory", *args], cwd=mh.repo,
                          env=mh.env, capture_output=True, text=True, input=stdin)
    assert proc.returncode == code, proc.stderr
    return proc


def config(mh: MemHome, text: str) -> None:
    with open(os.path.join(mh.grok_home, "config.toml"), "w", encoding="utf-8") as fh:
        fh.write(text)


def test_status_says_which_store_and_never_prints_epoch_hours(memhome: MemHome) -> None:
    out = run(memhome, "status").stdout
    assert ("store:         memory: off — the agent's default; enable with `[memory] enabled"
            " = true` or `GROK_MEMORY=1`") in out
    assert "h ago" not in out and "498" not in out
    assert "never (no .dream-lock): the time gate counts from 1970, so it is passed" in out
    config(memhome, "[memory_v2]\nenabled = true\n")
    out = run(memhome, "status").stdout
    assert "memory: on, memory v2 (memory-v2/)" in out and "v2 workspace:" in out
    assert "legacy store (the agent does not read it while memory v2 is on):" in out
    assert "memory v2 consolidates on its own schedule" in out and ".dream-lock gates do not" in out
    old = run(memhome, "status", "--agent", "grok@1.0.6").stdout
    assert "agent:         grok@1.0.6" in old and "off — the agent's default" in old
    data = json.loads(run(memhome, "status", "--json").stdout)
    assert data["store"]["mode"] == "v2" and data["agent"] == "grok@1.0.45"


def test_manifest_prints_the_agents_bytes(memhome: MemHome) -> None:
    v2 = locate_v2(memhome.repo, memhome.grok_home)
    os.makedirs(v2.workspace_scope.topics)
    with open(os.path.join(v2.workspace_scope.topics, "deploy.md"), "w") as fh:
        fh.write("# Deploy\n\nTags promote to production.\n")
    out = run(memhome, "manifest", "--scope", "workspace").stdout
    assert out == render_manifest(v2.workspace_scope)
    both = json.loads(run(memhome, "manifest", "--json").stdout)
    assert [m["scope"] for m in both] == ["global", "workspace"]
    assert both[0]["text"].endswith("No memory files have been recorded yet.\n")
    assert "no memory v2" in run(memhome, "manifest", "--agent", "grok@1.0.6", code=2).stderr


def test_remember_goes_to_the_inbox_in_v2_and_to_memory_md_in_legacy(memhome: MemHome) -> None:
    config(memhome, "[memory_v2]\nenabled = true\n")
    refused = run(memhome, "remember", "Deploys need a tag", code=2)
    assert "pass --yes" in refused.stderr and "## Deploys need a tag" in refused.stderr
    v2 = locate_v2(memhome.repo, memhome.grok_home)
    assert not os.path.exists(v2.global_scope.inbox)
    path = run(memhome, "remember", "Deploys need a tag", "--yes").stdout.strip()
    assert os.path.dirname(path) == v2.global_scope.inbox
    assert not os.path.exists(os.path.join(memhome.grok_home, "memory", "MEMORY.md"))
    too_big = run(memhome, "remember", "x" * 70_000, "--yes", code=2)
    assert "exceeding the 65536-byte limit" in too_big.stderr
    config(memhome, "[memory]\nenabled = true\n")
    path = run(memhome, "remember", "Use uv", "--yes").stdout.strip()
    assert path == os.path.join(memhome.grok_home, "memory", "MEMORY.md")
    with open(path, encoding="utf-8") as fh:
        assert fh.read() == "## Use uv"
    ws = run(memhome, "remember", "Ship on Fridays? No.", "--scope", "workspace", "--yes")
    assert ws.stdout.strip() == memhome.location().workspace_memory


def test_context_block_by_version_and_off_when_memory_is_off(memhome: MemHome) -> None:
    memhome.write("MEMORY.md", "# Global Memory\n\n## Deploys\n\n- Deploys go out through Argo"
                               " CD; tags promote releases to production.\n")
    query = "how do deploys go out to production"
    off = run(memhome, "context", query)
    assert off.stdout == "" and "memory: off" in off.stderr
    config(memhome, "[memory]\nenabled = true\n")
    new = run(memhome, "context", query).stdout
    old = run(memhome, "context", query, "--agent", "grok@1.0.6").stdout
    assert new.startswith("<memory-context>\n## Relevant Memory from Past Sessions\n\n"
                          + FRAMING_SENTENCE + "\n\n### Result 1 (score: 1.00, source: global)")
    assert old == new.replace(FRAMING_SENTENCE + "\n\n", "")
    assert new.endswith("</memory-context>") and not new.endswith("\n")
    hi = run(memhome, "context", "hi", "--json")
    assert json.loads(hi.stdout)["query"] == "project conventions preferences architecture"
    config(memhome, "[memory_v2]\nenabled = true\n")
    v2 = run(memhome, "context", query).stdout
    assert v2.startswith("<memory-context>\n## Global memory manifest\n**Scope root:** `")


def test_rank_agent_is_the_default_and_unchanged(memhome: MemHome) -> None:
    memhome.write("MEMORY.md", "# Global Memory\n\n## Deploys\n\n- Deploys go out through Argo"
                               " CD; tags promote releases.\n\n## Editor\n\n- Neovim.\n")
    plain = run(memhome, "search", "deploys tags", "--json").stdout
    assert run(memhome, "search", "deploys tags", "--rank", "agent", "--json").stdout == plain
    assert "rank" not in json.loads(plain)
    text = run(memhome, "search", "deploys tags", "--agent-format").stdout
    assert run(memhome, "search", "deploys tags", "--rank", "best",
               "--agent-format").stdout == text
    best = json.loads(run(memhome, "search", "deploys tags", "--rank", "best", "--json",
                          "--explain").stdout)
    assert best["rank"] == "best" and best["results"][0]["explain"]["matched"] == [
        "deploys", "tags"]
    assert best["results"][0]["explain"]["agent"]["agent_returns"] is True
    table = run(memhome, "search", "deploys tags", "--rank", "best", "--explain").stdout
    assert "cut-off: keyword coverage 1.00 >= 0.34" in table and "agent: keyword 1.00" in table
    memhome.write("ws/MEMORY.md", "# Project Memory\n\n## Tools\n\n- Deploys use helm.\n")
    why = run(memhome, "search", "deploys neovim", "--explain", "--all").stdout
    assert ("the agent would not return this because its score 0.00 is under min_score"
            " 0.70") in why


def test_v2_search_reads_the_v2_scopes_not_the_legacy_tree(memhome: MemHome) -> None:
    memhome.write("MEMORY.md", "# Global Memory\n\n## Deploys\n\n- legacy: deploys use helm.\n")
    v2 = locate_v2(memhome.repo, memhome.grok_home)
    topic = os.path.join(v2.workspace_scope.topics, "deploy.md")
    os.makedirs(os.path.dirname(topic))
    with open(topic, "w", encoding="utf-8") as fh:
        fh.write("# Deploy\n\nDeploys go out through Argo CD when a tag is pushed.\n")
    config(memhome, "[memory_v2]\nenabled = true\n")
    data = json.loads(run(memhome, "search", "deploys tag", "--json").stdout)
    assert [r["path"] for r in data["results"]] == [topic]
    assert data["results"][0]["source"] == "workspace" and data["store"] == "v2"
    assert any("UNCONFIRMED" in w for w in data["warnings"])


def test_search_warns_when_the_index_was_stale(memhome: MemHome) -> None:
    path = memhome.write("MEMORY.md", "# Global Memory\n\n## Deploys\n\n- Deploys use tags.\n")
    first = run(memhome, "search", "deploys")
    assert "stale" not in first.stderr  # a first index is not a stale one
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n## Editor\n\n- Neovim.\n")
    again = run(memhome, "search", "deploys")
    assert ("rulelens: the index was stale: 1 file(s) changed since the last index; they were"
            " re-indexed for this search") in again.stderr
    assert "stale" not in run(memhome, "search", "deploys").stderr


def test_v2_search_model_is_switchable(memhome: MemHome) -> None:
    v2 = locate_v2(memhome.repo, memhome.grok_home)
    topic = os.path.join(v2.global_scope.topics, "deploy.md")
    os.makedirs(os.path.dirname(topic))
    with open(topic, "w", encoding="utf-8") as fh:
        fh.write("# Deploy\n\nDeploys go out through Argo CD.\n")
    config(memhome, "[memory_v2]\nenabled = true\n")
    fts = json.loads(run(memhome, "search", "deploys argo", "--json").stdout)
    assert fts["results"][0]["agent_returns"] is True
    none = json.loads(run(memhome, "search", "deploys argo", "--json", "--v2-search",
                          "none").stdout)
    assert none["results"][0]["path"] == topic and none["results"][0]["agent_returns"] is False
    assert any("'none'" in w for w in none["warnings"])
