"""Document + chain → findings. The one entry point every surface calls.

``lint_document`` parses the document once (lines, format, bounded frontmatter), runs
every check family against it and returns findings sorted by position. It never raises
for bad input: undecodable bytes (passed as surrogate escapes), binary content, YAML bombs
and 50 MB files all become findings in bounded time. A 50 MB file gets size and discovery
findings only (RL307 says so).

Per-agent seams: a document is linted against one agent's chain (``chain.agent``, named in
messages by :attr:`Context.display`); budgets (RL303, RL308) and "which agents honour this
scope" (RL118) are the places where per-agent views plug in (lint once per agent's chain
and merge, or give :class:`Context` the file's readers).

It reads the file system only where the agent would (``.gitignore`` lines for fixes, the
workspace listing for "glob matches nothing", sibling names for case twins); it never
writes.
"""

from __future__ import annotations

import os

from rulelens.lint.caches import LintCaches
from rulelens.lint.candidates import misspelling_candidate
from rulelens.lint.checks import (
    content,
    contradictions,
    discovery,
    frontmatter,
    loading,
    references,
    size,
)
from rulelens.lint.config import LintConfig
from rulelens.lint.context import Context
from rulelens.lint.document import Document
from rulelens.lint.formats import classify
from rulelens.lint.model import Finding, Range
from rulelens.rules.model import Chain

FAMILIES = (frontmatter, discovery, loading, size, content, contradictions, references)


def lint_document(path: str, text: str, chain: Chain | None, config: LintConfig,
                  caches: LintCaches | None = None) -> list[Finding]:
    """Findings for one document; ``chain`` is the chain that loads it (see :func:`chain_dir`);
    ``caches`` is the session's memory (:mod:`rulelens.lint.caches`; none: a cold lint that
    sees the disk live)."""
    if caches is None:
        caches = LintCaches()
    absolute = os.path.abspath(path)
    doc = Document(absolute, text, config, caches.format_of(absolute))
    ctx = Context(doc, chain, config, caches)
    if doc.fmt.misnamed and not misspelling_candidate(doc.path, ctx.git_root):
        return []  # a page named like an instruction file, not a misspelt one
    if text == "" and os.path.isdir(doc.path):
        # A directory is a candidate only under a name the agent probes (RL204 says why
        # it is dropped); every other check is about a file's text.
        if doc.fmt.kind == "named":
            discovery.run(ctx)
        return ctx.findings
    too_big = len(text) > config.thresholds.max_lint_bytes
    for family in FAMILIES:
        if too_big and family in (content, contradictions, references):
            continue
        family.run(ctx)
    if too_big:
        ctx.emit("RL307", f"{len(text)} characters is over `max_lint_bytes`"
                 f" ({config.thresholds.max_lint_bytes}): content checks were skipped.",
                 Range.point(0))
    return sorted(ctx.findings, key=lambda f: (f.range.start.line, f.range.start.character,
                                                f.code))


def chain_dir(path: str) -> str:
    """The directory whose chain loads ``path``.

    A rule file ``<dir>/.claude/rules/x.md`` and ``<dir>/.claude/CLAUDE.md`` belong to
    ``<dir>``'s chain; a named file to its own directory.
    """
    return classify(os.path.abspath(path)).owner


ALL_CODES = (*(code for family in FAMILIES for code in family.CODES), "RL307")
