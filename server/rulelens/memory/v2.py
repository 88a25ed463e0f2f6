"""Memory v2 as Grok Build keeps it today (addendum §A7.1, §A7.3–A7.6, §A7.17).

Pure layout and text, plus the one write (``/remember`` into the inbox):

* :func:`resolve_enablement`: which store the agent uses and why (§A7.1's resolution order);
* :class:`V2Location`: ``$GROK_HOME/memory-v2/{global,workspaces/<slug>-<hash8>}`` (§A7.3);
* :func:`list_v2_files`: the files v2 indexes, in the agent's order (§A7.4);
* :func:`render_manifest`: the generated ``MEMORY.md`` byte for byte, with its budgets (§A7.5);
* :func:`format_v2_memory_context`: the injected manifest block (§A7.6);
* :func:`save_remember_note`: a ``remember-<id>.md`` published into the inbox (§A7.17).

Which Grok has v2 at all is the agent profile's business (:class:`MemoryFeatures`): Grok
1.0.6 only knows the legacy store, Grok 1.0.45 has both and the first-turn framing sentence.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from rulelens.agents.rusttext import trim
from rulelens.memory.beneath import Refused, SkippedFile, kind_of, read_head_beneath
from rulelens.memory.remember import RememberError, normalize_memory_content
from rulelens.memory.settings import _env_bool
from rulelens.memory.workspace import WorkspaceName, compute_workspace_name, is_ephemeral_cwd

Mode = Literal["legacy", "v2"]

# -- which Grok ----------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryFeatures:
    """What one Grok version's memory has (from the agent profile's version)."""

    agent: str
    version: tuple[int, ...]
    has_v2: bool  # ``[memory_v2]`` exists (§A7.1); 1.0.6 has only the legacy store
    framing_sentence: bool  # the first-turn block's "Treat memory as …" line (§A7.13)


#: The oldest version read with v2 and the framing sentence (24b1106); 1.0.6 had neither.
V2_SINCE = (1, 0, 45)


def features_for(agent: str | None) -> MemoryFeatures:
    """The memory of a Grok profile (``grok`` = the newest, ``grok@1.0.6``, ``grok@1.0.45``):
    the agent profile table decides which versions exist; an unknown id is a ValueError."""
    from rulelens.agents.profiles import grok_profile, version_key

    row = grok_profile(agent)
    version = version_key(row.version)
    newer = version >= V2_SINCE
    return MemoryFeatures(row.id, version, newer, newer)


# -- §A7.1 enablement ------------------------------------------------------------------

Origin = Literal["cli", "env", "toml", "remote", "default"]


@dataclass(frozen=True)
class Enablement:
    """The agent's ``MemoryConfig::resolve_settings`` for this machine, with reasons."""

    enabled: bool
    mode: Mode
    legacy_enabled: bool
    legacy_origin: Origin
    v2_selected: bool | None
    v2_origin: Origin
    force_disabled: bool
    globally_disabled: bool
    rollout: str = "active"
    reason: str = ""
    notes: tuple[str, ...] = ()

    @property
    def exposed_to_model(self) -> bool:
        """Whether the model sees memory: v2's ``shadow``/``record_only``/``off`` hide it."""
        return self.enabled and (self.mode == "legacy" or self.rollout == "active")

    def to_json(self) -> dict[str, object]:
        return {"enabled": self.enabled, "mode": self.mode, "legacy_enabled": self.legacy_enabled,
                "legacy_origin": self.legacy_origin, "v2_selected": self.v2_selected,
                "v2_origin": self.v2_origin, "force_disabled": self.force_disabled,
                "globally_disabled": self.globally_disabled, "rollout": self.rollout,
                "exposed_to_model": self.exposed_to_model, "reason": self.reason,
                "notes": list(self.notes)}


ROLLOUTS = ("off", "record_only", "shadow", "active")


