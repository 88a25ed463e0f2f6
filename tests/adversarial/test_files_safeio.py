"""``agents/safeio``, the one read helper, on each kind of file it must refuse or bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adversarial import hostile
from rulelens.agents import safeio


@pytest.mark.parametrize("kind", hostile.kinds())
def test_every_non_regular_kind_is_refused_by_what_it_is(tmp_path: Path, kind: str) -> None:
    path = hostile.make(tmp_path / "x.md", kind)
    with pytest.raises(safeio.NotAFileError) as caught:
        safeio.read_bytes(str(path))
    assert caught.value.kind == hostile.KINDS[kind]
    assert safeio.describe(caught.value) == f"it is {hostile.KINDS[kind]}, not a regular file"
    with pytest.raises(safeio.NotAFileError):
        safeio.read_head(str(path), 10)


def test_directory_and_loop_and_missing(tmp_path: Path) -> None:
    with pytest.raises(safeio.NotAFileError) as caught:
        safeio.read_bytes(str(tmp_path))
    assert caught.value.kind == "a directory"
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    with pytest.raises(OSError) as err:
        safeio.read_bytes(str(loop))
    assert safeio.describe(err.value) == "it is a symlink loop"
    with pytest.raises(FileNotFoundError):
        safeio.read_bytes(str(tmp_path / "missing.md"))
    with pytest.raises(OSError):
        safeio.read_bytes("bad\0name")


def test_bounds(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_bytes(b"0123456789")
    assert safeio.read_bytes(str(path), 10) == b"0123456789"
    with pytest.raises(safeio.TooLargeError) as caught:
        safeio.read_bytes(str(path), 9)
    assert (caught.value.size, caught.value.limit) == (10, 9)
    assert safeio.read_head(str(path), 4) == (b"0123", True)
    assert safeio.read_head(str(path), 10) == (b"0123456789", False)
    assert b"".join(safeio.iter_chunks(str(path), 3)) == b"0123456789"


def test_printable() -> None:
    assert safeio.printable("plain/ä.md") == "plain/ä.md"
    assert safeio.printable(os.fsdecode(b"\xff\xfe.md")) == "\\xff\\xfe.md"
    assert safeio.printable("\ud800x") == "\\ud800x"
