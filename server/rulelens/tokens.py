"""What loading costs, per agent: the ``tokens`` object of ``chain --json`` and the CLI
table's token row.

``start`` counts the text every file listed ``start`` injects, ``on_read`` what the files
listed ``on-read`` add when the agent works on the file, ``memory_start`` the memory the
agent injects at start (Claude Code's and Gemini CLI's ``MEMORY.md`` up to their cuts,
Codex's memory summary, Qwen Code's) or None where RuleLens models no start-time memory.
Each agent's own estimate is used where it has one (Grok's ``approxTokens``: UTF-8 bytes
/ 4, rounded down); the others have none, so RuleLens's characters / 4 (rounded up)
stands in, and ``estimate`` says which. File texts only: an agent's framing around them
(headers, tags) is not counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulelens.agents.profiles import UnknownAgent, profile
from rulelens.agents.view import AgentView
from rulelens.rules.render import estimate_tokens_for

ESTIMATES = {
    "bytes-floor-4": "UTF-8 bytes / 4, rounded down (the agent's own approxTokens)",
    "chars-ceil-4": "characters / 4, rounded up (RuleLens's estimate: the agent publishes"
                    " none)",
}


def method_of(agent: str) -> str:
    try:
        return profile(agent).tokens
    except UnknownAgent:
        return "chars-ceil-4"


def memory_start(agent: str, cwd: str, env: Mapping[str, str], method: str) -> int | None:
    """Tokens of the memory injected at start for a session in ``cwd``; 0 when the agent's
    memory is off; None when RuleLens models no start-time memory for it."""
    from rulelens.memory.agentfiles import STORES
    from rulelens.memory.beneath import Refused, read_beneath

    store = STORES.get(agent.split("@", 1)[0])
    if store is None:
        return None
    view = store(cwd, env)
    if not view.enabled:
        return 0
    total = 0
    for f in view.files:
        if f.injected != "start":
            continue
        try:
            data = read_beneath(f.root, f.path)[0]
        except Refused:
            continue
        if f.injected_bytes is not None:
            data = data[:f.injected_bytes]
        total += estimate_tokens_for(data.decode("utf-8", "replace"), method)
    return total


def tokens(v: AgentView, env: Mapping[str, str] | None) -> dict[str, Any]:
    """``{"start", "on_read", "memory_start", "estimate"}`` for one agent's view (no memory
    figure without an environment to find the memory in)."""
    method = method_of(v.agent)
    start = sum(estimate_tokens_for(f.content, method) for f in v.files if f.when == "start")
    on_read = sum(estimate_tokens_for(f.content, method) for f in v.files
                  if f.when == "on-read")
    memory = None if env is None else memory_start(v.agent, v.cwd, env, method)
    return {"start": start, "on_read": on_read, "memory_start": memory,
            "estimate": ESTIMATES.get(method, method)}


def short(n: int) -> str:
    """``4.1k`` for 4,100; ``950`` below a thousand."""
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def cell(t: Mapping[str, Any]) -> str:
    """The table cell: ``4.1k +300`` (start, + on read), ``+ mem 1.2k`` when memory loads."""
    out = short(int(t["start"]))
    if t["on_read"]:
        out += f" +{short(int(t['on_read']))}"
    if t.get("memory_start"):
        out += f" m{short(int(t['memory_start']))}"
    return out