def _toml_bool(table: object, key: str, where: str) -> bool | None:
    if not isinstance(table, dict) or key not in table:
        return None
    value = table[key]
    if not isinstance(value, bool):
        from rulelens.agents.compat import ConfigError

        raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def resolve_enablement(config: Mapping[str, object], env: Mapping[str, str],
                       features: MemoryFeatures, *, config_path: str = "config.toml",
                       cli: bool | None = None, remote_legacy: bool | None = None,
                       remote_v2: bool | None = None) -> Enablement:
    """§A7.1: legacy flag by CLI > env > TOML > remote > default false; v2 by local TOML,
    else remote; GROK_MEMORY=0 / --no-memory turn both off; a TOML ``[memory] enabled =
    false`` turns both off unless the same TOML selects v2. ``cli`` is ``--no-memory``
    (False) / ``--experimental-memory`` (True) of the session being modelled. The remote
    values are the account's gates, which RuleLens cannot read (None: unknown, treated as
    unset, and said in the notes when it could change the answer)."""
    memory = config.get("memory")
    toml_legacy = _toml_bool(memory, "enabled", f"{config_path} [memory]")
    v2_table = config.get("memory_v2") if features.has_v2 else None
    toml_v2 = _toml_bool(v2_table, "enabled", f"{config_path} [memory_v2]")
    env_value = _env_bool(env.get("GROK_MEMORY"))
    legacy: bool
    origin: Origin
    if cli is not None:
        legacy, origin = cli, "cli"
    elif env_value is not None:
        legacy, origin = env_value, "env"
    elif toml_legacy is not None:
        legacy, origin = toml_legacy, "toml"
    elif remote_legacy is not None:
        legacy, origin = remote_legacy, "remote"
    else:
        legacy, origin = False, "default"
    v2_selected: bool | None = None
    v2_origin: Origin = "default"
    if features.has_v2:
        if toml_v2 is not None:
            v2_selected, v2_origin = toml_v2, "toml"
        elif remote_v2 is not None:
            v2_selected, v2_origin = remote_v2, "remote"
    force = not legacy and origin in ("cli", "env")
    globally = force or (not legacy and origin == "toml" and toml_v2 is not True)
    selected = v2_selected is True
    enabled = not globally and (selected or legacy)
    mode: Mode = "v2" if selected else "legacy"
    rollout = "active"
    if isinstance(v2_table, dict) and isinstance(v2_table.get("rollout"), str):
        rollout = str(v2_table["rollout"])
    e = Enablement(enabled, mode, legacy, origin, v2_selected, v2_origin, force, globally,
                   rollout)
    return _explained(e, features, config_path, env)


def _origin_text(origin: Origin, value: bool, config_path: str, env: Mapping[str, str],
                 cli_text: str, key: str) -> str:
    if origin == "cli":
        return cli_text
    if origin == "env":
        return f"GROK_MEMORY={env.get('GROK_MEMORY', '').strip()}"
    if origin == "toml":
        return f"`{key} = {'true' if value else 'false'}` in {config_path}"
    return "the account's remote setting"


def _explained(e: Enablement, features: MemoryFeatures, config_path: str,
               env: Mapping[str, str]) -> Enablement:
    legacy_why = _origin_text(e.legacy_origin, e.legacy_enabled, config_path, env,
                              "--no-memory" if not e.legacy_enabled else "--experimental-memory",
                              "[memory] enabled")
    notes: list[str] = []
    if not e.enabled:
        if e.legacy_origin == "default":
            reason = ("memory: off — the agent's default; enable with `[memory] enabled = true`"
                      " or `GROK_MEMORY=1`")
        elif e.force_disabled:
            reason = f"memory: off — {legacy_why} turns off both stores (it beats config.toml)"
        else:
            reason = f"memory: off — {legacy_why}"
            if features.has_v2:
                reason += " (and the same file does not set `[memory_v2] enabled = true`)"
        if features.has_v2 and e.v2_selected is None:
            notes.append("the account's remote gates (memory_enabled, memory_v2.enabled) are"
                         " not readable here; they can only turn memory on when config.toml"
                         " and GROK_MEMORY leave it unset")
    elif e.mode == "v2":
        why = _origin_text(e.v2_origin, True, config_path, env, "", "[memory_v2] enabled")
        reason = (f"memory: on, memory v2 (memory-v2/) — {why}; the legacy store is not read"
                  " and its writes are refused")
        if e.rollout != "active":
            notes.append(f"[memory_v2] rollout = {e.rollout!r}: the model does not see memory"
                         " (only 'active' exposes it)")
    else:
        reason = f"memory: on, legacy store (memory/) — {legacy_why}"
        if features.has_v2:
            reason += "; `[memory_v2] enabled = true` would switch to memory v2"
    return Enablement(e.enabled, e.mode, e.legacy_enabled, e.legacy_origin, e.v2_selected,
                      e.v2_origin, e.force_disabled, e.globally_disabled, e.rollout, reason,
                      tuple(notes))


