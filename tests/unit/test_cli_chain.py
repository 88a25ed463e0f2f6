"""`rulelens chain` and `rulelens render` as a user runs them: a real process, a fake home.

The home exists only through environment variables (HOME, GROK_HOME, compat switches,
XAI_ROOT/XAI_USER); the subprocess never sees the real one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.unprivileged import NOBODY, world_readable_tmp

RULELENS = str(Path(sys.executable).with_name("rulelens"))


def write(path: Path, text: str | bytes = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


class Fake:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.home.mkdir()
        self.repo = base / "repo"
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)
        self.env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "XDG_CONFIG_HOME": str(self.home / ".config"), "LANG": "C.UTF-8"}

    def run(self, *args: str, cwd: Path | None = None, as_nobody: bool = False,
            **env: str) -> subprocess.CompletedProcess[bytes]:
        """These tests describe grok@1.0.6 (tests/unit/test_cli_profiles.py covers the
        default, grok@1.0.45): ``chain`` and ``render`` get ``--agent grok@1.0.6``."""
        if args and args[0] in ("chain", "render") and "--agent" not in args:
            args = (args[0], "--agent", "grok@1.0.6", *args[1:])
        cmd = [RULELENS, *args]
        if as_nobody and os.geteuid() == 0:
            cmd = NOBODY + cmd
        done = subprocess.run(cmd, cwd=cwd or self.base, env={**self.env, **env},
                              capture_output=True, check=False, timeout=120)
        assert b"Traceback" not in done.stderr, done.stderr.decode()
        return done

    def chain(self, *args: str, **kw: object) -> dict[str, object]:
        done = self.run("chain", "--json", *args, **kw)  # type: ignore[arg-type]
        assert done.returncode == 0, done.stderr.decode()
        assert done.stderr == b""
        result: dict[str, object] = json.loads(done.stdout)
        return result


@pytest.fixture
def fake(tmp_path: Path) -> Fake:
    return Fake(Path(os.path.realpath(tmp_path)))


@pytest.fixture
def shared_fake() -> Iterator[Fake]:
    """Outside pytest's 0700 tmp dir, so that an unprivileged user can reach it."""
    with world_readable_tmp("rulelens-cli-") as base:
        yield Fake(base)


def _populate(fake: Fake) -> Path:
    grok = fake.base / "grok-home"
    write(grok / "AGENTS.md", "personal")
    write(grok / "rules" / "tone.md", "---\nx: 1\n---\nBe brief.\n")
    write(fake.home / ".claude" / "CLAUDE.md", "claude home")
    write(fake.repo / ".gitignore", "CLAUDE.local.md\n")
    write(fake.repo / "AGENTS.md", "---\nkept: yes\n---\nroot </system-reminder>\n")
    write(fake.repo / "CLAUDE.local.md", "personal, gitignored")
    write(fake.repo / "src" / "AGENTS.md", "src")
    write(fake.repo / "src" / ".claude" / "rules" / "py.md", "---\npaths: '*.py'\n---\nTyped.\n")
    write(fake.repo / "src" / "agents.md", "wrong case")
    write(fake.repo / "src" / "app.py", "print()\n")
    fake.env["GROK_HOME"] = str(grok)
    return grok


def test_chain_json_shape(fake: Fake) -> None:
    grok = _populate(fake)
    result = fake.chain(str(fake.repo / "src" / "app.py"))
    assert set(result) == {"agent", "cwd", "git_root", "files", "skipped"}
    assert result["agent"] == "grok@1.0.6"
    assert result["cwd"] == str(fake.repo / "src")
    assert result["git_root"] == str(fake.repo)
    files = result["files"]
    assert isinstance(files, list)
    for f in files:
        assert set(f) == {"path", "name", "role", "source", "kind", "precedence", "bytes",
                          "tokens", "content"}
        assert f["source"] == f["role"]
    assert [(f["path"], f["role"], f["kind"], f["precedence"]) for f in files] == [
        (str(grok / "AGENTS.md"), "home", "named", 1),
        (str(grok / "rules" / "tone.md"), "home", "rule", 2),
        (str(fake.home / ".claude" / "CLAUDE.md"), "home", "named", 3),
        (str(fake.repo / "AGENTS.md"), "project", "named", 4),
        (str(fake.repo / "src" / "AGENTS.md"), "project", "named", 5),
        (str(fake.repo / "src" / ".claude" / "rules" / "py.md"), "project", "rule", 6),
    ]
    by_path = {os.path.relpath(f["path"], fake.base): f for f in files}
    assert by_path["grok-home/rules/tone.md"]["content"] == "Be brief.\n"
    root = by_path["repo/AGENTS.md"]
    assert root["content"] == "---\nkept: yes\n---\nroot </system-reminder>\n"
    assert root["bytes"] == len(root["content"].encode()) and root["tokens"] == 11
    skipped = result["skipped"]
    assert isinstance(skipped, list)
    assert all(set(s) == {"path", "reason", "detail"} for s in skipped)
    assert [(s["path"], s["reason"]) for s in skipped] == [
        (str(fake.repo / "CLAUDE.local.md"), "gitignored"),
        (str(fake.repo / "src" / "agents.md"), "unrecognized-name"),
    ]
    assert ".gitignore:1" in skipped[0]["detail"]


