"""Qwen Code profile (exact from source @0f8ce082 / @1aba1b9f): one test per fact
QW-F1..QW-F10 of agent-profiles-more.md §3, each on a real tree with a fake HOME.

QW-F3 correction (the code wins): with a project root the walk stops at the root's
*parent* (``ultimateStopDir = path.dirname(projectRoot)``), so a QWEN.md one level above the
git root loads; the research said "up to the project root inclusive".
"""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write, write_json

from rulelens.agents import qwen
from rulelens.agents.view import AgentView


def _view(cwd: Path, home: Path, file: Path | None = None, **env: str) -> AgentView:
    return qwen.view(str(cwd), str(file) if file else None, env_for(home, **env))


def _repo(path: Path) -> Path:
    write(path / ".git" / "HEAD", "ref: refs/heads/main\n")
    return path


def test_qw_f1_default_names_and_context_filename(base: Path, home: Path) -> None:
    """QW-F1: default ["QWEN.md", "AGENTS.md"]; ``context.fileName`` replaces them."""
    repo = _repo(base / "repo")
    q, a = write(repo / "QWEN.md", "q"), write(repo / "AGENTS.md", "a")
    assert loaded(_view(repo, home)) == [str(q), str(a)]
    write_json(repo / ".qwen" / "settings.json", {"context": {"fileName": "TEAM.md"}})
    t = write(repo / "TEAM.md", "t")
    assert loaded(_view(repo, home)) == [str(t)]


def test_qw_f2_interleaved_per_name(base: Path, home: Path) -> None:
    """QW-F2: per name, the global file then the walk: global QWEN, local QWEN, global
    AGENTS, local AGENTS."""
    repo = _repo(base / "repo")
    gq, ga = write(home / ".qwen" / "QWEN.md", "gq"), write(home / ".qwen" / "AGENTS.md", "ga")
    lq, la = write(repo / "QWEN.md", "lq"), write(repo / "AGENTS.md", "la")
    assert loaded(_view(repo, home)) == [str(gq), str(lq), str(ga), str(la)]


def test_qw_f3_walk_bounds_and_git_root(base: Path, home: Path) -> None:
    """QW-F3: root-first from the start dir up to the project root's parent; a ``.git``
    file or an empty ``.git`` directory is no root; nothing below the start dir."""
    outer = write(base / "QWEN.md", "parent of the repo")
    above = write(base / "ws" / "QWEN.md", "above the root's parent")
    repo = _repo(base / "ws" / "repo")
    top = write(repo / "QWEN.md", "top")
    cwd = repo / "src"
    here = write(cwd / "QWEN.md", "here")
    write(cwd / "deep" / "QWEN.md", "below")
    v = _view(cwd, home)
    assert loaded(v) == [str(above), str(top), str(here)]
    assert v.find(str(outer)) is None
    (repo / ".git" / "HEAD").unlink()
    (repo / ".git").rmdir()
    write(repo / ".git", "gitdir: /elsewhere\n")  # a worktree's .git file: not a root
    # No project root now: the walk ends at dirname($HOME), which is `base` here.
    assert loaded(_view(cwd, home)) == [str(outer), str(above), str(top), str(here)]


def test_qw_f4_start_dir_is_home(base: Path, home: Path) -> None:
    """QW-F4: started in $HOME only ~/<name> is read (no walk)."""
    h = write(home / "QWEN.md", "home file")
    write(base / "QWEN.md", "above home")
    assert loaded(_view(home, home)) == [str(h)]


def test_qw_f5_folder_trust(base: Path, home: Path) -> None:
    """QW-F5: trust is off by default; when on, an undecided folder is untrusted (only global
    files), TRUST_FOLDER restores the walk."""
    repo = _repo(base / "repo")
    g = write(home / ".qwen" / "QWEN.md", "g")
    p = write(repo / "QWEN.md", "p")
    assert loaded(_view(repo, home)) == [str(g), str(p)]
    write_json(home / ".qwen" / "settings.json", {"security": {"folderTrust": {"enabled": True}}})
    v = _view(repo, home)
    assert loaded(v) == [str(g)] and skipped(v, p).reason == "untrusted-folder"
    write_json(home / ".qwen" / "trustedFolders.json", {str(repo): "TRUST_FOLDER"})
    assert loaded(_view(repo, home)) == [str(g), str(p)]
    other = write_json(base / "tf.json", {str(repo): "DO_NOT_TRUST"})
    assert loaded(_view(repo, home, QWEN_CODE_TRUSTED_FOLDERS_PATH=str(other))) == [str(g)]


def test_qw_f6_local_file_after_globals_symlink_refused(base: Path, home: Path) -> None:
    """QW-F6: <root>/.qwen/QWEN.local.md after the last global file, before committed ones;
    the project root is the start dir without git."""
    ws = base / "ws"
    g = write(home / ".qwen" / "QWEN.md", "g")
    c = write(ws / "QWEN.md", "committed")
    local = write(ws / ".qwen" / "QWEN.local.md", "mine")
    assert loaded(_view(ws, home)) == [str(g), str(local), str(c)]
    assert "private" in entry(_view(ws, home), local).why


