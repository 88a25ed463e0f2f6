"""Start-up of ``rulelens serve`` (the editor waits for it on every launch) and of
``rulelens lint`` (CI and pre-commit hooks start it once per run).

Two things make it slow, and both are dealt with here:

* The command line imports every subcommand (the resolver, lint, memory) to build its
  parser. ``main`` therefore recognises ``serve`` first and imports only the server.
* Importing ``lsprotocol.types`` defines some 570 attrs classes, and attrs writes the
  ``__init__``/``__eq__``/``__repr__`` of each as source text and compiles it: about 40% of
  the import. ``GeneratedCodeCache`` keeps those compiled code objects on disk (like
  Python's own ``__pycache__``), keyed by the exact source text, so later starts skip the
  compiler. A code object compiled from the same text with the same flags is the same code,
  so nothing changes but the time. If attrs changes its internals, or the cache file is
  unreadable or not the user's own, the cache is simply not used.
* ``rulelens lint`` imports only the linter, and ``DataclassCodeCache`` does the same for
  the methods ``dataclasses`` writes as source text (a third of the linter's import).
"""

from __future__ import annotations
import __future__

import os
import stat
import sys
import types
from contextlib import contextmanager

TYPE_CHECKING = False  # not typing's: a replayed `rulelens lint` would pay ~8 ms for it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from pathlib import Path
    from typing import Any

# hashlib, marshal, tempfile, importlib.util and pathlib are imported where the cache
# uses them: `rulelens lint` starts through this module too, and must not pay for them.

_SERVE_OPTIONS = {"--stdio"}


def main(argv: Sequence[str] | None = None) -> int:
    """The ``rulelens`` console script (and ``python -m rulelens``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"] and set(args[1:]) <= _SERVE_OPTIONS:
        return serve()
    if args[:1] in (["lint"], ["explain"]):
        # CI and pre-commit hooks start `lint` once per run: a run identical to the last
        # one over unchanged files prints its record (rulelens.lint.replay); otherwise
        # only the linter is imported, its dataclasses' generated methods read from cache.
        from rulelens.lint import replay

        if replay.replayable(args):
            status = replay.replay(args, os.environ)
            if status is not None:
                return status
        with DataclassCodeCache().active():
            from rulelens.lint.cli import main as lint_main

            return lint_main(args)
    from rulelens.cli import main as cli_main

    return cli_main(args)


#: What `rulelens serve` says when a person, not an editor, started it.
TERMINAL_NOTE = ("rulelens serve: the RuleLens language server, speaking LSP on stdin/stdout."
                 " Editors start it themselves (docs/editors.md); to see what loads here, run"
                 " `rulelens chain --agent all`. Waiting for a client; Ctrl-C quits.")


def serve() -> int:
    """Import the server with attrs' generated code cached, then serve over stdio.

    The collector is paused during the import and what it made is frozen (``gc.freeze``):
    lsprotocol's classes live as long as the process, and full collections would scan them
    again and again (``bench/lsp.py --startup`` measures the CPU time to ``initialize``).
    """
    import gc

    if sys.stdin is not None and sys.stdin.isatty():
        print(TERMINAL_NOTE, file=sys.stderr, flush=True)
    gc.disable()
    try:
        with GeneratedCodeCache(cache_file()).active():
            from rulelens.lsp.server import serve_stdio
    finally:
        gc.freeze()
        gc.enable()
    return serve_stdio()


#: The files whose installed copy names the cache file: attrs' code generator, the module
#: whose classes it generates code for, and pygls.
_KEY_MODULES = ("attr._make", "lsprotocol.types", "pygls")


def cache_file() -> Path | None:
    """One file per Python and installed attrs, lsprotocol and pygls, in RuleLens' user
    cache dir. The installed files' paths, sizes and times name it: asking
    ``importlib.metadata`` for the versions costs some 40 ms of the start-up."""
    import hashlib
    from importlib.util import find_spec
    from pathlib import Path

    key = [sys.version]
    try:
        for name in _KEY_MODULES:
            spec = find_spec(name)
            if spec is None or not spec.origin:
                return None
            st = os.stat(spec.origin)
            key.append(f"{spec.origin}\0{st.st_size}\0{st.st_mtime_ns}")
    except (ImportError, OSError, ValueError):
        return None
    import platformdirs

    base = platformdirs.user_cache_dir("rulelens", appauthor=False)
    tag = sys.implementation.cache_tag or "python"
    digest = hashlib.sha256("\n".join(key).encode()).hexdigest()[:16]
    return Path(base) / "startup" / f"attrs-code-{tag}-{digest}.marshal"


class GeneratedCodeCache:
    """While active, attrs' generated methods are compiled once and then read from ``path``."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[bytes, types.CodeType] = self._load() if path else {}
        self.added: dict[bytes, types.CodeType] = {}

    def _load(self) -> dict[bytes, types.CodeType]:
        assert self.path is not None
        return {k: v for k, v in _read_marshal(str(self.path)).items()
                if isinstance(k, bytes) and isinstance(v, types.CodeType)}

    @contextmanager
    def active(self) -> Iterator[None]:
        make = _attrs_make_module()
        original = getattr(make, "_compile_and_eval", None) if make else None
        if self.path is None or make is None or not callable(original):
            yield
            return
        flags = _future_flags(vars(make))
        setattr(make, "_compile_and_eval", self._compile_and_eval_for(flags))  # noqa: B010
        try:
            yield
        finally:
            setattr(make, "_compile_and_eval", original)  # noqa: B010
            self._save()

    def _compile_and_eval_for(self, flags: int) -> Callable[..., None]:
        import hashlib

        def compile_and_eval(script: str, globs: dict[str, Any] | None,
                             locs: Mapping[str, object] | None = None,
                             filename: str = "") -> None:
            key = hashlib.sha256(f"{flags}\0{filename}\0{script}".encode()).digest()
            code = self.known.get(key) or self.added.get(key)
            if code is None:
                code = compile(script, filename, "exec", flags=flags, dont_inherit=True)
                self.added[key] = code
            eval(code, globs, locs)  # the code attrs itself generated, as attrs runs it

        return compile_and_eval

    def _save(self) -> None:
        if self.added and self.path is not None:
            _write_marshal(str(self.path), {**self.known, **self.added})


