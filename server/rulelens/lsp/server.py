"""The RuleLens language server: thin pygls handlers over ``Session`` and ``views``.

Every open document gets a code lens and a hover at line 0 showing its chain, whatever
its language; rule files get a second lens (does it load, where) and frontmatter-key
hovers. Handlers that touch the disk run in the thread pool; the watcher's batch work
runs in its own executor, so a flood of file events never blocks a request.

Anything that cannot be served (never opened, not ``file:``, outside the workspace
folders, a bug) answers an empty result rather than an error, and the server keeps going.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rulelens import __version__
from rulelens.lsp import protocol
from rulelens.lsp.rpc import RuleLensProtocol, log_to_stderr, serve, strict_converter

if TYPE_CHECKING:
    from rulelens.lint.model import Finding
    from rulelens.lsp.diagnostics import EditorLint
    from rulelens.lsp.session import Session
    from rulelens.lsp.sessionwatch import SessionWatcher
    from rulelens.lsp.verdicts import Verdicts
    from rulelens.lsp.watch import Watcher

# Start-up: `initialize` is answered with pygls, lsprotocol and the modules above only.
# Everything of RuleLens' own (the session and its 16 agents, lint, watchers, memory) is
# imported where it is first used, after `initialized` (tests/unit/test_startup.py).

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Frontmatter hovers look at this much of a document (a 20 MB buffer is not parsed).
FRONTMATTER_WINDOW = 64 * 1024
LINT_DEBOUNCE_S = 0.3
#: The interpreter's thread switch interval while a session is read, and otherwise.
VERIFY_SWITCH_INTERVAL_S = 0.0001
DEFAULT_SWITCH_INTERVAL_S = sys.getswitchinterval()


class RuleLensServer(LanguageServer):
    """pygls server plus the session state and the watcher."""

    def __init__(self, environ: Mapping[str, str] | None = None,
                 debounce_ms: int = 200) -> None:
        super().__init__("rulelens", __version__, max_workers=4,
                         protocol_cls=RuleLensProtocol, converter_factory=strict_converter)
        self._environ = dict(environ) if environ is not None else None
        self._session: Session | None = None
        #: Workspace folders and initialization options from ``initialize``, until the
        #: session exists (``start``).
        self._start: tuple[list[str], Any] | None = None
        self._lazy_lock = threading.Lock()
        self.debounce_ms = debounce_ms
        self.watcher: Watcher | None = None
        #: The memory feature (``lsp.memory``), set when it registers.
        self.memory: Any = None
        self.batch_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulelens-batch")
        #: ``rulelens/verify`` reads session files (up to gigabytes) here, never in the
        #: request threads that serve lenses and hovers.
        self.verify_pool = ThreadPoolExecutor(max_workers=1,
                                              thread_name_prefix="rulelens-verify")
        #: Tasks reading sessions now (``read_sessions``), under ``_switch_lock``.
        self._reading = 0
        self._switch_lock = threading.Lock()
        self._verdicts: Verdicts | None = None
        self.session_watcher: SessionWatcher | None = None
        #: The event loop (set when the watchers start): verdicts computed on the verify
        #: pool notify the client through it.
        self._loop: asyncio.AbstractEventLoop | None = None
        #: uri -> what its views last showed; only for open documents (``_docs_lock``).
        self.fingerprints: dict[str, object] = {}
        self._docs_lock = threading.Lock()
        self._lint_timers: dict[str, asyncio.TimerHandle] = {}
        #: uri -> (path, findings, column converter) of the last published lint.
        #: uri -> (path, findings, column conversion, the document version linted).
        self.findings: dict[str, tuple[str, list[Finding], Callable[[int, int], int],
                                       int | None]] = {}
        self._editor_lint: EditorLint | None = None
        #: git reads for the hover's ages (two calls a file, in the background).
        self.git_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulelens-git")
        self._ages: Any = None

    @property
    def ages(self) -> Any:
        """The ages of instruction files the hovers show (``lsp.ages.Ages``), made at
        first use."""
        if self._ages is None:
            from rulelens.lsp.ages import Ages

            self._ages = Ages(self.git_pool)
        return self._ages

    @property
    def session(self) -> Session:
        """The session (agents, chains, settings), made at first use, after start-up."""
        if self._session is None:
            with self._lazy_lock:
                if self._session is None:
                    load_views()
                    from rulelens.lsp.session import Session

                    session = Session(self._environ) if self._environ is not None else Session()
                    if self._start is not None:
                        _apply_start(session, *self._start)
                    self._session = session
        return self._session

    def start(self, roots: list[str], options: Any) -> None:
        """``initialize``: the workspace folders and options, applied when the session is
        made (at once if it exists), so the reply waits for none of RuleLens' modules."""
        with self._lazy_lock:
            if self._session is None:
                self._start = (roots, options)
                return
        _apply_start(self._session, roots, options)

    @property
    def verdicts(self) -> Verdicts:
        """The last session's verdict per (agent, start dir, file), for the hover."""
        if self._verdicts is None:
            with self._lazy_lock:
                if self._verdicts is None:
                    from rulelens.lsp.verdicts import Verdicts

                    self._verdicts = Verdicts(
                        self.verify_pool, lambda agent, cwd, path: self.read_sessions(
                            lambda: _verdict_for(self.session, agent, cwd, path)),
                        on_change=self.verdict_changed)
        return self._verdicts

    def verdict_changed(self, key: tuple[str, str, str], before: dict[str, Any] | None = None,
                        after: dict[str, Any] | None = None) -> None:
        """(verify pool) A last-session verdict came out different: the hover table's
        observed marks are built again when the observed files changed, and the documents
        at that path are told (``rulelens/chainChanged``: the Active Rules view and the
        sidebar ask again)."""
        from rulelens.sessions.observed import observed_files

        session, loop = self._session, self._loop
        if session is None:
            return
        path = key[2]
        # Only then: each first verdict (no session: none observed) dropped the hover text,
        # and rebuilding it from evicted views made warm hovers cold (p95 2 -> 78 ms).
        if observed_files(before) != observed_files(after):
            session.agent_view_cache.forget_texts(path)
        uris = [u for u, p in session.open_documents().items() if p == path]
        if uris and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(
                lambda: guarded(lambda: self.protocol.notify(protocol.CHAIN_CHANGED,
                                                             {"uris": uris}), None))

    async def on_session_changes(self, agents: set[str]) -> None:
        """A session directory changed: compute those agents' verdicts again (the verify
        pool; :meth:`verdict_changed` tells the client when one differs)."""
        if self._verdicts is not None:
            self._verdicts.refresh(agents)

    @property
    def lint(self) -> EditorLint:
        """The lint session (every lint cache) for the server's life."""
        if self._editor_lint is None:
            with self._lazy_lock:
                if self._editor_lint is None:
                    from rulelens.lsp.diagnostics import EditorLint

                    self._editor_lint = EditorLint()
        return self._editor_lint

    def read_sessions(self, fn: Callable[[], T]) -> T:
        """``fn()`` (on the verify pool) with a 0.1 ms thread switch interval: a read of a
        large session holds the GIL in slices of the interval (5 ms by default), and the
        short slice lets lens and hover threads in between (tests/lsp/test_verify.py:
        p95 28 ms with 5 ms, about 4 ms with 0.1 ms)."""
        with self._switch_lock:
            self._reading += 1
            sys.setswitchinterval(VERIFY_SWITCH_INTERVAL_S)
        try:
            return fn()
        finally:
            with self._switch_lock:
                self._reading -= 1
                if not self._reading:
                    sys.setswitchinterval(DEFAULT_SWITCH_INTERVAL_S)

    # ---------------------------------------------------------------- watching
    def restart_watcher(self) -> None:
        from rulelens.lsp.watch import Watcher

        if self.watcher is not None:
            self.watcher.stop()
        self.watcher = Watcher(self.session.roots, self.session.watched_home_dirs(),
                               self.on_disk_changes, self.debounce_ms)
        self.watcher.start()
        self.restart_session_watcher()
        if self.memory is not None:
            self.memory.restart_watcher()

    def restart_session_watcher(self) -> None:
        """Watch the enabled agents' session directories for the start directories of the
        workspace folders (``lsp/sessionwatch.py``)."""
        from rulelens.lsp.sessionwatch import SessionWatcher, plan_for

        self._loop = asyncio.get_running_loop()
        if self.session_watcher is not None:
            self.session_watcher.stop()
        s = self.session

        def plan() -> Any:
            cwds = [c for r in s.roots if (c := s.agent_cwd(os.path.join(r, "_"))) is not None]
            agents = {a for r in s.roots for a in s.agents_for(os.path.join(r, "_"))}
            return plan_for(agents, cwds, s.environ)

        self.session_watcher = SessionWatcher(plan, self.on_session_changes)
        self.session_watcher.start()

    async def on_disk_changes(self, paths: set[str] | None) -> None:
        loop = asyncio.get_running_loop()
        changed = await loop.run_in_executor(self.batch_pool, self.recompute, paths)
        self.announce(changed)
        for uri in self.session.open_documents():   # lint may depend on other files
            if uri not in changed:
                self.schedule_lint(uri)

    def recompute(self, paths: set[str] | None) -> list[str]:
        """(batch thread) Invalidate caches for ``paths``; the open URIs whose view changed."""
        config = self.session.config_path()
        self.lint.invalidate(paths)
        if paths is None or config in paths or any(p.endswith("/.gitconfig") for p in paths):
            self.session.reload_environment()
        elif len(paths) > 256:
            self.session.invalidate(None)
        else:
            self.session.invalidate(paths)
        if self._verdicts is not None:  # the prediction may have changed: so the verdict
            self._verdicts.refresh()
        changed = []
        for uri, path in self.session.open_documents().items():
            new = guarded(functools.partial(fingerprint, self.session, path), None)
            if self.keep_fingerprint(uri, path, new):
                changed.append(uri)
        return changed

    def remember(self, uri: str, path: str) -> None:
        """(batch thread) Record what an open document's views show, to detect changes."""
        self.keep_fingerprint(uri, path, guarded(lambda: fingerprint(self.session, path), None))

    def keep_fingerprint(self, uri: str, path: str, value: object) -> bool:
        """Store ``value`` if ``uri`` is still open as ``path``; whether it changed.

        Work queued by ``didOpen`` may finish after ``didClose``: it must not bring the
        closed document's state back.
        """
        with self._docs_lock:
            if self.session.opened(uri) != path:
                return False
            changed = self.fingerprints.get(uri) != value
            self.fingerprints[uri] = value
            return changed

    def forget(self, uri: str) -> None:
        """(loop) ``didClose``: nothing about the document remains."""
        with self._docs_lock:
            self.session.close(uri)
            self.fingerprints.pop(uri, None)
        self.findings.pop(uri, None)
        timer = self._lint_timers.pop(uri, None)
        if timer is not None:
            timer.cancel()

    def document_state(self) -> dict[str, int]:
        """How many entries each per-document table holds (``rulelens/serverStatus``)."""
        session = self._session
        with self._docs_lock:
            return {"open": len(session.open_documents()) if session else 0,
                    "fingerprints": len(self.fingerprints), "findings": len(self.findings),
                    "lintTimers": len(self._lint_timers),
                    "agentViews": session.agent_view_cache.size() if session else 0,
                    "textDocuments": len(self.workspace.text_documents),
                    "pendingRequests": len(self.protocol._request_futures)}

    def watching(self) -> dict[str, object]:
        """Which watches are armed now: tests and clients wait for this, not for a sleep."""
        armed = sorted(self.watcher.armed) if self.watcher is not None else []
        memory = self.memory.watcher if self.memory is not None else None
        sessions = self.session_watcher
        return {"paths": armed, "memory": bool(memory is not None and memory.armed),
                "sessions": sorted(sessions.armed) if sessions is not None else []}

    def stop(self, timeout: float = 0.5) -> None:
        """Stop the watchers and worker pools, waiting at most ``timeout`` seconds."""
        def stop_all() -> None:
            if self.watcher is not None:
                self.watcher.stop()
            if self.session_watcher is not None:
                self.session_watcher.stop()
            if self.memory is not None:
                self.memory.close()
            self.batch_pool.shutdown(wait=False, cancel_futures=True)
            self.verify_pool.shutdown(wait=False, cancel_futures=True)
            self.git_pool.shutdown(wait=False, cancel_futures=True)
            self.thread_pool.shutdown(wait=False, cancel_futures=True)

        worker = threading.Thread(target=lambda: guarded(stop_all, None), daemon=True)
        try:
            worker.start()
        except RuntimeError:  # no thread to spare (an address-space limit): stop inline
            guarded(stop_all, None)
            return
        worker.join(timeout)

    def announce(self, changed: list[str]) -> None:
        """(loop) Tell the client which documents' chains changed; refresh lenses, lint."""
        if not changed:
            return
        self.protocol.notify(protocol.CHAIN_CHANGED, {"uris": changed})
        if code_lens_refresh_supported(self.client_capabilities):
            try:
                self.workspace_code_lens_refresh(None)
            except Exception:
                log.exception("codeLens refresh failed")
        for uri in changed:
            self.schedule_lint(uri, delay=0.0)

    # -------------------------------------------------------------------- lint
    def schedule_lint(self, uri: str, delay: float = LINT_DEBOUNCE_S) -> None:
        from rulelens.lsp import diagnostics

        if not diagnostics.lint_available():
            return
        timer = self._lint_timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._lint_timers[uri] = loop.call_later(
            delay, lambda: asyncio.ensure_future(self.publish_lint(uri)))

    async def publish_lint(self, uri: str) -> None:
        from rulelens.lsp import diagnostics

        self._lint_timers.pop(uri, None)
        path = self.session.opened(uri)
        if path is None:
            return
        doc = self.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(
            self.thread_pool,
            lambda: guarded(lambda: self._lint(path, text), None))
        if found is None or self.session.opened(uri) is None:
            return
        to_client = client_columns(text, doc.position_codec)
        self.findings[uri] = (path, found, to_client, version)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[diagnostics.to_diagnostic(f, to_client) for f in found],
            version=version))

    def _lint(self, path: str, text: str) -> list[Finding] | None:
        resolver = self.session.lint_resolver  # lint assumes a trusted folder
        if resolver is None:
            return None
        return self.lint.findings(path, text, resolver, self.session.lint_config())