def test_qw_f7_include_dirs_and_extensions_are_noted(base: Path, home: Path) -> None:
    """QW-F7: --include-directories and extension context files are session options: the
    view says so instead of guessing."""
    assert any("--include-directories" in n for n in _view(base, home).notes)


def test_qw_f8_rules_baseline_and_conditional(base: Path, home: Path) -> None:
    """QW-F8: ~/.qwen/rules then <root>/.qwen/rules, recursive, sorted; no paths = start
    after context files; paths (list or string) = on read when the root-relative path
    matches (dot files only by an explicit dot); comments stripped; empty dropped; a file
    outside the root never matches."""
    repo = _repo(base / "repo")
    ctx = write(repo / "QWEN.md", "ctx")
    gr = write(home / ".qwen" / "rules" / "g.md", "global rule")
    rules = repo / ".qwen" / "rules"
    b = write(rules / "b.md", "<!-- note -->\nbaseline")
    py = write(rules / "sub" / "py.md", "---\npaths: \"src/**/*.py\"\n---\npython")
    dot = write(rules / "dot.md", "---\npaths: [\"**/*.yml\"]\n---\nyml")
    empty = write(rules / "empty.md", "<!-- only a comment -->\n")
    target = write(repo / "src" / "app" / "m.py")
    v = _view(repo, home, target)
    assert loaded(v, "start") == [str(ctx), str(gr), str(b)]
    assert entry(v, b).content == "baseline"
    assert loaded(v, "on-read") == [str(py)]
    assert skipped(v, empty).reason == "empty"
    cfg = write(repo / ".github" / "ci.yml")
    assert skipped(_view(repo, home, cfg), dot).reason == "paths-no-match"
    assert skipped(_view(repo, home, write(base / "out.py")), py).reason == "paths-no-match"


def test_qw_f8_untrusted_skips_project_rules(base: Path, home: Path) -> None:
    """QW-F8/F5: project rules load only in a trusted folder; global rules always."""
    repo = _repo(base / "repo")
    write_json(home / ".qwen" / "settings.json", {"security": {"folderTrust": {"enabled": True}}})
    gr = write(home / ".qwen" / "rules" / "g.md", "g")
    pr = write(repo / ".qwen" / "rules" / "p.md", "p")
    v = _view(repo, home)
    assert loaded(v) == [str(gr)] and skipped(v, pr).reason == "untrusted-folder"


def test_qw_f9_framing_and_imports(base: Path, home: Path) -> None:
    """QW-F9: ``--- Context from: <path relative to start dir> ---`` blocks and rules as
    ``--- Rule from: <path relative to root> ---``; ``@path`` imports inline (tree)."""
    repo = _repo(base / "repo")
    write(repo / "docs" / "style.md", "Use tabs.")
    write(repo / "QWEN.md", "Style: @docs/style.md")
    write(repo / ".qwen" / "rules" / "r.md", "rule body")
    v = _view(repo, home)
    text = v.rendered or ""
    assert text.startswith("--- Context from: QWEN.md ---\nStyle: <!-- Imported from:"
                           " docs/style.md -->\nUse tabs.")
    assert "--- Rule from: .qwen/rules/r.md ---\nrule body\n--- End of Rule from:" in text
    assert entry(v, repo / "docs" / "style.md").imported_by == str(repo / "QWEN.md")


def test_qw_f10_auto_memory_not_modelled(base: Path, home: Path) -> None:
    """QW-F10: auto-memory under ~/.qwen/projects/ is not read as context here."""
    mem = write(home / ".qwen" / "projects" / "p" / "memory" / "MEMORY.md", "remembered")
    v = _view(base, home)
    assert v.find(str(mem)) is None and any("auto-memory" in n for n in v.notes)


def test_qwen_home_moves_global_files_not_rules(base: Path, home: Path) -> None:
    """``QWEN_HOME`` moves ~/.qwen for context files; rules come from the real home."""
    alt = base / "alt"
    g = write(alt / "QWEN.md", "alt global")
    r = write(home / ".qwen" / "rules" / "r.md", "home rule")
    write(home / ".qwen" / "QWEN.md", "ignored: QWEN_HOME moved it")
    assert loaded(_view(base / "ws", home, QWEN_HOME=str(alt))) == [str(g), str(r)]


def test_qw_f8_comment_stripping_is_the_regex_in_one_pass() -> None:
    """QW-F8: HTML comments are removed exactly as ``/<!--[\\s\\S]*?-->/g`` does, and a
    rule full of unclosed ``<!--`` does not make the view quadratic."""
    import re
    import time

    regex = re.compile(r"<!--[\s\S]*?-->")
    for text in ("a<!--x-->b", "<!--<!--x-->y-->z", "a<!--b", "<!---->c<!--", "<!--->-->q"):
        assert qwen.strip_comments(text) == regex.sub("", text)
    started = time.monotonic()
    assert qwen.strip_comments("<!--" * 200_000) == "<!--" * 200_000
    assert time.monotonic() - started < 1
