"""The checks' view of other files: live in the editor, one snapshot per CLI run."""

from __future__ import annotations

import os
from pathlib import Path

from rulelens.lint.disk import LIVE, Snapshot


def test_live_sees_every_change(tmp_path: Path) -> None:
    path = str(tmp_path / "AGENTS.md")
    assert LIVE.regular_size(path) is None
    Path(path).write_text("abc")
    assert LIVE.regular_size(path) == 3
    Path(path).write_text("abcdef")
    assert LIVE.regular_size(path) == 6


def test_snapshot_answers_each_question_once(tmp_path: Path) -> None:
    path = str(tmp_path / "AGENTS.md")
    Path(path).write_text("abc")
    snap = Snapshot()
    assert snap.regular_size(path) == 3
    Path(path).write_text("abcdef")
    assert snap.regular_size(path) == 3  # one run sees one state of the disk
    assert Snapshot().regular_size(path) == 6


def test_regular_size_and_same_file(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    real = tmp_path / "AGENTS.md"
    real.write_text("x")
    link = tmp_path / "Agents.md"
    os.symlink(real, link)
    for disk in (LIVE, Snapshot()):
        assert disk.regular_size(str(tmp_path / "dir")) is None  # a directory is no file
        assert disk.regular_size(str(link)) == 1  # followed, as os.path.isfile does
        assert disk.same_file(str(link), str(real)) is True
        assert disk.same_file(str(tmp_path / "dir"), str(real)) is False
        assert disk.same_file(str(tmp_path / "missing"), str(real)) is None
