"""``rulelens verify``: an agent's last session in a directory against RuleLens's prediction.

The prediction is the agent's view (``rulelens.rules.perfile.views_for_file``) for the
start directory and the file; the observation is what the agent's own session record shows
it injected (:mod:`rulelens.sessions`). The answer is one JSON object (``docs/cli.md``):
``agent``, ``session``, ``verdict`` (``match`` | ``differs`` | ``unknown``), ``reason``,
``observed`` (path, when, ``matches_disk``) and ``differences`` (path, predicted,
observed). What an agent does not record is neither observed nor absent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rulelens.agents import safeio
from rulelens.agents.profiles import UnknownAgent, profile, version_key
from rulelens.agents.view import AgentView, ViewFile
from rulelens.rules.perfile import ResolveChain, views_for_file
from rulelens.sessions import NOTHING_RECORDED, reader
from rulelens.sessions.model import Record, SeenFile, SessionRef, same_dir, sort_key

Verdict = dict[str, Any]


class SessionNotFound(ValueError):
    """``--session ID|FILE`` names nothing this agent recorded (a usage error)."""


@dataclass(frozen=True)
class Observed:
    path: str
    when: str
    matches_disk: bool


def family(agent: str) -> str:
    return agent.split("@", 1)[0]


def find(agent: str, env: Mapping[str, str], cwd: str, spec: str = "latest"
         ) -> SessionRef | None:
    """The newest session of ``agent`` recorded in ``cwd`` (``latest``), the one whose id
    is ``spec``, or the session file/folder ``spec`` names; None when there is none."""
    mod = reader(agent)
    if mod is None:
        return None
    if spec != "latest" and (os.sep in spec or os.path.exists(spec)):
        if not os.path.lexists(spec):
            raise SessionNotFound(f"{spec}: no such session file")
        ref: SessionRef | None = mod.ref_of(spec, env, cwd)
        if ref is None:
            raise SessionNotFound(f"{spec}: not a {family(agent)} session file RuleLens can"
                                  " read")
        return ref
    if spec != "latest":
        candidates: list[SessionRef] = list(mod.sessions(env, cwd))
        if family(agent) == "claude":  # the slug folder of another directory
            candidates += mod.sessions(env, None)
        for candidate in candidates:
            if candidate.id == spec or (candidate.id.startswith(spec) and len(spec) >= 8):
                return candidate
        raise SessionNotFound(f"no {family(agent)} session with id {spec}")
    found: list[SessionRef] = []
    for ref in mod.sessions(env, cwd):
        if same_dir(ref.cwd, cwd):
            found.append(ref)
            if getattr(mod, "NEWEST_FIRST", False):
                break  # the listing is in start order: no older header needs reading
    found.sort(key=sort_key, reverse=True)
    return found[0] if found else None


def seen_versions(env: Mapping[str, str], agents: Iterable[str]) -> dict[str, str | None]:
    """Per agent family, the newest agent version any of this machine's sessions records:
    ``""`` when there are sessions but none records a version, None when there are none."""
    out: dict[str, str | None] = {}
    for agent in agents:
        mod = reader(agent)
        best: str | None = None
        if mod is not None:
            for ref in mod.sessions(env, None):
                v = ref.agent_version or ""
                if best is None or (v and (not best or version_key(v) > version_key(best))):
                    best = v
        out[family(agent)] = best
    return out


def drift(agent: str, seen: str | None, display: str) -> str | None:
    """A sentence when the session's agent version is newer than the modelled profile."""
    if not seen:
        return None
    try:
        modelled = profile(agent).version
    except UnknownAgent:
        return None
    if not re.fullmatch(r"\d+(\.\d+)*", modelled) or not re.match(r"\d+(\.\d+)*", seen):
        return (f"The session is {display} {seen}; RuleLens models {display} {modelled}"
                " (no version number to compare).")
    mk = version_key(modelled)
    if version_key(seen)[:len(mk)] > mk:
        return (f"Drift: the session is {display} {seen}, newer than the {modelled} RuleLens"
                " models; the prediction may be stale.")
    return None


