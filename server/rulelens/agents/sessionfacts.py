"""What each agent's own session files record about the instruction files it loaded.

Facts from ``../shared/research/agent-sessions.md`` (grades there). ``reader`` names the
module in ``rulelens.sessions`` that reads the format; an agent without one either records
nothing RuleLens can read (``nothing``: said plainly by ``rulelens verify``) or has not been
researched. ``docs/agents.md`` prints :func:`describe` per agent. Ground floor: imports
nothing else from ``rulelens``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SessionFacts:
    """Where an agent's sessions are, what they record, and how sure that is."""

    reader: str | None = None
    where: str = ""
    what: str = ""
    sure: str = ""
    #: Why there is nothing to read (agents without a reader), a sentence.
    nothing: str | None = None


SESSIONS: dict[str, SessionFacts] = {
    "grok": SessionFacts(
        "grok",
        "`$GROK_HOME/sessions/<encoded cwd>/<id>/` (`summary.json` `info.cwd`, `created_at`;"
        " no Grok version)",
        "every file loaded at start with its absolute path and injected text"
        " (prompt_context.json, and the tagged reminder in chat_history.jsonl)",
        "[code] xai-org/grok-build@19d42e3 (persistence.rs, conversation.rs, agents_md.rs,"
        " context.rs); that 1.0.45 keeps the same item shape is unconfirmed"),
    "claude": SessionFacts(
        "claude",
        "`~/.claude/projects/<cwd with every non-alphanumeric character as ->/<uuid>.jsonl`"
        " (`cwd` and `version` on every record; `CLAUDE_CONFIG_DIR` replaces `~/.claude`)",
        "in newer builds (2.1.2xx) the files loaded at start ('instructions' attachment) and"
        " those pulled in on read ('nested_memory'), with paths and text; older transcripts"
        " record no start files",
        "[3p] closed source: independent parsers' fixtures and a write-up verified against"
        " 2.1.2xx; medium-high for `instructions`, high for `nested_memory` paths and text"),
    "codex": SessionFacts(
        "codex",
        "`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (`session_meta`"
        " carries `cwd` and `cli_version`)",
        "the injected AGENTS.md text, one block without file paths (attributed to files by"
        " content and order)",
        "[code] openai/codex rollout/recorder.rs, instructions/user_instructions.rs; which"
        " file a piece of text is, is RuleLens's inference from content and order"),
    "gemini": SessionFacts(
        "gemini",
        "`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (the project root as"
        " SHA-256 in the metadata line, tied to a path by `projects.json` / `.project_root`;"
        " no Gemini CLI version)",
        "only files found on read (the 'Newly Discovered Project Context' in tool results);"
        " the files loaded at start are not recorded",
        "[code] google-gemini/gemini-cli@5411f113 chatRecordingService.ts, jit-context.ts,"
        " memoryDiscovery.ts"),
    "cursor": SessionFacts(nothing=(
        "Cursor records nothing RuleLens can read about which instruction files it loaded"
        " (its chats live in the editor's SQLite storage, without the injected rules)")),
    "copilot": SessionFacts(nothing=(
        "GitHub Copilot records nothing RuleLens can read about which instruction files it"
        " loaded (its chats live in the editor or on GitHub)")),
    "boost": SessionFacts(nothing=(
        "Laravel Boost is not an agent and keeps no sessions; verify the agent that reads its"
        " rules instead")),
}


def facts(agent: str) -> SessionFacts:
    """The facts for an agent id or ``id@version``; empty when not researched."""
    return SESSIONS.get(agent.split("@", 1)[0], SessionFacts())


def describe(agent: str) -> str:
    """One line for docs/agents.md: where the sessions are, what they record, how sure."""
    f = facts(agent)
    if f.reader is not None:
        return f"{f.where}; records {f.what}. How sure: {f.sure}."
    if f.nothing is not None:
        return f"{f.nothing}: `rulelens verify` answers `unknown`."
    return ("not researched yet (where and how it records sessions): `rulelens verify`"
            " answers `unknown`.")
