"""Qwen Code's own context-discovery tests, ported to RuleLens' Qwen model.

Origin: ``QwenLM/qwen-code@0f8ce082:packages/core/src/utils/memoryDiscovery.test.ts``
(each test names its ``it(...)`` title). The fixture is the same: ``<tmp>/project`` (the
project root), ``<tmp>/project/src`` (the start directory) and ``<tmp>/userhome`` (the
home, ``os.homedir`` mocked there; here ``HOME``). Where the original passes
``folderTrust = false`` the port switches folder trust on in ``~/.qwen/settings.json`` and
marks the folder ``DO_NOT_TRUST``; ``setGeminiMdFilename`` is ``context.fileName`` in the
user settings. The rendered text is compared exactly where the original compares
``memoryContent``.

Not ported, with the reason: explicit-only mode, ``--include-directories`` and extension
context files (the three "included directories"/"extension"/"parallel" tests) are session
options RuleLens does not see; the view states them in a note.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rulelens.agents import qwen
from rulelens.agents.view import AgentView

ORIGIN = "QwenLM/qwen-code@0f8ce082:packages/core/src/utils/memoryDiscovery.test.ts"


class Tree:
    def __init__(self, tmp_path: Path) -> None:
        self.root = Path(os.path.realpath(tmp_path))
        self.project = self.root / "project"
        self.cwd = self.project / "src"
        self.home = self.root / "userhome"
        for d in (self.cwd, self.home):
            d.mkdir(parents=True)
        self.settings: dict[str, object] = {}

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def git(self) -> None:
        self.write(self.project / ".git" / "HEAD", "ref: main\n")

    def names(self, value: object) -> None:
        self.settings["context"] = {"fileName": value}
        self._save()

    def untrusted(self) -> None:
        self.settings["security"] = {"folderTrust": {"enabled": True}}
        self._save()
        self.write(self.home / ".qwen" / "trustedFolders.json",
                   json.dumps({str(self.project): "DO_NOT_TRUST"}))

    def _save(self) -> None:
        self.write(self.home / ".qwen" / "settings.json", json.dumps(self.settings))

    def view(self) -> AgentView:
        return qwen.view(str(self.cwd), None, {"HOME": str(self.home)})

    def block(self, path: Path, text: str) -> str:
        rel = os.path.relpath(path, self.cwd)
        return f"--- Context from: {rel} ---\n{text}\n--- End of Context from: {rel} ---"


def _count(v: AgentView) -> int:
    return len(v.files)


def test_does_not_load_context_files_from_untrusted_workspaces(tmp_path: Path) -> None:
    """"does not load context files from untrusted workspaces"."""
    t = Tree(tmp_path)
    t.write(t.project / "QWEN.md", "Project root memory")
    t.write(t.cwd / "QWEN.md", "Src directory memory")
    t.untrusted()
    assert _count(t.view()) == 0


def test_loads_context_from_outside_the_untrusted_workspace(tmp_path: Path) -> None:
    """"loads context from outside the untrusted workspace"."""
    t = Tree(tmp_path)
    t.write(t.project / "QWEN.md", "Project root memory")
    t.write(t.cwd / "QWEN.md", "Src directory memory")
    g = t.write(t.home / ".qwen" / "QWEN.md", "default context content")
    t.untrusted()
    v = t.view()
    assert _count(v) == 1 and os.path.relpath(g, t.cwd) in (v.rendered or "")


def test_returns_empty_memory_when_no_context_files(tmp_path: Path) -> None:
    """"should return empty memory and count if no context files are found"."""
    v = Tree(tmp_path).view()
    assert v.files == () and v.rendered == ""


def test_loads_only_the_global_context_file(tmp_path: Path) -> None:
    """"should load only the global context file if present and others are not (default
    filename)"."""
    t = Tree(tmp_path)
    g = t.write(t.home / ".qwen" / "QWEN.md", "default context content")
    assert t.view().rendered == t.block(g, "default context content")


def test_loads_only_the_global_custom_context_file(tmp_path: Path) -> None:
    """"should load only the global custom context file if present and filename is
    changed"."""
    t = Tree(tmp_path)
    t.names("CUSTOM_AGENTS.md")
    g = t.write(t.home / ".qwen" / "CUSTOM_AGENTS.md", "custom context content")
    t.write(t.home / ".qwen" / "QWEN.md", "not a configured name any more")
    assert t.view().rendered == t.block(g, "custom context content")


def test_upward_traversal_with_custom_filename(tmp_path: Path) -> None:
    """"should load context files by upward traversal with custom filename"."""
    t = Tree(tmp_path)
    t.names("PROJECT_CONTEXT.md")
    p = t.write(t.project / "PROJECT_CONTEXT.md", "project context content")
    c = t.write(t.cwd / "PROJECT_CONTEXT.md", "cwd context content")
    assert t.view().rendered == (t.block(p, "project context content") + "\n\n"
                                 + t.block(c, "cwd context content"))