def client_columns(text: str, codec: Any) -> Callable[[int, int], int]:
    """Code-point columns (the engine's) -> the negotiated client encoding's units."""
    lines = text.splitlines()

    def to_client(line: int, col: int) -> int:
        if 0 <= line < len(lines):
            pos = codec.position_to_client_units(lines, types.Position(line, col))
            return int(pos.character)
        return col

    return to_client


def fingerprint(session: Session, path: str) -> object:
    """Everything the views of ``path`` show that the disk can change."""
    from rulelens.lsp import agentviews, views

    chain = session.chain(path)
    if chain is None:
        return None
    split = session.tracker_split(path, chain)
    found = session.agent_views(path) if session.agents_for(path) else None
    shown = (views.chain_payload(chain, split),
             agentviews.fingerprint(found) if found else None)
    # Kept per open document: the tuples themselves (16 agents' paths) held 12 KB each, 25 MB
    # of the hover session's peak RSS in bench/lsp.py (2,000 open documents).
    return hashlib.blake2b(repr(shown).encode(), digest_size=16).digest()


def code_lens_refresh_supported(caps: types.ClientCapabilities | None) -> bool:
    ws = caps.workspace if caps is not None else None
    lens = ws.code_lens if ws is not None else None
    return bool(lens is not None and lens.refresh_support)


