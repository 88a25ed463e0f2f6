"""What every check receives: the parsed document, its chain (if any), the config and the
session's caches.

Checks report through :meth:`Context.emit`, which validates the id against the registry
(an unregistered id is a programming error and raises), applies the configured severity,
and drops findings switched off by configuration or an inline directive.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from rulelens.agents.fs import canonical, discover_git_root
from rulelens.agents.record import home_of
from rulelens.lint.caches import LintCaches
from rulelens.lint.chainindex import ChainIndex
from rulelens.lint.config import LintConfig
from rulelens.lint.disk import Disk
from rulelens.lint.document import Document
from rulelens.lint.model import Finding, Fix, Range, Related, TextEdit
from rulelens.lint.registry import BY_CODE
from rulelens.rules.model import Chain, RuleFile, Skipped


@dataclass
class Context:
    doc: Document
    chain: Chain | None
    config: LintConfig
    #: The session's memory (see :mod:`rulelens.lint.caches`).
    caches: LintCaches = field(default_factory=LintCaches)
    findings: list[Finding] = field(default_factory=list)

    @property
    def disk(self) -> Disk:
        """Stats of other files: live in the editor, one snapshot per ``rulelens lint`` run."""
        return self.caches.disk

    def emit(self, code: str, message: str, range: Range, *,
             related: Iterable[Related] = (), fixes: Iterable[Fix] = ()) -> None:
        if code not in BY_CODE:
            raise KeyError(f"unregistered check id {code}")
        fixes = tuple(fixes)
        for fix in fixes:
            if fix.safety == "safe" and not all(
                    isinstance(e, TextEdit) and e.path == self.doc.path for e in fix.edits):
                # --fix applies safe fixes unasked: only edits of this document's text.
                raise ValueError(f"{code}: a safe fix may only edit the document itself")
        if not self.config.enabled(code):
            return
        off = self.doc.disabled
        if code in off or "*" in off:
            return
        self.findings.append(Finding(code, self.config.severity_of(code),
                                     self.relative(message), range, self.doc.path,
                                     tuple(related), fixes))

    def relative(self, message: str) -> str:
        """``message`` with the repository's absolute paths made repository-relative (and
        the home directory written ``~``), so output compares across machines."""
        if os.sep not in message:
            return message
        bases, home = self._bases
        for base in bases:
            if base in message:
                message = message.replace(base + os.sep, "")
                if base in message:
                    message = re.sub(re.escape(base) + r"(?![\w.-])", ".", message)
        if home and home in message:
            message = message.replace(home + os.sep, "~" + os.sep)
        return message

    @cached_property
    def _bases(self) -> tuple[tuple[str, ...], str]:
        """The repository root's spellings, and the home directory (``""`` for ``/``)."""
        home = home_of(self.caches.environ)
        home = home if len(home) > 1 else ""
        root = self.git_root
        if not root:
            return (), home
        # The chain's root is canonical; the document may be spelled through a symlinked
        # directory, so its own spelling of the root counts too.
        spelled = root
        if not self.doc.path.startswith(root.rstrip(os.sep) + os.sep):
            spelled = canonical(root)
        return tuple(dict.fromkeys((root.rstrip(os.sep), spelled.rstrip(os.sep)))), home

    @property
    def home_dir(self) -> str:
        """The home directory messages abbreviate as ``~`` (``""`` for ``/``)."""
        return self._bases[1]

    def has(self, code: str) -> bool:
        return any(f.code == code for f in self.findings)

    # ------------------------------------------------------------ chain helpers
    @cached_property
    def canonical_path(self) -> str:
        return canonical(self.doc.path)

    def _same(self, path: str) -> bool:
        return os.path.abspath(path) == self.doc.path or canonical(path) == self.canonical_path

    def _spelled(self, path: str) -> bool:
        """``path`` names this document by the same name in the same directory (directory
        symlinks resolved, a file symlink not: a skip record is about the spelling the
        agent probed, not the file it points to)."""
        if os.path.abspath(path) == self.doc.path:
            return True
        return os.path.basename(path) == self.doc.name and \
            canonical(os.path.dirname(path)) == canonical(self.doc.directory)

    @cached_property
    def index(self) -> ChainIndex | None:
        if self.chain is None:
            return None
        return self.caches.tables.index_for(self.chain,
                                            self.config.thresholds.duplicate_min_chars)

    @cached_property
    def skip_records(self) -> tuple[Skipped, ...]:
        if self.index is None:
            return ()
        name = self.doc.name
        return tuple(s for s in self.index.skipped_named(name) if self._spelled(s.path))

    @cached_property
    def chain_entry(self) -> RuleFile | None:
        if self.index is None:
            return None
        name = self.doc.name
        for f in self.index.files_named(name):
            if self._same(f.path):
                return f
        return None

    @cached_property
    def display(self) -> str:
        """The display name of the agent whose chain this is (``Grok``)."""
        from rulelens.agents.profiles import UnknownAgent, profile

        try:
            return profile(self.chain.agent if self.chain is not None else None).display
        except UnknownAgent:
            return "Grok"

    @cached_property
    def git_root(self) -> str | None:
        if self.chain is not None and self.chain.git_root is not None:
            return self.chain.git_root
        return discover_git_root(self.doc.fmt.owner)

    def rel(self, path: str) -> str:
        base = self.git_root
        if base:
            prefix = base.rstrip(os.sep) + os.sep
            if path.startswith(prefix):
                return path[len(prefix):]
        return path
