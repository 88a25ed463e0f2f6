"""Cline profile (exact from source @864419d8): one test per fact CL-F1..CL-F15 of
agent-profiles-more.md §1, each on a real tree with a fake HOME."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import cline
from rulelens.agents.view import AgentView


def _view(ws: Path, home: Path, file: Path | None = None, **env: str) -> AgentView:
    return cline.view(str(ws), str(file) if file else None,
                      {**env_for(home), "PATH": "/nonexistent", **env})


def test_cl_f1_nothing_above_the_start_dir(base: Path, home: Path) -> None:
    """CL-F1: everything is relative to the task cwd; a parent's rules are not read."""
    write(base / ".clinerules" / "parent.md", "parent")
    write(base / "AGENTS.md", "parent agents")
    ws = base / "ws"
    write(ws / ".clinerules" / "mine.md", "mine")
    v = _view(ws, home, write(ws / "a.py"))
    assert loaded(v) == [str(ws / ".clinerules" / "mine.md")]
    assert v.find(str(base / ".clinerules" / "parent.md")) is None


def test_cl_f2_prompt_order(base: Path, home: Path) -> None:
    """CL-F2: global folder, .clinerules, .cursorrules, .cursor/rules, .windsurfrules,
    AGENTS.md — in that order."""
    ws = base / "ws"
    g = write(home / "Documents" / "Cline" / "Rules" / "g.md", "T1")
    paths = [g, write(ws / ".clinerules" / "c.md", "T2"), write(ws / ".cursorrules", "T3"),
             write(ws / ".cursor" / "rules" / "x.mdc", "T4"), write(ws / ".windsurfrules", "T5"),
             write(ws / "AGENTS.md", "T6")]
    v = _view(ws, home, write(ws / "a.py"))
    assert loaded(v, "start") == [str(p) for p in paths]
    assert v.rendered is not None
    order = [v.rendered.index(t) for t in ("T1", "T2", "T3", "T4", "T5", "T6")]
    assert order == sorted(order)


def test_cl_f3_global_folder_from_xdg_documents(base: Path, home: Path) -> None:
    """CL-F3: <Documents>/Cline/Rules, Documents from user-dirs.dirs; without it and without
    xdg-user-dir, ~/Documents; with xdg-user-dir installed (not run), $HOME."""
    write(home / ".config" / "user-dirs.dirs", 'XDG_DOCUMENTS_DIR="$HOME/Dokumente"\n')
    g = write(home / "Dokumente" / "Cline" / "Rules" / "sub" / "deep.txt", "deep any ext")
    v = _view(base, home)
    assert entry(v, g).when == "start" and entry(v, g).role == "home"
    (home / ".config" / "user-dirs.dirs").unlink()
    plain = write(home / "Documents" / "Cline" / "Rules" / "p.md", "p")
    assert loaded(_view(base, home)) == [str(plain)]
    bindir = base / "bin"
    tool = write(bindir / "xdg-user-dir", "#!/bin/sh\nexit 1\n")
    tool.chmod(0o755)
    at_home = write(home / "Cline" / "Rules" / "h.md", "h")
    v = cline.view(str(base), None, {"HOME": str(home), "PATH": str(bindir)})
    assert loaded(v) == [str(at_home)] and "xdg-user-dir" in v.notes[0]


def test_cl_f4_clinerules_folder_recursive_with_exclusions(base: Path, home: Path) -> None:
    """CL-F4: every regular file, any extension, recursively; not workflows/, hooks/,
    skills/, not .DS_Store."""
    r = base / ".clinerules"
    a = write(r / "a.md", "a")
    t = write(r / "nested" / "b.txt", "b")
    wf = write(r / "workflows" / "release.md", "wf")
    write(r / "hooks" / "pre.sh", "hook")
    write(r / "skills" / "s.md", "skill")
    write(r / ".DS_Store", "junk")
    v = _view(base, home, write(base / "x.py"))
    assert loaded(v) == [str(a), str(t)]
    assert skipped(v, wf).reason == "not-a-rule.workflows"
    assert v.find(str(r / ".DS_Store")) is None


def test_cl_f4_symlinks_are_not_listed(base: Path, home: Path) -> None:
    """CL-F4 (readDirectory keeps ``Dirent.isFile()`` entries): a symlinked rule is skipped."""
    real = write(base / "shared.md", "shared")
    link = base / ".clinerules" / "link.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert skipped(_view(base, home), link).reason == "symlink"