def guarded(fn: Callable[[], T], default: T) -> T:
    """Run ``fn``; log any exception and return ``default`` so the server keeps serving."""
    try:
        return fn()
    except Exception:
        log.exception("RuleLens handler failed")
        return default


def _safe(default: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            return guarded(lambda: fn(*args, **kwargs), default)
        return inner
    return wrap


def _uri_param(params: Any) -> str | None:
    """``{uri}`` params arrive as a pygls ``Object`` (namedtuple), a dict, or garbage."""
    return _str_param(params, "uri")


def _param(params: Any, key: str) -> Any:
    if params is None:
        return None
    return params.get(key) if isinstance(params, dict) else getattr(params, key, None)


def _str_param(params: Any, key: str) -> str | None:
    value = _param(params, key)
    return value if isinstance(value, str) else None


def _to_dict(value: Any) -> Any:
    """pygls ``Object`` namedtuples (custom params, settings) -> plain dicts/lists."""
    if hasattr(value, "_asdict"):
        return {k: _to_dict(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _to_dict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_to_dict(v) for v in value]
    return value


# ------------------------------------------------------------------ features
def load_views() -> None:
    """Import what lenses, hovers and lint use (once, when the session is first made).

    The collector is paused meanwhile and everything imported so far is then frozen
    (``gc.freeze``): otherwise full collections during the import scan lsprotocol's
    hundreds of classes again and again (``bench/lsp.py --startup``: about 40 ms of CPU of
    the first code lens).
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        from rulelens.lsp import agentviews, diagnostics, session, views  # noqa: F401
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _apply_start(session: Session, roots: list[str], options: Any) -> None:
    session.set_roots(roots)
    session.apply_settings(options)


# ------------------------------------------------------------------ handlers
def initialize(ls: RuleLensServer, params: types.InitializeParams) -> None:
    """Take the workspace folders and the settings; nothing of RuleLens' own loads yet."""
    roots = [to_fs_path(f.uri) for f in params.workspace_folders or []]
    if not roots and params.root_uri:
        roots = [to_fs_path(params.root_uri)]
    if not roots and params.root_path:
        roots = [params.root_path]
    ls.start([r for r in roots if r], _to_dict(params.initialization_options))


def initialized(ls: RuleLensServer, params: types.InitializedParams) -> None:
    """Make the session, report bad configuration and settings, start watching."""
    s = ls.session  # RuleLens' own modules are imported here, after start-up
    if s.config_error:
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Error, message=f"RuleLens: {s.config_error}"))
    if s.agent_problem():
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"RuleLens: {s.agent_problem()}"))
    warn_settings(ls)
    warn_agent_cwd(ls)
    ls.restart_watcher()


