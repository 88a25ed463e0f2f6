"""rulelens.startup: ``serve`` imports only the server, and answers ``initialize`` before any
of RuleLens' own modules load; attrs' generated code is cached on disk and read back, to the
same classes; a bad or foreign cache file is ignored."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

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


def _frame(obj: dict[str, Any]) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _reply(stream: IO[bytes], request_id: int) -> dict[str, Any]:
    """The answer to ``request_id`` (notifications and server requests are passed over)."""
    while True:
        length = 0
        while (line := stream.readline()) not in (b"\r\n", b"\n"):
            if not line:
                raise EOFError("the server closed its output")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(stream.read(length))
        if message.get("id") == request_id and "method" not in message:
            return message


def _imported(log: Path) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in log.read_text().splitlines()
            if line.startswith("import time:")}


#: All of RuleLens that may be imported before ``initialize`` is answered: the entry point
#: and the handlers' wiring. The session, the 16 agents' modules, lint, the watchers,
#: memory and session readers load after ``initialized`` (issue 20: a first run that feels
#: fast; bench/lsp.py --startup measures the CPU time).
BEFORE_INITIALIZED = {"rulelens", "rulelens.startup", "rulelens.lsp", "rulelens.lsp.protocol",
                      "rulelens.lsp.rpc", "rulelens.lsp.server", "rulelens.lsp.memory",
                      "rulelens.lsp.memory_people"}


def test_initialize_is_answered_before_any_of_rulelens_own_modules_load(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("# Rules\n- Be brief.\n")
    (repo / "src" / "app.py").write_text("print(1)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    log = tmp_path / "importtime.txt"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "rulelens", "serve"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "capabilities": {},
            "workspaceFolders": [{"uri": repo.as_uri(), "name": "repo"}]}}))
        proc.stdin.flush()
        caps = _reply(proc.stdout, 1)["result"]["capabilities"]
        assert caps["codeLensProvider"] is not None and caps["hoverProvider"]
        # -X importtime writes each import to the (unbuffered) stderr as it completes: what
        # is in the log now was imported before the answer was written.
        before = _imported(log)
        assert "lsprotocol.types" in before and "rulelens.lsp.server" in before
        assert {m for m in before if m.split(".")[0] == "rulelens"} == BEFORE_INITIALIZED
        assert not {"yaml", "watchfiles", "regex", "pathspec", "apsw", "blake3"} & before

        doc = repo / "src" / "app.py"
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": doc.as_uri(), "languageId": "python", "version": 1,
                             "text": doc.read_text()}}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens",
                                 "params": {"textDocument": {"uri": doc.as_uri()}}}))
        proc.stdin.flush()
        lens = _reply(proc.stdout, 2)["result"]
        assert lens and lens[0]["command"]["title"]
        after = _imported(log)
        assert {"rulelens.lsp.session", "rulelens.agents.registry", "rulelens.lint"} <= after
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


DATACLASS = """
from dataclasses import dataclass, field
@dataclass(frozen=True)
class Pair:
    x: int
    y: list[int] = field(default_factory=list)
"""


def _dataclass_with_cache(folder: Path) -> tuple[type, startup.DataclassCodeCache]:
    import types

    cache = startup.DataclassCodeCache()
    module = types.ModuleType("probe_module")  # dataclasses looks its class's module up
    module.__file__ = str(folder / "probe_module.py")
    sys.modules["probe_module"] = module
    try:
        with cache.active():
            exec(DATACLASS, vars(module))
    finally:
        del sys.modules["probe_module"]
    pair = vars(module)["Pair"]
    assert isinstance(pair, type)
    return pair, cache


def _code_file(folder: Path) -> Path:
    return Path(startup.dataclass_code_file(str(folder / "probe_module.py")))


def test_dataclass_code_is_written_beside_the_bytecode_then_read_back(
        tmp_path: Path, monkeypatch: Any) -> None:
    import dataclasses

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    first, cache = _dataclass_with_cache(tmp_path)
    path = _code_file(tmp_path)
    assert cache.added and path.is_file() and path.parent.name == "__pycache__"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    second, again = _dataclass_with_cache(tmp_path)
    assert not again.added and again.known[str(path)]  # every method came from disk
    assert second(1) == second(1, []) and second(1) != second(2)
    assert repr(second(1, [2])) == repr(first(1, [2])) == "Pair(x=1, y=[2])"
    assert second.__init__.__code__.co_code == first.__init__.__code__.co_code
    assert "exec" not in vars(dataclasses)  # the hook is gone after the block


def test_no_dataclass_code_is_written_when_bytecode_writing_is_off(
        tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    pair, cache = _dataclass_with_cache(tmp_path)
    assert cache.added and pair(1) == pair(1) and not _code_file(tmp_path).exists()


def test_no_dataclass_code_beside_sources_under_a_bytecode_prefix(
        tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pair, cache = _dataclass_with_cache(tmp_path)
    assert pair(1) == pair(1) and not cache.added and not _code_file(tmp_path).exists()


def test_a_foreign_or_corrupt_dataclass_cache_is_ignored(
        tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    bad = _code_file(tmp_path)
    bad.parent.mkdir()
    bad.write_bytes(b"not marshal data")
    pair, cache = _dataclass_with_cache(tmp_path)
    assert cache.added and pair(1) == pair(1)
    os.chmod(bad, 0o666)  # others may write it: never executed
    assert startup.DataclassCodeCache._load(str(bad)) == {}


def test_lint_reads_its_dataclasses_from_the_cache(tmp_path: Path) -> None:
    """`rulelens lint` (bytecode writing on) keeps the code beside the linter's bytecode
    and compiles none of it on the next run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    (tmp_path / "AGENTS.md").write_text("# Rules\n\nRun the tests.\n")
    probe = ("import runpy, sys\n"
             "sys.argv = ['rulelens', 'lint', '--no-cache', sys.argv[1]]\n"
             "compiled = []\n"
             "real = compile\n"
             "def spy(src, *a, **k):\n"
             "    compiled.append(src if isinstance(src, str) else '')\n"
             "    return real(src, *a, **k)\n"
             "import rulelens.startup as s\n"
             "s.compile = spy\n"
             "try: runpy.run_module('rulelens', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print(sum('__create_fn__' in c for c in compiled), file=sys.stderr)\n")

    def run() -> int:
        proc = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=120)
        return int(proc.stderr.strip().splitlines()[-1])

    run()  # compiles what no earlier run left
    import rulelens.lint.model

    assert Path(startup.dataclass_code_file(rulelens.lint.model.__file__)).is_file()
    assert run() == 0  # read back, nothing compiled
