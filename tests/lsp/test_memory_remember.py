"""``rulelens.remember`` over real LSP: the agent's note normalisation, an in-place append
under a lock, refusal when the file changed since the client read it, both scopes, and the note
showing up in the next search.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import plain, start_client, stop_client
from .memory_fixtures import MemDemo, search


@pytest_asyncio.fixture
async def client(md: MemDemo) -> AsyncIterator[LanguageClient]:
    c = await start_client(md.env, [md.repo], "neovim")
    yield c
    await stop_client(c)


async def remember(client: LanguageClient, **arg: Any) -> Any:
    return plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.REMEMBER, arguments=[arg])))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("text", "note"), [
    ("  run migrations with --dry-run first \n", "## run migrations with --dry-run first"),
    ("Deploys\n\n  Friday deploys need a reviewer.  \n",
     "## Deploys\n\nFriday deploys need a reviewer."),
    ("# Own heading\nkept as is", "# Own heading\nkept as is"),
    ("x" * 81 + "\nbody", "## Note\n\n" + "x" * 81 + "\nbody"),
    ("é" * 40 + "\nbody", "## " + "é" * 40 + "\n\nbody"),          # 80 bytes: still a title
    ("é" * 41 + "\nbody", "## Note\n\n" + "é" * 41 + "\nbody"),    # 82 bytes: too long
])
async def test_note_normalisation_and_atomic_append(client: LanguageClient, md: MemDemo,
                                                    text: str, note: str) -> None:
    target = md.memory / "MEMORY.md"
    old = target.read_bytes()
    inode = target.stat().st_ino
    os.chmod(target, 0o640)
    got = await remember(client, text=text, scope="global", workspaceUri=md.ws)
    new = target.read_bytes()
    assert got == {"path": str(target), "text": note, "sha256": sha(new)}
    assert new == old + b"\n\n" + note.encode()
    # Appended in place (one O_APPEND write under the lock, issue 11 item 8): the same
    # inode, so an outside appender holding the file open loses nothing; mode kept; no debris.
    assert target.stat().st_ino == inode
    assert target.stat().st_mode & 0o777 == 0o640
    assert not [p for p in md.memory.iterdir() if p.name.endswith(".tmp")]


async def test_workspace_scope_creates_the_file_and_search_finds_the_note(
        client: LanguageClient, md: MemDemo) -> None:
    target = md.workspace_dir / "MEMORY.md"
    target.unlink()
    before = await search(client, md, "zeppelin hangar")
    assert before["results"] == []
    # Two lines: a lone "## line" note is headings-only, which the agent's content-free
    # filter drops from every search (spec 7.9), so it could never be found.
    got = await remember(client, text="Hangar\nZeppelin hangar doors open only at dawn",
                         scope="workspace", expectedSha256="")
    assert got["path"] == str(target)
    assert target.read_text() == "## Hangar\n\nZeppelin hangar doors open only at dawn"
    after = await search(client, md, "zeppelin hangar")
    assert [r["path"] for r in after["results"]] == [str(target)]
    assert after["results"][0]["source"] == "workspace"
    # The global file was not touched.
    assert "Zeppelin" not in (md.memory / "MEMORY.md").read_text()


async def test_refuses_when_the_file_changed_since_it_was_read(client: LanguageClient,
                                                               md: MemDemo) -> None:
    target = md.memory / "MEMORY.md"
    seen = target.read_bytes()
    first = await remember(client, text="first note", scope="global", expectedSha256=sha(seen))
    assert first["sha256"] == sha(target.read_bytes())
    # Another window (or the agent) edits the file; the client still holds the old hash.
    target.write_bytes(target.read_bytes() + b"\n- edited elsewhere\n")
    edited = target.read_bytes()
    with pytest.raises(Exception, match="changed since it was read"):
        await remember(client, text="second note", scope="global",
                       expectedSha256=first["sha256"])
    assert target.read_bytes() == edited, "nothing written on refusal"
    # A file that now exists although the client saw none ("") is refused too.
    with pytest.raises(Exception, match="changed since it was read"):
        await remember(client, text="third note", scope="global", expectedSha256="")
    assert target.read_bytes() == edited
    # With the current hash it goes through.
    ok = await remember(client, text="fourth note", scope="global",
                        expectedSha256=sha(edited))
    assert target.read_bytes() == edited + b"\n\n## fourth note"
    assert ok["sha256"] == sha(target.read_bytes())


async def test_bad_arguments_are_clear_errors_and_write_nothing(client: LanguageClient,
                                                                md: MemDemo) -> None:
    target = md.memory / "MEMORY.md"
    old = target.read_bytes()
    for arg in ({"text": "   ", "scope": "global"}, {"text": "x", "scope": "team"},
                {"text": 5}, {"text": "x", "expectedSha256": 7}):
        with pytest.raises(Exception, match=r"expected|expectedSha256"):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command=protocol.REMEMBER, arguments=[arg]))
    with pytest.raises(Exception, match="workspace folder"):
        await remember(client, text="x", scope="global", workspaceUri="file:///etc")
    target.write_bytes(old + b"\xff\xfe not utf-8")
    with pytest.raises(Exception, match="not UTF-8"):
        await remember(client, text="x", scope="global")
    assert target.read_bytes() == old + b"\xff\xfe not utf-8"
    assert (await search(client, md, "stripe"))["results"], "still serving"


# -- dryRun: the confirmation dialog's preview -------------------------------------------

def tree(root: pathlib.Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``root`` with its bytes, inode and mtime (a write changes one)."""
    return {str(p): (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("scope", "missing"), [("global", False), ("workspace", True)])
async def test_dry_run_writes_nothing_and_previews_exactly_what_is_appended(
        client: LanguageClient, md: MemDemo, scope: str, missing: bool) -> None:
    target = md.memory / "MEMORY.md" if scope == "global" else md.workspace_dir / "MEMORY.md"
    if missing:
        target.unlink()
    before = tree(md.memory)
    text = "Hangar\n\n  Zeppelin hangar doors open only at dawn  \n"
    dry = await remember(client, text=text, scope=scope, workspaceUri=md.ws, dryRun=True)
    assert tree(md.memory) == before, "a dry run wrote to the memory directory"
    old = b"" if missing else target.read_bytes()
    assert dry["path"] == str(target)
    assert dry["sha256"] == ("" if missing else sha(old))
    assert dry["note"] == "## Hangar\n\nZeppelin hangar doors open only at dawn"
    assert dry["text"] == ("" if missing else "\n\n") + dry["note"]
    assert (dry["searchable"], dry["warning"]) == (True, None)
    # The real call, guarded by the dry run's hash, appends exactly the previewed text.
    done = await remember(client, text=text, scope=scope, workspaceUri=md.ws,
                          expectedSha256=dry["sha256"])
    assert target.read_bytes() == old + dry["text"].encode()
    assert done["text"] == dry["note"]
    assert done["sha256"] == sha(target.read_bytes())


async def test_an_edit_between_dry_run_and_append_is_refused(client: LanguageClient,
                                                             md: MemDemo) -> None:
    target = md.memory / "MEMORY.md"
    dry = await remember(client, text="prefer uv", scope="global", dryRun=True)
    target.write_bytes(target.read_bytes() + b"\n- edited in another window\n")
    edited = target.read_bytes()
    with pytest.raises(Exception, match="changed since it was read"):
        await remember(client, text="prefer uv", scope="global", expectedSha256=dry["sha256"])
    assert target.read_bytes() == edited


async def test_dry_run_says_whether_the_agents_search_could_find_the_note(
        client: LanguageClient, md: MemDemo) -> None:
    """``searchable`` agrees with the search itself, before and after the real append."""
    # A new workspace file: the one-line note is the whole file, a heading alone.
    (md.workspace_dir / "MEMORY.md").unlink()
    alone = await remember(client, text="Zeppelin hangar doors open at dawn",
                           scope="workspace", dryRun=True)
    assert alone["text"] == "## Zeppelin hangar doors open at dawn"
    assert alone["searchable"] is False
    assert alone["warning"] == ("A one-line note becomes a heading; the agent's search skips"
                                " heading-only chunks — add a second line to make it findable")
    await remember(client, text="Zeppelin hangar doors open at dawn", scope="workspace",
                   expectedSha256=alone["sha256"])
    assert (await search(client, md, "zeppelin hangar", all=True))["results"] == []
    # The global file starts with the agent's "# Global Memory": the same kind of note is
    # found there (its chunk is the whole small file, or carries a [Context: …] line).
    under = await remember(client, text="Airship mooring masts need a permit",
                           scope="global", dryRun=True)
    assert (under["searchable"], under["warning"]) == (True, None)
    await remember(client, text="Airship mooring masts need a permit", scope="global",
                   expectedSha256=under["sha256"])
    found = (await search(client, md, "airship mooring masts"))["results"]
    assert [r["path"] for r in found] == [str(md.memory / "MEMORY.md")]
    # An empty note and a file that is not UTF-8 are refused by the dry run too.
    with pytest.raises(Exception, match="expected"):
        await remember(client, text="  ", scope="global", dryRun=True)
    with pytest.raises(Exception, match="dryRun"):
        await remember(client, text="x", scope="global", dryRun="yes")
    target = md.memory / "MEMORY.md"
    target.write_bytes(target.read_bytes() + b"\xff")
    with pytest.raises(Exception, match="not UTF-8"):
        await remember(client, text="x", scope="global", dryRun=True)
