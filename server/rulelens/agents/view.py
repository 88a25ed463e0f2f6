"""One agent's view of the file being edited: the model every per-file surface renders.

Two inputs decide it: the **start directory** (where the agent session starts) and the
**file** being worked on. Per agent the answer is split by *when* a file reaches the model:

- ``start``: injected when the session starts, in load order (budgets already applied);
- ``on-read``: added by the harness when the agent reads or edits this file (nested files,
  path-scoped rules, glob-attached rules);
- ``may``: the model may pull it in itself (Cursor's description-only rules, Copilot's
  description match, Codex's "check deeper AGENTS.md", Boost's index) — never counted as
  loaded.

Everything else the agent could have read is in ``not_loaded`` with a reason in the
profile's words. A path appears at most once per view: either in ``files`` (with one
``when``) or in ``not_loaded``, never in both — the views cannot contradict themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

When = Literal["start", "on-read", "may"]
Role = Literal["home", "project"]
WHENS: tuple[When, ...] = ("start", "on-read", "may")


def estimate_tokens(text: str) -> int:
    """One token per four characters, rounded up (the same estimate as the Grok tables)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class ViewFile:
    """A file that reaches the model (or may), with the reason, in the order it is seen.

    ``content`` is exactly what is injected for this file (cut where a budget cuts it;
    imports expanded where the agent expands them inline). ``bytes`` is the size on disk.
    ``truncated_at`` is the byte offset of a budget cut, else ``None``. ``imported_by`` is
    the importing file for ``@path`` imports.
    """

    path: str
    when: When
    why: str
    kind: str
    role: Role
    bytes: int
    content: str
    truncated_at: int | None = None
    imported_by: str | None = None
    #: How sure this line is when it differs from the view's ``basis`` (``code`` / ``docs``
    #: / ``observed``), and where that comes from; ``None``: the view's.
    evidence: str | None = None
    source: str | None = None
    #: Known, version-gated problems that affect this file (an agent build ignoring it).
    notes: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.content)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class NotLoaded:
    """A candidate the agent does not load here, with a machine id and the agent's words."""

    path: str
    reason: str
    detail: str
    imported_by: str | None = None
    #: As :class:`ViewFile`: this line's evidence and source where not the view's, and notes.
    evidence: str | None = None
    source: str | None = None
    notes: tuple[str, ...] = ()

    def to_json(self, evidence: str | None = None, source: str | None = None
                ) -> dict[str, Any]:
        """The skip; with ``evidence``/``source`` (the view's), every skip says how sure it
        is and where that comes from."""
        out: dict[str, Any] = {"path": self.path, "reason": self.reason, "detail": self.detail}
        if self.imported_by is not None:
            out["imported_by"] = self.imported_by
        if evidence is not None:
            out["evidence"] = self.evidence or evidence
            out["evidence_source"] = self.source or source or ""
        if self.notes:
            out["notes"] = list(self.notes)
        return out


ImportStatus = Literal["inlined", "missing", "cycle", "depth", "outside", "needs-approval",
                       "binary"]


@dataclass(frozen=True)
class ImportEdge:
    """One ``@path`` import: where it is written, what it resolves to, what happened."""

    source: str
    line: int  # 1-based line of the ``@`` in the importing file
    spec: str  # the text after ``@``
    target: str | None  # resolved path (None when it cannot be resolved)
    status: ImportStatus
    depth: int  # hops from the top-level file (1 = imported by it)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "spec": self.spec,
                "target": self.target, "status": self.status, "depth": self.depth}


