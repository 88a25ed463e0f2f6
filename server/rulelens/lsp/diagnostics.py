"""The one seam between the server and the lint engine: findings -> LSP diagnostics.

``rulelens.lint.engine.lint_document(path, text, chain, config) -> list[Finding]`` does
the work. :func:`lint_diagnostics` is the single function the server calls (on open,
change, save — debounced — and after changes on disk); without the engine it returns
``None`` and the server publishes nothing. Code actions for ``Finding.fixes`` belong
here too, next to the conversion they share.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping
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

def _engine() -> Any | None:
    try:
        return importlib.import_module("rulelens.lint.engine")
    except ImportError:
        return None


def lint_available() -> bool:
    return _engine() is not None


_configs: dict[str, Any] = {}
_configs_lock = threading.Lock()


def invalidate(paths: Iterable[str] | None = None) -> None:
    """Files changed on disk: forget lint configs and the engine's workspace listings."""
    with _configs_lock:
        _configs.clear()
    engine = _engine()
    if engine is not None and hasattr(engine, "invalidate"):
        engine.invalidate(None if paths is None else list(paths))


def _config(path: str, client_lint: Mapping[str, Any]) -> Any:
    """The repository's ``.rulelens.toml``/pyproject config, plus the client's ``disable``."""
    from rulelens.agents.fs import discover_git_root
    from rulelens.lint.config import load_config

    start = os.path.dirname(path)
    root = discover_git_root(start) or start
    with _configs_lock:
        config = _configs.get(root)
    if config is None:
        config = load_config(root)
        with _configs_lock:
            _configs[root] = config
    extra = client_lint.get("disable")
    if isinstance(extra, list | tuple) and extra:
        codes = frozenset(c.upper() for c in extra if isinstance(c, str))
        config = dataclasses.replace(config, disabled=config.disabled | codes)
    return config


def lint_findings(path: str, text: str, resolve: Callable[[str], Chain | None],
                  client_lint: Mapping[str, Any]) -> list[Any] | None:
    """The engine's findings for one open document; ``None`` when it is not linted at all.

    ``resolve(directory)`` gives the chain that loads the file (the engine names the
    directory). Findings about other files are dropped: they are published for those.
    """
    engine = _engine()
    if engine is None:
        return None
    from rulelens.lint.formats import is_instruction_file

    if not is_instruction_file(path):
        return None
    chain = resolve(engine.chain_dir(path))
    findings = engine.lint_document(path, text, chain, _config(path, client_lint))
    return [f for f in findings if not getattr(f, "path", "") or f.path == path]


def code_actions(uri: str, path: str, findings: Iterable[Any], request: types.Range,
                 to_client: Callable[[int, int], int] | None = None) -> list[types.CodeAction]:
    """Quick fixes for the findings overlapping ``request``; safe fixes are preferred.

    Nothing is written here: the client shows the edit and applies it only when the user
    picks it. Renames never overwrite an existing file.
    """
    out: list[types.CodeAction] = []
    for finding in findings:
        diag = to_diagnostic(finding, to_client)
        if diag.range.end.line < request.start.line or diag.range.start.line > request.end.line:
            continue
        for fix in getattr(finding, "fixes", ()):
            changes: list[Any] = []
            for edit in fix.edits:
                if hasattr(edit, "new_text"):
                    conv = to_client if edit.path == path else None
                    changes.append(types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri if edit.path == path else _uri(edit.path), version=None),
                        edits=[types.TextEdit(range=_range(edit.range, conv),
                                              new_text=edit.new_text)]))
                else:
                    changes.append(types.RenameFile(
                        old_uri=_uri(edit.old), new_uri=_uri(edit.new),
                        options=types.RenameFileOptions(overwrite=False,
                                                        ignore_if_exists=False)))
            title = fix.title if fix.safety == "safe" else f"{fix.title} (changes behaviour)"
            out.append(types.CodeAction(
                title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                is_preferred=fix.safety == "safe",
                edit=types.WorkspaceEdit(document_changes=changes)))
    return out


def _range(r: Any, to_client: Callable[[int, int], int] | None) -> types.Range:
    conv = to_client or (lambda _line, col: col)
    return types.Range(
        start=types.Position(r.start.line, conv(r.start.line, r.start.character)),
        end=types.Position(r.end.line, conv(r.end.line, r.end.character)))


def to_diagnostic(finding: Any,
                  to_client: Callable[[int, int], int] | None = None) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_uri(rel.path), range=_range(rel.range, None)),
            message=rel.message)
        for rel in getattr(finding, "related", ())
    ]
    return types.Diagnostic(range=_range(finding.range, to_client), message=finding.message,
                            severity=_SEVERITY.get(finding.severity,
                                                   types.DiagnosticSeverity.Warning),
                            code=finding.code, source="rulelens",
                            related_information=related or None)


def _uri(path: str) -> str:
    import pathlib

    return pathlib.Path(path).as_uri()