# -- §A7.3 layout ----------------------------------------------------------------------

ScopeKind = Literal["global", "workspace"]


@dataclass(frozen=True)
class Scope:
    kind: ScopeKind
    dir: str

    @property
    def manifest(self) -> str:
        return os.path.join(self.dir, "MEMORY.md")

    @property
    def topics(self) -> str:
        return os.path.join(self.dir, "topics")

    @property
    def inbox(self) -> str:
        return os.path.join(self.dir, "observations", "_inbox")

    @property
    def agent_index(self) -> str:
        return os.path.join(self.dir, "index.sqlite")


@dataclass(frozen=True)
class V2Location:
    """The v2 root and its two scopes for a session cwd (same ``<slug>-<hash8>`` as legacy)."""

    cwd: str
    root: str
    workspace: WorkspaceName
    ephemeral: bool

    @property
    def global_scope(self) -> Scope:
        return Scope("global", os.path.join(self.root, "global"))

    @property
    def workspace_scope(self) -> Scope:
        return Scope("workspace", os.path.join(self.root, "workspaces", self.workspace.name))

    def scopes(self) -> tuple[Scope, Scope]:
        return self.global_scope, self.workspace_scope

    def classify_source(self, path: str) -> str:
        """§A7.4 ``classify_source``: under the workspace scope, under global, else session."""
        for scope in (self.workspace_scope, self.global_scope):
            if path == scope.dir or path.startswith(scope.dir + os.sep):
                return scope.kind
        return "session"


def locate_v2(cwd: str, grok_home: str, root_override: str | None = None) -> V2Location:
    root = root_override or os.path.join(grok_home, "memory-v2")
    return V2Location(cwd, root, compute_workspace_name(cwd), is_ephemeral_cwd(cwd))


def scope_problem(root: str, scope: Scope) -> str | None:
    """Why the agent refuses this scope (a symlinked component, an escape), or None."""
    rel = os.path.relpath(scope.dir, root)
    path = root
    for part in [""] + [p for p in rel.split(os.sep) if p not in ("", ".")]:
        path = os.path.join(path, part) if part else path
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return f"{path} is a symlink; memory v2 refuses symlinked scope components"
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{path}: {exc.strerror or exc}"
    real_root, real = os.path.realpath(root), os.path.realpath(scope.dir)
    if not (real == real_root or real.startswith(real_root + os.sep)):
        return f"{scope.dir} resolves outside {root}; memory v2 refuses it"
    return None


# -- §A7.4 files -----------------------------------------------------------------------

MAX_DIR_ENTRIES = 100_000
MAX_FILES = 10_000


@dataclass(frozen=True)
class V2File:
    path: str
    source: str  # "global" or "workspace": every v2 file is evergreen
    kind: Literal["manifest", "topic", "observation"]
    mtime_ns: int