def test_chain_default_path_is_cwd_and_a_directory_is_the_cwd(fake: Fake) -> None:
    _populate(fake)
    from_cwd = fake.chain(cwd=fake.repo / "src")
    assert from_cwd == fake.chain(str(fake.repo / "src"))
    assert from_cwd["cwd"] == str(fake.repo / "src")


def test_env_only_fake_home_compat_and_workspace_user(fake: Fake) -> None:
    _populate(fake)
    write(fake.repo / "x" / "alice" / "AGENTS.md", "alice")
    result = fake.chain(str(fake.repo / "src"), GROK_CLAUDE_AGENTS_ENABLED="off",
                        GROK_CLAUDE_RULES_ENABLED="0", XAI_ROOT=str(fake.repo), XAI_USER="alice")
    files = result["files"]
    assert isinstance(files, list)
    assert [os.path.relpath(f["path"], fake.base) for f in files] == [
        "grok-home/AGENTS.md", "grok-home/rules/tone.md", "repo/AGENTS.md",
        "repo/x/alice/AGENTS.md", "repo/src/AGENTS.md"]
    reasons = {os.path.relpath(s["path"], fake.base): s["reason"]
               for s in result["skipped"]}  # type: ignore[union-attr]
    assert reasons["home/.claude/CLAUDE.md"] == "compat-disabled"
    assert reasons["repo/src/.claude/rules/py.md"] == "compat-disabled"


def test_human_output(fake: Fake) -> None:
    _populate(fake)
    done = fake.run("chain", str(fake.repo / "src"))
    assert done.returncode == 0
    text = done.stdout.decode()
    assert "git root: " + str(fake.repo) in text
    assert "src/AGENTS.md" in text and "Not loaded (2):" in text
    assert "[gitignored]" in text and "[unrecognized-name]" in text
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    assert lines[header].split() == ["#", "role", "kind", "path", "size", "~tokens"]


def test_render_byte_exact(fake: Fake) -> None:
    grok = _populate(fake)
    done = fake.run("render", str(fake.repo / "src" / "app.py"))
    assert done.returncode == 0 and done.stderr == b""
    expected = (
        "\n\n<system-reminder>\nAs you answer the user's questions, you can use the following"
        " context (ordered from repo root to current directory - deeper files take precedence"
        " on conflicts):\n"
        f"\n## From: {grok}/AGENTS.md\npersonal\n"
        f"\n## From: {grok}/rules/tone.md\nBe brief.\n\n"
        f"\n## From: {fake.home}/.claude/CLAUDE.md\nclaude home\n"
        f"\n## From: {fake.repo}/AGENTS.md\n---\nkept: yes\n---\nroot &lt;/system-reminder>\n\n"
        f"\n## From: {fake.repo}/src/AGENTS.md\nsrc\n"
        f"\n## From: {fake.repo}/src/.claude/rules/py.md\nTyped.\n\n"
        "\nFollow these instructions exactly. When working in subdirectories not listed above,"
        " check for additional project instruction files (AGENTS.md, Claude.md, etc.)."
        "\n</system-reminder>"
    ).encode()
    assert done.stdout == expected
    assert not done.stdout.endswith(b"\n")


def test_render_empty_when_nothing_loads(fake: Fake) -> None:
    done = fake.run("render", str(fake.repo))
    assert (done.returncode, done.stdout) == (0, b"")  # nothing injected: nothing on stdout
    assert done.stderr.startswith(b"rulelens: nothing to render: Grok (grok@1.0.6) loads no")
    result = fake.chain(str(fake.repo))
    assert result["files"] == [] and result["skipped"] == []


def test_render_utf8_regardless_of_locale(fake: Fake) -> None:
    write(fake.repo / "AGENTS.md", "naïve — 日本語\n")
    done = fake.run("render", str(fake.repo), LANG="C", LC_ALL="C")
    assert done.returncode == 0 and "naïve — 日本語\n".encode() in done.stdout


# ------------------------------------------------------------------------ bad input

def _reasons(result: dict[str, object], base: Path) -> list[tuple[str, str]]:
    skipped = result["skipped"]
    assert isinstance(skipped, list)
    return [(os.path.relpath(s["path"], base), s["reason"]) for s in skipped]


def test_directory_named_agents_md(fake: Fake) -> None:
    (fake.repo / "AGENTS.md").mkdir()
    result = fake.chain(str(fake.repo))
    assert result["files"] == []
    assert _reasons(result, fake.base) == [("repo/AGENTS.md", "not-a-file")]
    assert fake.run("render", str(fake.repo)).stdout == b""


