"""The CLI contract of profiles and folder trust: `--agent`, `--trust`, `inspect`, `agents`,
`render --frame rules`, and `lint` assuming a trusted folder.

A real process on a fake home built only from environment variables and files (HOME,
GROK_HOME, trusted_folders.toml, config.toml), as in test_cli_chain.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RULELENS = str(Path(sys.executable).with_name("rulelens"))
DETAIL = ("Grok loads project instructions only in a trusted folder; it will ask when a"
          " session starts here, or run `grok --trust`")


def write(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class Home:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.grok = self.home / ".grok"
        self.repo = base / "repo"
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)
        write(self.grok / "rules" / "me.md", "---\nx: 1\n---\npersonal\n")
        write(self.repo / "AGENTS.md", "root rules\n")
        write(self.repo / "src" / ".claude" / "rules" / "py.md", "typed\n")
        self.env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "XDG_CONFIG_HOME": str(self.home / ".config"), "LANG": "C.UTF-8"}

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([RULELENS, *args], cwd=self.base, env={**self.env, **env},
                              capture_output=True, text=True, check=False, timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def json(self, *args: str, **env: str) -> dict[str, object]:
        done = self.run(*args, "--json", **env)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        result: dict[str, object] = json.loads(done.stdout)
        return result

    def trust(self, trusted: bool = True) -> None:
        write(self.grok / "trusted_folders.toml",
              f'[folders."{self.repo}"]\ntrusted = {str(trusted).lower()}\n')


@pytest.fixture
def h(tmp_path: Path) -> Home:
    return Home(Path(os.path.realpath(tmp_path)))


def _files(result: dict[str, object]) -> list[tuple[str, str, str]]:
    files = result["files"]
    assert isinstance(files, list)
    return [(f["path"], f["role"], f["source"]) for f in files]


def test_default_is_the_newest_grok_and_an_undecided_folder_withholds(h: Home) -> None:
    result = h.json("chain", str(h.repo / "src"))
    assert result["agent"] == "grok@1.0.45"
    assert _files(result) == [(str(h.grok / "rules" / "me.md"), "home", "home")]
    assert result["skipped"] == [
        {"path": str(h.repo / "AGENTS.md"), "reason": "untrusted-folder", "detail": DETAIL},
        {"path": str(h.repo / "src" / ".claude" / "rules" / "py.md"),
         "reason": "untrusted-folder", "detail": DETAIL}]
    trust = result["trust"]
    assert isinstance(trust, dict) and set(trust) == {"state", "key", "reason"}
    assert trust["state"] == "undecided" and trust["key"] == str(h.repo)
    assert "grok --trust" in trust["reason"]
    assert h.json("chain", str(h.repo / "src"), "--agent", "grok") == result


def test_1_0_6_prints_todays_shape_plus_agent_and_source(h: Home) -> None:
    result = h.json("chain", str(h.repo / "src"), "--agent", "grok@1.0.6")
    assert set(result) == {"agent", "cwd", "git_root", "files", "skipped"}
    assert result["agent"] == "grok@1.0.6" and result["skipped"] == []
    assert _files(result) == [(str(h.grok / "rules" / "me.md"), "home", "home"),
                              (str(h.repo / "AGENTS.md"), "project", "project"),
                              (str(h.repo / "src" / ".claude" / "rules" / "py.md"), "project",
                               "project")]
    files = result["files"]
    assert isinstance(files, list) and files[0]["tokens"] == (len("personal\n") + 3) // 4


def test_store_grant_and_trust_overrides(h: Home) -> None:
    h.trust()
    trusted = h.json("chain", str(h.repo))
    assert trusted["trust"] == {"state": "trusted", "key": str(h.repo), "reason":
                                f"trusted: {h.repo} in {h.grok / 'trusted_folders.toml'}"}
    assert len(_files(trusted)) == 2 and trusted["skipped"] == []
    forced = h.json("chain", str(h.repo), "--trust", "untrusted")
    assert forced["trust"]["state"] == "untrusted"  # type: ignore[index]
    assert [s["reason"] for s in forced["skipped"]] == ["untrusted-folder"]  # type: ignore[union-attr]
    h.trust(False)
    declined = h.json("chain", str(h.repo))
    assert declined["trust"]["state"] == "untrusted"  # type: ignore[index]
    what_if = h.json("chain", str(h.repo), "--trust", "trusted")
    assert len(_files(what_if)) == 2
    off = h.json("chain", str(h.repo), GROK_FOLDER_TRUST="0")
    assert off["trust"] == {"state": "not-required", "key": None,
                            "reason": "folder trust is off (GROK_FOLDER_TRUST=0 in the"
                                      " environment)"}


def test_configured_source_from_config_toml(h: Home) -> None:
    team = write(h.base / "team" / "style.md", "style\n").parent
    write(h.grok / "config.toml", f'[paths]\nextra_rule_dirs = ["{team}", "relative"]\n')
    result = h.json("chain", str(h.repo))
    assert _files(result)[1] == (str(team / "style.md"), "home", "configured")
    text = h.run("chain", str(h.repo)).stdout
    assert "configured" in text and "trust:    undecided: 1 project file(s) withheld" in text
    write(h.grok / "config.toml", '[paths]\nextra_rule_dirs = "not a list"\n')
    bad = h.run("chain", str(h.repo))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "extra_rule_dirs must be a list" in bad.stderr


def test_render_frames(h: Home) -> None:
    h.trust()
    reminder = h.run("render", str(h.repo))
    assert reminder.returncode == 0 and reminder.stdout.startswith("\n\n<system-reminder>\n")
    rules = h.run("render", str(h.repo), "--frame", "rules")
    assert rules.returncode == 0 and rules.stdout.startswith("<rules>\nThe rules section")
    assert (f'<always_applied_workspace_rule name="{h.repo}/AGENTS.md">\nroot rules\n'
            "</always_applied_workspace_rule>\n") in rules.stdout
    assert "<user_rule>\npersonal\n</user_rule>\n</user_rules>\n</rules>" in rules.stdout
    old = h.run("render", str(h.repo), "--agent", "grok@1.0.6", "--frame", "rules")
    assert old.returncode == 2 and old.stdout == "" and "no `rules` frame" in old.stderr


def test_inspect_text_and_json(h: Home) -> None:
    text = h.run("inspect", str(h.repo)).stdout
    assert text.splitlines() == [
        "", "  Environment", f"  \u2514 CWD: {h.repo}", f"  \u2514 Git root: {h.repo}/",
        "  \u2514 Project trusted: no", "", "  Project Instructions (1)",
        f"  \u2514 {h.grok}/rules/me.md (global, ~2 tokens)"]
    h.trust()
    data = h.json("inspect", str(h.repo / "src"))
    assert data["cwd"] == str(h.repo / "src") and data["projectRoot"] == f"{h.repo}/"
    assert data["projectTrusted"] is True
    assert data["projectInstructions"] == [
        {"path": str(h.grok / "rules" / "me.md"), "scope": "global", "fileType": "rules",
         "sizeBytes": 9, "approxTokens": 2},
        {"path": str(h.repo / "AGENTS.md"), "scope": "project", "fileType": "agents_md",
         "sizeBytes": 11, "approxTokens": 2},
        {"path": str(h.repo / "src" / ".claude" / "rules" / "py.md"), "scope": "project",
         "fileType": "rules", "sizeBytes": 6, "approxTokens": 1, "vendor": "claude"}]
    off = h.json("inspect", str(h.repo / "src"), GROK_CLAUDE_RULES_ENABLED="0")
    listed = off["projectInstructions"]
    assert isinstance(listed, list) and listed[2]["disabled"] is True
    assert listed[2]["compatibilityStatus"] == "disabled"
    text = h.run("inspect", str(h.repo / "src"), GROK_CLAUDE_RULES_ENABLED="0").stdout
    assert text.rstrip().endswith("py.md (project, ~1 tokens) [claude] [disabled]")


def test_agents_lists_profiles_with_sources(h: Home) -> None:
    text = h.run("agents").stdout
    assert "grok@1.0.6  Grok Build 1.0.6\n" in text
    assert "grok@1.0.45  Grok Build 1.0.45  (default: `grok`)" in text
    assert "grok-build-1.0.45.md §A6" in text
    rows = json.loads(h.run("agents", "--json").stdout)
    assert [(r["id"], r["default"]) for r in rows][:2] == [("grok@1.0.6", False),
                                                           ("grok@1.0.45", True)]
    assert all(r["sources"] for r in rows)
    # How sure each row is, and its main source (issue 21).
    by_id = {r["id"]: r for r in rows}
    assert by_id["codex@0cf644a"]["evidence"] == "code"
    assert by_id["claude@2.1"]["evidence"] == "docs"
    assert by_id["claude@2.1"]["evidence_source"].startswith("https://code.claude.com/")
    assert "    evidence: docs (https://code.claude.com/docs/en/memory (seen 2026-08))" in text


def test_unknown_agent_is_one_line(h: Home) -> None:
    for args in (("chain", "--agent", "grok@9"), ("render", "--agent", "grok@9"),
                 ("inspect", "--agent", "grok@9"), ("lint", "--agent", "grok@9")):
        done = h.run(*args, str(h.repo))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, args
        assert "unknown agent 'grok@9'" in done.stderr
    for args in (("inspect", "--agent", "claude"), ("lint", "--agent", "codex")):
        done = h.run(*args, str(h.repo))
        assert done.returncode == 2 and "is not a Grok profile" in done.stderr, args


def test_lint_assumes_a_trusted_folder(h: Home) -> None:
    done = h.run("lint", "--format", "json", str(h.repo))
    assert done.returncode in (0, 1), done.stderr
    assert "untrusted" not in done.stdout
    findings = json.loads(done.stdout)
    assert not any("trust" in json.dumps(f) for f in findings)


def test_an_agent_binary_on_path_is_never_executed(h: Home) -> None:
    """RuleLens never runs an agent's binary (not even ``--version``): a ``grok`` on PATH
    that would leave a mark when run leaves none; the installed version comes from sessions
    (``rulelens agents``), not from executing the agent."""
    bin_dir = h.base / "bin"
    mark = h.base / "executed"
    exe = write(bin_dir / "grok", f"#!/bin/sh\ntouch {mark}\necho 'grok 1.0.50'\n")
    exe.chmod(0o755)
    path = f"{bin_dir}:{h.env['PATH']}"
    text = h.run("chain", str(h.repo), PATH=path).stdout
    assert "note:" not in text and "1.0.50" not in text
    h.run("chain", "--json", str(h.repo), PATH=path)
    h.run("agents", PATH=path)
    assert not mark.exists()
