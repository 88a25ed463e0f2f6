"""The agent's workspace directory name, from real git repositories (spec §7.2)."""

from __future__ import annotations

import os

import pytest
from blake3 import blake3
from memhome import MemHome, git

from rulelens.memory.workspace import (
    compute_workspace_name,
    is_ephemeral_cwd,
    locate,
    normalize_remote_url,
    slugify,
)


@pytest.mark.parametrize(("url", "identity"), [
    ("git@github.com:acme/widgets.git", "acme/widgets"),
    ("https://github.com/acme/widgets.git", "acme/widgets"),
    ("https://github.com/acme/widgets", "acme/widgets"),
    ("ssh://git@github.com/acme/widgets", "acme/widgets"),
    ("ssh://git@h:2222/a/b", "a/b"),
    ("ssh://git@gitlab.example:2222/group/sub/proj.git", "group/sub/proj"),
    ("https://h/a/b.git/", "a/b.git"),
    ("https://h/a/b.git.git", "a/b"),
    ("file:///srv/git/proj.git", "srv/git/proj"),
    ("https://h//a/b", None),  # Rust split("//").nth(1) stops at the next "//"
    ("/srv/git/proj.git", None),
    ("../other-repo", None),
    ("git@github.com:widgets.git", None),
    ("https://github.com/", None),
    ("https://github.com", None),
    ("Git@GitHub.com:Acme/Widgets.git", "Acme/Widgets"),
])
def test_normalize_remote_url(url: str, identity: str | None) -> None:
    assert normalize_remote_url(url) == identity


def test_slugify_truncates_before_trimming() -> None:
    assert slugify("-aaaaaaaaa-bbbb", 10) == "aaaaaaaaa"
    assert slugify("Fix the bug in auth/login.rs", 30) == "fix-the-bug-in-auth-login-rs"
    assert slugify("Café Ünïcode", 40) == "caf-n-code"
    assert slugify("---", 40) == ""


def h8(text: str) -> str:
    return blake3(text.encode()).hexdigest()[:8]


def repo_with_origin(tmp: str, name: str, url: str | None) -> str:
    path = os.path.join(tmp, name)
    os.makedirs(os.path.join(path, "src", "deep"))
    git(path, "init", "-q")
    if url is not None:
        git(path, "remote", "add", "origin", url)
    return path


@pytest.mark.parametrize(("url", "identity"), [
    ("git@github.com:acme/demo-shop.git", "acme/demo-shop"),
    ("https://github.com/acme/demo-shop.git", "acme/demo-shop"),
    ("ssh://git@git.example.com:2222/acme/demo-shop.git", "acme/demo-shop"),
    ("file:///srv/git/demo-shop.git", "srv/git/demo-shop"),
])
def test_remote_identity_is_hashed(tmp_path: object, url: str, identity: str) -> None:
    repo = repo_with_origin(str(tmp_path), "checkout", url)
    for cwd in (repo, os.path.join(repo, "src", "deep")):
        name = compute_workspace_name(cwd)
        assert name.identity == identity
        assert name.name == f"demo-shop-{h8(identity)}"


def test_demo_repo_name_is_the_committed_demo_memory_dir() -> None:
    assert h8("acme/demo-shop") == "5a7bd946"
    here = os.path.dirname(__file__)
    demo = os.path.join(here, "..", "..", "..", "examples", "demo", "home", ".grok", "memory",
                        "demo-shop-5a7bd946", "MEMORY.md")
    assert os.path.isfile(demo)


def test_local_path_remote_falls_back_to_the_canonical_cwd(tmp_path: object) -> None:
    repo = repo_with_origin(str(tmp_path), "My Repo", "/srv/git/proj.git")
    name = compute_workspace_name(repo)
    real = os.path.realpath(repo)
    assert name.identity is None
    assert name.name == f"my-repo-{h8(real)}"
    sub = os.path.join(repo, "src")
    assert compute_workspace_name(sub).name == f"src-{h8(os.path.realpath(sub))}"


def test_no_repository_and_symlinked_cwd(tmp_path: object) -> None:
    plain = os.path.join(str(tmp_path), "plain")
    os.makedirs(plain)
    link = os.path.join(str(tmp_path), "link")
    os.symlink(plain, link)
    assert compute_workspace_name(link).name == f"plain-{h8(os.path.realpath(plain))}"
    missing = "/definitely/missing/Proj"
    assert compute_workspace_name(missing).name == f"proj-{h8(missing)}"
    assert compute_workspace_name("/").name == f"workspace-{h8('/')}"


def test_ephemeral_cwd() -> None:
    assert is_ephemeral_cwd("/tmp/x/y", tmpdir="/nonexistent-tmp")
    assert is_ephemeral_cwd("/var/tmp/build", tmpdir="/nonexistent-tmp")
    assert is_ephemeral_cwd("/Users/me/var/folders/ab/T/x", tmpdir="/nonexistent-tmp")
    assert is_ephemeral_cwd("/scratch/job", tmpdir="/scratch")
    assert not is_ephemeral_cwd("/scratchy/job", tmpdir="/scratch")
    assert not is_ephemeral_cwd("/home/me/src", tmpdir="/nonexistent-tmp")
    assert not is_ephemeral_cwd("/tmp", tmpdir="/nonexistent-tmp")  # "/tmp/" prefix only


def test_memory_files_order_and_sources(memhome: MemHome) -> None:
    loc = memhome.location()
    assert loc.workspace.name == f"shop-{h8('acme/shop')}"
    s2 = memhome.write("ws/sessions/2026-01-02-b.md", "b")
    s1 = memhome.write("ws/sessions/2026-01-01-a.md", "a")
    memhome.write("ws/sessions/notes.txt", "not md")
    memhome.write("ws/sessions/upper.MD", "extension is case-sensitive")
    ws = memhome.write("ws/MEMORY.md", "w")
    gl = memhome.write("MEMORY.md", "g")
    memhome.write("other-12345678/MEMORY.md", "another workspace: never listed")
    files = loc.memory_files()
    assert [(f.path, f.source) for f in files] == [
        (gl, "global"), (ws, "workspace"), (s1, "session"), (s2, "session")]
    assert loc.classify_source(os.path.join(loc.global_dir, "x", "MEMORY.md")) == "global"
    assert loc.classify_source("/elsewhere/MEMORY.md") == "session"
    assert loc.is_under_roots(s1)
    assert not loc.is_under_roots(os.path.join(memhome.home, "secret.txt"))


def test_locate_uses_grok_home(memhome: MemHome) -> None:
    loc = locate(memhome.repo, memhome.grok_home)
    assert loc.global_dir == os.path.join(memhome.grok_home, "memory")
    assert loc.workspace_dir == os.path.join(loc.global_dir, loc.workspace.name)