def _md_files(directory: str, skipped: list[SkippedFile] | None = None
              ) -> list[tuple[str, int]]:
    """Regular, non-symlink ``*.md`` files directly in ``directory`` with their mtimes;
    the other ``*.md`` entries (links, FIFOs, devices) go to ``skipped`` with the reason.
    At most :data:`MAX_DIR_ENTRIES` entries are looked at (in directory order); a larger
    directory is listed that far and named in ``skipped``."""
    out: list[tuple[str, int]] = []
    try:
        with os.scandir(directory) as it:
            for n, entry in enumerate(it):
                if n >= MAX_DIR_ENTRIES:
                    if skipped is not None:
                        skipped.append(SkippedFile(directory, (
                            f"more than {MAX_DIR_ENTRIES} entries: only the first"
                            f" {MAX_DIR_ENTRIES} (in directory order) were looked at")))
                    break
                if os.path.splitext(entry.name)[1] != ".md":
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # removed while listed
                if stat.S_ISREG(st.st_mode):
                    out.append((entry.path, st.st_mtime_ns))
                elif skipped is not None:
                    skipped.append(_not_listed(entry.path, st.st_mode))
    except FileNotFoundError:
        return []
    except OSError as exc:  # not a directory, no permission: named, never a traceback
        if skipped is not None:
            skipped.append(SkippedFile(directory, f"cannot be listed ({exc.strerror})"))
    return out


def _not_listed(path: str, mode: int) -> SkippedFile:
    if stat.S_ISLNK(mode):
        with contextlib.suppress(OSError):
            return SkippedFile(path, f"link: a symbolic link (to {os.readlink(path)}); memory"
                                     " v2 lists regular, non-link files only")
    return SkippedFile(path, f"not-a-file: {kind_of(mode)}; memory v2 lists regular files"
                             " only")


def skipped_v2_files(location: V2Location) -> list[SkippedFile]:
    """The v2 entries neither the agent nor RuleLens reads: a scope refused as a whole, a
    ``MEMORY.md``, topic or observation that is a link or not a regular file."""
    out: list[SkippedFile] = []
    for scope in location.scopes():
        problem = scope_problem(location.root, scope)
        if problem:
            out.append(SkippedFile(scope.dir, f"scope refused: {problem}"))
            continue
        with contextlib.suppress(OSError):
            mode = os.lstat(scope.manifest).st_mode
            if not stat.S_ISREG(mode):
                out.append(_not_listed(scope.manifest, mode))
        for directory in (scope.topics, scope.inbox):
            with contextlib.suppress(OSError):
                _md_files(directory, out)
    return out