def test_cl_f5_single_file_clinerules_with_paths(base: Path, home: Path) -> None:
    """CL-F5: a single-file .clinerules loads, its ``paths`` evaluated the same way."""
    f = write(base / ".clinerules", "---\npaths: [\"src/**\"]\n---\nsrc only")
    assert entry(_view(base, home, write(base / "src" / "m.py")), f).when == "on-read"
    assert skipped(_view(base, home, write(base / "lib" / "m.py")), f).reason == \
        "paths-no-match"


def test_cl_f6_empty_rule_is_dropped(base: Path, home: Path) -> None:
    """CL-F6: a rule whose trimmed text is empty is skipped."""
    f = write(base / ".clinerules" / "blank.md", "  \n\n")
    assert skipped(_view(base, home), f).reason == "empty"


def test_cl_f7_unknown_keys_ignored(base: Path, home: Path) -> None:
    """CL-F7: only ``paths`` is a condition; other keys do nothing (the rule is on)."""
    f = write(base / ".clinerules" / "r.md", "---\ndescription: x\nalwaysApply: false\n---\nbody")
    e = entry(_view(base, home), f)
    assert e.when == "start" and e.content == "body"


def test_cl_f8_paths_semantics(base: Path, home: Path) -> None:
    """CL-F8: a scalar ``paths`` is ignored (always on); any glob matching loads it."""
    scalar = write(base / ".clinerules" / "scalar.md", "---\npaths: src/**\n---\ns")
    many = write(base / ".clinerules" / "many.md", "---\npaths: [\"docs/**\", \"**/*.py\"]\n---\nm")
    v = _view(base, home, write(base / "src" / "m.py"))
    assert entry(v, scalar).when == "start" and "fail-open" in entry(v, scalar).why
    assert entry(v, many).when == "on-read" and "**/*.py" in entry(v, many).why


def test_cl_f9_invalid_yaml_loads_raw(base: Path, home: Path) -> None:
    """CL-F9: invalid YAML injects the whole raw file, unconditionally."""
    f = write(base / ".clinerules" / "bad.md", "---\npaths: [oops\n---\nbody")
    e = entry(_view(base, home, write(base / "elsewhere.py")), f)
    assert e.when == "start" and e.content.startswith("---\npaths: [oops")


def test_cl_f10_file_outside_workspace_is_no_candidate(base: Path, home: Path) -> None:
    """CL-F10: the edited file is the candidate path; a file outside the workspace is none,
    so a path-scoped rule does not activate."""
    ws = base / "ws"
    f = write(ws / ".clinerules" / "r.md", "---\npaths: [\"**\"]\n---\nall")
    outside = write(base / "other" / "x.py")
    s = skipped(_view(ws, home, outside), f)
    assert s.reason == "paths-no-match" and "not inside the workspace" in s.detail
    assert entry(_view(ws, home, write(ws / "in.py")), f).when == "on-read"


def test_cl_f11_cursorrules_and_windsurfrules_load_with_clinerules(base: Path,
                                                                   home: Path) -> None:
    """CL-F11: .cursorrules and .windsurfrules load whole also when .clinerules exists."""
    write(base / ".clinerules" / "c.md", "c")
    cr = write(base / ".cursorrules", "---\nglobs: x\n---\ncursor legacy\n")
    wr = write(base / ".windsurfrules", "windsurf legacy")
    v = _view(base, home)
    assert entry(v, cr).when == "start" and entry(v, cr).content.startswith("---")
    assert entry(v, wr).when == "start"


def test_cl_f12_cursor_mdc_always_on_paths_never(base: Path, home: Path) -> None:
    """CL-F12: .cursor/rules: only .mdc, Cursor's keys ignored (always on); a ``paths`` key
    never activates (no candidates)."""
    r = base / ".cursor" / "rules"
    globbed = write(r / "ts.mdc", "---\nglobs: \"**/*.ts\"\nalwaysApply: false\n---\nts")
    scoped = write(r / "p.mdc", "---\npaths: [\"**\"]\n---\np")
    md = write(r / "plain.md", "plain")
    v = _view(base, home, write(base / "a.py"))
    assert entry(v, globbed).when == "start"
    assert skipped(v, scoped).reason == "paths-no-context"
    assert skipped(v, md).reason == "wrong-extension"


