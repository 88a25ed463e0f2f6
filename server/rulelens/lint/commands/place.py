"""Where a command in an instruction file would run.

Explicit places (``cd dir &&``, ``-C dir``, ``--workspace``, ``--filter``) are decided by
each runner. Without one, a command may run in any of: the directory the file is read in,
the directory it governs (a rule directory's owner), the repository root, a package the
surrounding heading or sentence names ("in `apps/vscode`: `bun run protos`", "package
`claude-dev`"), or the package a scoped file applies to (``applyTo: apps/web/**``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from rulelens.lint.commands.project import Project
from rulelens.lint.commands.shell import caption, code_blocks

_TOKEN = re.compile(r"[@\w][\w@./-]*[\w]")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*)$")
_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass
class Place:
    """The document's fixed places and a per-offset reading of its context."""

    project: Project
    doc_dir: str
    owner_dir: str
    text: str
    scopes: tuple[str, ...] = ()
    _headings: list[tuple[int, int, str]] | None = None  # (offset, level, text)
    _blocks: list[tuple[int, int]] | None = field(default=None, repr=False)
    _names: dict[str, list[str]] | None = field(default=None, repr=False)

    @property
    def root(self) -> str:
        return self.project.root

    def fixed_dirs(self) -> list[str]:
        """The file's directory, its owner, the repository root and its scope packages."""
        dirs = [self.doc_dir, self.owner_dir, self.root, *self.scope_dirs()]
        return list(dict.fromkeys(os.path.normpath(d) for d in dirs))

    def scope_dirs(self) -> list[str]:
        out = []
        for pattern in self.scopes:
            prefix = _GLOB_CHARS.split(pattern.strip().lstrip("./"), 1)[0]
            prefix = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
            if prefix:
                path = os.path.join(self.root, prefix)
                if os.path.isdir(path):
                    out.append(path)
        return out

    def context_dirs(self, offset: int) -> list[str]:
        """Directories the heading path above ``offset``, its line, the line before and,
        in a fence, the fence's caption ("In `apps/web`:") name: an existing directory
        (from the root or the file's folder) or a package."""
        texts = [h for _, _, h in self._heading_path(offset)]
        if self._blocks is None:
            self._blocks = code_blocks(self.text)
        texts.extend(caption(self.text, a) for a, b in self._blocks if a <= offset <= b)
        start = self.text.rfind("\n", 0, offset) + 1
        prev = self.text.rfind("\n", 0, max(start - 1, 0)) + 1
        end = self.text.find("\n", offset)
        texts.append(self.text[prev:end if end >= 0 else len(self.text)])
        out: list[str] = []
        for chunk in texts:
            for m in _TOKEN.finditer(chunk):
                out.extend(self.dirs_named(m.group()))
        return list(dict.fromkeys(out))

    def dirs_named(self, token: str) -> list[str]:
        """Directories ``token`` names: a relative directory path or a package name."""
        out = []
        if "/" in token:
            rel = token.strip("/").removeprefix("./")
            for base in (self.root, self.doc_dir):
                path = os.path.normpath(os.path.join(base, rel))
                if path.startswith(self.root) and os.path.isdir(path):
                    out.append(path)
        names = self._package_names()
        out.extend(names.get(token, ()))
        return out

    def _package_names(self) -> dict[str, list[str]]:
        if self._names is None:
            self._names = {}
            for pkg in self.project.all_packages():
                if pkg.name:
                    self._names.setdefault(pkg.name, []).append(pkg.directory)
        return self._names

    def _heading_path(self, offset: int) -> list[tuple[int, int, str]]:
        """The nearest heading above ``offset`` and each shallower one above that."""
        if self._headings is None:
            self._headings = []
            pos = 0
            in_fence = False
            for line in self.text.split("\n"):
                stripped = line.lstrip()
                if stripped.startswith(("```", "~~~")):
                    in_fence = not in_fence
                m = None if in_fence else _HEADING.match(line)
                if m:
                    self._headings.append((pos, len(m.group(1)), m.group(2)))
                pos += len(line) + 1
        path: list[tuple[int, int, str]] = []
        level = 7
        for h in reversed(self._headings):
            if h[0] <= offset and h[1] < level:
                path.append(h)
                level = h[1]
        return path

    def resolve_dir(self, written: str, base: str | None = None) -> str | None:
        """``written`` (a ``cd`` or ``-C`` argument) as an existing directory inside the
        repository, from ``base`` or else from the root or the file's folder."""
        if written.startswith(("~", "/", "$")):
            return None
        bases = [base] if base is not None else [self.root, self.doc_dir, self.owner_dir]
        for b in bases:
            path = os.path.normpath(os.path.join(b, written))
            if (path == self.root or path.startswith(self.root + os.sep)) \
                    and os.path.isdir(path):
                return path
        return None
