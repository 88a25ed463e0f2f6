"""After ``didClose`` nothing about a document remains, whatever was still queued for it.

``didOpen`` schedules work (the fingerprint the watcher compares, the first lint); a close
that arrives before that work finishes must still leave every per-document table empty.
``rulelens/serverStatus`` reports the sizes of those tables.
"""

from __future__ import annotations

import pathlib
import time

from rulelens.lsp import protocol

from .rawlsp import RawServer, make_workspace, raw_server


def _documents(s: RawServer) -> dict[str, int]:
    return dict(s.result(protocol.SERVER_STATUS)["documents"])


def _settled(s: RawServer, timeout: float = 10) -> dict[str, int]:
    """The tables once queued work has run (they only ever shrink after the closes)."""
    deadline = time.monotonic() + timeout
    while True:
        docs = _documents(s)
        if not any(docs.values()) or time.monotonic() > deadline:
            return docs
        time.sleep(0.1)


def test_nothing_remains_after_close(tmp_path: pathlib.Path) -> None:
    repo, env = make_workspace(tmp_path, files=400)
    rules = repo / "src" / "AGENTS.md"
    with raw_server(env) as s:
        s.initialize(repo)
        files = sorted((repo / "src").glob("*.py"))
        for i, path in enumerate(files):
            uri = s.open(path)
            if i % 2:                                   # close before its work ran
                s.close_doc(uri)
                continue
            assert s.result("textDocument/codeLens", {"textDocument": {"uri": uri}})
            s.result("textDocument/hover", {"textDocument": {"uri": uri},
                                            "position": {"line": 0, "character": 0}})
            s.close_doc(uri)
        uri = s.open(rules)                             # a rule file: linted on open
        assert _documents(s)["open"] == 1
        s.close_doc(uri)
        assert _settled(s) == dict.fromkeys(_documents(s), 0)
        # Closed means closed: a request for it answers nothing, opening again works.
        assert s.result(protocol.CHAIN, {"uri": files[0].as_uri()}) is None
        again = s.open(files[0])
        assert s.result(protocol.CHAIN, {"uri": again})["files"]
        assert _documents(s)["open"] == 1
        s.close_doc(again)
        assert _settled(s) == dict.fromkeys(_documents(s), 0)
        assert s.shutdown_and_exit() == 0


def test_closing_unknown_or_twice_is_harmless(tmp_path: pathlib.Path) -> None:
    repo, env = make_workspace(tmp_path)
    with raw_server(env) as s:
        s.initialize(repo)
        uri = s.open(repo / "src" / "f0.py")
        s.close_doc(uri)
        s.close_doc(uri)
        s.close_doc("file:///never/opened.py")
        s.close_doc("untitled:Untitled-1")
        assert _settled(s) == dict.fromkeys(_documents(s), 0)
        assert s.shutdown_and_exit() == 0