def newest_first(files: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Observations: newest mtime first; ties by path, descending (drift note in §A7.5)."""
    return sorted(files, key=lambda f: (f[1], f[0]), reverse=True)


def list_v2_files(location: V2Location) -> list[V2File]:
    """``list_memory_files`` in v2: per scope (global, then workspace) MEMORY.md, topics
    sorted by path, inbox observations newest first; capped at 10,000 files. The state
    ledger's exclusions are not read (RuleLens cannot see them)."""
    out: list[V2File] = []
    for scope in location.scopes():
        if scope_problem(location.root, scope):
            continue
        try:
            st = os.lstat(scope.manifest)
            if stat.S_ISREG(st.st_mode):
                out.append(V2File(scope.manifest, scope.kind, "manifest", st.st_mtime_ns))
        except OSError:
            pass
        out += [V2File(p, scope.kind, "topic", m) for p, m in sorted(_md_files(scope.topics))]
        out += [V2File(p, scope.kind, "observation", m)
                for p, m in newest_first(_md_files(scope.inbox))]
    return out[:MAX_FILES]


# -- §A7.5 the generated MEMORY.md -----------------------------------------------------


@dataclass(frozen=True)
class ManifestBudget:
    """``V2ManifestBudget``: default 8 KiB / 64 entries / 512-byte descriptions."""

    max_bytes: int = 8 * 1024
    max_entries: int = 64
    max_description_bytes: int = 512
    include_observations: bool = True
    compact: bool = False

    @classmethod
    def compact_budget(cls) -> ManifestBudget:
        return cls(8 * 1024, 512, 0, False, True)

    def clamped(self) -> ManifestBudget:
        return ManifestBudget(min(self.max_bytes, 16 * 1024), min(self.max_entries, 512),
                              self.max_description_bytes, self.include_observations,
                              self.compact)


READ_LIMIT = 64 * 1024
TITLE_LIMIT = 512
EMPTY_SCOPE = "No memory files have been recorded yet."
EMPTY_SCOPE_COMPACT = "No topics have been recorded yet."


def _cut_bytes(text: str, limit: int) -> str:
    """The longest prefix of at most ``limit`` UTF-8 bytes ending on a character boundary."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def _inline(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("`", "'")


def manifest_header(kind: ScopeKind, scope_dir: str) -> str:
    title = "# Global memory index" if kind == "global" else "# Workspace memory index"
    return (f"{title}\n\n> Generated by Grok. Do not edit this file directly.\n"
            f"> Paths are relative to `{_inline(scope_dir)}`.\n")


@dataclass(frozen=True)
class ManifestEntry:
    rel: str
    title: str
    description: str


def read_entry(scope_dir: str, path: str, rel: str, max_description_bytes: int
               ) -> ManifestEntry:
    """Title (first ``#`` line, else the stem) and description (first plain line). The
    file is opened beneath ``scope_dir`` without blocking, its first 64 KiB read: a file
    that became a FIFO, a device or a link out of the scope since it was listed reads as
    empty (the title falls back to the stem, as for a file the agent cannot read)."""
    try:
        text = read_head_beneath(scope_dir, path, READ_LIMIT).decode("utf-8", "replace")
    except Refused:
        text = ""
    title = ""
    description = ""
    for line in text.splitlines():
        t = trim(line)
        if not t:
            continue
        if not title and t.startswith("#"):
            title = trim(t.lstrip("#"))
        if not description and not t.startswith(("#", "<!--", ">")):
            description = t
        if title and description:
            break
    if not title:
        title = os.path.splitext(os.path.basename(path))[0]
    title = _inline(_cut_bytes(title, TITLE_LIMIT))
    return ManifestEntry(rel, title, _cut_bytes(description, max_description_bytes))


def _entry_text(entry: ManifestEntry, with_description: bool) -> str:
    desc = f" — {entry.description}" if with_description and entry.description else ""
    return f"\n- **{entry.title}**{desc} (`{entry.rel}`)\n"


def render_manifest(scope: Scope, budget: ManifestBudget | None = None,
                    topic_reads: Mapping[str, int] | None = None) -> str:
    """``render_manifest_from_source`` for one scope, byte for byte (§A7.5)."""
    b = (budget or ManifestBudget()).clamped()
    header = _cut_bytes(manifest_header(scope.kind, scope.dir), b.max_bytes)
    topics = sorted(_md_files(scope.topics))
    if b.compact and topic_reads is not None:
        topics.sort(key=lambda t: -topic_reads.get(os.path.relpath(t[0], scope.dir), 0))
    observations = newest_first(_md_files(scope.inbox)) if b.include_observations else []
    if not topics and not observations:
        return f"{header}\n{EMPTY_SCOPE_COMPACT if b.compact else EMPTY_SCOPE}\n"
    out = header
    entries = 0
    budget_bytes = b.max_bytes * 3 // 4 if b.compact else b.max_bytes
    unlisted: list[str] = []
    section = False
    for path, _ in topics:
        rel = os.path.relpath(path, scope.dir)
        if entries >= b.max_entries:
            unlisted.append(rel)
            continue
        entry = read_entry(scope.dir, path, rel, b.max_description_bytes)
        piece = ("" if section else "\n## Topics\n") + _entry_text(entry, not b.compact)
        if len((out + piece).encode()) > budget_bytes:
            unlisted.append(rel)
            continue
        out += piece
        section = True
        entries += 1
    if b.compact and unlisted:
        out = _more_topics(out, unlisted, b.max_bytes)
    section = False
    for path, _ in observations:
        if entries >= b.max_entries:
            break
        entry = read_entry(scope.dir, path, os.path.relpath(path, scope.dir),
                           b.max_description_bytes)
        piece = ("" if section else "\n## Pending observations\n") + _entry_text(entry, False)
        if len((out + piece).encode()) > b.max_bytes:
            break
        out += piece
        section = True
        entries += 1
    return out


def _more_topics(out: str, unlisted: list[str], max_bytes: int) -> str:
    """Compact mode: the remaining topics by slug, then a count of those that did not fit."""
    reserve = 128
    slugs = sorted(os.path.splitext(os.path.relpath(r, "topics"))[0] for r in unlisted)
    head = "\n## More topics\n\nBy file name under `topics/`:"
    listed = 0
    line = head
    for slug in slugs:
        piece = f" {slug}"
        if len((out + line + piece + "\n").encode()) > max_bytes - reserve:
            break
        line += piece
        listed += 1
    if listed:
        out += line + "\n"
    rest = len(slugs) - listed
    tail = f"\n{rest} more topics are not listed.\n"
    if rest and len((out + tail).encode()) <= max_bytes:
        out += tail
    return out


# -- §A7.6 injection -------------------------------------------------------------------


def format_v2_memory_context(location: V2Location, budget: ManifestBudget | None = None
                             ) -> str:
    """``format_v2_memory_context``: both scopes' manifests as the agent injects them.

    The agent also *writes* both manifests at this point; RuleLens only renders them.
    """
    g, w = location.global_scope, location.workspace_scope
    return (f"<memory-context>\n## Global memory manifest\n**Scope root:** `{g.dir}`\n\n"
            f"{render_manifest(g, budget)}\n## Workspace memory manifest\n**Scope root:**"
            f" `{w.dir}`\n\n{render_manifest(w, budget)}\n</memory-context>")


# -- §A7.17 /remember ------------------------------------------------------------------

OBSERVATION_LIMIT = 65_536


class ObservationTooLarge(RememberError):
    """``SaveRememberNoteError::V2(ObservationTooLarge)``."""


@dataclass(frozen=True)
class V2Note:
    path: str
    text: str


def plan_v2_note(text: str) -> str:
    """The exact bytes ``/remember`` would write; the size refusal before the empty check."""
    normalised = normalize_memory_content(text)
    size = len(normalised.encode("utf-8"))
    if size > OBSERVATION_LIMIT:
        raise ObservationTooLarge(f"memory observation is {size} bytes, exceeding the"
                                  f" {OBSERVATION_LIMIT}-byte limit")
    if not normalised:
        raise RememberError("the note is empty; nothing would be written")
    return normalised


def _ensure_scope_dirs(scope: Scope) -> None:
    """The scope's directories, created 0700 where missing (the agent's initialisation)."""
    for part in ("topics", "observations", os.path.join("observations", "_inbox"), "archive"):
        os.makedirs(os.path.join(scope.dir, part), mode=0o700, exist_ok=True)


def save_remember_note(location: V2Location, text: str) -> V2Note:
    """Write ``remember-<id>.md`` into the **global** inbox: temp file, fsync, then a
    publish that never overwrites (``os.link``), then the temp name is removed. The
    manifest is not edited (the agent regenerates it at its next scope initialisation)."""
    normalised = plan_v2_note(text)
    scope = location.global_scope
    problem = scope_problem(location.root, scope)
    if problem:
        raise RememberError(problem)
    try:
        _ensure_scope_dirs(scope)
    except OSError as exc:
        raise RememberError(f"{scope.inbox}: cannot create ({exc.strerror or exc})") from exc
    data = normalised.encode("utf-8")
    for _ in range(8):
        token = secrets.token_hex(8)
        tmp = os.path.join(scope.inbox, f".remember-{token}.tmp")
        final = os.path.join(scope.inbox, f"remember-{token}.md")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise RememberError(f"{tmp}: cannot write ({exc.strerror or exc})") from exc
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            try:
                os.link(tmp, final)  # fails instead of overwriting
            except FileExistsError:
                continue
            _fsync_dir(scope.inbox)
            return V2Note(final, normalised)
        except OSError as exc:
            raise RememberError(f"{final}: cannot write ({exc.strerror or exc})") from exc
        finally:
            with contextlib.suppress(OSError):
                os.remove(tmp)
    raise RememberError(f"{scope.inbox}: could not find a free file name")


def _fsync_dir(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
