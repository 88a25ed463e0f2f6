"""Lint configuration: which checks run, at what severity, and the numeric thresholds.

Read from ``.rulelens.toml`` at the repository root (top-level keys) or, when that file is
absent, from the ``[tool.rulelens]`` table of ``pyproject.toml``::

    disable = ["RL402"]            # check ids to switch off
    [severity]                     # [tool.rulelens.severity] in pyproject.toml
    RL301 = "info"
    [thresholds]                   # [tool.rulelens.thresholds]
    codex_max_bytes = 65536

Defaults are the documented limits of each agent. A bad configuration never stops linting:
the problem is recorded in :attr:`LintConfig.problems` (shown by the CLI and the language
server) and the defaults stay in force for the bad entry.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from rulelens.agents import bounded, safeio
from rulelens.lint.model import SEVERITY_ORDER, Severity
from rulelens.lint.registry import BY_CODE


@dataclass(frozen=True)
class Thresholds:
    """Numbers with their source; each is configurable by its field name."""

    #: Claude memory docs: "target under 200 lines per CLAUDE.md file".
    claude_max_lines: int = 200
    #: Claude memory docs: files over 4 MiB are skipped.
    claude_max_bytes: int = 4 * 1024 * 1024
    #: Codex ``project_doc_max_bytes`` default (32 KiB), shared by the project chain.
    codex_max_bytes: int = 32 * 1024
    #: Cursor docs: keep rules under 500 lines.
    cursor_max_lines: int = 500
    #: Windsurf docs: 12,000 characters per workspace rule file.
    windsurf_max_chars: int = 12_000
    #: Copilot code review reads the first 4,000 characters.
    copilot_review_chars: int = 4_000
    #: agentdiet's default always-on budget (estimated tokens, chars/4); 0 disables RL308.
    always_on_max_tokens: int = 1_500
    #: Parser guards for frontmatter (not agent limits): bytes, nesting depth, expanded nodes.
    max_frontmatter_bytes: int = 64 * 1024
    max_yaml_depth: int = 50
    max_yaml_nodes: int = 10_000
    #: Above this many bytes only size findings are computed.
    max_lint_bytes: int = 8 * 1024 * 1024
    #: Paragraphs shorter than this (after whitespace normalisation) are not compared.
    duplicate_min_chars: int = 40
    #: Files listed per workspace when checking whether a glob matches anything.
    glob_scan_max_files: int = 50_000


THRESHOLD_NAMES = frozenset(f.name for f in fields(Thresholds))


@dataclass(frozen=True)
class LintConfig:
    disabled: frozenset[str] = frozenset()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    thresholds: Thresholds = field(default_factory=Thresholds)
    #: Where the configuration came from (``None``: defaults).
    source: str | None = None
    #: Human-readable problems found while reading it.
    problems: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        return code not in self.disabled

    def severity_of(self, code: str) -> Severity:
        return self.severity.get(code) or BY_CODE[code].severity


DEFAULT = LintConfig()


#: The files a repository's configuration is read from, the first found winning.
CONFIG_FILES = (".rulelens.toml", "pyproject.toml")


def config_paths(repo_root: str) -> list[str]:
    """Where :func:`load_config` looks for a repository root's configuration."""
    return [os.path.join(repo_root, name) for name in CONFIG_FILES]


def load_config(repo_root: str) -> LintConfig:
    """The configuration for a repository root (``.rulelens.toml`` wins over pyproject)."""
    dot, pyproject = config_paths(repo_root)
    if os.path.isfile(dot):
        data, problem = _read_toml(dot)
        if problem:
            return LintConfig(source=dot, problems=(problem,))
        return from_mapping(data, dot)
    if os.path.isfile(pyproject):
        data, problem = _read_toml(pyproject)
        if problem:
            return LintConfig(source=pyproject, problems=(problem,))
        tool = data.get("tool")
        table = tool.get("rulelens") if isinstance(tool, dict) else None
        if isinstance(table, dict):
            return from_mapping(table, pyproject + " [tool.rulelens]")
    return DEFAULT


def _read_toml(path: str) -> tuple[dict[str, Any], str | None]:
    try:
        return bounded.toml_loads(
            safeio.read_bytes(path, safeio.CONFIG_LIMIT).decode("utf-8")), None
    except OSError as exc:
        return {}, f"{path}: cannot be read ({safeio.describe(exc)}); using default lint settings"
    except UnicodeDecodeError as exc:
        return {}, f"{path}: cannot be read ({exc}); using default lint settings"
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{path}: not valid TOML ({exc}); using default lint settings"
    except bounded.TooDeep:  # scanned before tomllib, which recurses once per level
        return {}, (f"{path}: not valid TOML (nested too deeply to parse); using default"
                    " lint settings")


def from_mapping(data: Mapping[str, Any], source: str) -> LintConfig:
    """Validate a configuration table; unknown ids and bad values become problems."""
    problems: list[str] = []
    disabled: set[str] = set()
    raw_disable = data.get("disable", [])
    if not isinstance(raw_disable, list):
        problems.append(f"{source}: `disable` must be a list of check ids")
        raw_disable = []
    for code in raw_disable:
        if isinstance(code, str) and code.upper() in BY_CODE:
            disabled.add(code.upper())
        else:
            problems.append(f"{source}: unknown check id in `disable`: {code!r}")
    severity: dict[str, Severity] = {}
    raw_sev = data.get("severity", {})
    if not isinstance(raw_sev, dict):
        problems.append(f"{source}: `severity` must be a table of id = level")
        raw_sev = {}
    for code, level in raw_sev.items():
        if code.upper() not in BY_CODE:
            problems.append(f"{source}: unknown check id in `severity`: {code!r}")
        elif level not in SEVERITY_ORDER:
            problems.append(f"{source}: severity of {code} must be one of"
                            f" {', '.join(SEVERITY_ORDER)}, not {level!r}")
        else:
            severity[code.upper()] = level
    thresholds = Thresholds()
    raw_thr = data.get("thresholds", {})
    if not isinstance(raw_thr, dict):
        problems.append(f"{source}: `thresholds` must be a table of name = number")
        raw_thr = {}
    for name, value in raw_thr.items():
        if name not in THRESHOLD_NAMES:
            problems.append(f"{source}: unknown threshold {name!r} (known:"
                            f" {', '.join(sorted(THRESHOLD_NAMES))})")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            problems.append(f"{source}: threshold {name} must be a non-negative integer,"
                            f" not {value!r}")
        else:
            thresholds = replace(thresholds, **{name: value})
    return LintConfig(frozenset(disabled), severity, thresholds, source, tuple(problems))