def dataclass_code_file(module_file: str) -> str:
    """Where the dataclass code of the module at ``module_file`` is kept: beside its
    bytecode, ``__pycache__/<name>.dataclasses.<tag>-<version>.marshal`` (the code belongs
    to the installed module and lives as long as its ``.pyc``)."""
    base = os.path.splitext(os.path.basename(module_file))[0]
    tag = sys.implementation.cache_tag or "python"
    return os.path.join(os.path.dirname(module_file), "__pycache__",
                        f"{base}.dataclasses.{tag}-{sys.hexversion:x}.marshal")


_Key = tuple[int, str]


class DataclassCodeCache:
    """While active, the methods ``dataclasses`` writes as source text (``__init__``,
    ``__repr__``, ``__eq__``, ``__hash__``, ...) are compiled once and then read from a
    file beside each module's bytecode (:func:`dataclass_code_file`): a third of the
    linter's import (39 of 124 ms, 334 ``exec`` calls; a cold one-file `rulelens lint`:
    155 -> 113 ms, fastest of 25). A module's file is read when its first dataclass is
    made, and written, as Python writes a ``.pyc``, only where its ``__pycache__`` is
    writable and bytecode writing is on (``PYTHONDONTWRITEBYTECODE`` unset).

    ``dataclasses`` runs ``exec(text, globals, ns)``; a module global named ``exec``
    shadows the builtin for that module only. The cached code is what ``compile`` makes of
    the same text with the same flags, so nothing changes but the time. If a Python
    version writes its methods otherwise, the hook is simply never called.
    """

    def __init__(self) -> None:
        #: Cache file -> the code it holds (read once) / the code this run added.
        self.known: dict[str, dict[_Key, types.CodeType]] = {}
        self.added: dict[str, dict[_Key, types.CodeType]] = {}
        self.pid = os.getpid()  # a forked lint worker never writes

    @staticmethod
    def _load(path: str) -> dict[_Key, types.CodeType]:
        return {k: v for k, v in _read_marshal(path).items()
                if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], int)
                and isinstance(k[1], str) and isinstance(v, types.CodeType)}

    def code(self, module_file: str, flags: int, source: str) -> types.CodeType:
        """The compiled ``source`` of a dataclass of the module at ``module_file``."""
        path = dataclass_code_file(module_file)
        known = self.known.get(path)
        if known is None:
            known = self.known[path] = self._load(path)
        key = (flags, source)
        found = known.get(key)
        if found is None:
            found = known[key] = compile(source, "<string>", "exec", flags=flags,
                                         dont_inherit=True)
            self.added.setdefault(path, {})[key] = found
        return found

    @contextmanager
    def active(self) -> Iterator[None]:
        import dataclasses

        namespace = vars(dataclasses)
        if "exec" in namespace or sys.pycache_prefix:
            # Someone else's hook: leave it alone. A bytecode prefix (PYTHONPYCACHEPREFIX)
            # moves the .pyc away from the source; the code is then compiled as before.
            yield
            return
        flags = _future_flags(namespace)

        def cached_exec(source: str | types.CodeType, globs: dict[str, Any] | None = None,
                        locs: Mapping[str, object] | None = None) -> None:
            module_file = globs.get("__file__") if globs is not None else None
            if not isinstance(source, str) or not isinstance(module_file, str):
                exec(source, globs, locs)  # as given
                return
            exec(self.code(module_file, flags, source), globs, locs)  # what dataclasses wrote

        namespace["exec"] = cached_exec
        try:
            yield
        finally:
            del namespace["exec"]
            self._save()

    def _save(self) -> None:
        if os.getpid() != self.pid or sys.dont_write_bytecode:
            return
        for path in self.added:
            # Not writable (a system install): compiled each run, as before.
            _write_marshal(path, self.known[path])


def _attrs_make_module() -> types.ModuleType | None:
    try:
        import attr._make as make
    except ImportError:
        return None
    return make


def _future_flags(namespace: Mapping[str, object]) -> int:
    """The ``__future__`` flags attrs' own ``compile`` calls inherit from its module."""
    flags = 0
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if namespace.get(name) is feature:
            flags |= feature.compiler_flag
    return flags


def _read_marshal(path: str) -> dict[object, object]:
    """The dict a cache file holds; ``{}`` when it is missing, unreadable, not a dict, or
    not trusted (:func:`_trusted`)."""
    import marshal

    try:
        with open(path, "rb") as fh:
            if not _trusted(os.fstat(fh.fileno())):
                return {}
            data = marshal.loads(fh.read())  # load(fh) reads in small pieces: 8x slower
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_marshal(path: str, data: dict[Any, Any]) -> None:
    """``data`` to ``path`` atomically (a private temporary file, then a rename), readable
    by this user only; a file that cannot be written is left as it was."""
    import marshal
    import tempfile

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".code-")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        return


def _trusted(st: os.stat_result) -> bool:
    """Like a .pyc: only a regular file of this user that nobody else may write."""
    if not stat.S_ISREG(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or st.st_uid == getuid()
