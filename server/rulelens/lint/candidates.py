"""Which files a name-based check may judge at all: plausible instruction files only.

A file called ``agents.md`` is an instruction file someone misspelt only when it sits
where an agent looks — the repository root, a package root, or a directory holding other
agent files — and not inside a tree that is plainly something else: a documentation
site's sources (mkdocs, Docusaurus, Sphinx), a web framework's route directories
(``app/[lang]/agents.md/``), dependencies or build output. Everywhere else it is an
ordinary page (``docs/agents.md`` of an mkdocs site) and the linter stays silent: a rename
there would break the site and turn the page into a file every agent loads.
"""

from __future__ import annotations

import os
import re

from rulelens.agents import safeio
from rulelens.lint.caches import universal_newlines
from rulelens.lint.formats import NAMED_FILES

#: Files that make a directory a package root.
PACKAGE_MARKERS = ("package.json", "pyproject.toml", "setup.py", "Cargo.toml", "go.mod",
                   "composer.json", "Gemfile", "pom.xml", "build.gradle", "deno.json")
#: Directories whose presence next to a file says "agents are configured here".
AGENT_DIRS = (".claude", ".grok", ".cursor", ".github/instructions", ".windsurf", ".ai",
              ".kiro")
#: Directories that hold dependencies or build output, never instructions.
NOT_SOURCE = frozenset({"node_modules", "vendor", "dist", "build", "out", "site", "_build",
                        ".next", ".nuxt", ".docusaurus", ".svelte-kit", "target",
                        "__pycache__", ".venv", "venv"})
#: A path segment that is a slot to fill in: `test_action_EventNameHere.py`,
#: `your_module.py`, `YourModule.ts`, `XXX`, an issue number shown as `oxc-12345.ts`.
_SLOT = re.compile(r"(?<=[a-z])Here(?:[A-Z_.-]|$)|(?:^|[_-])your[_-]|Your[A-Z]|\bX{3,}\b"
                   r"|\bN{3,}\b|(?<!\d)(?:1234|12345|123456)(?!\d)")
_MKDOCS = ("mkdocs.yml", "mkdocs.yaml")
_DOCUSAURUS = ("docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs")
_DOCUSAURUS_DIRS = ("docs", "blog", "i18n", "versioned_docs")
_FRAMEWORKS = ("next.config.js", "next.config.mjs", "next.config.ts", "nuxt.config.ts",
               "nuxt.config.js", "svelte.config.js", "astro.config.mjs", "remix.config.js")
_ROUTE_DIRS = ("app", "pages", "src/app", "src/pages", "src/routes", "routes")
_DOCS_DIR = re.compile(r"^docs_dir\s*:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$", re.MULTILINE)
_DYNAMIC_SEGMENT = re.compile(r"^\[.*\]$|^\(.*\)$|^@")


def _below(path: str, top: str) -> bool:
    return path.startswith(top.rstrip(os.sep) + os.sep)


def _ancestors(directory: str, root: str | None) -> list[str]:
    """``directory`` and its parents up to ``root`` (inclusive; up to the file system
    root when ``None`` or when ``directory`` is not below ``root``)."""
    out = [directory]
    current = directory
    while current != root:
        parent = os.path.dirname(current)
        if parent == current or (root is not None and not _below(current, root)):
            break
        out.append(parent)
        current = parent
    return out


def _mkdocs_dir(site: str) -> str:
    for name in _MKDOCS:
        try:
            head = safeio.read_head(os.path.join(site, name), 64 * 1024)[0]
            found = _DOCS_DIR.search(universal_newlines(head.decode("utf-8", "replace")))
        except OSError:
            continue
        return os.path.join(site, found.group(1).strip() if found else "docs")
    return os.path.join(site, "docs")


def not_agent_facing(path: str, git_root: str | None) -> str | None:
    """Why ``path`` lies in a tree that is not agent-facing (a phrase), or ``None``."""
    rel = path[len(git_root.rstrip(os.sep)) + 1:] if git_root and _below(path, git_root) \
        else path
    parts = rel.split(os.sep)[:-1]
    for part in parts:
        if part in NOT_SOURCE:
            return f"inside `{part}/` (dependencies or build output)"
        if _DYNAMIC_SEGMENT.match(part):
            return f"inside the route segment `{part}/` of a web framework"
    for directory in _ancestors(os.path.dirname(path), git_root):
        if any(os.path.isfile(os.path.join(directory, n)) for n in _MKDOCS) \
                and _below(path, _mkdocs_dir(directory)):
            return "inside an mkdocs site's pages"
        if any(os.path.isfile(os.path.join(directory, n)) for n in _DOCUSAURUS) and any(
                _below(path, os.path.join(directory, d)) for d in _DOCUSAURUS_DIRS):
            return "inside a Docusaurus site's pages"
        if any(os.path.isfile(os.path.join(directory, n)) for n in _FRAMEWORKS) and any(
                _below(path, os.path.join(directory, d)) for d in _ROUTE_DIRS):
            return "inside a web framework's route directory"
    for directory in _ancestors(os.path.dirname(path), git_root):
        if os.path.basename(directory) in _DOC_DIRS and _many_pages(directory):
            return "inside a documentation folder's pages"
        if os.path.isfile(os.path.join(directory, "conf.py")) and (
                os.path.isfile(os.path.join(directory, "index.rst"))
                or os.path.isfile(os.path.join(directory, "index.md"))):
            return "inside a Sphinx documentation source"
    return None


#: Folder names of documentation sites whose generator this module does not know.
_DOC_DIRS = frozenset({"docs", "doc", "documentation"})


def _many_pages(directory: str) -> bool:
    """An ``index.md`` or ten Markdown pages: a documentation site (pydantic-ai's
    ``docs/agent.md`` is a page, not a misspelt ``AGENT.md``)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    return "index.md" in names or sum(n.endswith(".md") for n in names) >= 10


def where_agents_look(directory: str, git_root: str | None, own_name: str = "") -> bool:
    """Whether ``directory`` is a place an agent reads named files from and a person would
    put one: the repository root, a package root, or next to other agent files."""
    if git_root is not None and os.path.normpath(directory) == os.path.normpath(git_root):
        return True
    if any(os.path.isfile(os.path.join(directory, m)) for m in PACKAGE_MARKERS):
        return True
    if any(n != own_name and os.path.isfile(os.path.join(directory, n)) for n in NAMED_FILES):
        return True
    return any(os.path.isdir(os.path.join(directory, d)) for d in AGENT_DIRS)


def misspelling_candidate(path: str, git_root: str | None) -> bool:
    """Whether a file or directory named like an instruction file but spelt differently
    (``agents.md``) is plausibly a misspelt instruction file rather than a page."""
    if os.path.isdir(path):
        return False
    if not_agent_facing(path, git_root) is not None:
        return False
    return where_agents_look(os.path.dirname(path), git_root, os.path.basename(path))


def slot(ref: str) -> bool:
    """A path with a segment to fill in (``EventNameHere``, ``your_module``, ``12345``):
    an example of a name, not a file of the repository."""
    return any(_SLOT.search(part) for part in ref.split("/"))