def shutdown(ls: RuleLensServer, params: Any) -> None:
    """Stop the watchers."""
    if ls.watcher is not None:
        ls.watcher.stop()
    if ls.memory is not None:
        ls.memory.stop_watcher()


async def folders(ls: RuleLensServer,
                  params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Follow added and removed workspace folders."""
    s = ls.session
    removed = {f.uri for f in params.event.removed}
    current = [to_fs_path(u) for u in ls.workspace.folders if u not in removed]
    current += [to_fs_path(f.uri) for f in params.event.added]
    s.set_roots(r for r in current if r)
    ls.restart_watcher()
    await _refresh_all(ls)


async def configuration(ls: RuleLensServer,
                        params: types.DidChangeConfigurationParams) -> None:
    """Take changed settings: views, watched homes and lenses follow."""
    s = ls.session
    s.apply_settings(_to_dict(params.settings))
    warn_settings(ls)
    warn_agent_cwd(ls)
    ls.restart_watcher()  # the enabled agents, and so the watched homes, may differ
    await _refresh_all(ls)


def did_open(ls: RuleLensServer, params: types.DidOpenTextDocumentParams) -> None:
    """Serve an opened document: remember its views, lint it."""
    s = ls.session
    uri = params.text_document.uri
    path = s.open(uri)
    if path is not None:
        ls.batch_pool.submit(ls.remember, uri, path)
        ls.schedule_lint(uri, delay=0.0)


def did_change(ls: RuleLensServer, params: types.DidChangeTextDocumentParams) -> None:
    """Lint an open document again after its text changed (debounced)."""
    s = ls.session
    if s.opened(params.text_document.uri):
        ls.schedule_lint(params.text_document.uri)


def did_save(ls: RuleLensServer, params: types.DidSaveTextDocumentParams) -> None:
    """Lint an open document again when it is saved."""
    s = ls.session
    if s.opened(params.text_document.uri):
        ls.schedule_lint(params.text_document.uri)


def did_close(ls: RuleLensServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget everything about a closed document."""
    ls.forget(params.text_document.uri)


@_safe(None)
def code_lens(ls: RuleLensServer, params: types.CodeLensParams
              ) -> list[types.CodeLens] | None:
    """The per-agent headline on line 0 (for an instruction file: who reads it)."""
    from rulelens.lsp import agentviews
    from rulelens.lsp.session import looks_like_rule_file

    s = ls.session
    uri = params.text_document.uri
    path = s.opened(uri)
    chain = s.chain(path) if path is not None else None
    if path is None or chain is None:
        return None
    # One lens, for the start directory every headline view uses (the workspace folder
    # or agentCwd); the chain from the file's own folder is `rulelens chain FILE`.
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    lenses = []
    workspace = s.root_for(path)
    if looks_like_rule_file(path):  # an instruction file: which agents read it
        title = s.agent_text(path, "readers",
                             lambda vs: agentviews.readers_title(vs, path, workspace))
    else:
        title = s.agent_text(path, "lens", lambda vs: agentviews.lens_title(vs, workspace))
    if title:
        lenses.append(types.CodeLens(range=top, command=types.Command(
            title=title, command=protocol.SHOW_CHAIN, arguments=[uri])))
    return lenses


@_safe(None)
def hover(ls: RuleLensServer, params: types.HoverParams) -> types.Hover | None:
    """Line 0: every agent's table for the file; elsewhere: frontmatter keys."""
    from rulelens.lsp import agentviews, views
    from rulelens.lsp.session import looks_like_rule_file

    s = ls.session
    uri = params.text_document.uri
    path = s.opened(uri)
    if path is None:  # outside the workspace: maybe another agent's memory file
        cut = ls.memory.cut_hover_uri(uri) if ls.memory is not None else None
        return _markdown(cut) if cut and params.position.line == 0 else None
    line = params.position.line
    if line == 0:
        chain = s.chain(path)
        if chain is None:
            return None
        workspace = s.root_for(path)
        text = s.agent_text(path, "hover", lambda vs: agentviews.hover_table(
            vs, workspace, s.environ, _observed(ls, vs, path))) or ""
        if looks_like_rule_file(path):
            readers = s.agent_text(path, "readers",
                                   lambda vs: agentviews.readers_title(vs, path, workspace))
            text = f"**{readers}**\n\n{text}" if readers else text
        if not text:
            text = views.chain_hover(chain, s.tracker_split(path, chain))
        block = _verdict_block(ls, s, path)
        if block:
            text = f"{text}\n\n{block}" if text else block
        found = s.agent_views(path) or []
        loaded = [f.path for v in found for f in v.files if f.when != "may"]
        ages = ls.ages.lines(loaded, chain.git_root, workspace)
        if ages:
            text = f"{text}\n\n" + "\n".join(ages)
        if s.config.hover_format == "list":
            text = agentviews.tables_as_lists(text)
        return _markdown(text)
    return _frontmatter_hover(ls, s, uri, path, params.position)


@_safe(None)
def code_action(ls: RuleLensServer, params: types.CodeActionParams
                ) -> list[types.CodeAction] | None:
    """Quick fixes for the lint findings last published for the document."""
    from rulelens.lsp import diagnostics

    s = ls.session
    uri = params.text_document.uri
    last = ls.findings.get(uri)
    if s.opened(uri) is None or last is None:
        return None
    path, found, to_client, version = last
    return diagnostics.code_actions(uri, path, found, params.range, to_client,
                                    version) or None


def chain_request(ls: RuleLensServer, params: Any) -> dict[str, Any] | None:
    """``rulelens/chain``: the file's chain, or one agent's view with agent/cwd."""
    from rulelens import multichain
    from rulelens.agents import registry
    from rulelens.lsp.settings import ChainParams, params_as

    s = ls.session
    p = params_as(ChainParams, params)
    # Refusals (an unknown agent, a start directory outside the workspace folders) are
    # InvalidParams with one line, raised before the guarded part: never a traceback.
    agent = p.agent
    if agent is not None and not registry.known(agent):
        raise ValueError(f"agent: unknown agent {agent!r} (known: {registry.choices()})")
    cwd = s.start_dir(p.cwd)
    if agent is None and cwd is None:
        return guarded(lambda: _chain_payload(s, p.uri), None)
    path = s.opened(p.uri)
    if path is None:
        return None
    found = guarded(lambda: s.agent_views(path, [agent or registry.DEFAULT_AGENT], cwd), None)
    if not found:
        return None
    out = multichain.view_json(found[0])
    _mark_observed(ls, found[0].cwd, path, out)
    return out


def agents_for_file(ls: RuleLensServer, params: Any) -> dict[str, Any] | None:
    """``rulelens/agentsForFile``: every enabled agent's view of one document."""
    from rulelens.lsp import agentviews
    from rulelens.lsp.settings import AgentsForFileParams, params_as

    s = ls.session
    raw = _param(params, "agents")
    if isinstance(raw, str) and raw != "all":
        raise ValueError(f'agents: expected a list of agent ids or "all", not {raw!r}')
    p = params_as(AgentsForFileParams, params)
    wanted = p.agents
    cwd = s.start_dir(p.cwd)
    path = s.opened(p.uri)
    if path is None:
        return None

    def answer() -> dict[str, Any] | None:
        assert path is not None
        enabled = agentviews.enabled_agents(wanted, s.root_for(path), s.environ) \
            if wanted else s.agents_for(path)
        found = s.agent_views(path, enabled, cwd)
        payload = (agentviews.agents_payload(found, path, enabled, s.root_for(path))
                   if found else None)
        if payload is not None:
            leaves = s.leaves_workspace()
            for view in payload["agents"]:
                agentviews.withhold_outside(view["files"], leaves)
            _add_last_sessions(ls, s, path, payload)
        return payload

    return guarded(answer, None)


@_safe([])
def agents_request(ls: RuleLensServer, params: Any) -> list[dict[str, Any]]:
    """``rulelens/agents``: every agent the registry knows, for one folder."""
    from rulelens.lsp import agentviews
    from rulelens.lsp.settings import AgentsParams, params_as

    s = ls.session
    p = params_as(AgentsParams, params)
    workspace = s.workspace_for(p.workspace_uri)
    enabled = agentviews.enabled_agents(s.config.agents, workspace, s.environ)
    return agentviews.agents_list(workspace, enabled, s.environ)


@_safe(None)
def render_request(ls: RuleLensServer, params: Any) -> dict[str, Any] | None:
    """``rulelens/render``: exactly what the agent injects for the document."""
    from rulelens.lsp import views
    from rulelens.lsp.settings import DocumentParams, params_as

    s = ls.session
    path = s.opened(params_as(DocumentParams, params).uri)
    chain = s.chain(path) if path is not None else None
    if chain is None:
        return None
    leaves = s.leaves_workspace()
    outside = [f.path for f in chain.files if leaves(f.path)]
    if outside:  # never the bytes of a file a link leads to outside the workspace
        from rulelens.lsp.agentviews import OUTSIDE_TEXT

        return {"text": "", "complete": False,
                "empty": f"{os.path.basename(outside[0])} is {OUTSIDE_TEXT}"}
    return views.render_payload(chain)


async def verify_request(ls: RuleLensServer, params: Any) -> dict[str, Any] | None:
    """``rulelens/verify``: the agent's last session here against the prediction."""
    from rulelens.agents import registry

    s = ls.session
    # Refusals (an unknown agent, a start directory outside the workspace folders) are
    # InvalidParams with one line, as for rulelens/chain.
    agent = _str_param(params, "agent") or ""
    if not registry.known(agent):
        raise ValueError(f"agent: unknown agent {agent!r} (known: {registry.choices()})")
    cwd = s.start_dir(_str_param(params, "cwd"))
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(ls.verify_pool, ls.read_sessions, lambda: guarded(
        lambda: _verify_payload(s, params, cwd), None))


def server_status(ls: RuleLensServer, params: Any) -> dict[str, Any]:
    """``rulelens/serverStatus``: table sizes and armed watches (for tests)."""
    return {"documents": ls.document_state(), "watching": ls.watching()}


@_safe(None)
def show_chain(ls: RuleLensServer, *args: Any) -> dict[str, Any] | None:
    """The code lens command: the ``rulelens/chain`` payload of a document."""
    s = ls.session
    return _chain_payload(s, args[0] if args and isinstance(args[0], str) else None)


#: Every LSP feature and command the server answers: (method, options, handler, threaded).
FEATURES: tuple[tuple[str, Any, Callable[..., Any], bool], ...] = (
    (types.INITIALIZE, None, initialize, False),
    (types.INITIALIZED, None, initialized, False),
    (types.SHUTDOWN, None, shutdown, False),
    (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, None, folders, False),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None, configuration, False),
    (types.TEXT_DOCUMENT_DID_OPEN, None, did_open, False),
    (types.TEXT_DOCUMENT_DID_CHANGE, None, did_change, False),
    (types.TEXT_DOCUMENT_DID_SAVE, None, did_save, False),
    (types.TEXT_DOCUMENT_DID_CLOSE, None, did_close, False),
    (types.TEXT_DOCUMENT_CODE_LENS, None, code_lens, True),
    (types.TEXT_DOCUMENT_HOVER, None, hover, True),
    (types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix]), code_action, False),
    (protocol.CHAIN, None, chain_request, True),
    (protocol.AGENTS_FOR_FILE, None, agents_for_file, True),
    (protocol.AGENTS, None, agents_request, False),
    (protocol.RENDER, None, render_request, True),
    (protocol.VERIFY, None, verify_request, False),
    (protocol.SERVER_STATUS, None, server_status, False),
)
#: The commands (``workspace/executeCommand``): (command, handler, threaded).
COMMANDS: tuple[tuple[str, Callable[..., Any], bool], ...] = (
    (protocol.SHOW_CHAIN, show_chain, True),
)


