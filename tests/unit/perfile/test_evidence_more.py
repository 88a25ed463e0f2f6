"""Every line of the Cline, OpenCode, Qwen Code, Continue and Aider views says how sure it is
and where that comes from (``evidence``/``source`` in ``chain --json``'s shape), and lines
whose fact comes from another file than the row's main source name that file."""

from __future__ import annotations

import json
from pathlib import Path

from agenttree import env_for, git_init, write, write_json

from rulelens.agents import aider, opencode, qwen
from rulelens.agents.registry import BY_ID
from rulelens.rules.perfile import with_source

AGENTS = ("cline", "opencode", "qwen", "continue", "aider")


def _tree(base: Path, home: Path) -> Path:
    repo = git_init(base / "repo")
    write(repo / "AGENTS.md", "root")
    write(repo / "CONVENTIONS.md", "conventions")
    write(repo / ".clinerules" / "a.md", "---\npaths: [\"src/**\"]\n---\nA")
    write(repo / ".qwen" / "rules" / "r.md", "---\npaths: [\"src/**\"]\n---\nR")
    write(repo / ".qwen" / "rules" / "b.md", "baseline")
    write(repo / ".continue" / "rules" / "c.md", "---\nglobs: \"lib/**\"\n---\nC")
    write(home / ".config" / "opencode" / "AGENTS.md", "global")
    write_json(repo / "opencode.json", {"instructions": ["CONVENTIONS.md"]})
    return repo


def test_every_line_has_evidence_and_source(base: Path, home: Path) -> None:
    repo = _tree(base, home)
    target = write(repo / "src" / "m.py")
    for agent in AGENTS:
        record = BY_ID[agent]
        out = json.loads(json.dumps(with_source(
            record.view(str(repo), str(target), env_for(home))).to_json()))
        lines = out["files"] + out["skipped"]
        assert lines, agent
        for line in lines:
            assert line["evidence"] == record.evidence, (agent, line)
            assert line["evidence_source"], (agent, line)
        assert record.evidence == ("code" if agent in ("cline", "opencode", "qwen") else "docs")


def test_lines_from_other_files_name_them(base: Path, home: Path) -> None:
    """Qwen rules cite rulesDiscovery.ts @1aba1b9f; OpenCode's global-first order cites its
    test @1565a419; Aider's 'not named' cites the conventions page."""
    repo = _tree(base, home)
    target = str(write(repo / "src" / "m.py"))
    env = env_for(home)
    q = with_source(qwen.view(str(repo), target, env))
    src = {f["path"]: f["evidence_source"] for f in q.to_json()["files"]}
    assert src[str(repo / ".qwen" / "rules" / "r.md")] == qwen.RULES_REF
    assert src[str(repo / "AGENTS.md")] == qwen.PROFILE.source
    o = with_source(opencode.view(str(repo), target, env)).to_json()
    first = o["files"][0]
    assert first["path"].endswith("opencode/AGENTS.md")
    assert first["evidence_source"] == opencode.ORDER_REF
    a = with_source(aider.view(str(repo), target, env)).to_json()
    skip = next(s for s in a["skipped"] if s["path"].endswith("CONVENTIONS.md"))
    assert skip["evidence_source"] == aider.CONVENTIONS_REF and skip["evidence"] == "docs"
