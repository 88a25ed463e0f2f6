"""The per-session scan cache (``rulelens.agents.scan``): owned by the language server's
``AgentViews``, shared by every agent's view of every file, gone with its invalidation;
the command line never keeps anything."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

from rulelens.agents import fsio, scan
from rulelens.lsp.session import Session
from rulelens.rules.model import Chain


def _repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = Path(os.path.realpath(tmp_path)) / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "lib").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("# Root\n\nFirst text.\n")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "AGENTS.md").write_text("# Pkg\n")
    (repo / "src" / "a.py").write_text("")
    (repo / "lib" / "b.py").write_text("")
    home = repo.parent / "home"
    home.mkdir()
    return repo, {"HOME": str(home), "PATH": os.environ.get("PATH", "")}


def _session(repo: Path, env: dict[str, str]) -> Session:
    session = Session(environ=env)
    session.set_roots([str(repo)])
    session.apply_settings({"rulelens": {"agents": ["cline", "codex"]}})
    return session


def _texts(session: Session, path: Path) -> dict[str, list[str]]:
    views = session.agent_views(str(path))
    assert views is not None
    return {v.agent: [f.content or "" for f in v.files] for v in views}


def test_views_of_another_file_share_the_session_scans(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    session = _session(repo, env)
    first = _texts(session, repo / "src" / "a.py")
    assert any("First text." in t for t in first["codex"])
    assert len(session.agent_view_cache.scans) > 0
    # Edited behind the server's back (no watcher event): the next file's views still come
    # from this session's scans, which is what makes 16 agents' cold views cheap.
    (repo / "AGENTS.md").write_text("# Root\n\nSecond text.\n")
    again = _texts(session, repo / "lib" / "b.py")
    assert any("First text." in t for t in again["codex"])
    assert any("First text." in t for t in again["cline"])


def test_the_watchers_invalidation_drops_the_scans(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    session = _session(repo, env)
    _texts(session, repo / "src" / "a.py")
    (repo / "AGENTS.md").write_text("# Root\n\nSecond text.\n")
    (repo / "lib" / "AGENTS.md").write_text("# Lib\n")
    session.invalidate([str(repo / "AGENTS.md"), str(repo / "lib" / "AGENTS.md")])
    assert len(session.agent_view_cache.scans) == 0
    after = _texts(session, repo / "src" / "a.py")
    assert any("Second text." in t for t in after["codex"])
    # Cline lists every agents.md of the workspace: the new one is in the fresh listing.
    assert any(t.startswith("# Lib") for t in after["cline"])


def test_settings_and_workspace_changes_drop_the_scans(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    session = _session(repo, env)
    _texts(session, repo / "src" / "a.py")
    session.apply_settings({"rulelens": {"agents": ["codex"]}})
    assert len(session.agent_view_cache.scans) == 0
    _texts(session, repo / "src" / "a.py")
    session.set_roots([str(repo)])
    assert len(session.agent_view_cache.scans) == 0


def test_without_a_session_every_read_is_fresh(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("one")
    assert fsio.read_text(str(path)) == "one"
    path.write_text("two")
    assert fsio.read_text(str(path)) == "two"
    calls: list[int] = []
    for _ in range(2):
        scan.cached(("k",), lambda: calls.append(1))
    assert len(calls) == 2


def test_a_scan_cache_is_bounded_and_large_files_are_not_kept(tmp_path: Path) -> None:
    cache = scan.ScanCache(limit=3)
    with scan.using(cache):
        for i in range(10):
            assert scan.cached(("k", i), lambda i=i: i * 2) == i * 2
        big = tmp_path / "big.md"
        big.write_bytes(b"x" * (fsio.CACHED_READ + 1))
        assert len(fsio.read_text(str(big)) or "") == fsio.CACHED_READ + 1
    assert len(cache) == 3
    assert cache.get(("read", str(big), fsio.READ_CAP), lambda: "missing") is None
    small = scan.ScanCache(max_bytes=10)
    for i in range(5):
        small.get(("read", i), lambda: b"1234")
    assert len(small) == 2  # 8 bytes kept, the oldest texts dropped


def test_views_of_a_file_no_editor_has_open_are_not_kept(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    session = _session(repo, env)
    assert _texts(session, repo / "src" / "a.py")["codex"]
    assert session.agent_view_cache.size() == 0  # a request's file, never opened
    uri = (repo / "src" / "a.py").as_uri()
    session.open(uri)
    _texts(session, repo / "src" / "a.py")
    assert session.agent_view_cache.size() == 2  # one view per enabled agent
    session.close(uri)
    assert session.agent_view_cache.size() == 0


def test_two_threads_asking_at_once_share_one_computation(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    session = _session(repo, env)
    resolver = session.resolver
    assert resolver is not None
    path = str(repo / "src" / "a.py")
    calls: list[str] = []
    another = threading.Event()

    def resolve(cwd: str) -> Chain:
        calls.append(cwd)
        if len(calls) == 1:  # the first computation lingers: does a second one start?
            another.wait(0.5)
        else:
            another.set()
        return resolver.resolve(cwd)

    got: list[list[object]] = []

    def ask() -> None:
        got.append(list(session.agent_view_cache.views(path, str(repo), ["grok"], resolve)))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls.count(str(repo)) == 1
    assert len(got) == 2 and got[0][0] is got[1][0]