def create_server(environ: Mapping[str, str] | None = None,
                  debounce_ms: int = 200) -> RuleLensServer:
    """A server with every handler of :data:`FEATURES` and :data:`COMMANDS` registered."""
    server = RuleLensServer(environ, debounce_ms)
    for method, options, handler, threaded in FEATURES:
        server.feature(method, options)(handler)
        if threaded:
            server.thread()(handler)
    for command, handler, threaded in COMMANDS:
        server.command(command)(handler)
        if threaded:
            server.thread()(handler)
    from rulelens.lsp import memory

    memory.register(server)
    return server


def warn_settings(ls: RuleLensServer) -> None:
    """One warning naming every setting of the wrong type (each was left out)."""
    problems = ls.session.config.problems
    if problems:
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message="RuleLens: " + " · ".join(problems)))


def warn_agent_cwd(ls: RuleLensServer) -> None:
    """Say once, in a window message and the log, that ``agentCwd`` is refused (one line
    naming the setting); the workspace folder is used instead."""
    problem = ls.session.agent_cwd_problem()
    if problem is not None:
        log.warning("%s", problem)
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"RuleLens: {problem}"))


def _chain_payload(s: Session, uri: str | None) -> dict[str, Any] | None:
    from rulelens.lsp import views

    path = s.opened(uri) if uri else None
    chain = s.chain(path) if path is not None else None
    if path is None or chain is None:
        return None
    from rulelens.lsp.agentviews import withhold_outside

    payload = views.chain_payload(chain, s.tracker_split(path, chain))
    withhold_outside(payload["files"], s.leaves_workspace())
    return payload


