"""The one seam between the server and the lint engine: findings -> LSP diagnostics.

``rulelens.lint.engine.lint_document(path, text, chain, config) -> list[Finding]`` is
written in parallel with the server. :func:`lint_diagnostics` is the single function the
server calls (on open, change, save — debounced — and when a chain changes); while the
engine is not installed it returns ``None`` and the server publishes nothing. Code
actions for ``Finding.fixes`` belong here too, next to the conversion they share.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types

from rulelens.rules import Chain

log = logging.getLogger(__name__)

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

#: Text longer than this is not linted (a 20 MB buffer is not a rule file anyone wrote).
MAX_LINT_CHARS = 2_000_000


def _engine() -> Callable[..., Sequence[Any]] | None:
    try:
        module = importlib.import_module("rulelens.lint.engine")
    except ImportError:
        return None
    fn = getattr(module, "lint_document", None)
    return fn if callable(fn) else None


def lint_available() -> bool:
    return _engine() is not None


def lint_diagnostics(path: str, text: str, chain: Chain | None, config: Any,
                     to_client: Callable[[int, int], int] | None = None
                     ) -> list[types.Diagnostic] | None:
    """Diagnostics for one document, or ``None`` when there is no lint engine.

    ``to_client(line, codepoint_col)`` converts a column to the client's encoding.
    """
    lint = _engine()
    if lint is None or len(text) > MAX_LINT_CHARS:
        return None if lint is None else []
    findings = lint(path, text, chain, config)
    return [to_diagnostic(f, path, to_client) for f in findings
            if not getattr(f, "path", "") or getattr(f, "path", "") == path]


def to_diagnostic(finding: Any, path: str,
                  to_client: Callable[[int, int], int] | None = None) -> types.Diagnostic:
    conv = to_client or (lambda _line, col: col)
    r = finding.range
    rng = types.Range(
        start=types.Position(r.start.line, conv(r.start.line, r.start.character)),
        end=types.Position(r.end.line, conv(r.end.line, r.end.character)),
    )
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_uri(rel.path), range=types.Range(
                start=types.Position(rel.range.start.line, rel.range.start.character),
                end=types.Position(rel.range.end.line, rel.range.end.character))),
            message=rel.message)
        for rel in getattr(finding, "related", ())
    ]
    return types.Diagnostic(range=rng, message=finding.message,
                            severity=_SEVERITY.get(finding.severity,
                                                   types.DiagnosticSeverity.Warning),
                            code=finding.code, source="rulelens",
                            related_information=related or None)


def _uri(path: str) -> str:
    import pathlib

    return pathlib.Path(path).as_uri()