# ---------------------------------------------------------------- matching
def _disk_text(path: str) -> str | None:
    try:
        return safeio.read_bytes(path).decode("utf-8", "replace")
    except OSError:
        return None


def _same(seen: str, vf: ViewFile | None, path: str) -> bool:
    """The text the session got equals what the agent would inject from today's bytes."""
    candidates: set[str] = set()
    if vf is not None:
        candidates |= {vf.content, vf.content.strip()}
    disk = _disk_text(path)
    if disk is not None:
        candidates |= {disk, disk.strip(), _body(disk)}
    return seen in candidates or seen.strip() in candidates


def _body(text: str) -> str:
    """A rule's text after YAML frontmatter (leading white space trimmed), as Grok sends."""
    t = text.lstrip()
    if t.startswith("---"):
        end = t.find("\n---", 3)
        if end >= 0:
            return t[end + 4:].lstrip()
    return t


def codex_observed(view: AgentView, body: str, env: Mapping[str, str]
                   ) -> tuple[list[Observed], list[str]]:
    """Attribute Codex's pathless block to files by content and order (research fact 12):
    the global file first, then the project files root → start directory; a segment equal
    to a file's text is that file unchanged, a segment in a file's place that differs is
    that file changed since, a segment equal to a file the prediction does not load is
    that file."""
    from rulelens.agents.codex import SEPARATOR, codex_home, escape_close_tag

    starts = [f for f in view.files if f.when == "start"]
    home_file = next((f for f in starts if f.role == "home"), None)
    project = [f for f in starts if f.role == "project"]
    out: list[Observed] = []
    notes: list[str] = []
    if SEPARATOR in body:
        global_part: str | None
        global_part, project_part = body.split(SEPARATOR, 1)
    elif home_file is not None and (body == escape_close_tag(home_file.content)
                                    or not project):
        global_part, project_part = body, ""
    else:
        global_part, project_part = None, body
    if global_part is not None:
        if home_file is not None:
            out.append(Observed(home_file.path, "start",
                                global_part == escape_close_tag(home_file.content)))
        else:
            path = os.path.join(codex_home(env), "AGENTS.md")
            out.append(Observed(path, "start", False))
    if not project_part:
        return out, notes
    anchors: list[tuple[ViewFile | None, int | None, int]] = []
    pos = 0
    for f in project:
        at = _find_segment(project_part, escape_close_tag(f.content), pos)
        if at is not None:
            pos = at + len(escape_close_tag(f.content))
        anchors.append((f, at, pos))
    anchors.append((None, len(project_part), len(project_part)))  # the end of the text
    prev_end = 0
    waiting: list[ViewFile] = []
    for anchor, start, end in anchors:
        if start is None:
            if anchor is not None:
                waiting.append(anchor)
            continue
        gap = project_part[prev_end:start]
        if prev_end and gap.startswith("\n\n"):
            gap = gap[2:]
        if gap.endswith("\n\n") and anchor is not None:
            gap = gap[:-2]
        if gap.strip():
            other = _not_loaded_match(view, gap)
            if other is not None:
                out.append(Observed(other, "start", True))
            elif waiting:
                out.append(Observed(waiting.pop(0).path, "start", False))
                if waiting:
                    notes.append("the changed text between two known files could belong to"
                                 f" {len(waiting) + 1} files; it is attributed to the first")
            else:
                notes.append(f"{len(gap)} characters of the injected text match no file"
                             " RuleLens knows here")
                out.append(Observed("(unattributed text)", "start", False))
        waiting = []
        if anchor is not None:
            out.append(Observed(anchor.path, "start", True))
            prev_end = end
    return out, notes