def _verify_payload(s: Session, params: Any, cwd: str | None) -> dict[str, Any] | None:
    """``rulelens verify --json`` for the open document (a session id, never a path: a
    client names no file for the server to read)."""
    from rulelens.sessions import verify

    path = s.opened(_uri_param(params) or "")
    agent = _str_param(params, "agent")
    resolver = s.resolver
    if path is None or agent is None or resolver is None:
        return None
    cwd = cwd or s.agent_cwd(path)
    if cwd is None:
        return None
    spec = _str_param(params, "session") or "latest"
    base: dict[str, Any] = {"agent": agent, "session": None, "verdict": "unknown",
                            "reason": "", "observed": [], "differences": []}
    if os.sep in spec:
        base["reason"] = "`session` is `latest` or a session id, not a path."
        return base
    try:
        return verify.verify(agent, cwd, path, s.environ, resolver.resolve, spec)
    except ValueError as exc:  # no session with that id, an unknown agent
        base["reason"] = str(exc)
        return base


def _verdict_for(s: Session, agent: str, cwd: str, path: str) -> dict[str, Any] | None:
    """The latest session's verdict (for the hover; run on the verify pool)."""
    from rulelens.sessions import verify

    resolver = s.resolver
    if resolver is None:
        return None
    return verify.verify(agent, cwd, path, s.environ, resolver.resolve)


