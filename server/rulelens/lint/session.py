"""CORE: one lint session — a ``rulelens lint`` run, or one language-server session.

A :class:`LintSession` owns everything linting remembers: the resolver (chains and their
file listings), the repository configurations, and the check caches
(:class:`~rulelens.lint.caches.LintCaches`). Nothing else in the lint package keeps state,
so "cold" means a new session. The CLI makes one per run (with a disk snapshot: every
stat asked once), the language server one per server session (live disk; the watcher
calls :meth:`invalidate`), and ``bench/lint.py`` one per measured round.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rulelens.agents import safeio
from rulelens.lint.caches import LintCaches
from rulelens.lint.config import CONFIG_FILES, LintConfig, config_paths, load_config
from rulelens.lint.disk import Disk, Snapshot
from rulelens.lint.engine import lint_document
from rulelens.lint.fixes import FixError, apply_text_edits
from rulelens.lint.model import Finding, Range, TextEdit
from rulelens.lint.registry import CHECKS
from rulelens.rules import AgentEnvironment, Resolver
from rulelens.rules.model import Chain

if TYPE_CHECKING:
    from rulelens.lint.resultcache import ResultCache


class LintSession:
    """Lints files (from disk, or an editor's text) with every cache shared for its life.

    ``snapshot``: remember other files' stats for the session (a CLI run); the editor
    passes ``False`` and sees the disk as it is at each lint.
    """

    def __init__(self, env: AgentEnvironment, *, resolver: Resolver | None = None,
                 snapshot: bool = True, hints: bool = True) -> None:
        self.env = env
        #: Whether hint findings are wanted (CI output leaves them out: their checks, some
        #: of which ask every agent profile, are then switched off).
        self.hints = hints
        self.resolver = resolver if resolver is not None else Resolver(env)
        self.snapshot = snapshot
        self.caches = LintCaches(disk=Snapshot() if snapshot else Disk(), environ=env.env)
        self.configs: dict[str, LintConfig] = {}
        #: Directory -> repository root (or itself): files of one directory share the walk.
        self.roots: dict[str, str] = {}
        #: Results kept between runs (``rulelens lint`` without ``--no-cache``), or None.
        self.results: ResultCache | None = None

    # ------------------------------------------------------------------ state
    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Files changed on disk (``None``: anything may have): forget what they touched."""
        listed = None if paths is None else list(paths)
        if self.snapshot:
            self.caches.disk = Snapshot()
        self.resolver.invalidate(listed)
        self.caches.invalidate(listed)
        if listed is None or any(os.path.basename(p) in CONFIG_FILES for p in listed):
            self.configs.clear()
            self.roots.clear()

    def config_for(self, path: str, is_dir: bool | None = None) -> LintConfig:
        """The configuration of the repository holding ``path`` (``is_dir``: whether
        ``path`` is a directory, when the caller knows)."""
        if is_dir is None:
            is_dir = os.path.isdir(path)
        root = self.root_of(path if is_dir else os.path.dirname(path))
        found = self.configs.get(root)
        if found is None:
            found = load_config(root)
            if not self.hints:
                hints = frozenset(c.code for c in CHECKS if found.severity_of(c.code) == "hint")
                found = dataclasses.replace(found, disabled=found.disabled | hints)
            self.configs[root] = found
        return found

    def root_of(self, directory: str) -> str:
        """The repository root holding ``directory`` (itself outside a repository)."""
        root = self.roots.get(directory)
        if root is None:
            root = self.resolver.git_root(
                self.resolver.canonical_dir(os.path.abspath(directory))) or directory
            self.roots[directory] = root
        return root

    @property
    def problems(self) -> list[str]:
        """Configuration problems of every repository seen so far."""
        return sorted({p for c in self.configs.values() for p in c.problems})

    # ------------------------------------------------------------------- lint
    def chain_for(self, path: str) -> Chain:
        return self.resolver.resolve(self.caches.format_of(os.path.abspath(path)).owner)

    def lint_text(self, path: str, text: str, config: LintConfig | None = None,
                  chain: Chain | None = None) -> list[Finding]:
        """Findings for ``text`` as the content of ``path`` (an editor buffer)."""
        if chain is None:
            chain = self.chain_for(path)
        if config is None:
            config = self.config_for(path, False)
        return lint_document(path, text, chain, config, self.caches)

    def lint(self, path: str) -> list[Finding]:
        """Findings for the file at ``path`` as it is on disk; stored in :attr:`results`
        (when set) with every file they depend on (see :mod:`rulelens.lint.resultcache`:
        the CLI reads the store before it builds a session)."""
        results = self.results
        if results is None:
            return self._lint_disk(path)
        self.caches.deps.clear()
        found = self._lint_disk(path)
        config = self.config_for(path, False)
        chain = [f.path for f in self.chain_for(path).files]
        chain += [*config_paths(self.root_of(os.path.dirname(path))), self.env.config_path]
        results.put(path, [chain, self.caches.deps - {path, *chain}], found, config.problems)
        return found

    def _lint_disk(self, path: str) -> list[Finding]:
        """Findings for the file at ``path`` as it is on disk."""
        chain = self.chain_for(path)
        # A file the chain has just loaded was read as valid UTF-8, which the decoding
        # below would give unchanged: one read per file and run.
        text = self.resolver.loaded_text(path)
        if text is not None:
            return lint_document(path, text, chain, self.config_for(path, False), self.caches)
        try:
            raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
        except safeio.NotAFileError as exc:
            if exc.kind == "a directory":
                return lint_document(path, "", chain, self.config_for(path, True),
                                     self.caches)
            return self._lint_unread(path, chain)
        except OSError:
            return self._lint_unread(path, chain)
        text = raw.decode("utf-8", "surrogateescape")
        return lint_document(path, text, chain, self.config_for(path, False), self.caches)

    def _lint_unread(self, path: str, chain: Chain) -> list[Finding]:
        """A path that did not open as a file: a directory, or an error to report."""
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except (OSError, ValueError):
            is_dir = False
        config = self.config_for(path, is_dir)
        if is_dir:
            return lint_document(path, "", chain, config, self.caches)
        try:
            raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
        except safeio.TooLargeError:
            # Over the hold bound: its first TEXT_LIMIT bytes are linted (the chain's own
            # checks, sizes and tokens, see the whole file).
            try:
                raw = safeio.read_head(path, safeio.TEXT_LIMIT)[0]
            except OSError:
                raw = b""
            text = raw.decode("utf-8", "surrogateescape")
            return lint_document(path, text, chain, config, self.caches)
        except safeio.NotAFileError as exc:
            # A FIFO, socket or device: never read (it could block or never end).
            found = lint_document(path, "", chain, config, self.caches)
            if any(f.code == "RL204" for f in found):
                return found
            return [Finding("RL204", "warning", f"not linted: {safeio.describe(exc)}",
                            Range.point(0), path)]
        except OSError as exc:
            found = lint_document(path, "", chain, config, self.caches)
            if any(f.code == "RL203" for f in found):
                return found
            return [Finding("RL203", "error", f"cannot be read ({safeio.describe(exc)})",
                            Range.point(0), path)]
        text = raw.decode("utf-8", "surrogateescape")
        return lint_document(path, text, chain, config, self.caches)

    # -------------------------------------------------------------------- fix
    def fixed_text(self, path: str, max_steps: int = 25
                   ) -> tuple[bytes, str, str, list[str]] | None:
        """``(bytes on disk, their text, text with every safe fix applied, messages)`` for
        ``path``; ``None`` when it cannot be read as UTF-8 text. Nothing is written (the
        bytes are what a write must find still there: :func:`fixes.write_if_unchanged`).

        Safe fixes are edits of the document's own text (see :meth:`Context.emit`); they
        are applied one at a time, re-linting the new text in between. Renames, moves and
        edits of other files are unsafe: offered in the editor, never applied here.
        """
        try:
            raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
            original = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        text = original
        notes: list[str] = []
        applied: set[tuple[str, str]] = set()
        for _ in range(max_steps):
            fix, code = None, ""
            for finding in self.lint_text(path, text):
                if finding.safe_fix is not None:
                    fix, code = finding.safe_fix, finding.code
                    break
            if fix is None:
                break
            if (code, fix.title) in applied:
                notes.append(f"{path}: {code} still reported after its fix; stopped")
                break
            applied.add((code, fix.title))
            try:
                text = apply_text_edits(text, [e for e in fix.edits if isinstance(e, TextEdit)])
            except FixError as exc:
                notes.append(f"{path}: could not apply '{fix.title}': {exc}")
                break
            notes.append(f"{path}: fixed {code}: {fix.title}")
        return raw, original, text, notes