def _find_segment(text: str, segment: str, pos: int) -> int | None:
    """Where ``segment`` stands in ``text`` from ``pos`` as a whole ``\\n\\n``-joined piece."""
    if not segment:
        return None
    at = text.find(segment, pos)
    while at >= 0:
        starts = at == pos or text[at - 2:at] == "\n\n"
        end = at + len(segment)
        ends = end == len(text) or text[end:end + 2] == "\n\n"
        if starts and ends:
            return at
        at = text.find(segment, at + 1)
    return None


def _not_loaded_match(view: AgentView, gap: str) -> str | None:
    from rulelens.agents.codex import escape_close_tag

    for s in view.not_loaded:
        text = _disk_text(s.path)
        if text is not None and gap in (escape_close_tag(text), escape_close_tag(text.strip())):
            return s.path
    return None


# ---------------------------------------------------------------- the verdict
def _on_path(path: str, cwd: str, file: str | None) -> bool:
    """An instruction file in a directory between the start directory and the file."""
    d = os.path.dirname(path)
    target = os.path.dirname(file) if file else cwd
    return target == d or target.startswith(d.rstrip(os.sep) + os.sep)


def _when(started: str | None) -> str:
    if not started:
        return "(no start time recorded)"
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).strftime(
            "%Y-%m-%d %H:%M UTC")
    except ValueError:
        return started


def compare(view: AgentView, rec: Record, file: str | None, env: Mapping[str, str]
            ) -> tuple[list[Observed], list[dict[str, str]], list[str], int]:
    """(observed, differences, notes, unrelated on-read files)."""
    notes: list[str] = []
    observed: list[Observed] = []
    if rec.start_text is not None or (rec.start_text_seen and family(view.agent) == "codex"):
        found, more = codex_observed(view, rec.start_text or "", env)
        observed += found
        notes += more
    for seen in rec.files:
        observed.append(Observed(seen.path, seen.when, _same(seen.content, _view_file(view,
                                                                                    seen),
                                                             seen.path)))
    predicted = {f.path: f.when for f in view.files}
    differences: list[dict[str, str]] = []
    unrelated = 0
    kept: list[Observed] = []
    for o in observed:
        p = predicted.get(o.path, "no")
        if o.when == "on-read" and p == "no" and not _on_path(o.path, view.cwd, file):
            unrelated += 1  # pulled in for another file the session worked on
            continue
        kept.append(o)
        if p != o.when:
            differences.append({"path": o.path, "predicted": p, "observed": o.when})
    seen_paths = {o.path for o in observed}
    if file is not None and file in rec.touched:  # the session worked on this very file
        for f in view.files:
            if f.when == "on-read" and f.path not in seen_paths:
                differences.append({"path": f.path, "predicted": "on-read",
                                    "observed": "absent"})
    if "start" not in rec.unrecorded and rec.start_text_seen:
        for f in view.files:
            if f.when == "start" and f.path not in seen_paths:
                differences.append({"path": f.path, "predicted": "start",
                                    "observed": "absent"})
    return kept, differences, notes, unrelated


def _view_file(view: AgentView, seen: SeenFile) -> ViewFile | None:
    found = view.find(seen.path)
    return found if isinstance(found, ViewFile) else None


def _display(fam: str) -> str:
    """``Codex CLI`` for ``codex`` (the registry's name)."""
    from rulelens.agents import registry

    return registry.get(fam).display if registry.known(fam) else fam


