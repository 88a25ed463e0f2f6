"""PURE: chain-aware checks for agent instruction files.

Typical use::

    chain = Resolver(AgentEnvironment.from_env()).resolve(chain_dir(path))
    findings = lint_document(path, text, chain, load_config(repo_root))

Never imports pygls or lsprotocol; the language server and the CLI are thin shells over
:func:`lint_document`.

The names below are imported when first used (PEP 562): a ``rulelens lint`` run that
answers from its result cache, or a module such as :mod:`rulelens.lint.walk`, does not
pay for the engine and its checks (about 60 ms of a one-file run's 150 ms).
"""

from __future__ import annotations

from rulelens.lazy import exports

TYPE_CHECKING = False  # not typing's: a replayed run imports this package (lint.replay)
if TYPE_CHECKING:
    from rulelens.lint.config import LintConfig, Thresholds, load_config
    from rulelens.lint.engine import chain_dir, lint_document
    from rulelens.lint.model import FileRename, Finding, Fix, Position, Range, Related, TextEdit
    from rulelens.lint.registry import CHECKS, Check

__getattr__ = exports(globals(), {
    **dict.fromkeys(("CHECKS", "Check"), "rulelens.lint.registry"),
    **dict.fromkeys(("FileRename", "Finding", "Fix", "Position", "Range", "Related",
                     "TextEdit"), "rulelens.lint.model"),
    **dict.fromkeys(("LintConfig", "Thresholds", "load_config"), "rulelens.lint.config"),
    **dict.fromkeys(("chain_dir", "lint_document"), "rulelens.lint.engine"),
})

__all__ = ["CHECKS", "Check", "FileRename", "Finding", "Fix", "LintConfig", "Position", "Range",
           "Related", "TextEdit", "Thresholds", "chain_dir", "lint_document", "load_config"]