def _add_last_sessions(ls: RuleLensServer, s: Session, path: str,
                       payload: dict[str, Any]) -> None:
    """Each view's ``last_session``: the hover's verdict line for agents whose sessions
    RuleLens reads (cached; computed in the background), else null."""
    from rulelens.agents.sessionfacts import facts
    from rulelens.lsp.verdicts import verdict_line
    from rulelens.sessions.observed import mark_view_json, observed_files

    cwd = payload.get("cwd")
    for entry in payload.get("agents", []):
        agent = str(entry.get("agent", ""))
        if not isinstance(cwd, str) or facts(agent).reader is None:
            entry["last_session"] = None
            continue
        known, result = ls.verdicts.get(agent, cwd, path)
        entry["last_session"] = verdict_line(str(entry.get("display") or agent), known, result,
                                             s.root_for(path))
        mark_view_json(entry, observed_files(result))


def _observed(ls: RuleLensServer, views: list[Any], path: str) -> dict[str, dict[str, str]]:
    """Per agent, the files its last session here shows loaded (cached verdicts only)."""
    from rulelens.sessions.observed import observed_files

    return {v.agent: observed_files(ls.verdicts.peek(v.agent, v.cwd, path)) for v in views}


def _mark_observed(ls: RuleLensServer, cwd: str, path: str, entry: dict[str, Any]) -> None:
    """Grade ``observed`` the files of one view JSON the agent's last session loaded."""
    from rulelens.agents.sessionfacts import facts
    from rulelens.sessions.observed import mark_view_json, observed_files

    agent = str(entry.get("agent", ""))
    if facts(agent).reader is not None:
        mark_view_json(entry, observed_files(ls.verdicts.get(agent, cwd, path)[1]))