def _rel(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def verify(agent: str, cwd: str, path: str | None, env: Mapping[str, str],
           resolve: ResolveChain, spec: str = "latest") -> Verdict:
    """The ``rulelens verify --json`` object (raises :class:`SessionNotFound` for a
    ``--session`` that names nothing, ``ValueError`` for an unknown agent)."""
    cwd = os.path.abspath(cwd)
    absolute = os.path.abspath(path) if path else cwd
    file = None if os.path.isdir(absolute) else absolute
    fam = family(agent)
    base: Verdict = {"agent": agent, "session": None, "verdict": "unknown", "reason": "",
                     "observed": [], "differences": []}
    if fam in NOTHING_RECORDED:
        base["reason"] = NOTHING_RECORDED[fam] + ": nothing to compare."
        return base
    mod = reader(fam)
    if mod is None:
        base["reason"] = (f"RuleLens does not know where or how {fam} records its sessions"
                          " (not researched yet): nothing to compare.")
        return base
    ref = find(agent, env, cwd, spec)
    if ref is None:  # said before any view is computed: the hover asks this often
        display = _display(fam)
        base["reason"] = (f"No {display} session recorded in {cwd} yet (looked in"
                          f" {mod.root(env)}); start {display} there, then run verify"
                          " again.")
        return base
    view = views_for_file(file, cwd, [agent], env, resolve)[0]
    base["session"] = ref.to_json()
    rec = mod.read(ref, env)
    skipped = rec.stats.sentence()
    extra = [f"{skipped[0].upper()}{skipped[1:]} while reading the session."] if skipped else []
    version_note = drift(agent, ref.agent_version, view.display)
    if rec.problem is not None:
        base["reason"] = " ".join([f"Unknown: {rec.problem}.", *extra,
                                   *([version_note] if version_note else [])])
        return base
    observed, differences, notes, unrelated = compare(view, rec, file, env)
    base["observed"] = [{"path": o.path, "when": o.when, "matches_disk": o.matches_disk}
                        for o in observed]
    base["differences"] = differences
    session_words = f"your {view.display} session of {_when(ref.started)}"
    root = view.root or cwd
    parts: list[str] = []
    if differences:
        base["verdict"] = "differs"
        said = [f"{_rel(d['path'], root)} predicted {d['predicted']}, {d['observed']} in the"
                " session" for d in differences]
        parts.append(f"Differs from {session_words}: " + "; ".join(said) + ".")
    elif not observed and "start" in rec.unrecorded:
        base["verdict"] = "unknown"
        parts.append(f"Nothing to compare in {session_words}: {rec.unrecorded_why}, and the"
                     " session pulled in no instruction file on read for this file.")
    else:
        base["verdict"] = "match"
        starts = sum(1 for o in observed if o.when == "start")
        reads = len(observed) - starts
        parts.append(f"Matches {session_words}: {starts} file(s) at start"
                     + (f", {reads} on read" if reads else "") + ".")
    if "start" in rec.unrecorded and base["verdict"] != "unknown":
        parts.append(f"Not compared: {rec.unrecorded_why}.")
    stale = [o for o in observed if not o.matches_disk]
    if stale:
        parts.append("Edited since the session: " + ", ".join(_rel(o.path, root)
                                                              for o in stale) + ".")
    if unrelated:
        parts.append(f"{unrelated} file(s) the session pulled in for other files are not"
                     " compared.")
    parts += notes + rec.notes + extra
    if version_note:
        parts.append(version_note)
    base["reason"] = " ".join(parts)
    return base


def exit_code(result: Verdict) -> int:
    """0 for match or unknown, 1 for differs."""
    return 1 if result.get("verdict") == "differs" else 0


def format_text(result: Verdict) -> str:
    """The human form of :func:`verify`'s object."""
    out = [f"{result['agent']}: {result['verdict']}"]
    s = result.get("session")
    if s:
        out.append(f"session: {s['id']} ({s['started'] or 'no time'},"
                   f" version {s['agent_version'] or 'not recorded'})")
        out.append(f"         {s['path']}")
    out.append(f"reason:  {result['reason']}")
    if result["observed"]:
        out += ["", "Observed in the session:"]
        for o in result["observed"]:
            disk = "same as on disk" if o["matches_disk"] else "edited since"
            out.append(f"  {o['when']:<8} {o['path']}  ({disk})")
    if result["differences"]:
        out += ["", "Differences (predicted → observed):"]
        for d in result["differences"]:
            out.append(f"  {d['path']}: {d['predicted']} → {d['observed']}")
    return "\n".join(safeio.printable(line) for line in out) + "\n"