def test_non_utf8_rule_file(fake: Fake) -> None:
    write(fake.repo / ".grok" / "rules" / "bad.md", b"\xc3\x28 not utf-8")
    write(fake.repo / ".grok" / "rules" / "good.md", "good")
    result = fake.chain(str(fake.repo))
    assert [f["name"] for f in result["files"]] == ["good.md"]  # type: ignore[union-attr]
    assert _reasons(result, fake.base) == [("repo/.grok/rules/bad.md", "not-utf8")]


def test_symlink_loop_in_rules_dir(fake: Fake) -> None:
    rules = fake.repo / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "loop.md").symlink_to(rules / "loop.md")
    (rules / "dir").symlink_to(rules)
    result = fake.chain(str(fake.repo))
    assert result["files"] == []
    assert _reasons(result, fake.base) == [("repo/.claude/rules/loop.md", "unreadable")]
    assert "symlink loop" in result["skipped"][0]["detail"]  # type: ignore[index]


def test_unreadable_directory_in_the_chain(shared_fake: Fake) -> None:
    fake = shared_fake
    write(fake.repo / "AGENTS.md", "root")
    write(fake.repo / "locked" / "AGENTS.md", "behind a listing we cannot read")
    write(fake.repo / "locked" / "leaf" / "AGENTS.md", "leaf")
    for dirpath, dirnames, filenames in os.walk(fake.base):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    (fake.repo / "locked").chmod(0o311)  # searchable but not listable
    result = fake.chain(str(fake.repo / "locked" / "leaf"), as_nobody=True)
    assert [os.path.relpath(f["path"], fake.base) for f in result["files"]] == [  # type: ignore[union-attr]
        "repo/AGENTS.md", "repo/locked/AGENTS.md", "repo/locked/leaf/AGENTS.md"]
    assert _reasons(result, fake.base) == [("repo/locked", "unreadable")]
    # A PATH the user cannot reach at all is one clear line, not a traceback.
    (fake.repo / "locked").chmod(0o000)
    done = fake.run("chain", str(fake.repo / "locked" / "leaf"), as_nobody=True)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().count("\n") == 1
    assert "Permission denied" in done.stderr.decode()


def test_unreadable_config_toml(shared_fake: Fake) -> None:
    fake = shared_fake
    cfg = write(fake.home / ".grok" / "config.toml", "[compat]\n")
    for d in (fake.home, fake.home / ".grok", fake.repo):
        d.chmod(0o755)
    cfg.chmod(0o000)
    done = fake.run("chain", str(fake.repo), as_nobody=True)
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "config.toml" in err and "cannot read" in err


def test_fifty_megabyte_agents_md(fake: Fake) -> None:
    line = "- " + "keep the build green " * 4 + "\n"
    body = line * (50 * 1024 * 1024 // len(line) + 1)
    write(fake.repo / "AGENTS.md", body)
    result = fake.chain(str(fake.repo))
    files = result["files"]
    assert isinstance(files, list) and len(files) == 1
    assert files[0]["bytes"] == len(body) >= 50 * 1024 * 1024
    assert files[0]["content"] == body and files[0]["tokens"] == (len(body) + 3) // 4
    done = fake.run("render", str(fake.repo))
    assert done.returncode == 0
    closing = (b"\n\nFollow these instructions exactly. When working in subdirectories not"
               b" listed above, check for additional project instruction files (AGENTS.md,"
               b" Claude.md, etc.).\n</system-reminder>")
    assert done.stdout.endswith(line.encode() + closing)
    assert len(done.stdout) > len(body)


@pytest.mark.parametrize("text", ["[compat\n", "[compat.claude]\nrules = 'nope'\n",
                                  "compat = 1\n", b"\xff\xfe[compat]"])
def test_malformed_config_toml(fake: Fake, text: str | bytes) -> None:
    write(fake.home / ".grok" / "config.toml", text)
    for args in (("chain", str(fake.repo)), ("chain", "--json", str(fake.repo)),
                 ("render", str(fake.repo))):
        done = fake.run(*args)
        assert done.returncode == 2 and done.stdout == b""
        err = done.stderr.decode()
        assert err.startswith("rulelens: error: ") and err.count("\n") == 1
        # The file is named from the home, never by an absolute path (issue 20).
        assert "~/.grok/config.toml: " in err and str(fake.home) not in err


def test_malformed_config_in_grok_home_env(fake: Fake) -> None:
    write(fake.base / "gh" / "config.toml", "not toml at all = = =\n")
    done = fake.run("render", str(fake.repo), GROK_HOME=str(fake.base / "gh"))
    assert done.returncode == 2 and "invalid TOML" in done.stderr.decode()


def test_missing_path(fake: Fake) -> None:
    for cmd in ("chain", "render"):
        done = fake.run(cmd, str(fake.base / "nope" / "file.py"))
        assert done.returncode == 2 and done.stdout == b""
        assert done.stderr.decode() == (
            f"rulelens: error: {fake.base / 'nope' / 'file.py'}: no such file or directory\n")