@dataclass(frozen=True)
class AgentView:
    """What one agent loads for ``file`` in a session started in ``cwd``."""

    agent: str
    display: str
    cwd: str
    file: str | None
    root: str | None
    files: tuple[ViewFile, ...]
    not_loaded: tuple[NotLoaded, ...]
    imports: tuple[ImportEdge, ...] = ()
    #: Sentences shown once above the lists (trust state, version gates, doc provenance).
    notes: tuple[str, ...] = ()
    #: ``"code"`` (exact from the agent's source) or ``"docs"`` (per the agent's docs).
    basis: Literal["code", "docs"] = "code"
    #: The words every detail text carries for a docs-based profile.
    basis_label: str = ""
    #: The text the agent injects, where the framing is known; ``None`` when it is not.
    rendered: str | None = None
    #: Where the view's facts come from (``repo@commit:path`` or a documentation URL and
    #: date); the registry fills it in from the profile row when a module leaves it empty.
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def of(self, when: When) -> tuple[ViewFile, ...]:
        return tuple(f for f in self.files if f.when == when)

    def find(self, path: str) -> ViewFile | NotLoaded | None:
        for f in self.files:
            if f.path == path:
                return f
        for s in self.not_loaded:
            if s.path == path:
                return s
        return None

    def to_json(self) -> dict[str, Any]:
        """``rulelens chain --json``'s shape plus ``when``/``why``/``imported_by``/… and, per
        file and per skip, ``evidence`` and ``source``."""
        files = []
        for i, f in enumerate(self.files, 1):
            files.append({
                "path": f.path, "name": f.name, "role": f.role, "kind": f.kind,
                "precedence": i, "bytes": f.bytes, "tokens": f.tokens, "content": f.content,
                "when": f.when, "why": f.why, "imported_by": f.imported_by,
                "truncated_at": f.truncated_at, **self.evidence_of(f),
            })
        return {
            "agent": self.agent,
            "display": self.display,
            "cwd": self.cwd,
            "file": self.file,
            "git_root": self.root,
            "basis": self.basis,
            "basis_label": self.basis_label,
            "notes": list(self.notes),
            "evidence_source": self.source,
            "files": files,
            "skipped": [s.to_json(self.basis, self.source) for s in self.not_loaded],
            "imports": [e.to_json() for e in self.imports],
        }


    def evidence_of(self, f: ViewFile) -> dict[str, Any]:
        """``{"evidence", "evidence_source"[, "notes"]}`` for one loaded file (``source`` is
        taken: Grok's chain JSON names a file's ``InstructionSource`` there)."""
        out: dict[str, Any] = {"evidence": f.evidence or self.basis,
                               "evidence_source": f.source or self.source}
        if f.notes:
            out["notes"] = list(f.notes)
        return out


def check_consistent(view: AgentView) -> None:
    """Raise ``ValueError`` when one path is in two groups (a bug in a discovery module)."""
    seen: dict[str, str] = {}
    for f in view.files:
        if f.path in seen:
            raise ValueError(f"{view.agent}: {f.path} listed as {seen[f.path]} and {f.when}")
        seen[f.path] = f.when
    for s in view.not_loaded:
        if s.path in seen:
            raise ValueError(f"{view.agent}: {s.path} listed as {seen[s.path]} and not loaded")
        seen[s.path] = "not-loaded"


class ViewBuilder:
    """Collects one view's entries; a path lands in exactly one group (first load wins).

    A path that loads in any way is removed from ``not_loaded``; a second load of the same
    path (an import repeated by a sibling, a file reached from two directories) is dropped.
    """

    def __init__(self) -> None:
        self._files: list[ViewFile] = []
        self._loaded: set[str] = set()
        self._skipped: dict[str, NotLoaded] = {}
        self.imports: list[ImportEdge] = []
        self.notes: list[str] = []

    def add(self, f: ViewFile) -> bool:
        if f.path in self._loaded:
            return False
        self._loaded.add(f.path)
        self._skipped.pop(f.path, None)
        self._files.append(f)
        return True

    def skip(self, path: str, reason: str, detail: str, imported_by: str | None = None, *,
             evidence: str | None = None, source: str | None = None) -> None:
        """Record a candidate not loaded (``evidence``/``source``: this line's own, where they
        differ from the view's)."""
        if path in self._loaded or path in self._skipped:
            return
        self._skipped[path] = NotLoaded(path, reason, detail, imported_by, evidence, source)

    def loaded(self, path: str) -> bool:
        return path in self._loaded

    def annotate(self, path: str, note: str) -> None:
        """Attach a known, version-gated problem to ``path``'s line (loaded or not)."""
        for i, f in enumerate(self._files):
            if f.path == path and note not in f.notes:
                self._files[i] = replace(f, notes=(*f.notes, note))
        s = self._skipped.get(path)
        if s is not None and note not in s.notes:
            self._skipped[path] = replace(s, notes=(*s.notes, note))

    def files(self) -> tuple[ViewFile, ...]:
        order = {w: i for i, w in enumerate(WHENS)}
        return tuple(sorted(self._files, key=lambda f: order[f.when]))

    def not_loaded(self) -> tuple[NotLoaded, ...]:
        return tuple(self._skipped.values())