def _verdict_block(ls: RuleLensServer, s: Session, path: str) -> str:
    """One line per enabled agent whose sessions RuleLens reads: the cached verdict of its
    last session in the start directory (computed in the background, never here)."""
    from rulelens.agents import registry
    from rulelens.agents.sessionfacts import facts
    from rulelens.lsp.verdicts import hover_block, verdict_line

    cwd = s.agent_cwd(path)
    if cwd is None:
        return ""
    lines = []
    for agent in s.agents_for(path):
        if facts(agent).reader is None:
            continue
        known, result = ls.verdicts.get(agent, cwd, path)
        display = registry.get(agent).display if registry.known(agent) else agent
        lines.append((display, verdict_line(display, known, result, s.root_for(path))))
    return hover_block(lines)


def _markdown(text: str) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def _frontmatter_hover(ls: RuleLensServer, s: Session, uri: str, path: str,
                       position: types.Position) -> types.Hover | None:
    from rulelens.lsp import views
    from rulelens.lsp.session import looks_like_rule_file
    from rulelens.rules.frontmatter import split as split_frontmatter

    if not looks_like_rule_file(path):
        return None
    source = ls.workspace.get_text_document(uri).source[:FRONTMATTER_WINDOW]
    block = split_frontmatter(source)
    if block is None or position.line <= block.start_line:
        return None
    if block.end_line is not None and position.line >= block.end_line:
        return None
    lines = source.split("\n")
    if position.line >= len(lines):
        return None
    key = views.frontmatter_key_at(lines[position.line], position.character)
    if key is None:
        return None
    status = s.rule_status(path)
    kind = status.loaded.kind if status is not None and status.loaded is not None else None
    if kind is None and not any(seg in path for seg in ("/.grok/rules/", "/.claude/rules/",
                                                         "/.cursor/rules/")):
        kind = "named"
    return _markdown(views.frontmatter_hover(key, kind))


async def _refresh_all(ls: RuleLensServer) -> None:
    loop = asyncio.get_running_loop()
    changed = await loop.run_in_executor(ls.batch_pool, ls.recompute, set())
    ls.announce(changed)


#: Stack reserved per worker thread (parsers are depth-bounded before they run).
THREAD_STACK = 4 * 1024 * 1024


def _few_malloc_arenas() -> None:
    """glibc reserves a 64 MiB malloc arena per allocating thread (up to 8 per core): the
    watchers and pools would map hundreds of MiB of address space they never use, and a
    ``ulimit -v`` would end the server. Two arenas serve its few busy threads."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):  # not glibc: nothing to cap
        pass


def serve_stdio() -> int:
    """Entry point of ``rulelens serve``: serve until ``exit`` (or EOF), then end at once.

    The process ends with ``os._exit``: a worker stuck in a system call, or a log line
    waiting on a stderr pipe nobody reads, must not keep it alive after ``exit``.
    """
    level = logging.getLevelName(os.environ.get("RULELENS_LOG_LEVEL", "WARNING").upper())
    flush_logs = log_to_stderr(level if isinstance(level, int) else logging.WARNING,
                               "rulelens: %(levelname)s %(message)s")
    code = 1
    # Worker threads need far less than the 8 MiB default stack; a smaller reservation lets
    # the server run under an address-space limit (ulimit -v) without "can't start new thread".
    threading.stack_size(THREAD_STACK)
    _few_malloc_arenas()
    try:
        server = create_server()
        code = serve(server, sys.stdin.buffer, sys.stdout.buffer)
        server.stop()
    except BaseException as exc:   # the process ends here whatever happened
        log.error("the server stopped: %s", exc, exc_info=not isinstance(exc, KeyboardInterrupt))
    finally:
        flush_logs()
        os._exit(code)
