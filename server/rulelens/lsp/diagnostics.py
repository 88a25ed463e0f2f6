"""The one seam between the server and the lint engine: findings -> LSP diagnostics.

An :class:`EditorLint` (one per server) owns the language server's
:class:`~rulelens.lint.session.LintSession`: every lint cache lives there for the server's
life, and a new session starts when the agent environment is reloaded (a new resolver).
:meth:`EditorLint.findings` is the function the server calls (on open, change, save —
debounced — and after changes on disk). Code actions for ``Finding.fixes`` belong here
too, next to the conversion they share.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lsprotocol import types

from rulelens.lint.formats import is_instruction_file
from rulelens.lint.model import FileRename, Finding, Range, TextEdit
from rulelens.lint.session import LintSession
from rulelens.rules import Resolver

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def lint_available() -> bool:
    """Lint is part of the server (kept for callers that ask)."""
    return True


class EditorLint:
    """The server's lint session, renewed when the server gets a new resolver."""

    def __init__(self) -> None:
        self._session: LintSession | None = None
        self._lock = threading.Lock()

    def _session_for(self, resolver: Resolver) -> LintSession:
        with self._lock:
            if self._session is None or self._session.resolver is not resolver:
                self._session = LintSession(resolver.env, resolver=resolver, snapshot=False)
            return self._session

    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Files changed on disk: forget lint configs, listings and tables they touch (the
        resolver is invalidated by the server's session)."""
        with self._lock:
            session = self._session
        if session is not None:
            listed = None if paths is None else list(paths)
            session.caches.invalidate(listed)
            session.configs.clear()
            session.roots.clear()

    def findings(self, path: str, text: str, resolver: Resolver,
                 client_lint: Mapping[str, Any]) -> list[Finding] | None:
        """The findings for one open document; ``None`` when it is not linted at all.
        Findings about other files are dropped: they are published for those."""
        if not is_instruction_file(path):
            return None
        session = self._session_for(resolver)
        config = session.config_for(path, False)
        extra = client_lint.get("disable")
        if isinstance(extra, list | tuple) and extra:
            codes = frozenset(c.upper() for c in extra if isinstance(c, str))
            config = dataclasses.replace(config, disabled=config.disabled | codes)
        found = session.lint_text(path, text, config)
        return [f for f in found if not f.path or f.path == path]


UNSAFE = "rulelens.unsafe"


def code_actions(uri: str, path: str, findings: Iterable[Finding], request: types.Range,
                 to_client: Callable[[int, int], int] | None = None,
                 version: int | None = None) -> list[types.CodeAction]:
    """Quick fixes for the findings overlapping ``request``; safe fixes are preferred.

    Nothing is written here: the client shows the edit and applies it only when the user
    picks it. An unsafe fix (a rename or move, an edit of another file) carries a change
    annotation that needs confirmation, so the client previews it first. Renames never
    overwrite an existing file. Edits of the document carry ``version``, the document
    version that was linted: a client refuses a workspace edit whose version is not the
    document's (compare-and-swap in the editor), so a fix of text typed over since is
    never applied.
    """
    out: list[types.CodeAction] = []
    for finding in findings:
        diag = to_diagnostic(finding, to_client)
        if diag.range.end.line < request.start.line or diag.range.start.line > request.end.line:
            continue
        for fix in finding.fixes:
            safe = fix.safety == "safe"
            note = None if safe else UNSAFE
            changes: list[types.TextDocumentEdit | types.RenameFile] = []
            for edit in fix.edits:
                if isinstance(edit, TextEdit):
                    conv = to_client if edit.path == path else None
                    rng, new = _range(edit.range, conv), edit.new_text
                    text_edit: types.TextEdit | types.AnnotatedTextEdit = (
                        types.TextEdit(range=rng, new_text=new) if note is None else
                        types.AnnotatedTextEdit(range=rng, new_text=new, annotation_id=note))
                    changes.append(types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri if edit.path == path else _uri(edit.path),
                            version=version if edit.path == path else None),
                        edits=[text_edit]))
                elif isinstance(edit, FileRename):
                    changes.append(types.RenameFile(
                        old_uri=_uri(edit.old), new_uri=_uri(edit.new),
                        options=types.RenameFileOptions(overwrite=False,
                                                        ignore_if_exists=False),
                        annotation_id=note))
            annotations = None if safe else {UNSAFE: types.ChangeAnnotation(
                label=fix.title, needs_confirmation=True,
                description="Unsafe: changes which agents read the file, or another file."
                            " Review the preview before applying.")}
            title = fix.title if safe else f"{fix.title} (unsafe: preview first)"
            out.append(types.CodeAction(
                title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                is_preferred=safe,
                edit=types.WorkspaceEdit(document_changes=changes,
                                         change_annotations=annotations)))
    return out


def _range(r: Range, to_client: Callable[[int, int], int] | None) -> types.Range:
    conv = to_client or (lambda _line, col: col)
    return types.Range(
        start=types.Position(r.start.line, conv(r.start.line, r.start.character)),
        end=types.Position(r.end.line, conv(r.end.line, r.end.character)))


def to_diagnostic(finding: Finding,
                  to_client: Callable[[int, int], int] | None = None) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_uri(rel.path), range=_range(rel.range, None)),
            message=rel.message)
        for rel in finding.related
    ]
    return types.Diagnostic(range=_range(finding.range, to_client), message=finding.message,
                            severity=_SEVERITY.get(finding.severity,
                                                   types.DiagnosticSeverity.Warning),
                            code=finding.code, source="rulelens",
                            related_information=related or None)


def _uri(path: str) -> str:
    import pathlib

    return pathlib.Path(path).as_uri()
