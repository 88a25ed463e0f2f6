"""Every empty state says why and what next (issue 20): `render`, `inspect`, `serve` on a
terminal. Real processes, a fake home, real git."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

RULELENS = str(Path(sys.executable).with_name("rulelens"))


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
            "LANG": "C.UTF-8"}


def _run(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RULELENS, *args], cwd=cwd, env=_env(home), capture_output=True,
                          text=True, timeout=60, check=False)


def _repo(tmp_path: Path, *files: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name in files:
        (repo / name).write_text("# Rules\n\n- Use tabs.\n")
    return repo, home


def test_render_in_an_untrusted_folder_says_files_are_withheld_and_how_to_trust(
        tmp_path: Path) -> None:
    repo, home = _repo(tmp_path, "AGENTS.md")
    done = _run(repo, home, "render", ".")
    assert done.returncode == 0
    assert done.stdout == ""  # stdout is the injected text: there is none
    assert "nothing to render" in done.stderr
    assert "1 project file(s) withheld" in done.stderr and "not trusted" in done.stderr
    assert "--trust trusted" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_render_with_nothing_to_load_names_what_was_searched(tmp_path: Path) -> None:
    repo, home = _repo(tmp_path)
    done = _run(repo, home, "render", ".")
    assert done.returncode == 0 and done.stdout == ""
    assert "nothing to render" in done.stderr and "CLAUDE.md" in done.stderr
    assert "--agent all" in done.stderr


def test_render_with_a_loaded_file_prints_no_empty_state(tmp_path: Path) -> None:
    repo, home = _repo(tmp_path, "AGENTS.md")
    done = _run(repo, home, "render", ".", "--trust", "trusted")
    assert "Use tabs." in done.stdout
    assert "nothing to render" not in done.stderr


def test_inspect_none_is_explained_on_stderr(tmp_path: Path) -> None:
    repo, home = _repo(tmp_path, "AGENTS.md")
    done = _run(repo, home, "inspect", ".")
    assert done.returncode == 0
    assert "(none)" in done.stdout  # `grok inspect`'s own text is unchanged
    assert "withheld" in done.stderr and "not trusted" in done.stderr


def test_serve_started_on_a_terminal_says_what_it_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([RULELENS, "serve"], stdin=secondary, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(home), cwd=tmp_path)
    os.close(secondary)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "serve said nothing on a terminal within 30 s"
        line = proc.stderr.readline().decode()
        assert "language server" in line and "Editors start it" in line
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(primary)


def test_serve_started_by_an_editor_stays_silent_on_stderr(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run([RULELENS, "serve"], input=b"", capture_output=True,
                          env=_env(home), cwd=tmp_path, timeout=60, check=False)
    assert b"Editors start it" not in proc.stderr
