"""What the agent profiles (:mod:`rulelens.agents`) tell lint about a file: which agents read
it, each agent's own limits, and ``@import`` semantics per agent.

Lint judges a repository as its maintainers' agents will see it: in a trusted folder
(Grok's lint resolver is ``trusted`` too), so Gemini CLI's folder-trust gate is opened here;
everything else (``$CODEX_HOME/config.toml``, ``~/.gemini/settings.json``) is read from the
environment lint's session captured (``LintCaches.environ``), as each agent reads it; never
from ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rulelens.agents import codex, profiles
from rulelens.agents.compat import ConfigError
from rulelens.lint.context import Context


def agent_env(ctx: Context) -> Mapping[str, str]:
    """The environment the agents' discovery modules see: the one lint's session captured,
    folder trusted."""
    return {**ctx.caches.environ, "GEMINI_CLI_TRUST_WORKSPACE": "true"}


def workspace_of(ctx: Context) -> str:
    """Where a maintainer starts the agents: the repository root (else the file's owner)."""
    return ctx.git_root or ctx.doc.fmt.owner


def readers_sentence(ctx: Context) -> str:
    """``GEMINI.md: read by Gemini CLI; not by Grok, Claude Code, …`` for this document
    (Grok does not read it: the callers report files Grok skips); every other agent is
    asked through the registry."""
    # Imported here: the discovery modules bring YAML, which lint start-up does not load
    # unless a document has frontmatter.
    from rulelens.agents import readers

    doc = ctx.doc
    reads, skips = readers.who_reads(doc.path, workspace_of(ctx), agent_env(ctx))
    return readers.sentence(ctx.rel(doc.path), reads, skips, grok_reads=False,
                            grok=ctx.display)


def codex_budget(ctx: Context, fallback: int) -> tuple[int, str]:
    """Codex's ``project_doc_max_bytes`` and where it comes from: ``$CODEX_HOME/config.toml``
    when it sets one, else ``fallback`` (lint's ``codex_max_bytes``, default Codex's own
    32 KiB)."""
    config = _codex_config(ctx)
    if "project_doc_max_bytes" in config:
        budget, _, _, _ = codex.settings(config)
        return budget, os.path.join(codex.codex_home(agent_env(ctx)), "config.toml")
    return fallback, ""


def codex_names(ctx: Context) -> tuple[str, ...]:
    """The names Codex takes in a directory, in its order: ``AGENTS.override.md``,
    ``AGENTS.md`` and the configured ``project_doc_fallback_filenames``."""
    _, fallbacks, _, _ = codex.settings(_codex_config(ctx))
    return tuple(codex.candidates(fallbacks))


def _codex_config(ctx: Context) -> dict[str, Any]:
    """Codex's config table, read once per lint session (the editor's session forgets it
    when a ``config.toml`` changes); one it cannot parse (nested too deeply, say) counts as
    none here: ``chain --agent codex`` reports it."""
    memo = ctx.caches.agent_configs
    if codex.ID not in memo:
        try:
            memo[codex.ID] = codex.read_config(agent_env(ctx))[0]
        except ConfigError:
            memo[codex.ID] = {}
    found: dict[str, Any] = memo[codex.ID]
    return found


#: Import depth limits by the name of the file that starts the chain (Gemini CLI reads
#: ``GEMINI.md`` and its ``context.fileName`` names; Claude Code everything else it imports).
CLAUDE_HOPS = profiles.CLAUDE.imports.max_depth if profiles.CLAUDE.imports else 4
GEMINI_HOPS = profiles.GEMINI.imports.max_depth if profiles.GEMINI.imports else 5


def import_limit(name: str) -> tuple[int, str]:
    """``(hops, agent)``: the depth limit of the agent whose import semantics apply."""
    if name == "GEMINI.md":
        return GEMINI_HOPS, profiles.GEMINI.display
    return CLAUDE_HOPS, profiles.CLAUDE.display
