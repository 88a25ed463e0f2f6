"""``rulelens inspect``: the rules part of ``grok inspect`` (addendum §A8), side by side.

``grok inspect`` lists instructions with every compat cell on and marks the ones a cell
switches off ``[disabled]``; it reports trust as ``Project trusted: yes|no`` and sizes
after frontmatter stripping, with ``approxTokens`` = bytes // 4. Only the Environment
lines that concern rules (CWD, Git root, Project trusted) and the Project Instructions
section are reproduced; Version, Permissions, Skills and the rest are Grok's own.

Unconfirmed (addendum §A8.2/§A8.3): the exact vendor tag text (shown as `` [claude]``)
and how ``derive_vendor`` reads a path (here: a ``.claude`` / ``.cursor`` component).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from typing import Any

from rulelens.agents.compat import Compat
from rulelens.agents.environment import AgentEnvironment
from rulelens.agents.fs import discover_git_root
from rulelens.agents.profiles import AgentProfile
from rulelens.rules.discovery import Resolver
from rulelens.rules.model import Chain, RuleFile, SkipReason
from rulelens.rules.render import estimate_tokens_for, is_user_instruction_path

_RULE_PAIRS = ((".grok", "rules"), (".cursor", "rules"), (".claude", "rules"))


def _file_type(path: str, grok_home: str) -> str:
    if os.path.dirname(path) == os.path.join(grok_home, "rules"):
        return "rules"
    parts = path.split(os.sep)
    pairs = set(itertools.pairwise(parts))
    return "rules" if any(p in pairs for p in _RULE_PAIRS) else "agents_md"


def _vendor(path: str) -> str | None:
    parts = path.split(os.sep)
    for vendor in ("claude", "cursor"):
        if f".{vendor}" in parts:
            return vendor
    return None


def instructions(chain: Chain, env: AgentEnvironment,
                 profile: AgentProfile) -> list[dict[str, Any]]:
    """``projectInstructions``: every file with all compat cells on, in load order."""
    all_on = Resolver(dataclasses.replace(env, compat=Compat()), profile,
                      _override(chain)).resolve(chain.cwd)
    disabled = {s.path for s in chain.skipped if s.reason is SkipReason.COMPAT_DISABLED}
    root = discover_git_root(chain.cwd) or chain.cwd
    vendor_homes = [os.path.join(env.home, ".claude"), os.path.join(env.home, ".cursor")]
    out: list[dict[str, Any]] = []
    for f in all_on.files:
        out.append(_entry(f, env, profile, root, vendor_homes, f.path in disabled))
    return out


def _override(chain: Chain) -> Any:
    """Resolve the all-on chain under the same trust verdict as ``chain``."""
    if chain.trust is None:
        return "auto"
    return "untrusted" if chain.trust.withholds else "trusted"


def _entry(f: RuleFile, env: AgentEnvironment, profile: AgentProfile, root: str,
           vendor_homes: list[str], disabled: bool) -> dict[str, Any]:
    size = len(f.content.encode("utf-8", "surrogatepass"))
    entry: dict[str, Any] = {"path": f.path}
    if f.source == "configured":
        entry.update(scope="global", fileType="rules")
    else:
        user = is_user_instruction_path(f.path, env.grok_home, vendor_homes, [root])
        entry.update(scope="global" if user else "project",
                     fileType=_file_type(f.path, env.grok_home))
    entry.update(sizeBytes=size, approxTokens=estimate_tokens_for(f.content, "bytes-floor-4"))
    vendor = None if f.source == "configured" else _vendor(f.path)
    if vendor is not None:
        entry["vendor"] = vendor
    if disabled:
        entry["disabled"] = True
        entry["compatibilityStatus"] = "disabled"
    return entry


def _trusted(chain: Chain) -> bool:
    return chain.trust is None or not chain.trust.withholds


def inspect_json(chain: Chain, env: AgentEnvironment, profile: AgentProfile) -> dict[str, Any]:
    root = discover_git_root(chain.cwd)
    return {
        "cwd": chain.cwd,
        "projectRoot": None if root is None else root.rstrip(os.sep) + os.sep,
        "projectTrusted": _trusted(chain),
        "projectInstructions": instructions(chain, env, profile),
    }


def format_inspect(chain: Chain, env: AgentEnvironment, profile: AgentProfile) -> str:
    """The Environment lines about rules and the Project Instructions section (§A8.3)."""
    root = discover_git_root(chain.cwd)
    lines = ["", "  Environment", f"  \u2514 CWD: {chain.cwd}"]
    if root is not None:
        lines.append(f"  \u2514 Git root: {root.rstrip(os.sep) + os.sep}")
    lines.append(f"  \u2514 Project trusted: {'yes' if _trusted(chain) else 'no'}")
    items = instructions(chain, env, profile)
    lines += ["", f"  Project Instructions ({len(items)})"]
    if not items:
        lines.append("  \u2514 (none)")
    for item in items:
        tag = f" [{item['vendor']}]" if "vendor" in item else ""
        off = " [disabled]" if item.get("disabled") else ""
        lines.append(f"  \u2514 {item['path']} ({item['scope']}, ~{item['approxTokens']}"
                     f" tokens){tag}{off}")
    return "\n".join(lines) + "\n"
