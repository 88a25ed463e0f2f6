"""Kiro (IDE and CLI; closed source): steering files by ``inclusion``, AGENTS.md and
``#[[file:…]]`` references, per Kiro docs (research agent-profiles-more.md §5; every detail
says so).

Steering (KI-F1): ``.kiro/steering/*.md`` in the workspace and ``~/.kiro/steering/*.md``
(global; IDE and CLI); workspace steering wins where the two conflict. Foundation files
(``product.md``, ``tech.md``, ``structure.md``) are ordinary steering files. AGENTS.md at the
workspace root is always included. Front matter ``inclusion`` (KI-F2): ``always`` (also when
absent) with every interaction (*start*); ``fileMatch`` when a file matching
``fileMatchPattern`` (a glob, or a list of globs, relative to the workspace) is in context
(*on-read*); ``auto`` when the request matches the ``description`` (*may*); ``manual`` only
when referenced as ``#<name>`` in chat (not loaded). ``#[[file:<path>]]`` pulls in a
workspace file wherever the steering file is included; RuleLens follows one level. KI-F3
(observed, kirodotdev/Kiro#9176, Kiro 0.12.263): ``fileMatch`` steering in the global folder
never triggers; always, manual and auto work there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.approval import Approval, workspace_roots
from rulelens.agents.globmatch import first_match, split_globs
from rulelens.agents.imports import kiro_references, line_of
from rulelens.agents.meta import yaml_meta
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ImportEdge, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.KIRO
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Kiro docs"
DOCS_URL = "https://kiro.dev/docs/steering/"
#: KI-F3: the report that global ``fileMatch`` steering never fires.
GLOBAL_FILEMATCH = "kirodotdev/Kiro#9176, Kiro 0.12.263"
GLOBAL_FILEMATCH_SRC = "https://github.com/kirodotdev/Kiro/issues/9176 (Kiro 0.12.263)"
STEERING = os.path.join(".kiro", "steering")
INCLUSIONS = ("always", "fileMatch", "manual", "auto")


def steering_home(env: Mapping[str, str]) -> str:
    """``~/.kiro/steering``, the global steering folder."""
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, STEERING)


_rel = fsio.rel_below


def inclusion_of(meta: Mapping[str, object]) -> str | None:
    """``always`` when absent (KI-F2); the value as written otherwise (``None``: not a string)."""
    if "inclusion" not in meta or meta.get("inclusion") is None:
        return "always"
    value = meta.get("inclusion")
    return value.strip() if isinstance(value, str) else None


def patterns_of(meta: Mapping[str, object]) -> list[str]:
    """``fileMatchPattern`` as a list of globs (one string or a list of strings)."""
    value = meta.get("fileMatchPattern")
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    return split_globs(value) if isinstance(value, list) else []


class _Steering:
    def __init__(self, cwd: str, file: str | None, b: ViewBuilder,
                 approval: Approval | None = None) -> None:
        self.cwd = cwd
        self.file = file
        self.b = b
        #: Where a reference may be opened, decided before any access (issue 19).
        self.approval = approval or Approval.of([cwd])

    def add(self, path: str, when: When, why: str, kind: str, role: Role, body: str) -> None:
        if self.b.add(ViewFile(path, when, why, kind, role, fsio.size(path), body)):
            self._references(path, body, when, role)

    def _references(self, owner: str, text: str, when: When, role: Role) -> None:
        for offset, spec in kiro_references(text):
            line = line_of(text, offset)
            target = os.path.normpath(os.path.join(self.cwd, spec))
            where = f"#[[file:{spec}]] in {os.path.basename(owner)}:{line}"
            real = self.approval.resolve(target)
            if real is None:
                self.b.imports.append(ImportEdge(owner, line, spec, target, "needs-approval", 1))
                self.b.skip(target, "import-needs-approval", f"{where} points outside the"
                            " workspace: outside, needs approval; RuleLens does not open it",
                            owner)
                continue
            if not fsio.is_file(real):
                self.b.imports.append(ImportEdge(owner, line, spec, target, "missing", 1))
                self.b.skip(target, "reference-missing", f"{where}: no such file in the"
                            f" workspace ({DOCS})", owner)
                continue
            self.b.imports.append(ImportEdge(owner, line, spec, target, "inlined", 1))
            self.b.add(ViewFile(target, when, f"referenced by {where}, included with it"
                                f" ({DOCS}; references inside it are not followed here)",
                                "import", role, fsio.size(real),
                                fsio.read_text(real) or "", imported_by=owner))

    def steering_file(self, path: str, role: Role) -> None:
        text = fsio.read_text(path)
        if text is None:
            self.b.skip(path, "unreadable", "cannot be read")
            return
        meta, body, err = yaml_meta(text)
        where = "global steering (~/.kiro/steering)" if role == "home" else "workspace steering"
        inclusion = inclusion_of(meta) if err is None else None
        if inclusion == "always":
            said = "inclusion: always" if "inclusion" in meta else "no inclusion (always)"
            self.add(path, "start", f"{said} — {where}, in every interaction ({DOCS})",
                     "rule", role, body)
        elif inclusion == "fileMatch":
            self._file_match(path, meta, body, role, where)
        elif inclusion == "auto":
            desc = meta.get("description")
            said = f" (\"{desc.strip()[:80]}\")" if isinstance(desc, str) and desc.strip() else ""
            self.add(path, "may", f"inclusion: auto{said} — {where}, included when the request"
                     f" matches its description ({DOCS})", "rule", role, body)
        elif inclusion == "manual":
            stem = os.path.basename(path).rsplit(".", 1)[0]
            self.b.skip(path, "manual", f"inclusion: manual — {where}, included only when"
                        f" referenced as #{stem} in chat ({DOCS})")
        elif err is not None:
            self.b.skip(path, "bad-frontmatter", f"front matter does not parse ({err}); how"
                        f" Kiro treats such a file is not documented ({DOCS})")
        else:
            self.b.skip(path, "unknown-inclusion", f"inclusion: {meta.get('inclusion')!r} is"
                        f" not one of {', '.join(INCLUSIONS)}; what Kiro does with it is not"
                        f" documented ({DOCS})")

    def _file_match(self, path: str, meta: Mapping[str, object], body: str, role: Role,
                    where: str) -> None:
        globs = patterns_of(meta)
        if role == "home":
            self.b.skip(path, "global-filematch", "inclusion: fileMatch in the global folder"
                        " never triggers: Kiro loads fileMatch steering only from the"
                        f" workspace's .kiro/steering (observed, {GLOBAL_FILEMATCH}; the docs"
                        " do not say so)", evidence="observed", source=GLOBAL_FILEMATCH_SRC)
            return
        if not globs:
            self.b.skip(path, "no-pattern", f"inclusion: fileMatch without fileMatchPattern:"
                        f" it matches no file ({DOCS})")
            return
        rel = _rel(self.file, self.cwd)
        hit = first_match(globs, rel) if rel is not None else None
        if hit is not None:
            self.add(path, "on-read", f"inclusion: fileMatch, {hit} matches {rel}; included"
                     f" when this file is in context ({DOCS})", "rule", role, body)
        else:
            self.b.skip(path, "pattern-no-match", f"inclusion: fileMatch, {', '.join(globs)} —"
                        f" does not match {rel or 'this file'} ({DOCS})")


def _steering_files(d: str) -> list[str]:
    return [p for p in fsio.walk_files(d, ".md") if os.path.dirname(p) == d]


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    st = _Steering(cwd, file, b, Approval.of([cwd, *(workspace_roots() or ()),
                                             os.path.dirname(steering_home(env))]))
    for path in _steering_files(steering_home(env)):
        st.steering_file(path, "home")
    for path in _steering_files(os.path.join(cwd, STEERING)):
        st.steering_file(path, "project")
    agents = os.path.join(cwd, "AGENTS.md")
    if fsio.is_file(agents):
        st.add(agents, "start", f"AGENTS.md at the workspace root, always included ({DOCS})",
               "project", "project", fsio.read_text(agents) or "")
    b.notes.append("Where global and workspace steering conflict, the workspace wins"
                   f" ({DOCS}).")
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     imports=tuple(b.imports), notes=tuple(b.notes), basis="docs",
                     basis_label=DOCS, rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Kiro", display=DISPLAY, profiles=(PROFILE,),
    markers=(".kiro/steering",),
    formats=("kiro-steering",), view=view,
)