def test_custom_filename_from_cwd_not_subdirectories(tmp_path: Path) -> None:
    """"should load context files from CWD with custom filename (not subdirectories)"."""
    t = Tree(tmp_path)
    t.names("LOCAL_CONTEXT.md")
    t.write(t.cwd / "subdir" / "LOCAL_CONTEXT.md", "Subdir custom memory")
    t.write(t.cwd / "LOCAL_CONTEXT.md", "CWD custom memory")
    assert t.view().rendered == ("--- Context from: LOCAL_CONTEXT.md ---\nCWD custom memory\n"
                                 "--- End of Context from: LOCAL_CONTEXT.md ---")


def test_upward_traversal_from_cwd_to_project_root(tmp_path: Path) -> None:
    """"should load ORIGINAL_GEMINI_MD_FILENAME files by upward traversal from CWD to
    project root"."""
    t = Tree(tmp_path)
    p = t.write(t.project / "QWEN.md", "Project root memory")
    c = t.write(t.cwd / "QWEN.md", "Src directory memory")
    assert t.view().rendered == (t.block(p, "Project root memory") + "\n\n"
                                 + t.block(c, "Src directory memory"))


def test_only_cwd_not_subdirectories(tmp_path: Path) -> None:
    """"should only load context files from CWD, not subdirectories"."""
    t = Tree(tmp_path)
    t.write(t.cwd / "subdir" / "QWEN.md", "Subdir memory")
    t.write(t.cwd / "QWEN.md", "CWD memory")
    assert t.view().rendered == ("--- Context from: QWEN.md ---\nCWD memory\n"
                                 "--- End of Context from: QWEN.md ---")


def test_orders_global_and_upward_context_files(tmp_path: Path) -> None:
    """"should load and correctly order global and upward context files" (no .git: the
    walk reaches the parent of the home directory, the test root)."""
    t = Tree(tmp_path)
    g = t.write(t.home / ".qwen" / "QWEN.md", "default context content")
    r = t.write(t.root / "QWEN.md", "Project parent memory")
    p = t.write(t.project / "QWEN.md", "Project root memory")
    c = t.write(t.cwd / "QWEN.md", "CWD memory")
    t.write(t.cwd / "sub" / "QWEN.md", "Subdir memory")
    assert t.view().rendered == "\n\n".join([
        t.block(g, "default context content"), t.block(r, "Project parent memory"),
        t.block(p, "Project root memory"), t.block(c, "CWD memory")])


# ------------------------------------------------------------- .qwen/QWEN.local.md
def test_loads_local_context_file_at_project_root(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: loads local context file when present at project root"."""
    t = Tree(tmp_path)
    t.git()
    local = t.write(t.project / ".qwen" / "QWEN.local.md", "local instructions")
    v = t.view()
    assert _count(v) == 1 and "local instructions" in (v.rendered or "")
    assert os.path.relpath(local, t.cwd) in (v.rendered or "")


def test_does_not_load_local_file_when_symlink(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: does not load local context file when it is a symlink"."""
    t = Tree(tmp_path)
    t.git()
    sensitive = t.write(t.root / "sensitive.txt", "sensitive instructions")
    link = t.project / ".qwen" / "QWEN.local.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(sensitive)
    v = t.view()
    assert _count(v) == 0 and "sensitive instructions" not in (v.rendered or "")


def test_places_local_between_committed_and_global(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: places local file between committed and global files"."""
    t = Tree(tmp_path)
    t.git()
    t.write(t.project / "QWEN.md", "committed content")
    t.write(t.project / ".qwen" / "QWEN.local.md", "local content")
    t.write(t.home / ".qwen" / "QWEN.md", "global content")
    v = t.view()
    text = v.rendered or ""
    assert _count(v) == 3
    assert text.index("global content") < text.index("local content") < \
        text.index("committed content")


def test_keeps_every_global_file_ahead_of_local_with_interleaved_names(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: keeps every global file ahead of the local file with
    interleaved filenames"."""
    t = Tree(tmp_path)
    t.git()
    t.names(["QWEN.md", "AGENTS.md"])
    t.write(t.home / ".qwen" / "QWEN.md", "global qwen content")
    t.write(t.home / ".qwen" / "AGENTS.md", "global agents content")
    t.write(t.project / "QWEN.md", "committed content")
    t.write(t.project / ".qwen" / "QWEN.local.md", "local content")
    text = t.view().rendered or ""
    assert text.index("local content") > text.index("global qwen content")
    assert text.index("local content") > text.index("global agents content")


def test_does_not_load_local_file_for_untrusted_workspaces(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: does not load local file for untrusted workspaces"."""
    t = Tree(tmp_path)
    t.git()
    t.write(t.project / ".qwen" / "QWEN.local.md", "local instructions")
    t.untrusted()
    v = t.view()
    assert _count(v) == 0 and v.rendered == ""


def test_loads_local_file_when_no_committed_qwen_md(tmp_path: Path) -> None:
    """".qwen/QWEN.local.md: loads local file when no committed QWEN.md exists"."""
    t = Tree(tmp_path)
    t.git()
    t.write(t.project / ".qwen" / "QWEN.local.md", "local-only instructions")
    v = t.view()
    assert _count(v) == 1 and "local-only instructions" in (v.rendered or "")
    assert ORIGIN.startswith("QwenLM/qwen-code@0f8ce082")