def test_cl_f13_agents_md_recursive_only_with_root_file(base: Path, home: Path) -> None:
    """CL-F13: with a root AGENTS.md every agents.md (any case) loads at start, not under
    node_modules or hidden folders; without a root one, nested ones are not searched; in
    $HOME nothing is listed."""
    ws = base / "ws"
    nested = write(ws / "pkg" / "agents.md", "nested")
    write(ws / "node_modules" / "x" / "AGENTS.md", "dep")
    write(ws / ".hidden" / "AGENTS.md", "hidden")
    assert skipped(_view(ws, home, write(ws / "pkg" / "m.py")), nested).reason == \
        "no-root-agents-md"
    root = write(ws / "AGENTS.md", "root")
    v = _view(ws, home)
    assert loaded(v, "start") == [str(root), str(nested)]
    write(home / "AGENTS.md", "home")
    assert skipped(_view(home, home), home / "AGENTS.md").reason == "restricted-dir"


def test_cl_f14_toggles_from_cline_state_files(base: Path, home: Path) -> None:
    """CL-F14: a rule toggled off in the workspace state (``~/.cline/data/workspaces/
    <hashString(cwd)>/workspaceState.json``) or the global state is skipped."""
    ws = base / "ws"
    off = write(ws / ".clinerules" / "off.md", "off")
    on = write(ws / ".clinerules" / "on.md", "on")
    g = write(home / "Documents" / "Cline" / "Rules" / "g.md", "g")
    state = home / ".cline" / "data" / "workspaces" / cline.js_hash(str(ws))
    write(state / "workspaceState.json", json.dumps(
        {"localClineRulesToggles": {str(off): False, str(on): True}}))
    write(home / ".cline" / "data" / "globalState.json",
          json.dumps({"globalClineRulesToggles": {str(g): False}}))
    v = _view(ws, home)
    assert loaded(v) == [str(on)]
    assert skipped(v, off).reason == "toggled-off" and "workspaceState.json" in \
        skipped(v, off).detail
    assert "globalState.json" in skipped(v, g).detail


def test_cl_f14_js_hash_matches_node() -> None:
    """CL-F14: ``hashString`` of storage-context.ts, values computed with Node 20 on the
    TypeScript function's body (32-bit wrap, ``Math.abs``, hex, first 8 digits)."""
    assert cline.js_hash("/home/u/proj") == "700ed458"
    assert cline.js_hash("/work/main/examples/demo/repo") == "36e0889f"
    assert cline.js_hash("/tmp/\u00fc/\u65e5\u672c") == "6d2afcff"
    assert cline.js_hash("a") == "61" and cline.js_hash("") == "0"


def test_cl_f15_injected_headers(base: Path, home: Path) -> None:
    """CL-F15: ``# .clinerules/`` with the root-level sentence and ``<relative path>\\n<body>``."""
    ws = base / "ws"
    write(ws / ".clinerules" / "style.md", "Use tabs.")
    write(ws / "AGENTS.md", "Be brief.")
    r = _view(ws, home).rendered or ""
    assert r.startswith("USER'S CUSTOM INSTRUCTIONS")
    assert "# .clinerules/\n\nThe following is provided by a root-level .clinerules/ directory" in r
    assert f"({ws})\n\n.clinerules/style.md\nUse tabs." in r
    assert "# AGENTS.md\n\n" in r and "## AGENTS.md\n\nBe brief." in r
    assert os.path.basename(cline.SOURCE)


def test_cl_f13_gitignored_and_past_the_listing_limit(base: Path, home: Path) -> None:
    """CL-F13: listFiles skips what the root .gitignore names and stops after 500 entries,
    so an AGENTS.md there is not found (and the view says the listing was cut). Folders are
    listed level by level, each level in name order here (Cline's globby order may differ)."""
    ws = base / "ws"
    write(ws / "AGENTS.md", "root")
    write(ws / ".gitignore", "generated/\n")
    ignored = write(ws / "generated" / "AGENTS.md", "ignored")
    kept = write(ws / "b" / "AGENTS.md", "kept")
    v = _view(ws, home)
    assert v.find(str(ignored)) is None and entry(v, kept).when == "start"
    assert not any("at most 500 entries" in n for n in v.notes)
    for i in range(520):
        write(ws / "m" / f"f{i:03}.txt", "")
    deep = write(ws / "z" / "AGENTS.md", "past the limit")
    v = _view(ws, home)
    assert v.find(str(deep)) is None and entry(v, kept).when == "start"
    assert any("at most 500 entries" in n for n in v.notes)


def test_cl_version_note_names_the_sdk_era_loader(base: Path, home: Path) -> None:
    """Research §1 version note: the view says it is the pre-SDK loader and what the SDK
    loader (@21cb8d25) reads instead."""
    v = _view(base, home)
    assert cline.SDK_NOTE in v.notes and "21cb8d25" in cline.SDK_NOTE
