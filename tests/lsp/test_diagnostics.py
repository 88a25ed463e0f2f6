"""Lint findings reach the editor as diagnostics: on open, on change, and after disk edits."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers.waiting import quiet_period

from .conftest import Demo, open_doc, watching

TIMEOUT = 20


async def _diagnostics(client: LanguageClient, uri: str, want: set[str]) -> list[types.Diagnostic]:
    """Wait until the latest published diagnostics for ``uri`` have exactly the codes ``want``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        found = client.diagnostics.get(uri)
        if found is not None and {str(d.code) for d in found} == want:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"diagnostics for {uri}: {client.diagnostics.get(uri)!r}, want {want}")


async def test_diagnostics_follow_buffer_and_disk(client: LanguageClient, demo: Demo) -> None:
    local = demo.uri("CLAUDE.local.md")
    open_doc(client, local, language="markdown")
    (diag,) = await _diagnostics(client, local, {"RL201"})
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.source == "rulelens" and "ignored by .gitignore:2" in diag.message

    rule = demo.uri(".claude/rules/testing.md")
    text = (demo.repo / ".claude/rules/testing.md").read_text()
    open_doc(client, rule, text, language="markdown")
    # A scoped .claude/rules file: Grok ignores `paths` and injects it everywhere (info).
    (insight,) = await _diagnostics(client, rule, {"RL118"})
    assert insight.severity == types.DiagnosticSeverity.Information
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=rule, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text=text.replace("paths:", "globs:"))]))
    (diag,) = await _diagnostics(client, rule, {"RL106"})
    assert diag.range.start.line == 1

    await watching(client, demo.repo)
    gitignore = demo.repo / ".gitignore"
    gitignore.write_text(gitignore.read_text().replace("CLAUDE.local.md\n", ""))
    assert not await _diagnostics(client, local, set())

    source = demo.uri("src/app/handlers/orders.py")   # not an instruction file: not linted
    open_doc(client, source, language="python")
    await quiet_period(0.8, "no diagnostics for a file that is not an instruction file")
    assert source not in client.diagnostics


async def test_code_actions_offer_the_fixes(client: LanguageClient, demo: Demo) -> None:
    rule = demo.uri(".claude/rules/testing.md")
    text = (demo.repo / ".claude/rules/testing.md").read_text().replace("paths:", "globs:")
    open_doc(client, rule, text, language="markdown")
    (diag,) = await _diagnostics(client, rule, {"RL106"})
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=rule), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    assert actions
    fix = actions[0]
    assert isinstance(fix, types.CodeAction) and fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred and fix.edit is not None and fix.edit.document_changes
    (change,) = fix.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == rule
    # The version linted: a client applies the edit only to that text (compare-and-swap).
    assert change.text_document.version == 1
    (edit,) = change.edits
    assert edit.range.start.line == 1 and "paths" in edit.new_text
    # Nothing was written: the client applies the edit only if the user picks it.
    assert "globs:" not in (demo.repo / ".claude/rules/testing.md").read_text()
    none = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=rule),
        range=types.Range(types.Position(5, 0), types.Position(5, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not none


async def test_unsafe_fix_is_a_previewed_code_action(client: LanguageClient, demo: Demo) -> None:
    """A move (RL206) is never applied unasked: the action's edit needs confirmation."""
    nested = demo.repo / ".grok/rules/drafts/cache.md"
    nested.parent.mkdir(parents=True, exist_ok=True)
    nested.write_text("Cache rules.\n")
    uri = demo.uri(".grok/rules/drafts/cache.md")
    open_doc(client, uri, nested.read_text(), language="markdown")
    found = await _diagnostics(client, uri, {"RL206"})
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=found[0].range,
        context=types.CodeActionContext(diagnostics=found)))
    assert actions
    (move,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert not move.is_preferred and "unsafe" in move.title
    assert move.edit is not None and move.edit.change_annotations is not None
    (note,) = move.edit.change_annotations.values()
    assert note.needs_confirmation is True
    (change,) = move.edit.document_changes or []
    assert isinstance(change, types.RenameFile) and change.annotation_id is not None
    assert change.new_uri.endswith("/.grok/rules/cache.md")
    assert nested.exists()  # nothing was moved
