"""PURE: chain-aware checks for agent instruction files.

Typical use::

    chain = Resolver(AgentEnvironment.from_env()).resolve(chain_dir(path))
    findings = lint_document(path, text, chain, load_config(repo_root))

Never imports pygls or lsprotocol; the language server and the CLI are thin shells over
:func:`lint_document`.
"""

from rulelens.lint.config import LintConfig, Thresholds, load_config
from rulelens.lint.engine import chain_dir, lint_document
from rulelens.lint.model import FileRename, Finding, Fix, Position, Range, Related, TextEdit
from rulelens.lint.registry import CHECKS, Check

__all__ = [
    "CHECKS",
    "Check",
    "FileRename",
    "Finding",
    "Fix",
    "LintConfig",
    "Position",
    "Range",
    "Related",
    "TextEdit",
    "Thresholds",
    "chain_dir",
    "lint_document",
    "load_config",
]
