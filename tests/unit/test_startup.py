"""rulelens.startup: ``serve`` imports only the server; attrs' generated code is cached on
disk and read back, to the same classes; a bad or foreign cache file is ignored."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import attrs

from rulelens import startup

DEFINE = """
import attrs
@attrs.define
class Point:
    x: int
    y: int = attrs.field(default=2, converter=int)
"""


def _define_with_cache(path: Path) -> tuple[type, startup.GeneratedCodeCache]:
    cache = startup.GeneratedCodeCache(path)
    namespace: dict[str, object] = {}
    with cache.active():
        exec(DEFINE, namespace)
    point = namespace["Point"]
    assert isinstance(point, type)
    return point, cache


def test_generated_code_is_written_then_read_back_to_the_same_behaviour(tmp_path: Path) -> None:
    path = tmp_path / "c" / "attrs-code.marshal"
    first, cache = _define_with_cache(path)
    assert cache.added and path.is_file()            # compiled and saved on the first run
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    second, again = _define_with_cache(path)
    assert not again.added and again.known           # everything came from the file
    assert second(1, "3") == second(1, 3) and second(1).y == 2
    assert repr(second(1, 3)) == repr(first(1, 3)) == "Point(x=1, y=3)"
    assert second.__init__.__code__.co_code == first.__init__.__code__.co_code
    # Outside the block attrs compiles as before.
    @attrs.define
    class Other:
        z: int
    assert Other(1) == Other(1)


def test_a_corrupt_or_group_writable_cache_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "attrs-code.marshal"
    path.write_bytes(b"not marshal data")
    point, cache = _define_with_cache(path)
    assert cache.added and point(1) == point(1)
    path.write_bytes(marshal.dumps({b"k": compile("x = 1", "", "exec")}))
    os.chmod(path, 0o664)
    assert startup.GeneratedCodeCache(path).known == {}
    os.chmod(path, 0o600)
    assert set(startup.GeneratedCodeCache(path).known) == {b"k"}


def test_serve_does_not_import_the_other_subcommands(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "rulelens", "serve"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=60)
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert "rulelens.lsp.server" in imported and "lsprotocol.types" in imported
    assert not {"rulelens.cli", "rulelens.memory.cli", "rulelens.lint.cli"} & imported
    assert list((tmp_path / "cache" / "rulelens" / "startup").glob("attrs-code-*.marshal"))


def test_every_other_command_goes_to_the_full_command_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "rulelens", "serve", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--stdio" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "rulelens", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "0.1.0" in proc.stdout + proc.stderr
